// SPDX-License-Identifier: Apache-2.0
#include "app/railyard-node/check_config.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/node/config.h"

namespace {

// Reads a byte, as the node will: open() alone succeeds on a directory.
void CheckReadable(const std::string& path, const std::string& what,
                   std::vector<std::string>* problems) {
  if (path.empty()) return;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  char byte;
  if (fd < 0 || ::read(fd, &byte, 1) < 0) {
    problems->push_back(what + " " + path + " cannot be read: " + std::strerror(errno));
  }
  if (fd >= 0) ::close(fd);
}

void CheckTlsFiles(const railyard::config::TlsConfig& tls, const std::string& what,
                   std::vector<std::string>* problems) {
  CheckReadable(tls.cert_file(), what + ".cert_file", problems);
  CheckReadable(tls.key_file(), what + ".key_file", problems);
  CheckReadable(tls.client_ca_file(), what + ".client_ca_file", problems);
}

// The node makes the data directory (and its parents) if it is missing, so the nearest existing
// ancestor must be a writable directory.
void CheckDataDir(const std::string& dir, std::vector<std::string>* problems) {
  namespace fs = std::filesystem;
  fs::path path = fs::absolute(dir);
  std::error_code ec;
  while (!fs::exists(path, ec) && path.has_parent_path() && path != path.parent_path()) {
    path = path.parent_path();
  }
  if (!fs::is_directory(path, ec)) {
    problems->push_back("data_dir " + dir + ": " + path.string() + " is not a directory");
  } else if (::access(path.c_str(), W_OK | X_OK) != 0) {
    problems->push_back("data_dir " + dir + ": " + path.string() +
                        " is not writable: " + std::strerror(errno));
  }
}

void CheckLogFile(const std::string& file, std::vector<std::string>* problems) {
  if (file.empty()) return;
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);  // Never creates it.
  if (fd >= 0) {
    ::close(fd);
    return;
  }
  if (errno != ENOENT) {
    problems->push_back("log_file " + file + " cannot be appended to: " + std::strerror(errno));
    return;
  }
  const std::filesystem::path parent =
      std::filesystem::absolute(file).parent_path();  // The node will create the file here.
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    problems->push_back("log_file " + file + " cannot be created: " + std::strerror(errno));
  }
}

}  // namespace

std::vector<std::string> ConfigProblems(const railyard::config::NodeConfig& config) {
  std::vector<std::string> problems;
  // Values, and the token files (which NodeOptionsFrom reads); it stops at the first problem.
  railyard::node::NodeOptions options;
  if (railyard::rpc::Status s = railyard::node::NodeOptionsFrom(config, &options); !s.ok()) {
    problems.push_back(s.message());
  }
  if (config.data_dir().empty()) {
    problems.push_back("no data directory: give --data-dir or data_dir in --config");
  } else {
    CheckDataDir(config.data_dir(), &problems);
  }
  CheckTlsFiles(config.tls(), "tls", &problems);
  CheckTlsFiles(config.admin_tls(), "admin_tls", &problems);
  CheckReadable(config.follow_tls().ca_file(), "follow_tls.ca_file", &problems);
  CheckReadable(config.follow_tls().cert_file(), "follow_tls.cert_file", &problems);
  CheckReadable(config.follow_tls().key_file(), "follow_tls.key_file", &problems);
  CheckLogFile(config.log_file(), &problems);
  return problems;
}
