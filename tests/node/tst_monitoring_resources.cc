// SPDX-License-Identifier: Apache-2.0
// resources/monitoring/: the alerting rules are the export of the rules file (one source for the
// console and Prometheus), pass `promtool check rules` and their unit tests
// (`promtool test rules`, which prove each alert fires on the series it is for), the dashboard is
// valid JSON with a $node variable, and every series the rules and dashboard query is one a
// node's /metrics exposes (so a renamed metric cannot leave them silently empty).
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include "core/cluster/alert_rules.h"
#include "core/node/node_metrics.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::SourcePath;

using namespace railyard;

namespace {

const QString kDir = QString(SourcePath("resources/monitoring"));

// Runs promtool with `arguments` in kDir: its exit code and what it printed.
std::pair<int, QString> Promtool(const QStringList& arguments) {
  QProcess promtool;
  promtool.setWorkingDirectory(kDir);
  promtool.start("promtool", arguments);
  if (!promtool.waitForStarted(10000))
    return {-1, "promtool is not installed (Debian: prometheus)"};
  if (!promtool.waitForFinished(60000)) {
    promtool.kill();
    promtool.waitForFinished(5000);
    return {-1, "promtool did not finish in 60 s"};
  }
  return {promtool.exitCode(),
          QString::fromUtf8(promtool.readAllStandardOutput() + promtool.readAllStandardError())};
}

// The metric families a node exposes, from both roles with every part present.
QSet<QString> ExposedFamilies() {
  QSet<QString> families;
  for (const admin::DocstoreRole role : {admin::DOCSTORE_UPDATER, admin::DOCSTORE_REPLICA}) {
    node::NodeMetricsInput input;
    admin::Telemetry& t = input.telemetry;
    t.mutable_storage()->add_indexes()->set_entries(1);
    t.mutable_replication()->set_role(role);
    t.mutable_replication()->set_lag_known(true);
    admin::Follower* follower = t.mutable_replication()->add_followers();
    follower->set_name("r");
    follower->set_lag_known(true);
    t.add_pools()->set_client_name("follower");
    input.methods.push_back({});
    input.methods.back().method = "doc.Get";
    input.methods.back().codes[base::StatusCode::kOk] = 1;
    input.process = node::ProcessFigures{1, 1, 1, 1, 1, 1};
    input.disk = node::DiskFigures{1, 2};
    const QString text = QString::fromStdString(node::RenderNodeMetrics(input));
    static const QRegularExpression type_line("^# TYPE (\\S+) ",
                                              QRegularExpression::MultilineOption);
    for (auto it = type_line.globalMatch(text); it.hasNext();)
      families.insert(it.next().captured(1));
  }
  return families;
}

// Metric names in PromQL `text`, with a histogram's _bucket/_sum/_count taken back to its family.
QSet<QString> QueriedFamilies(const QString& text, const QSet<QString>& families) {
  QSet<QString> names;
  static const QRegularExpression name("\\b((?:railyard|process)_[a-z_]+)\\b");
  for (auto it = name.globalMatch(text); it.hasNext();) {
    QString n = it.next().captured(1);
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      if (n.endsWith(suffix) && families.contains(n.chopped(int(strlen(suffix))))) {
        n.chop(int(strlen(suffix)));
      }
    }
    names.insert(n);
  }
  return names;
}

