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
  return [&stats, method, body](const rpc::CallContext&, std::string_view payload) {
    const Clock::time_point start = Clock::now();
    Request request;
    rpc::Reply reply;
    if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
      reply.status = {rpc::Code::kInvalidArgument, std::string("malformed ") + method + " request"};
    } else {
      reply = body(request);
    }
    // A missing document is an answer, not a failure of the service.
    const bool error = !reply.status.ok() && reply.status.code() != rpc::Code::kNotFound;
    stats.Record(method, Clock::now() - start, error);
    return reply;
  };
}

}  // namespace

void RegisterDocService(rpc::Server& server, storage::DocStore& store, base::MethodStats& stats) {
  server.RegisterHandler(
      "doc.Get", Timed<doc::GetRequest>(stats, "doc.Get", [&store](const doc::GetRequest& r) {
        doc::GetResponse response;
        const storage::Status s = store.Get(r.id(), response.mutable_doc());
        return rpc::Reply{ToRpcStatus(s), s.ok() ? response.SerializeAsString() : std::string()};
      }));
  server.RegisterHandler(
      "doc.Put", Timed<doc::PutRequest>(stats, "doc.Put", [&store](const doc::PutRequest& r) {
        return rpc::Reply{ToRpcStatus(store.Put(r.id(), r.doc())), {}};
      }));
  server.RegisterHandler(
      "doc.Delete",
      Timed<doc::DeleteRequest>(stats, "doc.Delete", [&store](const doc::DeleteRequest& r) {
        return rpc::Reply{ToRpcStatus(store.Delete(r.id())), {}};
      }));
  server.RegisterHandler(
      "doc.BatchGet",
      Timed<doc::BatchGetRequest>(stats, "doc.BatchGet", [&store](const doc::BatchGetRequest& r) {
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

}  // namespace railyard::node
