// SPDX-License-Identifier: Apache-2.0
// What a range query's answer may be besides a good one: not JSON, cut short, another service's
// JSON, the API's own error, a vector where a matrix belongs, samples of the wrong shape. Each is
// a clear error, never series; a good answer keeps its labels, times (to the millisecond) and
// "NaN" values. Real answers from a real Prometheus: tst_e2e_prometheus_history.
#include <QTest>
#include <cmath>
#include <string>
#include <vector>

#include "core/cluster/prometheus_client.h"
#include "tests/support/qtest_main.h"

class PrometheusAnswerTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void badAnswersAreClearErrors() {
    using railyard::base::StatusCode;
    const std::string good =
        R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":)"
        R"({"__name__":"up","instance":"n1:9100","job":"railyard"},"values":)"
        R"([[1795926311.890,"1"],[1795926316.890,"NaN"]]}]}})";
    const struct {
      std::string body;
      StatusCode code;
      const char* says;
    } cases[] = {
        {"not json{", StatusCode::kProtocolError, "not JSON"},
        {good.substr(0, good.size() / 2), StatusCode::kProtocolError, "not JSON"},
        {R"({"data":{}})", StatusCode::kProtocolError, "not the Prometheus API"},
        {R"({"status":"error","errorType":"bad_data","error":"parse error at char 5"})",
         StatusCode::kInvalidArgument, "parse error at char 5"},
        {R"({"status":"success","data":{"resultType":"vector","result":[]}})",
         StatusCode::kProtocolError, "not a matrix"},
        {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},)"
         R"("values":[[1,"1",3]]}]}})",
         StatusCode::kProtocolError, "not [time"},
        {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},)"
         R"("values":[[1,"abc"]]}]}})",
         StatusCode::kProtocolError, "no number"},
    };
    for (const auto& c : cases) {
      std::vector<railyard::cluster::PromSeries> series;
      const railyard::base::Status s = railyard::cluster::ParseQueryRangeAnswer(c.body, &series);
      QVERIFY2(s.code() == c.code, s.ToString().c_str());
      QVERIFY2(s.message().find(c.says) != std::string::npos, s.ToString().c_str());
      QVERIFY(series.empty());
    }
    std::vector<railyard::cluster::PromSeries> series;
    QVERIFY(railyard::cluster::ParseQueryRangeAnswer(good, &series).ok());
    QCOMPARE(series.size(), size_t{1});
    QCOMPARE(series[0].labels.at("instance"), std::string("n1:9100"));
    QCOMPARE(series[0].samples.size(), size_t{2});
    QCOMPARE(series[0].samples[0].unix_ms, int64_t{1795926311890});
    QCOMPARE(series[0].samples[0].value, 1.0);
    QVERIFY(std::isnan(series[0].samples[1].value));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(PrometheusAnswerTest)
#include "tst_prometheus_answer.moc"
