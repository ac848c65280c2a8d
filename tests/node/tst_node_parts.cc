// SPDX-License-Identifier: Apache-2.0
// The node's building blocks: key choosers, tokens and per-method stats.
#include <QTest>
#include <map>
#include <random>

#include "core/base/method_stats.h"
#include "core/load/key_chooser.h"
#include "core/node/auth.h"
#include "tests/support/qtest_main.h"

using namespace railyard::node;
using namespace railyard::base;
using namespace railyard::load;

class NodePartsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void zipfianKeysAreSkewedAndInRange() {
    constexpr uint64_t kKeys = 10000;
    KeyChooser zipf(KeyChooser::Distribution::kZipfian, kKeys, 0.99, 7);
    KeyChooser uniform(KeyChooser::Distribution::kUniform, kKeys, 0.99, 7);
    std::map<uint64_t, int> zipf_counts, uniform_counts;
    for (int i = 0; i < 100000; ++i) {
      const uint64_t z = zipf.Next(), u = uniform.Next();
      QVERIFY(z < kKeys && u < kKeys);
      ++zipf_counts[z];
      ++uniform_counts[u];
    }
    auto hottest = [](const std::map<uint64_t, int>& counts) {
      int best = 0;
      for (const auto& [key, count] : counts) best = std::max(best, count);
      return best;
    };
    // The hottest zipfian key takes several percent of all calls; no uniform key comes close.
    QVERIFY2(hottest(zipf_counts) > 3000, qPrintable(QString::number(hottest(zipf_counts))));
    QVERIFY(hottest(uniform_counts) < 50);
    QVERIFY(zipf_counts.size() > 1000);  // And a long tail.
  }

  void tokensGrantRoles() {
    const TokenAuthenticator auth({"view-1", "view-2"}, {"op-1"});
    QVERIFY(auth.configured());
    QCOMPARE(auth.RoleOf("view-2"), AdminRole::kViewer);
    QCOMPARE(auth.RoleOf("op-1"), AdminRole::kOperator);
    QCOMPARE(auth.RoleOf(""), AdminRole::kNone);
    QCOMPARE(auth.RoleOf("op-"), AdminRole::kNone);  // A prefix is not the token.
    QCOMPARE(auth.RoleOf("op-12"), AdminRole::kNone);
    QVERIFY(ConstantTimeEquals("abc", "abc"));
    QVERIFY(!ConstantTimeEquals("abc", "abd"));
    QVERIFY(!ConstantTimeEquals("abc", "abcd"));
    QVERIFY(!TokenAuthenticator({}, {}).configured());
  }

  // A reload (SIGHUP) replaces both lists for every later check.
  void replacedTokensTakeEffect() {
    TokenAuthenticator auth({"view-1"}, {"op-1"});
    auth.Replace({"view-2"}, {});
    QCOMPARE(auth.RoleOf("view-1"), AdminRole::kNone);
    QCOMPARE(auth.RoleOf("op-1"), AdminRole::kNone);
    QCOMPARE(auth.RoleOf("view-2"), AdminRole::kViewer);
    auth.Replace({}, {});
    QVERIFY(!auth.configured());
  }

  void methodStatsCountAndTime() {
    MethodStats stats;
    for (int i = 0; i < 100; ++i) {
      stats.Record("doc.Get", std::chrono::microseconds(100 + i), false);
    }
    stats.Record("doc.Put", std::chrono::milliseconds(5), true);
    const std::vector<MethodStats::Summary> summaries = stats.Summaries();
    QCOMPARE(summaries.size(), size_t{2});
    const MethodStats::Summary& get = summaries[0];
    QCOMPARE(get.method, std::string("doc.Get"));
    QCOMPARE(get.requests, uint64_t{100});
    QCOMPARE(get.errors, uint64_t{0});
    QVERIFY(get.p50_us >= 149 && get.p50_us <= 149 * 1.02);  // Within the histogram's 2%.
    QVERIFY(get.max_us >= 199 && get.max_us < 200);
    QCOMPARE(summaries[1].errors, uint64_t{1});
    QVERIFY(stats.requests_per_s() > 0);
    QVERIFY(stats.errors_per_s() > 0);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(NodePartsTest)
#include "tst_node_parts.moc"
