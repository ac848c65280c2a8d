// SPDX-License-Identifier: Apache-2.0
// Where a node's docservice calls run (DocServiceOptions::dispatch): on the I/O threads by default,
// moving to a worker only to wait, or every call on a worker. Either way a node whose in-memory
// index fills again and again under concurrent writers answers every write once, in queue order,
// reads every document back, and counts each call once in its method figures (not the I/O
// thread's try as well). Real nodes and a Boxcar client on loopback.
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <future>
#include <mutex>
#include <vector>

#include "core/node/node.h"
#include "core/rpc/client.h"
#include "railyard/docservice.boxcar.h"
#include "tests/support/qtest_main.h"

using namespace railyard;

namespace {

std::string DocFor(uint64_t id) { return "document " + std::to_string(id) + std::string(300, 'x'); }

uint64_t RequestsOf(const admin::Telemetry& t, std::string_view method) {
  for (const admin::MethodStats& m : t.throughput().methods()) {
    if (m.method() == method) return m.requests();
  }
  return 0;
}

}  // namespace

class DocDispatchTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void writesThroughAFillingIndexAnswerOnceAndReadBack_data() {
    QTest::addColumn<int>("dispatch");
    QTest::newRow("io threads") << int(rpc::Dispatch::kInline);
    QTest::newRow("workers") << int(rpc::Dispatch::kWorkerPool);
  }

  void writesThroughAFillingIndexAnswerOnceAndReadBack() {
    QFETCH(int, dispatch);
    QTemporaryDir dir;
    node::NodeOptions options;
    options.name = "dispatch";
    options.data_dir = dir.path().toStdString();
    options.doc_dispatch = static_cast<rpc::Dispatch>(dispatch);
    options.storage.memtable_entries = 16;  // Frozen and flushed every 16 writes.
    options.storage.logger = [](storage::LogLevel, std::string_view) {};
    std::unique_ptr<node::Node> node;
    QVERIFY(node::Node::Open(options, &node).ok());

    constexpr int kCallers = 8;
    constexpr uint64_t kWritesEach = 40;
    rpc::ClientOptions client_options;
    client_options.servers = {node->endpoint()};
    client_options.pool_size = kCallers;
    rpc::Client client(client_options);
    QVERIFY(client.Start().ok());
    QVERIFY(client.WaitForPool(kCallers, std::chrono::seconds(10)));
    doc::DocService::Stub stub(client);

    std::mutex mutex;
    std::vector<std::string> failures;
    std::vector<std::future<void>> callers;
    for (int c = 0; c < kCallers; ++c) {
      callers.push_back(std::async(std::launch::async, [&, c] {
        uint64_t last_position = 0;
        for (uint64_t i = 0; i < kWritesEach; ++i) {
          doc::PutRequest put;
          put.set_id(uint64_t(c) * kWritesEach + i);
          put.set_doc(DocFor(put.id()));
          doc::PutResponse answer;
          const rpc::CallResult result = stub.Put(put, &answer, std::chrono::seconds(20));
          std::lock_guard lock(mutex);
          if (!result.status.ok()) {
            failures.push_back(result.status.ToString());
          } else if (answer.position() < last_position || answer.position() == 0) {
            failures.push_back("position " + std::to_string(answer.position()) + " after " +
                               std::to_string(last_position));
          }
          last_position = answer.position();
        }
      }));
    }
    for (auto& caller : callers) {
      QVERIFY(caller.wait_for(std::chrono::seconds(120)) == std::future_status::ready);
    }
    QVERIFY2(failures.empty(), failures.empty() ? "" : failures.front().c_str());

    constexpr uint64_t kWrites = kCallers * kWritesEach;
    for (uint64_t id = 0; id < kWrites; ++id) {
      doc::GetRequest get;
      get.set_id(id);
      doc::GetResponse answer;
      const rpc::CallResult result = stub.Get(get, &answer, std::chrono::seconds(20));
      QVERIFY2(result.status.ok(),
               qPrintable(QString("id %1: %2").arg(id).arg(result.status.ToString().c_str())));
      QCOMPARE(answer.doc(), DocFor(id));
    }
    const admin::Telemetry t = node->Snapshot();
    QVERIFY2(t.storage().flushes() >= kWrites / 16 - 2,
             qPrintable(QString::number(t.storage().flushes())));
    QCOMPARE(RequestsOf(t, doc::DocService::kPutMethod), kWrites);
    QCOMPARE(RequestsOf(t, doc::DocService::kGetMethod), kWrites);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(DocDispatchTest)
#include "tst_doc_dispatch.moc"
