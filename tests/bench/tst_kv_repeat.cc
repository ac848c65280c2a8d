// SPDX-License-Identifier: Apache-2.0
// kv_bench --repeat and --absent-share: the aggregation of repetitions (medians, spreads, ratios as
// medians of per-repetition ratios), the absent-key reads of the workload, and (when KV_BENCH
// names the binary, as the `bench`-labelled ctest entry does) a real interleaved run.
#include <QProcess>
#include <QTest>
#include <set>
#include <string>
#include <vector>

#include "bench/kv_repeat.h"
#include "bench/kv_workload.h"
#include "tests/support/qtest_main.h"

using namespace railyard::bench;

namespace {

// Result lines as kv_bench printed them in a real run (--n 3000 --repeat 3 --absent-share 0.5),
// write times changed so that the median of the per-repetition ratios (2, 10, 3: 3) differs from
// the ratio of the medians (0.05 / 0.01 = 5) and from their mean (5).
const char* const kRun[] = {
    R"({"bench":"kv_bench","engine":"docstore","repeat":1,"n":3000,"write_s":0.010,"read_s":0.001,"disk_bytes":779764,"peak_rss_bytes":66142208,"errors":0,"absent_share":0.500,"absent_reads":1454,"bloom_budget_bytes":67108864,"index_searches":0})",
    R"({"bench":"kv_bench","engine":"leveldb","repeat":1,"n":3000,"write_s":0.020,"read_s":0.001,"disk_bytes":378311,"peak_rss_bytes":13721600,"errors":0,"absent_share":0.500,"absent_reads":1454})",
    R"({"bench":"kv_bench","engine":"docstore","repeat":2,"n":3000,"write_s":0.005,"read_s":0.001,"disk_bytes":779764,"peak_rss_bytes":66056192,"errors":0,"absent_share":0.500,"absent_reads":1454,"bloom_budget_bytes":67108864,"index_searches":0})",
    R"({"bench":"kv_bench","engine":"leveldb","repeat":2,"n":3000,"write_s":0.050,"read_s":0.002,"disk_bytes":378311,"peak_rss_bytes":13611008,"errors":0,"absent_share":0.500,"absent_reads":1454})",
    R"({"bench":"kv_bench","engine":"docstore","repeat":3,"n":3000,"write_s":0.030,"read_s":0.002,"disk_bytes":779764,"peak_rss_bytes":66191360,"errors":1,"absent_share":0.500,"absent_reads":1454,"bloom_budget_bytes":67108864,"index_searches":0})",
    R"({"bench":"kv_bench","engine":"leveldb","repeat":3,"n":3000,"write_s":0.090,"read_s":0.005,"disk_bytes":378311,"peak_rss_bytes":13787136,"errors":0,"absent_share":0.500,"absent_reads":1454})",
};

std::vector<std::string> Lines(const QByteArray& output) {
  std::vector<std::string> lines;
  for (const QByteArray& line : output.split('\n')) {
    if (!line.isEmpty()) lines.push_back(line.toStdString());
  }
  return lines;
}

}  // namespace

class KvRepeatTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void spreadIsMedianMinMax() {
    QCOMPARE(SpreadOf({}).count, size_t{0});
    const Spread odd = SpreadOf({5, 1, 3});
    QCOMPARE(odd.median, 3.0);
    QCOMPARE(odd.min, 1.0);
    QCOMPARE(odd.max, 5.0);
    QCOMPARE(SpreadOf({4, 1, 3, 10}).median, 3.5);
  }

  void aggregatesRealRepetitionLines() {
    RepeatSummary summary;
    for (size_t i = 0; i < std::size(kRun); ++i) QVERIFY(summary.Add(i / 2, kRun[i]));
    QVERIFY(!summary.Add(3, "not json"));
    QCOMPARE(summary.engines(), (std::vector<std::string>{"docstore", "leveldb"}));

    std::map<std::string, Spread> docstore = summary.Figures("docstore");
    QVERIFY(!docstore.count("n"));
    QVERIFY(!docstore.count("repeat"));
    QCOMPARE(docstore["write_s"].count, size_t{3});
    QCOMPARE(docstore["write_s"].median, 0.010);
    QCOMPARE(docstore["write_s"].min, 0.005);
    QCOMPARE(docstore["write_s"].max, 0.030);
    QCOMPARE(docstore["errors"].max, 1.0);
    QCOMPARE(docstore["index_searches"].count, size_t{3});

    // leveldb / docstore per repetition: 2, 10, 3; the median 3 (the ratio of the medians, 5,
    // and the mean, 5, would both say otherwise).
    std::map<std::string, Spread> ratios = summary.Ratios("leveldb");
    QCOMPARE(ratios["write_s"].count, size_t{3});
    QCOMPARE(ratios["write_s"].median, 3.0);
    QCOMPARE(ratios["write_s"].min, 2.0);
    QCOMPARE(ratios["write_s"].max, 10.0);
    QCOMPARE(ratios["read_s"].median, 2.0);  // 1, 2, 2.5
    QVERIFY(summary.Ratios("docstore").empty());

    const std::vector<std::string> json = Lines(QByteArray::fromStdString(summary.JsonLines()));
    std::map<std::string, double> fields;
    bool saw_ratio = false;
    for (const std::string& line : json) {
      QVERIFY2(NumericFields(line, &fields), line.c_str());
      if (StringField(line, "summary") == "ratio" && StringField(line, "figure") == "write_s") {
        QCOMPARE(StringField(line, "engine"), std::string("leveldb"));
        QCOMPARE(StringField(line, "vs"), std::string("docstore"));
        QCOMPARE(fields["median"], 3.0);
        QCOMPARE(fields["repeats"], 3.0);
        saw_ratio = true;
      }
      if (StringField(line, "figure") == "bloom_budget_bytes") {
        QCOMPARE(fields["median"], 67108864.0);  // Whole numbers are printed whole.
      }
    }
    QVERIFY(saw_ratio);
    const std::string table = summary.Table();
    QVERIFY2(table.find("3.00x [2.00x, 10.00x]") != std::string::npos, table.c_str());
  }

  // Absent reads are for keys never written; the others read back distinct written keys.
  void absentShareReadsKeysNeverWritten() {
    constexpr uint64_t kN = 4000;
    const Workload workload(kN, 7, 0.5);
    std::set<uint64_t> written;
    for (uint64_t i = 0; i < kN; ++i) written.insert(workload.WriteKey(i));
    QCOMPARE(written.size(), size_t{kN});
    std::set<uint64_t> read_present;
    uint64_t absent = 0;
    for (uint64_t i = 0; i < kN; ++i) {
      const uint64_t key = workload.ReadKey(i);
      if (workload.ReadAbsent(i)) {
        ++absent;
        QVERIFY(!written.count(key));
      } else {
        QVERIFY(written.count(key));
        QVERIFY(read_present.insert(key).second);
      }
    }
    QVERIFY2(absent > kN * 45 / 100 && absent < kN * 55 / 100, qPrintable(QString::number(absent)));
    // No share: every written key read back once.
    const Workload all_present(kN, 7);
    std::set<uint64_t> read;
    for (uint64_t i = 0; i < kN; ++i) {
      QVERIFY(!all_present.ReadAbsent(i));
      read.insert(all_present.ReadKey(i));
    }
    QCOMPARE(read, written);
  }

  // A real run: engines interleaved, absent reads checked, the summary agreeing with the lines.
  void interleavedRunWithAbsentReads() {
    const QString binary = qEnvironmentVariable("KV_BENCH");
    if (binary.isEmpty()) QSKIP("KV_BENCH is not set (the bench-labelled ctest entry sets it)");
    QProcess process;
    process.start(binary, {"--n", "2000", "--engines", "docstore,leveldb", "--repeat", "2",
                           "--absent-share", "0.5"});
    QVERIFY(process.waitForFinished(240'000));
    QCOMPARE(process.exitCode(), 0);
    const std::vector<std::string> lines = Lines(process.readAllStandardOutput());
    std::vector<std::string> order;
    RepeatSummary expected;
    std::map<std::string, double> fields;
    for (const std::string& line : lines) {
      if (!StringField(line, "summary").empty()) continue;
      QVERIFY2(NumericFields(line, &fields), line.c_str());
      order.push_back(StringField(line, "engine") + "." +
                      QByteArray::number(fields["repeat"]).toStdString());
      QCOMPARE(fields["errors"], 0.0);
      QVERIFY(fields["absent_reads"] > 800 && fields["absent_reads"] < 1200);
      expected.Add(static_cast<size_t>(fields["repeat"]), line);
    }
    QCOMPARE(order,
             (std::vector<std::string>{"docstore.1", "leveldb.1", "docstore.2", "leveldb.2"}));
    std::string summary;
    for (const std::string& line : lines) {
      if (!StringField(line, "summary").empty()) summary += line + "\n";
    }
    QCOMPARE(summary, expected.JsonLines());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(KvRepeatTest)
#include "tst_kv_repeat.moc"
