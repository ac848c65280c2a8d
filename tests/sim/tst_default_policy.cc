// SPDX-License-Identifier: Apache-2.0
// The default policy against the best other one, scenario by scenario (the bar of
// docs/policies.md): success rate at least as good, p99 within 10% of the best, p99.9 within 2x.
//
// The default suite runs every shipped scenario with its times compressed (durations, event times
// and rolling steps divided by kCompress) so the whole check takes seconds; the `slow` build of
// this file (RAILYARD_FULL_SIZE) runs them as shipped, as docs/policies.md does.
#include <QDir>
#include <QFile>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <string>

#include "core/sim/scenario.h"
#include "core/sim/simulator.h"
#include "tests/sim/sim_test_support.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_depth.h"
#include "tests/support/test_paths.h"

using railyard::testing::SourcePath;

using railyard::balance::PolicyKind;
using railyard::sim::Action;
using railyard::sim::Scenario;
using railyard::sim::SimOptions;
using railyard::sim::SimResult;
using railyard::sim::testing::LoadShipped;
using railyard::sim::testing::RunPolicy;

namespace {

#ifdef RAILYARD_FULL_SIZE
constexpr int kCompress = 1;
#else
constexpr int kCompress = railyard::testing::kSanitized ? 30 : 10;
#endif

constexpr PolicyKind kOthers[] = {PolicyKind::kRoundRobin, PolicyKind::kLeastLoaded,
                                  PolicyKind::kWeighted, PolicyKind::kAdaptive};

// The same story in 1/factor of the time. The network's round trip is not a time of the story.
Scenario Compressed(Scenario s, int factor) {
  s.duration /= factor;
  for (auto& e : s.events) {
    e.at /= factor;
    e.stagger /= factor;
    if (e.action != Action::kNetwork) {
      e.d1 /= factor;
      e.d2 /= factor;
    }
  }
  return s;
}

// Empty when the default meets the bar in `s`; otherwise what it missed, with the figures.
std::string MissedBar(const Scenario& s) {
  const SimResult mine = RunPolicy(s, PolicyKind::kLowestSlot);
  double best_success = 0;
  double best_p99 = 1e300;
  double best_p999 = 1e300;
  for (PolicyKind other : kOthers) {
    const SimResult r = RunPolicy(s, other);
    best_success = std::max(best_success, r.success_rate);
    best_p99 = std::min(best_p99, r.p99_ms);
    best_p999 = std::min(best_p999, r.p999_ms);
  }
  // Success rates closer than two binomial standard errors are a tie: another seed reorders them
  // (docs/policies.md, fifty-percent). Where the best is 100% the tolerance is zero.
  const double n = static_cast<double>(std::max<uint64_t>(1, mine.requests));
  const double tolerance = 2 * std::sqrt(best_success * (1 - best_success) / n);
  std::string missed;
  if (mine.success_rate < best_success - tolerance) {
    missed += " success " + std::to_string(mine.success_rate) + " < " +
              std::to_string(best_success) + " - " + std::to_string(tolerance);
  }
  if (mine.p99_ms > 1.10 * best_p99) {
    missed += " p99 " + std::to_string(mine.p99_ms) + " > 1.1 x " + std::to_string(best_p99);
  }
  if (mine.p999_ms > 2 * best_p999) {
    missed += " p99.9 " + std::to_string(mine.p999_ms) + " > 2 x " + std::to_string(best_p999);
  }
  return missed.empty() ? missed : s.name + ":" + missed;
}

}  // namespace

class DefaultPolicyTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void defaultMeetsTheBarInEveryShippedScenario() {
    const QDir dir(SourcePath("resources/scenarios"));
    const QStringList files = dir.entryList({"*.scn"}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 17);
    std::string missed;
    for (const QString& file : files) {
      const std::string m =
          MissedBar(Compressed(LoadShipped(dir.filePath(file).toStdString()), kCompress));
      if (!m.empty()) missed += m + "; ";
    }
    // A figure: under a sanitizer the runs are too short to hold it.
    RAILYARD_VERIFY_FIGURE(missed.empty(), missed.c_str());
  }

  // Without the client's rule (dispose of a connection whose answers keep failing), lowest slot
  // keeps sending a sinkhole its low-slot connections' share and the retry budget runs out.
  void sinkholeIsEscapedByDisposingOfFailingConnections() {
    const Scenario s = Compressed(
        LoadShipped(
            QDir(SourcePath("resources/scenarios")).filePath("13-sinkhole.scn").toStdString()),
        kCompress);
    SimOptions without;
    without.failed_answers_limit = 0;
    without.slot_choices = 1;
    SimOptions with;
    with.slot_choices = 1;
    const SimResult naive = RunPolicy(s, PolicyKind::kLowestSlot, without);
    const SimResult remedied = RunPolicy(s, PolicyKind::kLowestSlot, with);
    qInfo("plain Boxcar on the sinkhole: %.4f success without the rule, %.4f with",
          naive.success_rate, remedied.success_rate);
    QVERIFY2(naive.success_rate < 0.95, qPrintable(QString::number(naive.success_rate)));
    QVERIFY2(remedied.success_rate > 0.999, qPrintable(QString::number(remedied.success_rate)));
  }
};

RAILYARD_QTEST_GUILESS_MAIN(DefaultPolicyTest)
#include "tst_default_policy.moc"
