// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "core/node/node.h"
#include "railyard/config.pb.h"

namespace railyard::node {

// What a running node reloads on SIGHUP: its admin token files, its docservice's reader and
// writer token files (where it started with data access configured), its metrics token file and
// its listeners' TLS files. Each token file is read again; one that cannot be read, or holds no
// token, is refused and its role keeps the tokens it had (an empty file is more likely a
// half-written edit than a wish to lock every operator out), with a warning that says why. A
// listener whose new certificate, key or CA cannot be used keeps its old ones, with a warning.
// Settings read only at start-up (replication tokens, storage) are named in the log as needing a
// restart.
//
// Thread safety: Reload from one thread at a time (the SIGHUP handler's); the node may serve
// meanwhile.
class TokenReloader {
 public:
  // `config`: the node's config with the flags applied. `viewer_tokens` and `operator_tokens`,
  // `data_access`: what the node started with. `node` must outlive this.
  TokenReloader(config::NodeConfig config, Node& node, std::vector<std::string> viewer_tokens,
                std::vector<std::string> operator_tokens, DataAccessOptions data_access = {});

  void Reload();

 private:
  // Reads one role's tokens again (its inline tokens and its file) into `current` and returns
  // true, or keeps them and returns false.
  bool ReloadRole(const char* role,
                  const google::protobuf::RepeatedPtrField<std::string>& inline_tokens,
                  const std::string& file, std::vector<std::string>* current);

  const config::NodeConfig config_;
  Node& node_;
  std::vector<std::string> viewers_;
  std::vector<std::string> operators_;
  std::vector<std::string> data_readers_;
  std::vector<std::string> data_writers_;
};

}  // namespace railyard::node
