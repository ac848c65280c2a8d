// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <google/protobuf/compiler/code_generator.h>

#include <string>

namespace railyard::boxcar {

// Writes <name>.boxcar.h and <name>.boxcar.cc for each .proto file with services: per service a
// class with the methods' Boxcar names, a Service interface to implement and Register on an
// rpc::Server, and a Stub that calls through an rpc::Client (docs/embedding.md).
//
// Parameter (protoc --boxcar_opt=...): runtime_include=PREFIX, what the runtime's headers are
// included under: "railyard/" (the default) for an installed Railyard, "" inside its own tree.
// A streaming method is an error: Boxcar calls are unary.
class BoxcarGenerator : public google::protobuf::compiler::CodeGenerator {
 public:
  bool Generate(const google::protobuf::FileDescriptor* file, const std::string& parameter,
                google::protobuf::compiler::GeneratorContext* context,
                std::string* error) const override;
  uint64_t GetSupportedFeatures() const override { return FEATURE_PROTO3_OPTIONAL; }
};

}  // namespace railyard::boxcar
