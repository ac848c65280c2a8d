// SPDX-License-Identifier: Apache-2.0
#include "tests/ui/storage_test_node.h"

#include <QCoreApplication>
#include <QThread>

#include "core/cluster/admin_client.h"
#include "railyard/docservice.pb.h"

namespace railyard::ui::testing {

StorageTestNode::StorageTestNode() = default;

StorageTestNode::~StorageTestNode() {
  if (client_) client_->Stop();
  if (node_) node_->Shutdown(std::chrono::milliseconds(500));
}

bool StorageTestNode::Start(const Options& options) {
  if (!dir_.isValid()) {
    error_ = QStringLiteral("no temporary folder");
    return false;
  }
  node::NodeOptions o;
  o.name = options.name.toStdString();
  o.data_dir = dir_.path().toStdString();
  o.io_threads = 1;
  o.worker_threads = 2;
  o.storage.memtable_entries = options.memtable_entries;
  o.storage.bloom_page_bytes = options.bloom_page_bytes;
  o.storage.bloom_memory_budget = options.bloom_budget_bytes;
  o.storage.bloom_rerank_interval = std::chrono::milliseconds(50);
  o.admin.viewer_tokens = {kViewerToken};
  o.admin.operator_tokens = {kOperatorToken};
  if (rpc::Status s = node::Node::Open(o, &node_); !s.ok()) {
    error_ = QString::fromStdString(s.ToString());
    return false;
  }
  rpc::ClientOptions c;
  c.servers = {node_->endpoint()};
  c.pool_size = 2;
  c.client_name = "ui-test-writer";
  c.seed = 1;
  client_ = std::make_unique<rpc::Client>(c);
  if (rpc::Status s = client_->Start(); !s.ok()) {
    error_ = QString::fromStdString(s.ToString());
    return false;
  }
  if (!client_->WaitForPool(1, std::chrono::seconds(20))) {
    error_ = QStringLiteral("the client could not connect to the node");
    return false;
  }
  return true;
}

bool StorageTestNode::Put(uint64_t first, int count) {
  for (int i = 0; i < count; ++i) {
    doc::PutRequest put;
    put.set_id(first + uint64_t(i));
    put.set_doc("document " + std::to_string(first + uint64_t(i)));
    const rpc::CallResult r = client_->Call("doc.Put", put.SerializeAsString());
    if (!r.status.ok()) {
      error_ = QString::fromStdString(r.status.ToString());
      return false;
    }
  }
  return true;
}

int StorageTestNode::Get(uint64_t first, int count) {
  int answered = 0;
  for (int i = 0; i < count; ++i) {
    doc::GetRequest get;
    get.set_id(first + uint64_t(i));
    const rpc::CallResult r = client_->Call("doc.Get", get.SerializeAsString());
    if (r.status.ok() || r.status.code() == rpc::Code::kNotFound) ++answered;
  }
  return answered;
}

std::shared_ptr<const admin::Telemetry> StorageTestNode::Telemetry() {
  cluster::AdminClient admin(node_->admin_endpoint(), kViewerToken, "ui-test-viewer");
  if (rpc::Status s = admin.Connect(std::chrono::seconds(5)); !s.ok()) {
    error_ = QString::fromStdString(s.ToString());
    return nullptr;
  }
  auto telemetry = std::make_shared<admin::Telemetry>();
  if (rpc::Status s = admin.Telemetry(telemetry.get()); !s.ok()) {
    error_ = QString::fromStdString(s.ToString());
    return nullptr;
  }
  return telemetry;
}

int StorageTestNode::Feed(ClusterState* state, qint64 now_ms) {
  std::shared_ptr<const admin::Telemetry> telemetry = Telemetry();
  if (!telemetry) return -1;
  const int index = state->AddNode(adminAddress());
  state->ApplyFrame({{index, telemetry, {}}}, now_ms >= 0 ? now_ms : telemetry->unix_ms());
  return index;
}

QString StorageTestNode::adminAddress() const {
  return QString::fromStdString(node_->admin_endpoint().ToString());
}

bool WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(20);
  }
  return true;
}

}  // namespace railyard::ui::testing
