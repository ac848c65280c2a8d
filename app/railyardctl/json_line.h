// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <google/protobuf/struct.pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace google::protobuf {
class Message;
}

namespace railyard::ctl {

// One JSON object, printed as one line for scripts (`--json`). Built on protobuf's JSON
// support, so text is escaped as JSON requires and a message nests in protobuf's JSON mapping:
// field names as in the .proto file, enums by name, 64-bit integers as strings.
//
// Thread safety: none (a value type).
class JsonLine {
 public:
  JsonLine& Add(const std::string& key, const std::string& text);
  JsonLine& Add(const std::string& key, const char* text) { return Add(key, std::string(text)); }
  JsonLine& Add(const std::string& key, double number);
  JsonLine& Add(const std::string& key, int64_t number) { return Add(key, double(number)); }
  JsonLine& Add(const std::string& key, const std::vector<std::string>& texts);
  JsonLine& Add(const std::string& key, const JsonLine& object);
  JsonLine& Add(const std::string& key, const std::vector<JsonLine>& objects);
  JsonLine& Add(const std::string& key, const google::protobuf::Message& message);

  // The object on one line, without the newline.
  std::string Text() const;
  // Text() and a newline on stdout.
  void Print() const;

 private:
  google::protobuf::Struct object_;
};

}  // namespace railyard::ctl
