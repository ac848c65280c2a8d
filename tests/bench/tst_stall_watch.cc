// SPDX-License-Identifier: Apache-2.0
// fleet_bench's stall watch: a stall is reported once progress resumes, with what each of the
// process's threads did during it: a thread that spun shows as running, one that slept as asleep;
// the caller's context is taken as the stall is seen and as it ends.
#include <pthread.h>

#include <QTest>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

#include "bench/stall_watch.h"
#include "tests/support/qtest_main.h"

using railyard::bench::StallWatch;

namespace {

// The stall's span for the thread named `name`, or null.
const StallWatch::ThreadSpan* Named(const StallWatch::Stall& stall, const std::string& name) {
  for (const auto& [tid, span] : stall.threads) {
    if (span.name == name) return &span;
  }
  return nullptr;
}

}  // namespace

class StallWatchTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aStallSaysWhoRanAndWhoSlept() {
    // A sleeper (as a GUI thread waiting for events) and a spinner, both running before the
    // watch starts, so that the watch's first look already finds them.
    std::atomic<bool> stop{false};
    std::thread sleeper([&] {
      pthread_setname_np(pthread_self(), "stall-sleeper");
      while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    });
    std::thread spinner([&] {
      pthread_setname_np(pthread_self(), "stall-spinner");
      while (!stop) {
      }
    });
    std::mutex mutex;
    std::optional<StallWatch::Stall> reported;
    int contexts = 0;  // Only the watch's thread calls the context.
    StallWatch watch(
        std::chrono::milliseconds(100), std::chrono::milliseconds(5),
        [&](const StallWatch::Stall& stall) {
          // A loaded machine may delay this thread into an early stall of its own: the one the
          // test makes is the one of 400 ms or more.
          std::lock_guard lock(mutex);
          if (!reported && stall.span_ms >= 400) reported = stall;
        },
        [&contexts](bool begins) {
          return "{\"call\":" + std::to_string(++contexts) +
                 ",\"begins\":" + (begins ? "true" : "false") + "}";
        });
    watch.Progress();
    // The stall itself: no progress for four times the threshold (the stimulus, not a wait for a
    // result, which follows under a deadline).
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    watch.Progress();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    bool got = false;
    while (!got && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::lock_guard lock(mutex);
      got = reported.has_value();
    }
    stop = true;
    sleeper.join();
    spinner.join();
    QVERIFY2(got, "no stall reported");
    const StallWatch::Stall stall = *reported;
    QVERIFY2(stall.span_ms >= 400, qPrintable(QString::number(stall.span_ms)));
    const std::string json = StallWatch::ToJson(stall, "test");
    const StallWatch::ThreadSpan* spun = Named(stall, "stall-spinner");
    const StallWatch::ThreadSpan* slept = Named(stall, "stall-sleeper");
    QVERIFY2(spun && slept, json.c_str());
    QVERIFY2(spun->states.find('R') != std::string::npos, json.c_str());
    QVERIFY2(slept->states.find('S') != std::string::npos, json.c_str());
    QVERIFY2(spun->run_ms > slept->run_ms, json.c_str());
    QVERIFY2(json.find("\"name\":\"stall-spinner\"") != std::string::npos, json.c_str());
    // The context as the stall was seen and as it ended: two calls in a row (an early stall of a
    // delayed test thread, if any, took the ones before).
    const auto call = [](const std::string& context) {
      return context.starts_with("{\"call\":") ? std::atoi(context.c_str() + 8) : -1;
    };
    QVERIFY2(call(stall.at_start) >= 1 && call(stall.at_end) == call(stall.at_start) + 1,
             json.c_str());
    QVERIFY2(
        stall.at_start.ends_with("\"begins\":true}") && stall.at_end.ends_with("\"begins\":false}"),
        json.c_str());
    QVERIFY2(json.find(",\"at_start\":" + stall.at_start + ",\"at_end\":" + stall.at_end + "}") !=
                 std::string::npos,
             json.c_str());
  }
};

RAILYARD_QTEST_GUILESS_MAIN(StallWatchTest)
#include "tst_stall_watch.moc"
