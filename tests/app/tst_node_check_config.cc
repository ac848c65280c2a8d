// SPDX-License-Identifier: Apache-2.0
// `railyard-node --check-config` (like `nginx -t`): a one-line verdict and exit 0 for a usable
// config, exit 1 naming each problem otherwise (parse errors with line and column, bad values,
// unreadable token and key files, a data directory that cannot be written), binding nothing. And
// the settings a node runs with, logged at start-up without any token.
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <asio.hpp>

#include "core/base/usable_cores.h"
#include "tests/support/qtest_main.h"
#include "tests/support/run_program.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

namespace {

using Result = railyard::testing::ProgramResult;

Result CheckConfig(const QStringList& args) {
  return railyard::testing::RunProgram(BuiltProgram("railyard-node"),
                                       QStringList{"--check-config"} + args);
}

void Write(const QString& path, const QByteArray& text) {
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(text);
}

}  // namespace

class NodeCheckConfigTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private Q_SLOTS:
  void usableConfigIsOkAndNothingIsBound() {
    // The port is taken: a check that bound it would fail.
    asio::io_context io;
    asio::ip::tcp::acceptor taken(io, {asio::ip::make_address("127.0.0.1"), 0});
    const QString port = QString::number(taken.local_endpoint().port());
    Write(dir_.filePath("viewer.tokens"), "a-viewer-token\n");
    const QString config = dir_.filePath("ok.textproto");
    Write(config, QString("data_dir: \"%1\"\nlisten: \"127.0.0.1:%2\"\nviewer_token_file: "
                          "\"%3\"\nstorage { sync: \"every-write\" }\n")
                      .arg(dir_.filePath("data"), port, dir_.filePath("viewer.tokens"))
                      .toUtf8());
    const Result r = CheckConfig({"--config", config});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.err.trimmed(), "railyard-node: config " + config + ": OK");
    QVERIFY(!QFile::exists(dir_.filePath("data")));  // Checked, not made.
  }

  void problemsAreNamedAndExitWithOne_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("says");
    const QByteArray data = "data_dir: \"" + dir_.filePath("data").toUtf8() + "\"\n";
    QTest::newRow("parse error") << data + "listen: 7000\n" << QStringList{"line 2, column"};
    QTest::newRow("bad value") << data + "storage { sync: \"sometimes\" }\n"
                               << QStringList{"storage.sync must be"};
    QTest::newRow("bad request threads") << data + "request_threads: \"fibers\"\n"
                                         << QStringList{"request_threads must be io or workers"};
    QTest::newRow("unreadable token file")
        << data + "operator_token_file: \"" + dir_.filePath("missing.tokens").toUtf8() + "\"\n"
        << QStringList{"missing.tokens"};
    QTest::newRow("unreadable key file")
        << data + "tls { cert_file: \"" + dir_.path().toUtf8() + "\" key_file: \"" +
               dir_.filePath("missing.key").toUtf8() + "\" }\n"
        << QStringList{"tls.cert_file " + dir_.path() + " cannot be read",
                       "tls.key_file " + dir_.filePath("missing.key") + " cannot be read"};
    QTest::newRow("data dir not writable")
        << "data_dir: \"" + dir_.filePath("plain-file/data").toUtf8() + "\"\n"
        << QStringList{"plain-file is not a directory"};
  }

  void problemsAreNamedAndExitWithOne() {
    QFETCH(QByteArray, text);
    QFETCH(QStringList, says);
    Write(dir_.filePath("plain-file"), "not a directory");
    const QString config = dir_.filePath("bad.textproto");
    Write(config, text);
    const Result r = CheckConfig({"--config", config});
    QVERIFY2(r.code == 1, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
    for (const QString& what : says) QVERIFY2(r.err.contains(what), qPrintable(r.err));
    QVERIFY2(r.err.trimmed().split('\n').last().contains(": FAILED ("), qPrintable(r.err));
  }

  // The node's default I/O threads: half the cores it may use, at least one. Pinned to one core
  // (as `taskset -c 0` or systemd's CPUAffinity= would), it sees one core, however many the
  // machine has.
  void nodeLogsItsEffectiveSettingsWithoutTokens_data() {
    QTest::addColumn<bool>("pinned");
    QTest::newRow("as started") << false;
    QTest::newRow("pinned to one core") << true;
  }
  void nodeLogsItsEffectiveSettingsWithoutTokens() {
    QFETCH(bool, pinned);
    Write(dir_.filePath("secret.tokens"), "the-secret-viewer-token\n");
    const size_t cores = pinned ? 1 : railyard::base::UsableCores();
    const size_t io_threads = std::max<size_t>(1, cores / 2);
    QProcess node;
    if (pinned) {
      node.setChildProcessModifier([] {
        cpu_set_t mask;
        CPU_ZERO(&mask);
        sched_getaffinity(0, sizeof(mask), &mask);
        int first = 0;
        while (first < CPU_SETSIZE - 1 && !CPU_ISSET(first, &mask)) ++first;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        if (sched_setaffinity(0, sizeof(one), &one) != 0) ::_exit(125);
      });
    }
    const QString data = dir_.filePath(pinned ? "settings-pinned" : "settings-data");
    node.start(BuiltProgram("railyard-node"),
               {"--data-dir", data, "--listen", "127.0.0.1:0", "--sync", "every-write",
                "--viewer-token-file", dir_.filePath("secret.tokens"), "--worker-threads", "3",
                "--request-threads", "workers"});
    QVERIFY(node.waitForStarted(5000));
    QVERIFY(node.waitForReadyRead(30000));
    QVERIFY(node.readLine().startsWith("LISTEN "));
    ::kill(pid_t(node.processId()), SIGTERM);
    QVERIFY(node.waitForFinished(20000));
    const QString log = QString::fromUtf8(node.readAllStandardError());
    QVERIFY2(log.contains("settings: name node; listen 127.0.0.1:0 (plain TCP); admin "),
             qPrintable(log));
    const QString threads = QString(
                                "threads: io %1 (half of %2 usable core%3), workers 3; calls "
                                "run on workers")
                                .arg(io_threads)
                                .arg(cores)
                                .arg(cores == 1 ? "" : "s");
    for (const QString& part :
         {"data_dir " + data, QString("sync every-write"), QString("role updater"),
          "viewer tokens: file " + dir_.filePath("secret.tokens") + " (1 token)",
          QString("operator tokens: none"), QString("grace 30000 ms"), QString("doc cache off"),
          threads}) {
      QVERIFY2(log.contains(part), qPrintable(part + " not in:\n" + log));
    }
    QVERIFY(!log.contains("the-secret-viewer-token"));
    // And the docservice's server runs that many I/O threads (its start-up line; the admin
    // server's has its own name).
    const qsizetype at = log.indexOf("server node listening on ");
    QVERIFY2(at >= 0, qPrintable(log));
    const QString line = log.mid(at, log.indexOf('\n', at) - at);
    QVERIFY2(line.contains(QString("(plain TCP, %1 I/O threads on ").arg(io_threads)),
             qPrintable(line));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(NodeCheckConfigTest)
#include "tst_node_check_config.moc"
