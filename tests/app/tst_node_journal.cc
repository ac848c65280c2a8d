// SPDX-License-Identifier: Apache-2.0
// railyard-node logging to journald: each line with its priority (so `journalctl -p warning`
// shows warnings and errors), and audit lines with RAILYARD_AUDIT_* fields of their own. It logs
// there when stderr is the journal (JOURNAL_STREAM names stderr's device and inode) or when
// --log-journal says so. journald's socket path is fixed, so the node runs in a private mount
// namespace where the test's own datagram socket is /run/systemd/journal/socket.
#include <signal.h>
#include <sys/stat.h>

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cstring>

#include "core/cluster/admin_client.h"
#include "tests/app/unix_datagram.h"
#include "tests/support/admin_tokens.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;
using railyard::testing::kOperatorToken;

using namespace railyard;
using namespace std::chrono_literals;

namespace {

// Runs `command` with the temporary directory `journal` mounted at /run/systemd/journal, in a
// mount namespace of its own (a tmpfs over /run there, so this machine's /run is left alone).
QStringList InJournalNamespace(const QString& journal, const QStringList& command) {
  return QStringList{"--mount",
                     "--propagation",
                     "private",
                     "sh",
                     "-c",
                     "mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/journal && "
                     "mount --bind \"$0\" /run/systemd/journal && exec \"$@\"",
                     journal} +
         command;
}

using Entry = QMap<QByteArray, QByteArray>;

// One datagram of journald's native protocol: KEY=VALUE lines, or KEY, a newline, a 64-bit
// little-endian length and that many bytes (for values with newlines), then a newline.
Entry ParseEntry(const QByteArray& datagram) {
  Entry entry;
  qsizetype at = 0;
  while (at < datagram.size()) {
    const qsizetype end = datagram.indexOf('\n', at);
    if (end < 0) break;
    const QByteArray line = datagram.mid(at, end - at);
    if (const qsizetype eq = line.indexOf('='); eq >= 0) {
      entry.insert(line.left(eq), line.mid(eq + 1));
      at = end + 1;
      continue;
    }
    if (end + 9 > datagram.size()) break;
    uint64_t length = 0;
    std::memcpy(&length, datagram.constData() + end + 1, 8);  // Little-endian, as is x86 and arm.
    entry.insert(line, datagram.mid(end + 9, qsizetype(length)));
    at = end + 9 + qsizetype(length) + 1;
  }
  return entry;
}

// Every entry that arrives until the process has ended and the socket is quiet (bounded).
QList<Entry> Collect(UnixDatagram& journal, QProcess& process, QList<Entry> entries = {}) {
  for (int i = 0; i < 300; ++i) {  // At most about 30 s.
    const QByteArray datagram = journal.Receive(100);
    if (!datagram.isEmpty()) {
      entries.append(ParseEntry(datagram));
    } else if (process.state() == QProcess::NotRunning || process.waitForFinished(0)) {
      break;
    }
  }
  return entries;
}

const Entry* Find(const QList<Entry>& entries, const QByteArray& message_part) {
  for (const Entry& entry : entries) {
    if (entry.value("MESSAGE").contains(message_part)) return &entry;
  }
  return nullptr;
}

QString Dump(const QList<Entry>& entries) {
  QString text;
  for (const Entry& entry : entries) {
    text += entry.value("PRIORITY") + " " + entry.value("MESSAGE") + "\n";
  }
  return text;
}

}  // namespace