QString ReadAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class MonitoringResourcesTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void alertingRulesPassPromtoolAndTheirUnitTests() {
    const auto [checked, check_said] = Promtool({"check", "rules", "railyard-alerts.yml"});
    QVERIFY2(checked == 0, qPrintable(check_said));
    const auto [tested, test_said] = Promtool({"test", "rules", "railyard-alerts.test.yml"});
    QVERIFY2(tested == 0, qPrintable(test_said));
  }

  // One source: the shipped Prometheus rules are the export of the shipped rules file, and the
  // rules compiled into the console and railyardctl are that file.
  void theShippedRulesAreTheExportOfTheRulesFile() {
    alerts::Rules rules;
    const rpc::Status loaded =
        cluster::LoadAlertRules((kDir + "/railyard-alerts.textproto").toStdString(), &rules);
    QVERIFY2(loaded.ok(), loaded.ToString().c_str());
    QVERIFY(rules.rule_size() >= 12);
    QFile shipped(kDir + "/railyard-alerts.yml");
    QVERIFY(shipped.open(QIODevice::ReadOnly));
    QVERIFY2(shipped.readAll().toStdString() == cluster::PrometheusAlertRules(rules),
             "railyard-alerts.yml is not `railyardctl alerts export --prometheus` of "
             "railyard-alerts.textproto: run it and commit the result");
    QFile text(kDir + "/railyard-alerts.textproto");
    QVERIFY(text.open(QIODevice::ReadOnly));
    QVERIFY(text.readAll().toStdString() == cluster::DefaultAlertRulesText());
    QCOMPARE(cluster::DefaultAlertRules().rule_size(), rules.rule_size());
  }

  // A rules file with a mistake is refused with what and where.
  void aBadRulesFileIsRefusedClearly_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("says");
    QTest::newRow("syntax") << "rule { name: \"A\" figure: NO_SUCH }"
                            << "line 1, column";
    QTest::newRow("no figure") << "rule { name: \"A\" severity: WARNING summary: \"s\" }"
                               << "no figure";
    QTest::newRow("twice") << "rule { name: \"A\" figure: NODE_LAME_DUCK severity: WARNING "
                              "summary: \"s\" } rule { name: \"A\" figure: NODE_STARTING "
                              "severity: WARNING summary: \"s\" }"
                           << "twice";
    QTest::newRow("bad name") << "rule { name: \"a b\" figure: NODE_LAME_DUCK }"
                              << "letters";
    QTest::newRow("share above 1")
        << "rule { name: \"A\" figure: FAILED_SHARE threshold: 5 severity: WARNING summary: "
           "\"s\" }"
        << "in (0, 1]";
    QTest::newRow("no threshold")
        << "rule { name: \"A\" figure: SERVER_P99_MS severity: WARNING summary: \"s\" }"
        << "above 0";
    QTest::newRow("no severity") << "rule { name: \"A\" figure: NODE_LAME_DUCK summary: \"s\" }"
                                 << "no severity";
  }
  void aBadRulesFileIsRefusedClearly() {
    QFETCH(QString, text);
    QFETCH(QString, says);
    alerts::Rules rules;
    const rpc::Status s = cluster::ParseAlertRules(text.toStdString(), "rules.textproto", &rules);
    QVERIFY(!s.ok());
    QVERIFY2(QString::fromStdString(s.message()).startsWith("rules.textproto: "),
             s.ToString().c_str());
    QVERIFY2(QString::fromStdString(s.message()).contains(says), s.ToString().c_str());
  }

  void dashboardIsValidWithANodeVariable() {
    QJsonParseError error;
    const QJsonDocument doc =
        QJsonDocument::fromJson(ReadAll(kDir + "/railyard-dashboard.json").toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    bool has_node = false;
    for (const QJsonValue v : doc.object()["templating"].toObject()["list"].toArray()) {
      has_node |= v.toObject()["name"].toString() == "node";
    }
    QVERIFY(has_node);
    int queries = 0;
    for (const QJsonValue panel : doc.object()["panels"].toArray()) {
      for (const QJsonValue target : panel.toObject()["targets"].toArray()) {
        QVERIFY(target.toObject()["expr"].toString().contains("$node"));
        ++queries;
      }
    }
    QVERIFY(queries >= 10);
  }

  void rulesAndDashboardQueryOnlyExposedSeries() {
    const QSet<QString> families = ExposedFamilies();
    QVERIFY(families.contains("railyard_request_duration_seconds"));
    QString queries = ReadAll(kDir + "/railyard-alerts.yml");
    const QJsonDocument doc =
        QJsonDocument::fromJson(ReadAll(kDir + "/railyard-dashboard.json").toUtf8());
    for (const QJsonValue panel : doc.object()["panels"].toArray()) {
      for (const QJsonValue target : panel.toObject()["targets"].toArray()) {
        queries += "\n" + target.toObject()["expr"].toString();
      }
    }
    const QSet<QString> queried = QueriedFamilies(queries, families);
    QVERIFY(queried.size() >= 15);
    for (const QString& name : queried) {
      QVERIFY2(families.contains(name), qPrintable(name + " is queried but no node exposes it"));
    }
  }
};

RAILYARD_QTEST_GUILESS_MAIN(MonitoringResourcesTest)
#include "tst_monitoring_resources.moc"
