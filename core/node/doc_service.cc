// SPDX-License-Identifier: Apache-2.0
#include "core/node/doc_service.h"

#include <memory>
#include <string>
#include <utility>

#include "railyard/docservice.boxcar.h"

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
    case C::kWouldWait:
      return rpc::WouldWait();
  }
  return {rpc::Code::kInternal, status.ToString()};
}

namespace {

// A BatchGet of more ids than this runs on a worker: on an I/O thread it would hold up the other
// connections' calls.
constexpr int kMaxInlineBatch = 32;

// OK once `store` has applied `position` (within the call's deadline and `max_wait`); else BEHIND,
// or WouldWait where the call may not wait.
rpc::Status AwaitPosition(storage::DocStore& store, const rpc::CallContext& call, uint64_t position,
                          std::chrono::milliseconds max_wait) {
  if (position == 0 || store.AppliedPosition() >= position) return rpc::Status::Ok();
  if (!call.may_wait) return rpc::WouldWait();
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

// The docservice over one store. On a replica (options.replica_of set) writes are refused.
class DocServiceImpl final : public doc::DocService::Service {
 public:
  DocServiceImpl(storage::DocStore& store, const DocServiceOptions& options)
      : store_(store),
        options_(options),
        write_refusal_{rpc::Code::kFailedPrecondition, "this node is a replica of " +
                                                           options.replica_of +
                                                           "; send writes to the updater there"} {}

  rpc::Status Get(const rpc::CallContext& call, const doc::GetRequest& request,
                  doc::GetResponse* response) override {
    if (rpc::Status s = AwaitPosition(store_, call, request.min_position(), options_.max_read_wait);
        !s.ok()) {
      return s;
    }
    return ToRpcStatus(store_.Get(request.id(), response->mutable_doc()));
  }

  rpc::Status BatchGet(const rpc::CallContext& call, const doc::BatchGetRequest& request,
                       doc::BatchGetResponse* response) override {
    if (!call.may_wait && request.ids_size() > kMaxInlineBatch) return rpc::WouldWait();
    if (rpc::Status s = AwaitPosition(store_, call, request.min_position(), options_.max_read_wait);
        !s.ok()) {
      return s;
    }
    for (uint64_t id : request.ids()) {
      doc::BatchGetResponse::Item* item = response->add_items();
      item->set_id(id);
      const storage::Status s = store_.Get(id, item->mutable_doc());
      item->set_found(s.ok());
      if (!s.ok() && !s.IsNotFound()) item->set_error(s.ToString());
    }
    return rpc::Status::Ok();
  }

  rpc::Status Put(const rpc::CallContext& call, const doc::PutRequest& request,
                  doc::PutResponse* response) override {
    if (is_replica()) return write_refusal_;
    storage::WriteBatch batch;
    batch.Put(request.id(), request.doc());
    return Write(call, batch, response);
  }

  rpc::Status Delete(const rpc::CallContext& call, const doc::DeleteRequest& request,
                     doc::DeleteResponse* response) override {
    if (is_replica()) return write_refusal_;
    storage::WriteBatch batch;
    batch.Delete(request.id());
    return Write(call, batch, response);
  }

 private:
  bool is_replica() const { return !options_.replica_of.empty(); }

  template <typename Response>
  rpc::Status Write(const rpc::CallContext& call, const storage::WriteBatch& batch,
                    Response* response) {
    uint64_t position = 0;
    const storage::Status s =
        call.may_wait ? store_.Write(batch, &position) : store_.WriteNoWait(batch, &position);
    response->set_position(position);
    return ToRpcStatus(s);
  }

  storage::DocStore& store_;
  const DocServiceOptions options_;
  const rpc::Status write_refusal_;
};

}  // namespace

void RegisterDocService(rpc::Server& server, storage::DocStore& store, base::MethodStats& stats,
                        const DocServiceOptions& options) {
  doc::DocService::RegisterOptions register_options;
  register_options.dispatch = options.dispatch;
  register_options.on_done = [&stats](std::string_view method, std::chrono::nanoseconds elapsed,
                                      const rpc::Status& status) {
    stats.Record(std::string(method), elapsed, base::IsFailure(status.code()), status.code());
  };
  doc::DocService::Register(server, std::make_shared<DocServiceImpl>(store, options),
                            std::move(register_options));
}

}  // namespace railyard::node
