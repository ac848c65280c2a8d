// SPDX-License-Identifier: Apache-2.0
#include "tests/e2e/lab_support.h"

#include <QDir>

#include "core/cluster/admin_client.h"
#include "core/cluster/text_files.h"
#include "core/load/lab.h"
#include "tests/e2e/replication_support.h"
#include "tests/support/test_paths.h"

namespace railyard::e2e {

namespace {

// The first token of a token file; empty if none.
std::string ReadToken(const std::string& path) {
  std::vector<std::string> tokens;
  if (!cluster::ReadTokenFile(path, &tokens).ok() || tokens.empty()) return {};
  return tokens.front();
}

}  // namespace

bool LabFixture::Up(int replicas, const QStringList& extra) {
  if (!temporary_.isValid()) return false;
  dir_ = (temporary_.path() + "/lab").toStdString();
  QString out;
  const int rc = Lab(QStringList{"up", "--replicas", QString::number(replicas)} << extra, &out);
  if (rc != 0) {
    qWarning("lab up: exit %d: %s", rc, qPrintable(out));
    return false;
  }
  viewer_ = ReadToken(load::LabViewerTokenFile(dir_));
  operator_ = ReadToken(load::LabOperatorTokenFile(dir_));
  return Reload() && !viewer_.empty() && !operator_.empty();
}

bool LabFixture::Down() {
  if (dir_.empty()) return true;
  QString out;
  const int rc = Lab({"down"}, &out);
  std::vector<std::string> removed;
  (void)load::LabDown(dir_, &removed);  // If the command could not: by the PIDs recorded.
  bool gone = true;
  for (const lab::Host& h : state_.host()) {
    gone &= h.netns().empty() || !QDir("/run/netns").exists(QString::fromStdString(h.netns()));
  }
  if (!state_.bridge_netns().empty()) {
    gone &= !QDir("/run/netns").exists(QString::fromStdString(state_.bridge_netns()));
  }
  dir_.clear();
  if (rc != 0) qWarning("lab down: exit %d: %s", rc, qPrintable(out));
  return rc == 0 && gone;
}

int LabFixture::Lab(const QStringList& args, QString* out) const {
  return RunCtl(railyard::testing::BuiltProgram("railyardctl"),
                QStringList{"lab"} << args << "--dir" << QString::fromStdString(dir_), out);
}

bool LabFixture::Reload() { return load::ReadLabState(dir_, &state_).ok(); }

const lab::Host& LabFixture::Host(const std::string& name) const {
  for (const lab::Host& h : state_.host()) {
    if (h.name() == name) return h;
  }
  throw std::runtime_error("the lab has no host " + name);
}

rpc::Endpoint LabFixture::Service(const std::string& name) const {
  return *rpc::ParseEndpoint(Host(name).service());
}
rpc::Endpoint LabFixture::Admin(const std::string& name) const {
  return *rpc::ParseEndpoint(Host(name).admin());
}

QString LabFixture::ClusterFile() const {
  return QString::fromStdString(load::LabClusterFile(dir_));
}

admin::Telemetry LabFixture::TelemetryAt(const std::string& name) const {
  cluster::AdminClient client(Admin(name), viewer_);
  admin::Telemetry t;
  if (!client.Connect(std::chrono::seconds(2)).ok() || !client.Telemetry(&t).ok()) return {};
  return t;
}

bool LabFixture::CaughtUp(const std::string& replica, uint64_t position) const {
  const admin::Replication r = TelemetryAt(replica).replication();
  return r.state() == admin::REPLICA_TAILING && r.applied_position() >= position;
}

std::unique_ptr<rpc::Client> LabFixture::ClientOf(const std::vector<std::string>& hosts) const {
  rpc::ClientOptions options;
  for (const std::string& h : hosts) options.servers.push_back(Service(h));
  options.pool_size = 4;
  options.client_name = "lab-test";
  auto client = std::make_unique<rpc::Client>(options);
  if (!client->Start().ok() || !client->WaitForPool(hosts.size(), std::chrono::seconds(20))) {
    return nullptr;
  }
  return client;
}

ReadLoop::ReadLoop(rpc::Client& client, uint64_t id) : client_(client), id_(id) {
  thread_ = std::thread([this] {
    while (!stop_) {
      std::optional<std::string> doc;
      const rpc::CallResult r = Get(client_, id_, 0, &doc);
      if (r.status.ok()) {
        ++ok_;
      } else {
        ++failed_;
        std::lock_guard lock(failure_mu_);
        last_failure_ = r.status.ToString();
      }
    }
  });
}

ReadLoop::~ReadLoop() { Stop(); }

void ReadLoop::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

std::string ReadLoop::last_failure() const {
  std::lock_guard lock(failure_mu_);
  return last_failure_;
}

}  // namespace railyard::e2e
