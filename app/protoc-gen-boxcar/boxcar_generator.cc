// SPDX-License-Identifier: Apache-2.0
#include "app/protoc-gen-boxcar/boxcar_generator.h"

#include <google/protobuf/compiler/code_generator.h>
#include <google/protobuf/compiler/cpp/names.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/printer.h>
#include <google/protobuf/io/zero_copy_stream.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "railyard/boxcar_options.pb.h"

namespace railyard::boxcar {
namespace {

namespace pb = google::protobuf;
using Vars = std::map<std::string, std::string>;

// The C++ namespace protoc's C++ generator gives `package`: "a.b" -> "a::b".
std::string Namespace(const std::string& package) {
  std::string ns;
  for (char c : package) {
    if (c == '.') {
      ns += "::";
    } else {
      ns += c;
    }
  }
  return ns;
}

std::string WireName(const pb::ServiceDescriptor* service, const pb::MethodDescriptor* method) {
  const std::string& prefix = service->options().GetExtension(method_prefix);
  return (prefix.empty() ? service->full_name() : prefix) + "." + method->name();
}

Vars MethodVars(const pb::ServiceDescriptor* service, const pb::MethodDescriptor* method) {
  return {{"Service", service->name()},
          {"Method", method->name()},
          {"wire", WireName(service, method)},
          // As protoc's C++ generator names them: nested types joined with '_', C++ keywords
          // mangled.
          {"Request", pb::compiler::cpp::QualifiedClassName(method->input_type())},
          {"Response", pb::compiler::cpp::QualifiedClassName(method->output_type())}};
}

void OpenNamespace(pb::io::Printer& p, const std::string& package) {
  if (!package.empty()) p.Print("namespace $ns$ {\n\n", "ns", Namespace(package));
}
void CloseNamespace(pb::io::Printer& p, const std::string& package) {
  if (!package.empty()) p.Print("}  // namespace $ns$\n", "ns", Namespace(package));
}

void PrintServiceDeclaration(pb::io::Printer& p, const pb::ServiceDescriptor* service) {
  p.Print(
      "// The Boxcar service $full_name$ (from $file$).\n"
      "class $Service$ final {\n"
      " public:\n"
      "  $Service$() = delete;\n"
      "\n"
      "  // Each method's Boxcar name, the wire contract.\n",
      "full_name", service->full_name(), "file", service->file()->name(), "Service",
      service->name());
  std::string all;
  for (int i = 0; i < service->method_count(); ++i) {
    const Vars vars = MethodVars(service, service->method(i));
    p.Print(vars, "  static constexpr std::string_view k$Method$Method = \"$wire$\";\n");
    all += (i == 0 ? "" : ", ") + std::string("k") + service->method(i)->name() + "Method";
  }
  p.Print(
      "  static constexpr std::array<std::string_view, $n$> kMethods = {$all$};\n"
      "\n"
      "  // What a server implements. Each method gets the parsed request and fills `response`;\n"
      "  // its status goes back to the caller as it is, with the response only when OK. A method\n"
      "  // not overridden answers UNKNOWN_METHOD. Methods run on the server's threads (see\n"
      "  // RegisterOptions::dispatch), several at once, so an implementation is thread-safe.\n"
      "  class Service {\n"
      "   public:\n"
      "    virtual ~Service() = default;\n",
      "n", std::to_string(service->method_count()), "all", all);
  for (int i = 0; i < service->method_count(); ++i) {
    p.Print(
        MethodVars(service, service->method(i)),
        "    virtual ::railyard::rpc::Status $Method$(const ::railyard::rpc::CallContext& call,\n"
        "        const $Request$& request, $Response$* response);\n");
  }
  p.Print(
      "  };\n"
      "\n"
      "  struct RegisterOptions {\n"
      "    // kInline: methods run first on the I/O thread; one that would wait returns\n"
      "    // ::railyard::rpc::WouldWait() while call.may_wait is false and runs again on a "
      "worker.\n"
      "    ::railyard::rpc::Dispatch dispatch = ::railyard::rpc::Dispatch::kWorkerPool;\n"
      "    // Called after every call, also one whose request did not parse (INVALID_ARGUMENT),\n"
      "    // with the method's Boxcar name, the time spent parsing, in the method and\n"
      "    // serialising, and the status answered. On the thread that ran the call.\n"
      "    std::function<void(std::string_view method, std::chrono::nanoseconds elapsed,\n"
      "                       const ::railyard::rpc::Status& status)> on_done;\n"
      "  };\n"
      "  // Registers every method of `service` on `server`, before the server starts. Given by\n"
      "  // reference, `service` must outlive the server; given as a shared_ptr, the server's\n"
      "  // handlers keep it alive.\n"
      "  static void Register(::railyard::rpc::Server& server, Service& service);\n"
      "  static void Register(::railyard::rpc::Server& server, Service& service,\n"
      "                       RegisterOptions options);\n"
      "  static void Register(::railyard::rpc::Server& server, std::shared_ptr<Service> service);\n"
      "  static void Register(::railyard::rpc::Server& server, std::shared_ptr<Service> service,\n"
      "                       RegisterOptions options);\n"
      "\n"
      "  // Calls the service through `client`, which it does not own: the client must outlive\n"
      "  // the stub. Thread safety: any thread, as rpc::Client. `timeout` 0 is the client's\n"
      "  // default. An answer that does not parse as the response comes back as PROTOCOL_ERROR.\n"
      "  class Stub {\n"
      "   public:\n"
      "    explicit Stub(::railyard::rpc::Client& client) : client_(client) {}\n"
      "    ::railyard::rpc::Client& client() const { return client_; }\n"
      "\n");
  for (int i = 0; i < service->method_count(); ++i) {
    p.Print(
        MethodVars(service, service->method(i)),
        "    // Blocks until the answer; on OK `response` holds it. The result carries the\n"
        "    // status, the attempts and the server that answered.\n"
        "    ::railyard::rpc::CallResult $Method$(const $Request$& request, $Response$* response,\n"
        "        std::chrono::milliseconds timeout = {});\n"
        "    // Returns at once; `done` runs on one of the client's I/O threads (it must not\n"
        "    // block) with the result and, on OK, the response.\n"
        "    void Async$Method$(const $Request$& request,\n"
        "        std::function<void(::railyard::rpc::CallResult&& result, $Response$&& response)> "
        "done,\n"
        "        std::chrono::milliseconds timeout = {});\n");
  }
  p.Print(
      "\n"
      "   private:\n"
      "    ::railyard::rpc::Client& client_;\n"
      "  };\n"
      "};\n\n");
}

void PrintServiceDefinition(pb::io::Printer& p, const pb::ServiceDescriptor* service) {
  for (int i = 0; i < service->method_count(); ++i) {
    p.Print(MethodVars(service, service->method(i)),
            "::railyard::rpc::Status $Service$::Service::$Method$(const "
            "::railyard::rpc::CallContext&,\n"
            "    const $Request$&, $Response$*) {\n"
            "  return {::railyard::rpc::Code::kUnknownMethod, \"$wire$ is not implemented by this "
            "server\"};\n"
            "}\n\n");
  }
  p.Print(
      "void $Service$::Register(::railyard::rpc::Server& server, Service& service) {\n"
      "  Register(server, service, RegisterOptions{});\n"
      "}\n\n"
      "void $Service$::Register(::railyard::rpc::Server& server, Service& service,\n"
      "                        RegisterOptions options) {\n"
      "  // An aliasing pointer that owns nothing: the caller keeps `service` alive.\n"
      "  Register(server, std::shared_ptr<Service>(std::shared_ptr<Service>(), &service),\n"
      "           std::move(options));\n"
      "}\n\n"
      "void $Service$::Register(::railyard::rpc::Server& server, std::shared_ptr<Service> service) "
      "{\n"
      "  Register(server, std::move(service), RegisterOptions{});\n"
      "}\n\n"
      "void $Service$::Register(::railyard::rpc::Server& server, std::shared_ptr<Service> "
      "service,\n"
      "                        RegisterOptions options) {\n"
      "  // One copy of the hook, shared by every method's handler.\n"
      "  auto on_done = std::make_shared<const "
      "decltype(options.on_done)>(std::move(options.on_done));\n",
      "Service", service->name());
  for (int i = 0; i < service->method_count(); ++i) {
    p.Print(
        MethodVars(service, service->method(i)),
        "  server.RegisterHandler(\n"
        "      std::string(k$Method$Method),\n"
        "      [service, on_done](const ::railyard::rpc::CallContext& call, std::string_view "
        "payload) {\n"
        "        const auto start = std::chrono::steady_clock::now();\n"
        "        ::railyard::rpc::Reply reply;\n"
        "        $Request$ request;\n"
        "        if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {\n"
        "          reply.status = {::railyard::rpc::Code::kInvalidArgument, \"malformed $wire$ "
        "request\"};\n"
        "        } else {\n"
        "          $Response$ response;\n"
        "          reply.status = service->$Method$(call, request, &response);\n"
        "          if (reply.status.ok()) reply.payload = response.SerializeAsString();\n"
        "        }\n"
        "        // A call that asked for a worker (rpc::WouldWait()) is told of once, from "
        "there.\n"
        "        if (reply.status.code() == ::railyard::rpc::Code::kWouldWait && !call.may_wait) "
        "{\n"
        "          return reply;\n"
        "        }\n"
        "        if (*on_done) (*on_done)(k$Method$Method, std::chrono::steady_clock::now() - "
        "start, reply.status);\n"
        "        return reply;\n"
        "      },\n"
        "      options.dispatch);\n");
  }
  p.Print("}\n\n");
  for (int i = 0; i < service->method_count(); ++i) {
    p.Print(
        MethodVars(service, service->method(i)),
        "::railyard::rpc::CallResult $Service$::Stub::$Method$(const $Request$& request,\n"
        "    $Response$* response, std::chrono::milliseconds timeout) {\n"
        "  ::railyard::rpc::CallResult result =\n"
        "      client_.Call(std::string(k$Method$Method), request.SerializeAsString(), timeout);\n"
        "  if (result.status.ok() && !response->ParseFromString(result.payload)) {\n"
        "    result.status = {::railyard::rpc::Code::kProtocolError, \"malformed answer to "
        "$wire$\"};\n"
        "  }\n"
        "  return result;\n"
        "}\n\n"
        "void $Service$::Stub::Async$Method$(const $Request$& request,\n"
        "    std::function<void(::railyard::rpc::CallResult&&, $Response$&&)> done,\n"
        "    std::chrono::milliseconds timeout) {\n"
        "  client_.AsyncCall(\n"
        "      std::string(k$Method$Method), request.SerializeAsString(),\n"
        "      [done = std::move(done)](::railyard::rpc::CallResult&& result) {\n"
        "        $Response$ response;\n"
        "        if (result.status.ok() && !response.ParseFromString(result.payload)) {\n"
        "          result.status = {::railyard::rpc::Code::kProtocolError, \"malformed answer to "
        "$wire$\"};\n"
        "        }\n"
        "        done(std::move(result), std::move(response));\n"
        "      },\n"
        "      timeout);\n"
        "}\n\n");
  }
}

}  // namespace

bool BoxcarGenerator::Generate(const pb::FileDescriptor* file, const std::string& parameter,
                               pb::compiler::GeneratorContext* context, std::string* error) const {
  if (file->service_count() == 0) return true;  // Nothing to write for a file of messages only.
  std::string runtime = "railyard/";
  std::vector<std::pair<std::string, std::string>> options;
  pb::compiler::ParseGeneratorParameter(parameter, &options);
  for (const auto& [key, value] : options) {
    if (key == "runtime_include") {
      runtime = value;
    } else {
      *error = "protoc-gen-boxcar: unknown option '" + key + "' (known: runtime_include)";
      return false;
    }
  }
  for (int s = 0; s < file->service_count(); ++s) {
    const pb::ServiceDescriptor* service = file->service(s);
    for (int m = 0; m < service->method_count(); ++m) {
      const pb::MethodDescriptor* method = service->method(m);
      if (method->client_streaming() || method->server_streaming()) {
        *error = "protoc-gen-boxcar: " + method->full_name() +
                 " streams, but a Boxcar call is one request and one answer";
        return false;
      }
    }
  }

  const std::string base = pb::compiler::StripProto(file->name());
  {
    std::unique_ptr<pb::io::ZeroCopyOutputStream> out(context->Open(base + ".boxcar.h"));
    pb::io::Printer p(out.get(), '$');
    p.Print(
        "// Generated by protoc-gen-boxcar from $file$. Do not edit.\n"
        "#pragma once\n"
        "\n"
        "#include <array>\n"
        "#include <chrono>\n"
        "#include <functional>\n"
        "#include <memory>\n"
        "#include <string_view>\n"
        "\n"
        "#include \"$runtime$core/rpc/client.h\"\n"
        "#include \"$runtime$core/rpc/server.h\"\n"
        "#include \"$pb_h$\"\n"
        "\n",
        "file", file->name(), "runtime", runtime, "pb_h", base + ".pb.h");
    OpenNamespace(p, file->package());
    for (int s = 0; s < file->service_count(); ++s) PrintServiceDeclaration(p, file->service(s));
    CloseNamespace(p, file->package());
    if (p.failed()) {
      *error = "protoc-gen-boxcar: could not write " + base + ".boxcar.h";
      return false;
    }
  }
  std::unique_ptr<pb::io::ZeroCopyOutputStream> out(context->Open(base + ".boxcar.cc"));
  pb::io::Printer p(out.get(), '$');
  p.Print(
      "// Generated by protoc-gen-boxcar from $file$. Do not edit.\n"
      "#include \"$header$\"\n"
      "\n"
      "#include <memory>\n"
      "#include <string>\n"
      "#include <utility>\n"
      "\n",
      "file", file->name(), "header", base + ".boxcar.h");
  OpenNamespace(p, file->package());
  for (int s = 0; s < file->service_count(); ++s) PrintServiceDefinition(p, file->service(s));
  CloseNamespace(p, file->package());
  if (p.failed()) {
    *error = "protoc-gen-boxcar: could not write " + base + ".boxcar.cc";
    return false;
  }
  return true;
}

}  // namespace railyard::boxcar
