// SPDX-License-Identifier: Apache-2.0
// Crash safety: a writer with sync-every-write is killed with SIGKILL at random moments; after
// every reopen each acknowledged write reads back exactly.
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <random>

#include "storage/wal.h"
#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard::storage;
using namespace railyard::storage::testing;

class CrashSafetyTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void acknowledgedWritesSurviveSigkill() {
    QTemporaryDir dir;
    std::map<uint64_t, uint32_t> acked;  // id -> generation last acknowledged
    std::mt19937 rng(2024);
    const int rounds = qEnvironmentVariableIntValue("RAILYARD_CRASH_ROUNDS") > 0
                           ? qEnvironmentVariableIntValue("RAILYARD_CRASH_ROUNDS")
                           : 12;
    uint64_t total_acked = 0;
    int round = 0;
    // Rounds past `rounds` only while no write has been acknowledged yet (on a loaded machine the
    // kills may all land before the child's first write); those wait for the child to have opened
    // its store before the random run, so they surely write.
    for (; round < rounds || (total_acked == 0 && round < 4 * rounds); ++round) {
      QProcess child;
      // A small in-memory index so crashes also land during flushes and compactions.
      child.start(BuiltProgram("docstore_crash_writer"),
                  {dir.path(), QString::number(round), "64"});
      QVERIFY(child.waitForStarted(10000));
      QByteArray output;
      for (int i = 0; round >= rounds && i < 300 && !output.contains("OPEN"); ++i) {  // <= 30 s.
        child.waitForReadyRead(100);
        output += child.readAllStandardOutput();
      }
      const int run_ms = 50 + static_cast<int>(rng() % 250);
      QTest::qWait(run_ms);
      child.kill();  // SIGKILL
      QVERIFY(child.waitForFinished(5000));
      QVERIFY2(child.exitStatus() == QProcess::CrashExit, child.readAllStandardError().constData());
      output += child.readAllStandardOutput();

      // The write that was in flight may or may not have landed; anything acknowledged must have.
      bool in_flight = false;
      uint64_t in_flight_id = 0;
      uint32_t in_flight_generation = 0;
      for (const QByteArray& line : output.split('\n')) {
        const QList<QByteArray> parts = line.split(' ');
        if (parts.size() != 3) continue;
        const uint64_t id = parts[1].toULongLong();
        const uint32_t generation = parts[2].toUInt();
        if (parts[0] == "BEGIN") {
          in_flight = true;
          in_flight_id = id;
          in_flight_generation = generation;
        }
        if (parts[0] == "ACK") {
          acked[id] = generation;
          in_flight = false;
          ++total_acked;
        }
      }
      auto store = OpenOrDie(SmallOptions(64), dir.path().toStdString());
      std::string doc;
      for (const auto& [id, generation] : acked) {
        const Status s = store->Get(id, &doc);
        QVERIFY2(
            s.ok(),
            qPrintable(QString("round %1 id %2: %3").arg(round).arg(id).arg(s.ToString().c_str())));
        const bool exact = doc == DocFor(id, generation);
        const bool newer_in_flight =
            in_flight && in_flight_id == id && doc == DocFor(id, in_flight_generation);
        QVERIFY2(exact || newer_in_flight,
                 qPrintable(QString("round %1 id %2: wrong document").arg(round).arg(id)));
        if (newer_in_flight) acked[id] = in_flight_generation;
      }
    }
    qInfo("%d SIGKILL rounds, %llu acknowledged writes, %zu distinct ids verified", round,
          static_cast<unsigned long long>(total_acked), acked.size());
    QVERIFY(total_acked > 0);
  }

  // The log is written through a shared mapping with space reserved ahead (storage/wal.h): while
  // the store is open the file is longer than its records; Close cuts it back to them.
  void logIsWrittenThroughAMappingAndCutBackAtClose() {
    QTemporaryDir dir;
    Options options = SmallOptions(10000);
    options.sync = SyncPolicy::kNone;
    auto store = OpenOrDie(options, dir.path().toStdString());
    QVERIFY(store->Put(1, DocFor(1)).ok());
    const QStringList logs = QDir(dir.path()).entryList({"wal-*.log"}, QDir::Files);
    QCOMPARE(logs.size(), 1);
    const QString log = dir.filePath(logs.front());
    QCOMPARE(QFileInfo(log).size(), qint64{WalWriter::kMapWindowBytes});
    QVERIFY(store->Close().ok());
    // One record: a 12-byte header, the id, a header checksum, a 23-byte op header, the document
    // and a body checksum.
    QCOMPARE(QFileInfo(log).size(), static_cast<qint64>(12 + 8 + 4 + 23 + DocFor(1).size() + 8));
  }

  // SyncPolicy::kNone promises that an acknowledged write survives a crash of the process. A
  // writer killed with SIGKILL leaves reserved space after its log's last record; the reopen finds
  // every acknowledged write and cuts that space off without calling it damaged. The kill may land
  // while the next, unacknowledged record is being copied into the mapping: that record, and only
  // that much, may be cut off as a torn tail. With large documents the records are written with
  // pwrite(2) into the reserved window (storage/wal.h), and 2,000 of them cross into a second one.
  void killedNoSyncWriterLosesNothingAndCutsAtMostTheUnacknowledgedRecord_data() {
    QTest::addColumn<bool>("large");
    QTest::newRow("records copied into the mapping") << false;
    QTest::newRow("records of a page or more, written with pwrite") << true;
  }
  void killedNoSyncWriterLosesNothingAndCutsAtMostTheUnacknowledgedRecord() {
    QFETCH(bool, large);
    const auto doc_for = [large](uint64_t id, uint32_t generation) {
      return large ? LargeDocFor(id, generation) : DocFor(id, generation);
    };
    QTemporaryDir dir;
    QProcess child;
    // A memtable larger than anything written: every write is still only in the log.
    child.start(BuiltProgram("docstore_crash_writer"),
                {dir.path(), "0", "100000", large ? "none-large" : "none"});
    QVERIFY(child.waitForStarted(10000));
    QByteArray output;
    QElapsedTimer waited;
    waited.start();
    while (output.count("ACK ") < 2000 && waited.elapsed() < 30'000) {
      child.waitForReadyRead(100);
      output += child.readAllStandardOutput();
    }
    child.kill();  // SIGKILL
    QVERIFY(child.waitForFinished(5000));
    output += child.readAllStandardOutput();
    std::map<uint64_t, uint32_t> acked;
    bool in_flight = false;  // A write begun and never acknowledged.
    uint64_t in_flight_id = 0;
    uint32_t in_flight_generation = 0;  // Its document's length depends on it (DocFor).
    for (const QByteArray& line : output.split('\n')) {
      const QList<QByteArray> parts = line.split(' ');
      if (parts.size() != 3) continue;
      if (parts[0] == "BEGIN") {
        in_flight = true;
        in_flight_id = parts[1].toULongLong();
        in_flight_generation = parts[2].toUInt();
      }
      if (parts[0] == "ACK") {
        acked[parts[1].toULongLong()] = parts[2].toUInt();
        in_flight = false;
      }
    }
    QVERIFY(!acked.empty());
    if (large) {
      // 2,000 records of 4-7 KB: the writer reserved and wrote into a second window.
      const QStringList logs = QDir(dir.path()).entryList({"wal-*.log"}, QDir::Files);
      QCOMPARE(logs.size(), 1);
      QVERIFY(QFileInfo(dir.filePath(logs.front())).size() > qint64{WalWriter::kMapWindowBytes});
    }

    QStringList messages;
    Options options = SmallOptions(100000);
    options.logger = [&messages](LogLevel, std::string_view message) {
      messages.push_back(QString::fromUtf8(message.data(), static_cast<qsizetype>(message.size())));
    };
    auto store = OpenOrDie(options, dir.path().toStdString());
    const QString all = messages.join('\n');
    QVERIFY2(!all.contains("damaged") && all.contains("; no damage"), qPrintable(all));
    const QRegularExpressionMatch torn =
        QRegularExpression(" (\\d+) torn bytes cut off").match(all);
    QVERIFY2(torn.hasMatch(), qPrintable(all));
    const qulonglong torn_bytes = torn.captured(1).toULongLong();
    if (torn_bytes > 0) {
      // Only the record begun last and never acknowledged can be torn, and the reserve after it
      // is not counted as torn.
      QVERIFY2(in_flight, qPrintable(all));
      const size_t record_bytes =
          12 + 8 + 4 + 23 + doc_for(in_flight_id, in_flight_generation).size() + 8;
      // At most the whole record: the log is written through a shared mapping, and memcpy may
      // store a record's last bytes (its checksum) before its first, so a kill between the two
      // leaves a torn span that reaches the record's end.
      QVERIFY2(torn_bytes <= record_bytes, qPrintable(all));
    }
    std::string doc;
    for (const auto& [id, generation] : acked) {
      QVERIFY2(store->Get(id, &doc).ok(), qPrintable(QString("id %1").arg(id)));
      QCOMPARE(doc, doc_for(id, generation));
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(CrashSafetyTest)
#include "tst_crash_safety.moc"
