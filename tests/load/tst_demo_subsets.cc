// SPDX-License-Identifier: Apache-2.0
// The demo's load clients take consecutive indexes, so deterministic subsetting spreads them
// evenly over the nodes as the SRE chapter's rounds do: with one node per client and as many
// clients as nodes, each node is the subset of exactly one client (real railyard-node processes).
#include <QTest>
#include <map>

#include "core/load/demo_cluster.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::BuiltProgram;

using namespace railyard;

class DemoSubsetsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void clientsTakeConsecutiveIndexes() {
    load::DemoClusterOptions options;
    options.nodes = 3;
    options.clients = 3;
    options.concurrency = 1;
    options.node_binary = BuiltProgram("railyard-node");
    options.subset_mode = balance::SubsetMode::kDeterministic;
    options.subset_size = 1;
    load::DemoCluster demo;
    const rpc::Status started = demo.Start(options);
    QVERIFY2(started.ok(), started.ToString().c_str());
    std::map<uint32_t, int> clients_per_node;
    for (size_t i = 0; i < demo.clients().size(); ++i) {
      const std::vector<uint32_t> subset = demo.clients()[i]->client().Snapshot().subset;
      QCOMPARE(subset, balance::DeterministicSubset(i, 3, 1));
      for (const uint32_t node : subset) ++clients_per_node[node];
    }
    QCOMPARE(clients_per_node, (std::map<uint32_t, int>{{0, 1}, {1, 1}, {2, 1}}));
    demo.Stop();
  }
};

RAILYARD_QTEST_GUILESS_MAIN(DemoSubsetsTest)
#include "tst_demo_subsets.moc"
