// SPDX-License-Identifier: Apache-2.0
// The crash loop: a railyard-node under `railyardctl load --verify` is killed with SIGKILL at
// random moments and restarted on the same ports, round after round; after each restart the load
// reads back every document it was ever told was written. Nothing may be lost.
//
// Rounds: RAILYARD_CRASH_ROUNDS (default 20); seed: RAILYARD_CRASH_SEED (default random, printed
// so that a failing run can be repeated). scripts/crash-loop.sh runs it by hand.
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <random>

#include "core/rpc/endpoint.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;

namespace {

int RoundsFromEnvironment() {
  const int rounds = qEnvironmentVariableIntValue("RAILYARD_CRASH_ROUNDS");
  return rounds > 0 ? rounds : 20;
}

uint64_t SeedFromEnvironment() {
  bool ok = false;
  const qulonglong seed = qEnvironmentVariable("RAILYARD_CRASH_SEED").toULongLong(&ok);
  return ok ? seed : std::random_device{}();
}

// Starts railyard-node on the given ports (0: any) and reads back the addresses it prints.
bool StartNode(QProcess& node, const QString& data_dir, uint16_t port, uint16_t admin_port,
               rpc::Endpoint* service, rpc::Endpoint* admin) {
  node.start(BuiltProgram("railyard-node"), {"--name", "crash", "--data-dir", data_dir, "--listen",
                                             QString("127.0.0.1:%1").arg(port), "--admin-listen",
                                             QString("127.0.0.1:%1").arg(admin_port),
                                             "--memtable-entries", "3000", "--log-level", "warn"});
  if (!node.waitForStarted(5000)) return false;
  QByteArray out;
  for (int i = 0; i < 100 && !out.contains('\n'); ++i) {
    node.waitForReadyRead(100);
    out += node.readAllStandardOutput();
  }
  const QList<QByteArray> words = out.trimmed().split(' ');
  if (words.size() != 4 || words[0] != "LISTEN") return false;
  *service = *rpc::ParseEndpoint(words[1].toStdString());
  *admin = *rpc::ParseEndpoint(words[3].toStdString());
  return true;
}

// Reads the load's JSON lines until one satisfies `want` or `timeout_ms` passes.
std::optional<QJsonObject> NextLine(QProcess& load, QByteArray& pending,
                                    const std::function<bool(const QJsonObject&)>& want,
                                    int timeout_ms) {
  QElapsedTimer timer;
  timer.start();
  while (timer.elapsed() < timeout_ms) {
    pending += load.readAllStandardOutput();
    int newline = 0;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const QByteArray line = pending.left(newline);
      pending.remove(0, newline + 1);
      const QJsonObject object = QJsonDocument::fromJson(line).object();
      if (!object.isEmpty() && want(object)) return object;
    }
    if (load.state() == QProcess::NotRunning) return std::nullopt;
    load.waitForReadyRead(100);
  }
  return std::nullopt;
}

// Kills the processes it watches when the test leaves, passed or failed.
struct Reaper {
  std::vector<QProcess*> processes;
  ~Reaper() {
    for (QProcess* p : processes) {
      if (p->state() == QProcess::NotRunning) continue;
      p->kill();
      p->waitForFinished(5000);
    }
  }
};

}  // namespace

class CrashLoopTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void killedNodeLosesNoAcknowledgedWrite() {
    const int rounds = RoundsFromEnvironment();
    const uint64_t seed = SeedFromEnvironment();
    std::mt19937_64 rng(seed);
    qInfo("crash loop: %d rounds, seed %llu", rounds, static_cast<unsigned long long>(seed));

    QTemporaryDir dir;
    QProcess node;
    rpc::Endpoint service, admin;
    QVERIFY(StartNode(node, dir.path(), 0, 0, &service, &admin));

    QProcess load;
    const Reaper reaper{{&node, &load}};
    load.setProcessChannelMode(QProcess::SeparateChannels);
    load.start(
        BuiltProgram("railyardctl"),
        {"load", "--verify", "--json", "--server", QString::fromStdString(service.ToString()),
         "--concurrency", "4", "--keys", "20000", "--value-size", "200", "--duration-s", "86400"});
    QVERIFY(load.waitForStarted(5000));
    QByteArray pending;
    uint64_t checked = 0;
    uint64_t lost = 0;
    double last_round_checked = 0;
    for (int round = 1; round <= rounds; ++round) {
      // Let writes run for a random while, then kill without warning.
      QTest::qWait(std::uniform_int_distribution<int>(300, 1500)(rng));
      node.kill();
      QVERIFY(node.waitForFinished(5000));
      bool restarted = false;
      for (int attempt = 0; attempt < 50 && !restarted; ++attempt) {
        rpc::Endpoint again_service, again_admin;
        restarted =
            StartNode(node, dir.path(), service.port, admin.port, &again_service, &again_admin);
        if (!restarted) {
          node.kill();
          node.waitForFinished(2000);
          QTest::qWait(100);  // The port may still be held for a moment.
        }
      }
      QVERIFY2(restarted, "the node did not come back on its ports");
      // The load notices the outage end and checks every acknowledged document.
      const std::optional<QJsonObject> check = NextLine(
          load, pending,
          [](const QJsonObject& o) {
            return o["verify"].toString() == "round" && o["complete"].toBool();
          },
          60000);
      QVERIFY2(check, "the load did not report a complete check after the restart");
      checked += static_cast<uint64_t>((*check)["checked"].toDouble());
      lost += static_cast<uint64_t>((*check)["lost"].toDouble() + (*check)["wrong"].toDouble());
      qInfo("round %d: checked %.0f documents after a %.2f s outage, %.0f lost, %.0f wrong", round,
            (*check)["checked"].toDouble(), (*check)["outage_s"].toDouble(),
            (*check)["lost"].toDouble(), (*check)["wrong"].toDouble());
      QCOMPARE((*check)["lost"].toDouble(), 0.0);
      QCOMPARE((*check)["wrong"].toDouble(), 0.0);
      // The acknowledged set only grows, so each check covers at least what the last one did: a
      // round that checks less has forgotten writes, not merely lost none.
      const double this_round = (*check)["checked"].toDouble();
      QVERIFY2(this_round >= last_round_checked, "a check covered fewer documents than before");
      last_round_checked = this_round;
    }
    QVERIFY2(last_round_checked > 0, "no acknowledged document was ever checked");
    load.terminate();  // SIGTERM: the load checks once more and prints its summary.
    const std::optional<QJsonObject> summary = NextLine(
        load, pending, [](const QJsonObject& o) { return o["verify"].toString() == "summary"; },
        60000);
    QVERIFY(load.waitForFinished(30000));
    node.kill();
    node.waitForFinished(5000);
    QVERIFY2(summary, "no summary from the load");
    QCOMPARE(load.exitCode(), 0);
    QCOMPARE((*summary)["lost"].toDouble(), 0.0);
    QCOMPARE((*summary)["wrong"].toDouble(), 0.0);
    QVERIFY((*summary)["writes_acked"].toDouble() > 0);
    std::printf(
        "{\"crash_loop\":\"summary\",\"rounds\":%d,\"seed\":%llu,\"writes_acked\":%.0f,"
        "\"writes_failed\":%.0f,\"documents_checked\":%llu,\"lost\":%llu}\n",
        rounds, static_cast<unsigned long long>(seed), (*summary)["writes_acked"].toDouble(),
        (*summary)["writes_failed"].toDouble(), static_cast<unsigned long long>(checked),
        static_cast<unsigned long long>(lost));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(CrashLoopTest)
#include "tst_crash_loop.moc"
