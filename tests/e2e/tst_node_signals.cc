// SPDX-License-Identifier: Apache-2.0
// A real railyard-node and the signals and start-up lines operators rely on: SIGHUP reloads the
// admin token files and never stops the node (a broken file is refused, the old tokens stay), and
// the log names the sync mode, which is docs/guide.md's documented default (also in the demo
// cluster).
#include <signal.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <filesystem>
#include <thread>

#include "core/load/demo_cluster.h"
#include "tests/e2e/node_process.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;

namespace {

void WriteText(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

int CountInFile(const QString& path, const QByteArray& part) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return 0;
  return static_cast<int>(f.readAll().count(part));
}

// Waits (bounded: 15 s) until `path` holds `part` at least `times` times.
bool WaitForLine(const QString& path, const QByteArray& part, int times) {
  for (int i = 0; i < 1500; ++i) {
    if (CountInFile(path, part) >= times) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

class NodeSignalsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void hangupReloadsTokenFilesAndNeverStops() {
    QTemporaryDir dir;
    WriteText(dir.filePath("viewer"), "viewer-old\n");
    WriteText(dir.filePath("operator"), "operator-1\n");
    e2e::NodeProcessOptions options;
    options.binary = BuiltProgram("railyard-node");
    options.name = "hup";
    options.data_dir = dir.filePath("data");
    options.token_dir = dir.path();
    options.log_path = dir.filePath("node.log");
    e2e::NodeProcess node(options);
    QString error;
    QVERIFY2(node.Start(0, 0, &error), qPrintable(error));
    const QString log = options.log_path;
    // No --sync given: the documented default, named in the log.
    QVERIFY2(WaitForLine(log, "sync interval every 100 ms", 1), "the log does not name the sync");
    admin::Telemetry telemetry;
    QVERIFY(node.Telemetry("viewer-old", &telemetry));

    // A changed file takes effect.
    WriteText(dir.filePath("viewer"), "viewer-new\n");
    QCOMPARE(::kill(static_cast<pid_t>(node.pid()), SIGHUP), 0);
    QVERIFY(WaitForLine(log, "reloaded viewer tokens", 1));
    QVERIFY(WaitForLine(log, "reloaded operator tokens", 1));
    // The reload's last line: written after the new tokens took effect (the lines above come
    // before).
    QVERIFY(WaitForLine(log, "restart the node to change them", 1));
    QVERIFY(node.running());
    QVERIFY(node.Telemetry("viewer-new", &telemetry));
    QVERIFY(!node.Telemetry("viewer-old", &telemetry));
    QVERIFY(node.Telemetry("operator-1", &telemetry));

    // A missing or empty file is refused with a warning; the tokens the node had keep working.
    QVERIFY(QFile::remove(dir.filePath("viewer")));
    QCOMPARE(::kill(static_cast<pid_t>(node.pid()), SIGHUP), 0);
    QVERIFY(WaitForLine(log, "kept the previous viewer tokens: cannot read token file", 1));
    QVERIFY(WaitForLine(log, "restart the node to change them", 2));
    QVERIFY(node.running());
    QVERIFY(node.Telemetry("viewer-new", &telemetry));
    WriteText(dir.filePath("viewer"), "# being edited\n");
    QCOMPARE(::kill(static_cast<pid_t>(node.pid()), SIGHUP), 0);
    QVERIFY(WaitForLine(log, "holds no token", 1));
    QVERIFY(WaitForLine(log, "restart the node to change them", 3));
    QVERIFY(node.Telemetry("viewer-new", &telemetry));
    QCOMPARE(CountInFile(log, "reloaded viewer tokens"), 1);

    // Still a node that drains and stops as usual.
    int exit_code = -1;
    QVERIFY(node.Terminate(std::chrono::seconds(10), &exit_code));
    QCOMPARE(exit_code, 0);
  }

  // The demo writes node configs without a sync setting: its nodes run the documented default.
  void demoNodesSyncAsDocumented() {
    load::DemoClusterOptions options;
    options.nodes = 1;
    options.clients = 1;
    options.node_binary = BuiltProgram("railyard-node");
    load::DemoCluster demo;
    const rpc::Status started = demo.Start(options);
    QVERIFY2(started.ok(), started.ToString().c_str());
    const QString log = QString::fromStdString(
        (std::filesystem::path(demo.root()) / "node0" / "node.log").string());
    QVERIFY2(WaitForLine(log, "sync interval", 1),
             "the demo node's log does not say sync interval");
    demo.Stop();
  }
};

RAILYARD_QTEST_GUILESS_MAIN(NodeSignalsTest)
#include "tst_node_signals.moc"
