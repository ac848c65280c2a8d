// SPDX-License-Identifier: Apache-2.0
// Damaged files: a flipped byte in a segment block, an index page or a log record gives a clear
// corruption error for the documents it affects, never wrong data, and every other document is
// still served.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "storage/filenames.h"
#include "storage/verified_marks.h"
#include "storage/wal.h"
#include "tests/storage/storage_test_support.h"
#include "tests/support/qtest_main.h"

using namespace railyard::storage;
using namespace railyard::storage::testing;

namespace {

void FlipByte(const QString& path, qint64 offset) {
  QFile file(path);
  QVERIFY2(file.open(QIODevice::ReadWrite), qPrintable(path));
  QVERIFY(file.seek(offset));
  char byte = 0;
  QVERIFY(file.getChar(&byte));
  QVERIFY(file.seek(offset));
  QVERIFY(file.putChar(static_cast<char>(byte ^ 0x5a)));
}

QString OnlyFile(const QTemporaryDir& dir, const QString& pattern) {
  const QStringList files = QDir(dir.path()).entryList({pattern}, QDir::Files, QDir::Name);
  return files.isEmpty() ? QString() : dir.filePath(files.front());
}

struct ReadOutcome {
  std::vector<uint64_t> corrupted;
  std::string first_message;
};

// Reads ids [0, n): every read is either the exact document or a corruption error.
ReadOutcome ReadAll(DocStore& store, uint64_t n, uint32_t generation = 0) {
  ReadOutcome outcome;
  std::string doc;
  for (uint64_t id = 0; id < n; ++id) {
    const Status s = store.Get(id, &doc);
    if (s.IsCorruption()) {
      if (outcome.corrupted.empty()) outcome.first_message = s.message();
      outcome.corrupted.push_back(id);
      continue;
    }
    if (!s.ok() || doc != DocFor(id, generation)) {
      qWarning("id %llu: %s", static_cast<unsigned long long>(id), s.ToString().c_str());
      outcome.corrupted.push_back(UINT64_MAX);  // Wrong data: fails every caller's checks.
    }
  }
  return outcome;
}

// Writes documents 0..49 into a store in `dir` and cuts the last 10 bytes off its one write-ahead
// log: the last record is cut short. Returns the log's path (empty on failure).
QString FiftyLoggedDocsWithTheLastCutShort(const QTemporaryDir& dir, const Options& options) {
  {
    auto store = OpenOrDie(options, dir.path().toStdString());
    for (uint64_t id = 0; id < 50; ++id) {
      if (!store->Put(id, DocFor(id)).ok()) return {};
    }
  }
  const QString log = OnlyFile(dir, "wal-*.log");
  QFile file(log);
  return file.resize(file.size() - 10) ? log : QString();
}

}  // namespace

class CorruptionTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void flippedByteInASegmentBlock() {
    QTemporaryDir dir;
    const Options options = SmallOptions(10000);
    {
      auto store = OpenOrDie(options, dir.path().toStdString());
      for (uint64_t id = 0; id < 500; ++id) QVERIFY(store->Put(id, DocFor(id)).ok());
      QVERIFY(store->Flush().ok());  // Blocks written and durable: no longer a torn tail.
    }
    FlipByte(OnlyFile(dir, "segment-*.seg"), 40);  // Inside the first block.
    auto store = OpenOrDie(options, dir.path().toStdString());
    const ReadOutcome outcome = ReadAll(*store, 500);
    QVERIFY(!outcome.corrupted.empty());
    QVERIFY(outcome.corrupted.size() < 40);  // One block's worth.
    QVERIFY(std::count(outcome.corrupted.begin(), outcome.corrupted.end(), UINT64_MAX) == 0);
    QVERIFY2(outcome.first_message.find("segment-000001.seg") != std::string::npos,
             outcome.first_message.c_str());
    QVERIFY(store->GetStats().corruptions_seen >= outcome.corrupted.size());
  }

  void flippedByteInAnIndexPage() {
    QTemporaryDir dir;
    const Options options = SmallOptions(10000);
    {
      auto store = OpenOrDie(options, dir.path().toStdString());
      for (uint64_t id = 0; id < 1000; ++id) QVERIFY(store->Put(id, DocFor(id)).ok());
      QVERIFY(store->Flush().ok());
    }
    FlipByte(OnlyFile(dir, "index-*.idx"), 100);  // Page 0: the lowest 204 ids.
    auto store = OpenOrDie(options, dir.path().toStdString());
    const ReadOutcome outcome = ReadAll(*store, 1000);
    QCOMPARE(outcome.corrupted.size(), size_t{204});
    QCOMPARE(outcome.corrupted.front(), uint64_t{0});
    QCOMPARE(outcome.corrupted.back(), uint64_t{203});
    QVERIFY2(outcome.first_message.find("page 0 checksum mismatch") != std::string::npos,
             outcome.first_message.c_str());
    // Rewriting the damaged documents heals them.
    for (uint64_t id = 0; id < 204; ++id) QVERIFY(store->Put(id, DocFor(id)).ok());
    QVERIFY(ReadAll(*store, 1000).corrupted.empty());
  }

  void flippedByteInALogRecord() {
    QTemporaryDir dir;
    const Options options = SmallOptions(10000);
    constexpr size_t kDocBytes = 40;
    // Each Put is one record: 12-byte fixed header, one 8-byte id, a 4-byte header checksum,
    // a 23-byte op header, the document, an 8-byte body checksum.
    constexpr qint64 kRecordBytes = 12 + 8 + 4 + 23 + kDocBytes + 8;
    {
      auto store = OpenOrDie(options, dir.path().toStdString());
      for (uint64_t id = 0; id < 100; ++id) {
        QVERIFY(store->Put(id, std::string(kDocBytes, static_cast<char>('a' + id % 26))).ok());
      }
    }
    const QString log = OnlyFile(dir, "wal-*.log");
    QCOMPARE(QFileInfo(log).size(), 100 * kRecordBytes);
    FlipByte(log, 40 * kRecordBytes + 60);  // Record 40's document bytes.
    FlipByte(log, 70 * kRecordBytes + 14);  // Record 70's header (its id list).
    QList<QString> warnings;
    Options logging = options;
    logging.logger = [&warnings](LogLevel, std::string_view message) {
      warnings.push_back(QString::fromUtf8(message.data(), static_cast<int>(message.size())));
    };
    auto store = OpenOrDie(logging, dir.path().toStdString());
    std::string doc;
    for (uint64_t id = 0; id < 100; ++id) {
      const Status s = store->Get(id, &doc);
      if (id == 40) {
        QVERIFY2(s.IsCorruption(), s.ToString().c_str());  // Never the older (absent) version.
        QVERIFY(s.message().find("damaged log record") != std::string::npos);
      } else {
        QVERIFY2(s.ok(), qPrintable(QString("id %1: %2").arg(id).arg(s.ToString().c_str())));
        QCOMPARE(doc, std::string(kDocBytes, static_cast<char>('a' + id % 26)));
      }
    }
    QVERIFY(std::any_of(warnings.begin(), warnings.end(),
                        [](const QString& w) { return w.contains("damaged record"); }));
    QVERIFY(std::any_of(warnings.begin(), warnings.end(),
                        [](const QString& w) { return w.contains("damaged header"); }));
    // The verdict survives a reopen (it is in an on-disk index now).
    store.reset();
    store = OpenOrDie(options, dir.path().toStdString());
    QVERIFY(store->Get(40, &doc).IsCorruption());
  }

  void tornLogTailIsTruncatedWithAWarning() {
    QTemporaryDir dir;
    const Options options = SmallOptions(10000);
    QFile file(FiftyLoggedDocsWithTheLastCutShort(dir, options));
    QVERIFY(file.exists());
    bool warned = false;
    Options logging = options;
    logging.logger = [&warned](LogLevel level, std::string_view message) {
      warned |= level == LogLevel::kWarning && message.find("torn tail") != std::string_view::npos;
    };
    auto store = OpenOrDie(logging, dir.path().toStdString());
    QVERIFY(warned);
    std::string doc;
    for (uint64_t id = 0; id < 49; ++id) {
      QVERIFY(store->Get(id, &doc).ok());
      QCOMPARE(doc, DocFor(id));
    }
    // The cut record was the last write; whether it survived depends on where the cut fell, but
    // it is never half a document.
    const Status last = store->Get(49, &doc);
    QVERIFY(last.IsNotFound() || (last.ok() && doc == DocFor(49)));
  }

  // A process killed while copying a record into its mapped log leaves that record cut short and
  // the reserve of zeros after it: only the record's own bytes are reported as torn.
  void aTornRecordBeforeTheReserveCountsOnlyItsOwnBytes() {
    QTemporaryDir dir;
    const Options options = SmallOptions(10000);
    QFile file(FiftyLoggedDocsWithTheLastCutShort(dir, options));
    QVERIFY(file.exists());
    const qint64 cut_size = file.size();
    QVERIFY(file.resize(WalWriter::kMapWindowBytes));  // Zeros, as a mapped writer reserves.
    QStringList warnings;
    Options logging = options;
    logging.logger = [&warnings](LogLevel level, std::string_view message) {
      if (level == LogLevel::kWarning)
        warnings << QString::fromUtf8(message.data(), message.size());
    };
    auto store = OpenOrDie(logging, dir.path().toStdString());
    const qint64 record_bytes = 12 + 8 + 4 + 23 + static_cast<qint64>(DocFor(49).size()) + 8;
    const QString expected = QString(": %1 bytes after offset %2 (and %3 bytes of unused reserve)")
                                 .arg(record_bytes - 10)
                                 .arg(cut_size - (record_bytes - 10))
                                 .arg(WalWriter::kMapWindowBytes - cut_size);
    QVERIFY2(warnings.join('\n').contains(expected), qPrintable(warnings.join('\n')));
    std::string doc;
    for (uint64_t id = 0; id < 49; ++id) QVERIFY(store->Get(id, &doc).ok());
    QVERIFY(store->Get(49, &doc).IsNotFound());
  }

  // Readers skip a unit's checksum only when the same unit (slot and key) passed it in this
  // period: never a fresh slot, another block sharing the slot, or a slot out of range.
  void verifiedMarksRememberOnlyWhatWasMarked() {
    VerifiedMarks marks(4);
    QVERIFY(!marks.Verified(1, 4096));
    marks.MarkVerified(1, 4096);
    QVERIFY(marks.Verified(1, 4096));
    QVERIFY(!marks.Verified(1, 4100));  // Another block in the same 4 KiB slot.
    QVERIFY(!marks.Verified(0, 4096));
    marks.MarkVerified(1, 4100);  // The slot now remembers only the later block.
    QVERIFY(!marks.Verified(1, 4096));
    marks.MarkVerified(9, 0);  // Out of range: ignored.
    QVERIFY(!marks.Verified(9, 0));
  }

  void damagedManifestIsAClearError() {
    QTemporaryDir dir;
    { auto store = OpenOrDie(SmallOptions(), dir.path().toStdString()); }
    FlipByte(dir.filePath("MANIFEST"), 5);
    std::unique_ptr<DocStore> store;
    const Status s = DocStore::Open(SmallOptions(), dir.path().toStdString(), &store);
    QVERIFY(s.IsCorruption());
    QVERIFY(s.message().find("MANIFEST") != std::string::npos);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(CorruptionTest)
#include "tst_corruption.moc"
