// SPDX-License-Identifier: Apache-2.0
#include "core/node/replication_lag.h"

#include <algorithm>

namespace railyard::node {

namespace {

double AgeSeconds(int64_t since_us, int64_t now_us) {
  return since_us <= 0 ? 0.0 : std::max<double>(0, static_cast<double>(now_us - since_us) / 1e6);
}

}  // namespace

ReplicaLag ComputeReplicaLag(const LagInputs& in) {
  ReplicaLag lag;
  if (!in.connected) return lag;
  lag.known = true;
  if (in.applied >= in.head) return lag;  // Applied what it knows of: nothing is waiting.
  lag.bytes = in.head - in.applied;
  const bool answer_pending = in.applied < in.answer_end;
  lag.docs = in.behind_docs + (answer_pending ? in.answer_docs : 0);
  if (answer_pending && in.answer_first_append_us > 0) {
    lag.seconds = AgeSeconds(in.answer_first_append_us, in.now_us);
  } else {
    lag.seconds = AgeSeconds(in.oldest_unsent_us, in.now_us);
  }
  return lag;
}

}  // namespace railyard::node