class NodeJournalTest : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString journal_dir_;

 private Q_SLOTS:
  void initTestCase() {
    if (QStandardPaths::findExecutable("unshare").isEmpty()) QSKIP("unshare is not installed");
    journal_dir_ = dir_.filePath("journal");
    QVERIFY(QDir().mkpath(journal_dir_));
    QProcess probe;
    probe.start("unshare", InJournalNamespace(journal_dir_, {"true"}));
    QVERIFY(probe.waitForFinished(10000));
    if (probe.exitCode() != 0) {
      QSKIP(
          qPrintable("cannot make a private mount namespace here (needs root or "
                     "CAP_SYS_ADMIN): " +
                     QString::fromUtf8(probe.readAllStandardError()).trimmed()));
    }
  }

  // Under systemd: stderr is the journal, so lines go there as entries, not as text on stderr.
  void warningsAndAuditLinesReachTheJournal() {
    UnixDatagram journal(QDir(journal_dir_).filePath("socket").toUtf8());
    QVERIFY(journal.ok());
    QFile tokens(dir_.filePath("operator.tokens"));
    QVERIFY(tokens.open(QIODevice::WriteOnly));
    tokens.write(QByteArray(kOperatorToken) + "\n");
    tokens.close();
    const QString stderr_path = dir_.filePath("stderr");
    QFile(stderr_path).open(QIODevice::WriteOnly);  // Made now, so its inode is known.
    struct stat st {};
    QCOMPARE(::stat(QFile::encodeName(stderr_path).constData(), &st), 0);

    QProcess node;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("JOURNAL_STREAM", QString("%1:%2").arg(st.st_dev).arg(st.st_ino));
    node.setProcessEnvironment(env);
    node.setStandardErrorFile(stderr_path, QIODevice::Append);
    node.start("unshare",
               InJournalNamespace(journal_dir_,
                                  {BuiltProgram("railyard-node"), "--name", "journaled",
                                   "--data-dir", dir_.filePath("data"), "--listen", "127.0.0.1:0",
                                   "--operator-token-file", tokens.fileName()}));
    QVERIFY(node.waitForStarted(5000));
    const auto stop = qScopeGuard([&] {
      if (node.state() == QProcess::NotRunning) return;
      ::kill(pid_t(node.processId()), SIGKILL);  // unshare exec'ed the node: same PID.
      node.waitForFinished(5000);
    });
    QVERIFY(node.waitForReadyRead(30000));
    const QRegularExpressionMatch m =
        QRegularExpression(R"(ADMIN 127\.0\.0\.1:(\d+))").match(QString::fromUtf8(node.readLine()));
    QVERIFY(m.hasMatch());
    const rpc::Endpoint admin{"127.0.0.1", uint16_t(m.captured(1).toUInt())};

    {  // A wrong token: a warning.
      cluster::AdminClient intruder(admin, "not-the-token", "intruder");
      QVERIFY(intruder.Connect(5s).ok());
      admin::Telemetry telemetry;
      QCOMPARE(intruder.Telemetry(&telemetry).code(), rpc::Code::kUnauthenticated);
    }
    {  // An operator's drain: an audit line.
      cluster::AdminClient operator_client(admin, kOperatorToken, "tst_node_journal");
      QVERIFY(operator_client.Connect(5s).ok());
      admin::AdminResponse response;
      QVERIFY(operator_client.Run(cluster::AdminCommand::kDrain, {}, &response).ok());
    }
    ::kill(pid_t(node.processId()), SIGTERM);
    const QList<Entry> entries = Collect(journal, node);
    QCOMPARE(node.state(), QProcess::NotRunning);
    QCOMPARE(node.exitStatus(), QProcess::NormalExit);
    QCOMPARE(node.exitCode(), 0);

    const Entry* refused = Find(entries, "admin: refused");
    QVERIFY2(refused, qPrintable(Dump(entries)));
    QCOMPARE(refused->value("PRIORITY"), QByteArray("4"));
    QCOMPARE(refused->value("SYSLOG_IDENTIFIER"), QByteArray("railyard-node"));
    const Entry* serving = Find(entries, "settings: name journaled");
    QVERIFY2(serving, qPrintable(Dump(entries)));
    QCOMPARE(serving->value("PRIORITY"), QByteArray("6"));
    const Entry* audit = Find(entries, "audit: admin.Drain");
    QVERIFY2(audit, qPrintable(Dump(entries)));
    QCOMPARE(audit->value("PRIORITY"), QByteArray("6"));
    QCOMPARE(audit->value("RAILYARD_AUDIT_ACTION"), QByteArray("admin.Drain"));
    QCOMPARE(audit->value("RAILYARD_AUDIT_NODE"), QByteArray("journaled"));
    QCOMPARE(audit->value("RAILYARD_AUDIT_ROLE"), QByteArray("operator"));
    QCOMPARE(audit->value("RAILYARD_AUDIT_RESULT"), QByteArray("OK"));
    QVERIFY(audit->value("RAILYARD_AUDIT_PEER").startsWith("tst_node_journal at 127.0.0.1:"));
    // Each line went to the journal instead of stderr, not as well.
    QFile err(stderr_path);
    QVERIFY(err.open(QIODevice::ReadOnly));
    QVERIFY2(!err.readAll().contains("admin: refused"), "logged twice: journal and stderr");
  }

  // --log-journal without JOURNAL_STREAM; a store that cannot open: an error.
  void errorsReachTheJournalWithTheFlag() {
    UnixDatagram journal(QDir(journal_dir_).filePath("socket").toUtf8());
    QVERIFY(journal.ok());
    QFile plain(dir_.filePath("plain-file"));
    QVERIFY(plain.open(QIODevice::WriteOnly));
    plain.close();
    QProcess node;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("JOURNAL_STREAM");
    node.setProcessEnvironment(env);
    node.start("unshare",
               InJournalNamespace(journal_dir_,
                                  {BuiltProgram("railyard-node"), "--log-journal", "--data-dir",
                                   plain.fileName() + "/data", "--listen", "127.0.0.1:0"}));
    QVERIFY(node.waitForStarted(5000));
    const QList<Entry> entries = Collect(journal, node);
    QCOMPARE(node.state(), QProcess::NotRunning);
    QCOMPARE(node.exitCode(), 1);
    const Entry* error = Find(entries, "opening the store");
    QVERIFY2(error, qPrintable(Dump(entries)));
    QCOMPARE(error->value("PRIORITY"), QByteArray("3"));
  }

  // Outside systemd (JOURNAL_STREAM names another stream, no flag): today's text on stderr, and
  // nothing for journald.
  void elsewhereLinesStayOnStderr() {
    UnixDatagram journal(QDir(journal_dir_).filePath("socket").toUtf8());
    QVERIFY(journal.ok());
    QProcess node;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("JOURNAL_STREAM", "1:1");
    QFile plain(dir_.filePath("plain-file"));  // Where the store cannot be.
    QVERIFY(plain.open(QIODevice::WriteOnly));
    plain.close();
    node.setProcessEnvironment(env);
    node.start("unshare",
               InJournalNamespace(journal_dir_, {BuiltProgram("railyard-node"), "--data-dir",
                                                 dir_.filePath("plain-file") + "/data", "--listen",
                                                 "127.0.0.1:0"}));
    QVERIFY(node.waitForStarted(5000));
    const QList<Entry> entries = Collect(journal, node);
    QCOMPARE(node.state(), QProcess::NotRunning);
    QCOMPARE(node.exitCode(), 1);
    QVERIFY2(entries.isEmpty(), qPrintable(Dump(entries)));
    const QString err = QString::fromUtf8(node.readAllStandardError());
    QVERIFY2(err.contains("[railyard-node] [error] INTERNAL: opening the store"), qPrintable(err));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(NodeJournalTest)
#include "tst_node_journal.moc"
