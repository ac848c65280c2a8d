// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/text_files.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <sstream>

namespace railyard::cluster {

namespace {

// Keeps the first parse error with its position instead of printing it.
class FirstError final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first.empty()) {
      first = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " +
              message;
    }
  }
  std::string first;
};

}  // namespace

rpc::Status ParseTextProtoFile(const std::string& path, google::protobuf::Message* out) {
  std::ifstream in(path);
  if (!in) return {rpc::Code::kInvalidArgument, "cannot read " + path};
  std::stringstream text;
  text << in.rdbuf();
  return ParseTextProto(text.str(), path, out);
}

rpc::Status ParseTextProto(std::string_view text, std::string_view name,
                           google::protobuf::Message* out) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), out)) {
    return {rpc::Code::kInvalidArgument, std::string(name) + ": " + errors.first};
  }
  return rpc::Status::Ok();
}

rpc::Status ReadTokenFile(const std::string& path, std::vector<std::string>* tokens) {
  if (path.empty()) return rpc::Status::Ok();
  std::ifstream in(path);
  if (!in) return {rpc::Code::kInvalidArgument, "cannot read token file " + path};
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line[0] != '#') tokens->push_back(line);
  }
  return rpc::Status::Ok();
}

}  // namespace railyard::cluster
