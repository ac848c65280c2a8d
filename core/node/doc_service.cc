// SPDX-License-Identifier: Apache-2.0
#include "core/node/doc_service.h"

#include "railyard/docservice.pb.h"

namespace railyard::node {

using Clock = std::chrono::steady_clock;

rpc::Status ToRpcStatus(const storage::Status& status) {
  using C = storage::Status::Code;
  switch (status.code()) {
    case C::kOk:
      return rpc::Status::Ok();
    case C::kNotFound:
      return {rpc::Code::kNotFound, "no such document"};
    case C::kInvalidArgument:
      return {rpc::Code::kInvalidArgument, status.message()};
    case C::kCorruption:
      return {rpc::Code::kCorrupted, status.message()};
    case C::kNoSpace:
      return {rpc::Code::kResourceExhausted,
              "disk full: this node refuses writes until space is freed and still serves reads (" +
                  status.message() + ")"};
    case C::kBusy:
      return {rpc::Code::kUnavailable, status.message()};
    case C::kIOError:
      return {rpc::Code::kInternal, status.message()};
  }
  return {rpc::Code::kInternal, status.ToString()};
}

namespace {

// Parses the request, runs `body`, times the call into `stats`.
template <typename Request, typename Body>
rpc::Handler Timed(base::MethodStats& stats, const char* method, Body body) {
  return [&stats, method, body](const rpc::CallContext& call, std::string_view payload) {
    const Clock::time_point start = Clock::now();
    Request request;
    rpc::Reply reply;
    if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
      reply.status = {rpc::Code::kInvalidArgument, std::string("malformed ") + method + " request"};
    } else {
      reply = body(call, request);
    }
    stats.Record(method, Clock::now() - start, base::IsFailure(reply.status.code()),
                 reply.status.code());
    return reply;
  };
}

// OK once `store` has applied `position` (within the call's deadline and `max_wait`); else BEHIND.
rpc::Status AwaitPosition(storage::DocStore& store, const rpc::CallContext& call, uint64_t position,
                          std::chrono::milliseconds max_wait) {
  if (position == 0 || store.AppliedPosition() >= position) return rpc::Status::Ok();
  Clock::time_point deadline = Clock::now() + max_wait;
  if (call.deadline != Clock::time_point::max()) {
    // Leave the client time to try another replica.
    deadline = std::min(deadline, Clock::now() + (call.deadline - Clock::now()) / 2);
  }
  if (store.WaitForApplied(position, deadline)) return rpc::Status::Ok();
  return {rpc::Code::kBehind, "this replica has applied the queue to position " +
                                  std::to_string(store.AppliedPosition()) + ", not yet " +
                                  std::to_string(position)};
}

template <typename Response>
rpc::Reply WriteReply(const storage::Status& s, uint64_t position) {
  Response response;
  response.set_position(position);
  return {ToRpcStatus(s), s.ok() ? response.SerializeAsString() : std::string()};
}

void RegisterReads(rpc::Server& server, storage::DocStore& store, base::MethodStats& stats,
                   const DocServiceOptions& options) {
  const auto wait = options.max_read_wait;
  server.RegisterHandler(
      "doc.Get",
      Timed<doc::GetRequest>(
          stats, "doc.Get", [&store, wait](const rpc::CallContext& call, const doc::GetRequest& r) {
            if (rpc::Status s = AwaitPosition(store, call, r.min_position(), wait); !s.ok()) {
              return rpc::Reply{s, {}};
            }
            doc::GetResponse response;
            const storage::Status s = store.Get(r.id(), response.mutable_doc());
            return rpc::Reply{ToRpcStatus(s),
                              s.ok() ? response.SerializeAsString() : std::string()};
          }));
  server.RegisterHandler(
      "doc.BatchGet",
      Timed<doc::BatchGetRequest>(
          stats, "doc.BatchGet",
          [&store, wait](const rpc::CallContext& call, const doc::BatchGetRequest& r) {
            if (rpc::Status s = AwaitPosition(store, call, r.min_position(), wait); !s.ok()) {
              return rpc::Reply{s, {}};
            }
            doc::BatchGetResponse response;
            for (uint64_t id : r.ids()) {
              doc::BatchGetResponse::Item* item = response.add_items();
              item->set_id(id);
              const storage::Status s = store.Get(id, item->mutable_doc());
              item->set_found(s.ok());
              if (!s.ok() && !s.IsNotFound()) item->set_error(s.ToString());
            }
            return rpc::Reply{rpc::Status::Ok(), response.SerializeAsString()};
          }));
}

}  // namespace

void RegisterDocService(rpc::Server& server, storage::DocStore& store, base::MethodStats& stats,
                        const DocServiceOptions& options) {
  RegisterReads(server, store, stats, options);
  if (!options.replica_of.empty()) {
    const rpc::Status refusal{
        rpc::Code::kFailedPrecondition,
        "this node is a replica of " + options.replica_of + "; send writes to the updater there"};
    for (const char* method : {"doc.Put", "doc.Delete"}) {
      server.RegisterHandler(
          method, [&stats, method, refusal](const rpc::CallContext&, std::string_view) {
            stats.Record(method, std::chrono::nanoseconds(0), true, refusal.code());
            return rpc::Reply{refusal, {}};
          });
    }
    return;
  }
  server.RegisterHandler(
      "doc.Put", Timed<doc::PutRequest>(
                     stats, "doc.Put", [&store](const rpc::CallContext&, const doc::PutRequest& r) {
                       storage::WriteBatch batch;
                       batch.Put(r.id(), r.doc());
                       uint64_t position = 0;
                       const storage::Status s = store.Write(batch, &position);
                       return WriteReply<doc::PutResponse>(s, position);
                     }));
  server.RegisterHandler(
      "doc.Delete",
      Timed<doc::DeleteRequest>(stats, "doc.Delete",
                                [&store](const rpc::CallContext&, const doc::DeleteRequest& r) {
                                  storage::WriteBatch batch;
                                  batch.Delete(r.id());
                                  uint64_t position = 0;
                                  const storage::Status s = store.Write(batch, &position);
                                  return WriteReply<doc::DeleteResponse>(s, position);
                                }));
}

}  // namespace railyard::node
