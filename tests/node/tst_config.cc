// SPDX-License-Identifier: Apache-2.0
// Node and cluster configuration files: the shipped samples parse, mistakes get clear errors.
#include <QTemporaryDir>
#include <QTest>

#include "core/cluster/cluster_file.h"
#include "core/node/config.h"
#include "storage/options.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::SourcePath;

using namespace railyard;

class ConfigTest : public QObject {
  Q_OBJECT

  static std::string Write(const QTemporaryDir& dir, const char* name, const QByteArray& text) {
    QFile f(dir.filePath(name));
    f.open(QIODevice::WriteOnly);
    f.write(text);
    return f.fileName().toStdString();
  }

 private Q_SLOTS:
  void shippedSamplesParse() {
    config::NodeConfig node_config;
    QVERIFY(
        node::LoadNodeConfig(SourcePath("resources/railyard-node.textproto"), &node_config).ok());
    QCOMPARE(node_config.admin_listen(), std::string("127.0.0.1:7001"));
    config::Cluster cluster;
    QVERIFY(cluster::LoadClusterFile(SourcePath("resources/cluster.textproto"), &cluster).ok());
    QCOMPARE(cluster.node_size(), 3);
  }

  void optionsFollowTheConfig() {
    QTemporaryDir dir;
    Write(dir, "ops", "op-1\n# comment\nop-2\n");
    config::NodeConfig c;
    c.set_data_dir("/tmp/x");
    c.set_listen("127.0.0.1:0");
    c.set_admin_listen("[::1]:9000");
    c.mutable_storage()->set_sync("every-write");
    c.mutable_storage()->set_memtable_entries(500);
    c.set_operator_token_file(dir.filePath("ops").toStdString());
    Write(dir, "readers", "r-1\n");
    Write(dir, "writers", "w-1\nw-2\n");
    c.set_data_reader_token_file(dir.filePath("readers").toStdString());
    c.set_data_writer_token_file(dir.filePath("writers").toStdString());
    node::NodeOptions o;
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    QCOMPARE(o.data_access.reader_tokens, (std::vector<std::string>{"r-1"}));
    QCOMPARE(o.data_access.writer_tokens, (std::vector<std::string>{"w-1", "w-2"}));
    QCOMPARE(o.admin.host, std::string("::1"));
    QCOMPARE(o.admin.port, uint16_t{9000});
    QVERIFY(o.storage.sync == storage::SyncPolicy::kEveryWrite);
    QCOMPARE(o.storage.memtable_entries, size_t{500});
    QCOMPARE(o.admin.operator_tokens, (std::vector<std::string>{"op-1", "op-2"}));
  }

  // docs/guide.md's "Operating safely" promises `interval` by default: the engine's options, the
  // node config without a sync setting, and the guide's table itself must agree.
  void defaultSyncIsTheDocumentedOne() {
    QVERIFY(storage::Options().sync == storage::SyncPolicy::kInterval);
    config::NodeConfig c;
    c.set_data_dir("/tmp/x");
    node::NodeOptions o;
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    QCOMPARE(std::string(storage::SyncPolicyName(o.storage.sync)), std::string("interval"));
    QFile readme(SourcePath("docs/guide.md"));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll());
    const qsizetype section = text.indexOf("## Operating safely");
    QVERIFY(section >= 0);
    // The table row that names the default.
    const qsizetype row = text.indexOf("| `interval` (default) |", section);
    QVERIFY2(row >= 0, "docs/guide.md's durability table no longer marks interval as the default");
  }

  // Off unless asked for (docs/benchmarks.md: the cache cost reads at every size measured), and
  // on at the size the config gives.
  void theDocumentCacheIsOffByDefault() {
    config::NodeConfig c;
    c.set_data_dir("/tmp/x");
    node::NodeOptions o;
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    QCOMPARE(o.storage.doc_cache_bytes, size_t{0});
    c.mutable_storage()->set_doc_cache_bytes(32u << 20);
    QVERIFY(node::NodeOptionsFrom(c, &o).ok());
    QCOMPARE(o.storage.doc_cache_bytes, size_t{32u << 20});
  }

  void mistakesAreExplained() {
    QTemporaryDir dir;
    config::NodeConfig c;
    const rpc::Status typo =
        node::LoadNodeConfig(Write(dir, "bad", "name: \"a\"\nlisten 7000\n"), &c);
    QCOMPARE(typo.code(), rpc::Code::kInvalidArgument);
    QVERIFY2(typo.message().find("line 2") != std::string::npos, typo.message().c_str());
    node::NodeOptions o;
    c.Clear();
    c.mutable_storage()->set_sync("sometimes");
    QVERIFY(node::NodeOptionsFrom(c, &o).message().find("none, interval or every-write") !=
            std::string::npos);
    c.Clear();
    c.set_listen("7000");
    QVERIFY(node::NodeOptionsFrom(c, &o).message().find("host:port") != std::string::npos);
    c.Clear();
    c.set_viewer_token_file(dir.filePath("missing").toStdString());
    QVERIFY(node::NodeOptionsFrom(c, &o).message().find("token file") != std::string::npos);
    config::Cluster cluster;
    QVERIFY(!cluster::LoadClusterFile(Write(dir, "empty", "name: \"x\"\n"), &cluster).ok());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ConfigTest)
#include "tst_config.moc"
