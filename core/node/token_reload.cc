// SPDX-License-Identifier: Apache-2.0
#include "core/node/token_reload.h"

#include <spdlog/spdlog.h>

#include "core/cluster/text_files.h"

namespace railyard::node {

TokenReloader::TokenReloader(config::NodeConfig config, Node& node,
                             std::vector<std::string> viewer_tokens,
                             std::vector<std::string> operator_tokens,
                             DataAccessOptions data_access)
    : config_(std::move(config)),
      node_(node),
      viewers_(std::move(viewer_tokens)),
      operators_(std::move(operator_tokens)),
      data_readers_(std::move(data_access.reader_tokens)),
      data_writers_(std::move(data_access.writer_tokens)) {}

void TokenReloader::Reload() {
  ReloadRole("viewer", config_.viewer_tokens(), config_.viewer_token_file(), &viewers_);
  ReloadRole("operator", config_.operator_tokens(), config_.operator_token_file(), &operators_);
  node_.ReplaceAdminTokens(viewers_, operators_);
  const bool readers =
      ReloadRole("docservice reader", {}, config_.data_reader_token_file(), &data_readers_);
  const bool writers =
      ReloadRole("docservice writer", {}, config_.data_writer_token_file(), &data_writers_);
  if ((readers || writers) && !node_.ReplaceDataTokens(data_readers_, data_writers_)) {
    spdlog::warn(
        "SIGHUP: the docservice started open (no data tokens): restart the node to make it "
        "require them");
  }
  // The metrics listener's bearer tokens: replaced only when the file was read well, since this
  // reloader does not hold the ones the node started with.
  if (std::vector<std::string> metrics;
      ReloadRole("metrics", {}, config_.metrics_token_file(), &metrics)) {
    node_.ReplaceMetricsTokens(std::move(metrics));
  }
  for (const auto& [listener, status] : node_.ReloadTls()) {
    if (status.ok()) {
      spdlog::info("SIGHUP: reloaded the {} listener's TLS certificate and key", listener);
    } else {
      spdlog::warn("SIGHUP: the {} listener keeps its TLS certificate: {}", listener,
                   status.message());
    }
  }
  spdlog::info(
      "SIGHUP: replication tokens and storage settings are read at start-up only; restart the "
      "node to change them");
}

bool TokenReloader::ReloadRole(const char* role,
                               const google::protobuf::RepeatedPtrField<std::string>& inline_tokens,
                               const std::string& file, std::vector<std::string>* current) {
  if (file.empty()) return false;  // Only inline tokens, which cannot have changed.
  std::vector<std::string> tokens(inline_tokens.begin(), inline_tokens.end());
  const size_t inline_count = tokens.size();
  if (rpc::Status s = cluster::ReadTokenFile(file, &tokens); !s.ok()) {
    spdlog::warn("SIGHUP: kept the previous {} tokens: {}", role, s.message());
    return false;
  }
  if (tokens.size() == inline_count) {
    spdlog::warn("SIGHUP: kept the previous {} tokens: {} holds no token", role, file);
    return false;
  }
  spdlog::info("SIGHUP: reloaded {} tokens from {} ({} in all)", role, file, tokens.size());
  *current = std::move(tokens);
  return true;
}

}  // namespace railyard::node
