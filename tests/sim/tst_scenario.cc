// SPDX-License-Identifier: Apache-2.0
// The scenario format: every shipped sample parses, mistakes are reported with their line, the
// canonical form reads back to the same scenario, and garbage never crashes the parser.
#include <QDir>
#include <QTest>
#include <random>
#include <string>

#include "core/base/random.h"
#include "core/sim/scenario.h"
#include "tests/support/qtest_main.h"
#include "tests/support/test_paths.h"

using railyard::testing::SourcePath;

using railyard::sim::Action;
using railyard::sim::ActionArgs;
using railyard::sim::ActionArguments;
using railyard::sim::ActionName;
using railyard::sim::Distribution;
using railyard::sim::Event;
using railyard::sim::FormatScenario;
using railyard::sim::LoadScenarioFile;
using railyard::sim::ParseError;
using railyard::sim::ParseScenario;
using railyard::sim::Scenario;
using namespace std::chrono_literals;

namespace {

constexpr char kMinimal[] = "clients 1\nbackends 1\n";

ParseError ErrorOf(const std::string& text) {
  Scenario s;
  ParseError error;
  if (ParseScenario(text, &s, &error)) return ParseError{-1, "parsed"};
  return error;
}

}  // namespace

class ScenarioTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void everyShippedScenarioParses() {
    QDir dir(SourcePath("resources/scenarios"));
    const QStringList files = dir.entryList({"*.scn"}, QDir::Files, QDir::Name);
    QVERIFY2(files.size() >= 12, "expected the twelve sample scenarios");
    QSet<QString> names;
    for (const QString& file : files) {
      Scenario s;
      std::string error;
      QVERIFY2(LoadScenarioFile(dir.filePath(file).toStdString(), &s, &error), error.c_str());
      QVERIFY(!s.name.empty());
      QVERIFY(!s.description.empty());
      QVERIFY(s.client_count() > 0 && s.backend_count() > 0);
      names.insert(QString::fromStdString(s.name));
      // The canonical form of a real scenario reads back identically.
      Scenario again;
      ParseError pe;
      QVERIFY2(ParseScenario(FormatScenario(s), &again, &pe), pe.ToString().c_str());
      QVERIFY(again == s);
    }
    QCOMPARE(names.size(), files.size());  // Names are distinct.
  }

  // The example operators copy from docs/scenarios.md parses as written.
  void documentationExampleParses() {
    QFile doc(SourcePath("docs/scenarios.md"));
    QVERIFY(doc.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(doc.readAll());
    const qsizetype example = text.indexOf("## Example");
    QVERIFY(example >= 0);
    const qsizetype open = text.indexOf("```\n", example);
    const qsizetype close = text.indexOf("```", open + 4);
    QVERIFY(open > 0 && close > open);
    Scenario s;
    ParseError error;
    QVERIFY2(ParseScenario(text.mid(open + 4, close - open - 4).toStdString(), &s, &error),
             error.ToString().c_str());
    QCOMPARE(s.name, std::string("half-speed"));
    QCOMPARE(s.backend_count(), 20u);
    QCOMPARE(s.events.size(), size_t{2});
  }

  void documentedFeaturesRoundTrip() {
    const std::string text =
        "# every feature of the format\n"
        "name all-features\n"
        "description first half\n"
        "description second half   # comments end a line\n"
        "duration 2m\n"
        "seed 18446744073709551615\n"
        "network 250us\n"
        "connect 1.5ms\n"
        "max-active 50\n"
        "count-errors off\n"
        "clients 3 rate 120.5/s pool 4 timeout 2s attempt-timeout 300ms retries 3 "
        "retry-budget 10% subset deterministic 2 cost loguniform 0.01 10\n"
        "\tclients 2 rate 7 subset random 1 cost lognormal 1 0.5\r\n"
        "backends 2 service lognormal 4ms 0.8 capacity 3 speed 0.5 contention 2\n"
        "backends 1 service const 1ms\n"
        "backends 1 service uniform 1ms 3ms\n"
        "backends 1 service loguniform 10us 10ms\n"
        "backends 1 service exp 2500ns\n"
        "at 1s backend 0 down\n"
        "at 2s backend 1 up\n"
        "at 3s backend 2 hang\n"
        "at 4s backend 3 flaky 25%\n"
        "at 4s backend 3 errors 0.75\n"
        "at 5s backend 0-1 flapping 2s 3s\n"
        "at 6s backend * speed 0.25\n"
        "at 7s backends 4 contention 6\n"
        "at 8s backend 5 lame-duck\n"
        "at 9s backend * replace 5s 2s stagger 2s\n"
        "at 10s network 20ms\n"
        "at 11s clients rate 0/s\n";
    Scenario s;
    ParseError error;
    QVERIFY2(ParseScenario(text, &s, &error), error.ToString().c_str());
    QCOMPARE(s.name, std::string("all-features"));
    QCOMPARE(s.description, std::string("first half second half"));
    QCOMPARE(s.duration, std::chrono::nanoseconds(120s));
    QCOMPARE(s.seed, UINT64_MAX);
    QCOMPARE(s.network_rtt, std::chrono::nanoseconds(250us));
    QCOMPARE(s.connect_time, std::chrono::nanoseconds(1500us));
    QCOMPARE(s.max_active, 50u);
    QVERIFY(!s.count_errors_as_active);
    QCOMPARE(s.clients.size(), size_t{2});
    QCOMPARE(s.clients[0].rate_per_s, 120.5);
    QCOMPARE(s.clients[0].retry_budget, 0.1);
    QCOMPARE(s.clients[0].subset, railyard::balance::SubsetMode::kDeterministic);
    QCOMPARE(s.clients[0].cost.kind, Distribution::Kind::kLogUniform);
    QCOMPARE(s.clients[1].subset_size, 1u);
    QCOMPARE(s.backend_count(), 6u);
    QCOMPARE(s.backends[0].service.a, 4e6);
    QCOMPARE(s.backends[0].service.b, 0.8);
    QCOMPARE(s.backends[4].service.a, 2500.0);
    QCOMPARE(s.events.size(), size_t{12});
    QCOMPARE(s.events[3].value, 0.25);
    QCOMPARE(s.events[4].action, Action::kErrors);
    QCOMPARE(s.events[6].backends.all, true);
    QCOMPARE(s.events[9].stagger, std::chrono::nanoseconds(2s));
    QCOMPARE(s.events[10].d1, std::chrono::nanoseconds(20ms));
    QCOMPARE(s.events[11].action, Action::kRate);

    Scenario again;
    const std::string canonical = FormatScenario(s);
    QVERIFY2(ParseScenario(canonical, &again, &error), error.ToString().c_str());
    QVERIFY2(again == s, canonical.c_str());
    QCOMPARE(FormatScenario(again), canonical);
  }

  void defaultsApplyWhenOmitted() {
    Scenario s;
    ParseError error;
    QVERIFY(ParseScenario(kMinimal, &s, &error));
    QCOMPARE(s.duration, std::chrono::nanoseconds(60s));
    QCOMPARE(s.clients[0].pool, 16u);
    QCOMPARE(s.backends[0].capacity, 8u);
    QCOMPARE(s.max_active, 100u);
  }

  void mistakesNameTheirLine_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("says");
    QTest::newRow("unknown directive") << "clients 1\nbackends 1\n\nfrobnicate 3\n"
                                       << 4 << "unknown directive";
    QTest::newRow("duration without unit") << "# c\nduration 30\nclients 1\nbackends 1\n"
                                           << 2 << "needs a unit";
    QTest::newRow("bad number") << "clients 1 rate fast\nbackends 1\n" << 1 << "not a number";
    QTest::newRow("negative") << "clients 1\nbackends 1 service exp -5ms\n" << 2 << "negative";
    QTest::newRow("probability") << "clients 1\nbackends 2\nat 1s backend 0 flaky 1.5\n"
                                 << 3 << "between 0 and 1";
    QTest::newRow("missing backend") << "clients 1\nbackends 2\nat 1s backend 7 down\n"
                                     << 3 << "does not exist";
    QTest::newRow("backwards range") << "clients 1\nbackends 9\nat 1s backend 5-2 down\n"
                                     << 3 << "backwards";
    QTest::newRow("unknown action") << "clients 1\nbackends 2\nat 1s backend 0 explode\n"
                                    << 3 << "unknown backend action";
    QTest::newRow("trailing junk") << "clients 1\nbackends 1\nduration 1s extra\n"
                                   << 3 << "unexpected";
    QTest::newRow("zero pool") << "clients 1 pool 0\nbackends 1\n" << 1 << "between 1 and";
    QTest::newRow("no clients") << "backends 1\n" << 0 << "no 'clients' line";
    QTest::newRow("control byte") << "clients 1\nback\x01ends 1\n" << 2 << "control character";
    QTest::newRow("huge duration") << "clients 1\nbackends 1\nduration 99999999h\n"
                                   << 3 << "longer than";
    QTest::newRow("dangling key") << "clients 1 rate\nbackends 1\n" << 1 << "missing rate";
  }
  void mistakesNameTheirLine() {
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(QString, says);
    const ParseError error = ErrorOf(text.toStdString());
    QCOMPARE(error.line, line);
    QVERIFY2(QString::fromStdString(error.message).contains(says), error.message.c_str());
    if (line > 0) QVERIFY(error.ToString().starts_with("line " + std::to_string(line) + ": "));
  }

  // Every action, with the arguments its table row declares, reads back as written; and the
  // messages for an unknown one list the known ones.
  void everyActionRoundTripsAndIsListed() {
    const std::string unknown_backend_action =
        ErrorOf("clients 1\nbackends 2\nat 1s backend 0 explode\n").message;
    for (int i = 0; i <= static_cast<int>(Action::kRate); ++i) {
      const auto action = static_cast<Action>(i);
      const std::string name(ActionName(action));
      Scenario s;
      QVERIFY(ParseScenario(kMinimal, &s, nullptr));
      s.backends[0].count = 3;
      Event e;
      e.at = 2s;
      e.action = action;
      if (action != Action::kNetwork && action != Action::kRate) {
        e.backends = {false, 0, 1};
        e.stagger = 250ms;
        QVERIFY2(unknown_backend_action.find(" " + name) != std::string::npos, name.c_str());
      }
      switch (ActionArguments(action)) {
        case ActionArgs::kNone:
          break;
        case ActionArgs::kValue:
          e.value = 0.5;
          break;
        case ActionArgs::kTwoDurations:
          e.d2 = 3s;
          [[fallthrough]];
        case ActionArgs::kDuration:
          e.d1 = 2s;
          break;
      }
      s.events.push_back(e);
      const std::string text = FormatScenario(s);
      Scenario back;
      ParseError error;
      QVERIFY2(ParseScenario(text, &back, &error), (text + error.ToString()).c_str());
      QCOMPARE(back, s);
    }
    QVERIFY(ErrorOf("clients 1\nbackends 1\nat 1s clients speed 2\n").message.find("'rate'") !=
            std::string::npos);
    QVERIFY(ErrorOf("clients 1\nbackends 1\nat 1s weather\n").message.find("network") !=
            std::string::npos);
  }

  void fileErrorsNameFileAndLine() {
    QTemporaryDir dir;
    const QString path = dir.filePath("broken.scn");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("clients 1\nbackends 1\nat 5s backend 0 melt\n");
    file.close();
    Scenario s;
    std::string error;
    QVERIFY(!LoadScenarioFile(path.toStdString(), &s, &error));
    QVERIFY2(error.starts_with(path.toStdString() + ":3: "), error.c_str());
    QVERIFY(!LoadScenarioFile(dir.filePath("absent.scn").toStdString(), &s, &error));
    QVERIFY(error.find("cannot open") != std::string::npos);
  }

  // Random bytes and mutated real scenarios: the parser answers (accepts or names a line) and
  // never crashes; a bounded number of rounds.
  void garbageNeverCrashes() {
    railyard::base::Rng rng(7);
    const std::string seedText =
        std::string(kMinimal) + "at 1s backend 0 flapping 2s 3s stagger 1s\nduration 5s\n";
    int accepted = 0;
    for (int round = 0; round < 3000; ++round) {
      std::string text = seedText;
      const int edits = 1 + static_cast<int>(rng.Below(8));
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng.Below(text.size() + 1);
        switch (rng.Below(3)) {
          case 0:
            text.insert(at, 1, static_cast<char>(rng.Below(256)));
            break;
          case 1:
            if (at < text.size()) text.erase(at, 1);
            break;
          default:
            if (at < text.size()) text[at] = " -*%/0123456789.smu\n#"[rng.Below(21)];
            break;
        }
      }
      Scenario s;
      ParseError error;
      if (ParseScenario(text, &s, &error)) {
        ++accepted;
        Scenario again;
        QVERIFY(ParseScenario(FormatScenario(s), &again, &error));
        QVERIFY(again == s);
      } else {
        QVERIFY(!error.message.empty());
        QVERIFY(error.line >= 0);
      }
    }
    QVERIFY(accepted > 0);
  }
};

RAILYARD_QTEST_GUILESS_MAIN(ScenarioTest)
#include "tst_scenario.moc"
