// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/rpc/status.h"

namespace google::protobuf {
class Message;
}

namespace railyard::cluster {

// Reads a protobuf text-format file (node configs, cluster files). INVALID_ARGUMENT naming the
// file, and for a parse error its line and column.
rpc::Status ParseTextProtoFile(const std::string& path, google::protobuf::Message* out);
// The same over text; `name` says where it came from in errors.
rpc::Status ParseTextProto(std::string_view text, std::string_view name,
                           google::protobuf::Message* out);

// Appends the tokens of a token file: one per line, trailing CR and spaces cut, empty lines and
// `#` lines skipped. An empty path adds nothing; an unreadable file is INVALID_ARGUMENT.
rpc::Status ReadTokenFile(const std::string& path, std::vector<std::string>* tokens);

}  // namespace railyard::cluster
