// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/json_line.h"

#include <google/protobuf/util/json_util.h>

#include <cstdio>

namespace railyard::ctl {

namespace pb = google::protobuf;

JsonLine& JsonLine::Add(const std::string& key, const std::string& text) {
  (*object_.mutable_fields())[key].set_string_value(text);
  return *this;
}

JsonLine& JsonLine::Add(const std::string& key, double number) {
  (*object_.mutable_fields())[key].set_number_value(number);
  return *this;
}

JsonLine& JsonLine::Add(const std::string& key, const std::vector<std::string>& texts) {
  pb::ListValue* list = (*object_.mutable_fields())[key].mutable_list_value();
  for (const std::string& text : texts) list->add_values()->set_string_value(text);
  return *this;
}

JsonLine& JsonLine::Add(const std::string& key, const JsonLine& object) {
  *(*object_.mutable_fields())[key].mutable_struct_value() = object.object_;
  return *this;
}

JsonLine& JsonLine::Add(const std::string& key, const std::vector<JsonLine>& objects) {
  pb::ListValue* list = (*object_.mutable_fields())[key].mutable_list_value();
  for (const JsonLine& object : objects)
    *list->add_values()->mutable_struct_value() = object.object_;
  return *this;
}

JsonLine& JsonLine::Add(const std::string& key, const pb::Message& message) {
  // Through its JSON text, so the message keeps protobuf's mapping (a Struct holds only JSON).
  pb::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  pb::Value& value = (*object_.mutable_fields())[key];
  if (!pb::util::MessageToJsonString(message, &json, options).ok() ||
      !pb::util::JsonStringToMessage(json, &value).ok()) {
    value.set_null_value(pb::NULL_VALUE);  // Cannot happen for a valid message.
  }
  return *this;
}

std::string JsonLine::Text() const {
  std::string json;
  if (!pb::util::MessageToJsonString(object_, &json).ok()) return "{}";
  return json;
}

void JsonLine::Print() const { std::printf("%s\n", Text().c_str()); }

}  // namespace railyard::ctl
