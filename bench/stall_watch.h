// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <thread>

namespace railyard::bench {

// Watches a process's own threads for a stall: when Progress() has not been called for
// `stall_ms`, it follows every thread of the process (/proc/self/task) until progress resumes,
// then reports, for the stall's whole span, what each thread did: CPU time run and time spent
// waiting on a run queue (/proc/.../schedstat), the states it was seen in at each tick ("R"
// running or runnable, "S" sleeping, "D" uninterruptible, ...) and the kernel function it slept
// in (wchan). Whether the thread that should have made progress was busy, starved or asleep is
// then plain, without stopping the process (a debugger's stack would). The cost, on the watch's
// own thread: after each Progress() it reads every thread's schedstat once (the stall's baseline:
// at 152 threads and 10 frames a second, about 1,500 small reads a second), and while a stall
// lasts, two files per thread every tick, on the CPUs the stalled threads wait for.
//
// Thread safety: Progress() from any thread; the report callback runs on the watch's own thread.
class StallWatch {
 public:
  struct ThreadSpan {
    std::string name;    // comm
    double run_ms = 0;   // On a CPU during the stall.
    double wait_ms = 0;  // Runnable, waiting for a CPU.
    std::string states;  // One letter per tick.
    std::string wchan;   // Where it slept at the stall's start ("0": running).
  };
  struct Stall {
    double span_ms = 0;  // From the last progress before it to the first after.
    std::map<pid_t, ThreadSpan> threads;
    // What `context` said once the stall was seen, and again as it ended (e.g. which other
    // processes were running then).
    std::string at_start;
    std::string at_end;
  };
  // `context` (may be empty) describes the machine for a report, called with true as a stall is
  // seen and with false as it ends; it runs on the watch's thread.
  StallWatch(std::chrono::milliseconds stall, std::chrono::milliseconds tick,
             std::function<void(const Stall&)> report,
             std::function<std::string(bool stall_begins)> context = nullptr);
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  void Progress();
  // A stall's threads as one line of JSON, with the busiest (run + wait) first.
  static std::string ToJson(const Stall& stall, const std::string& label);

 private:
  struct Sample {
    uint64_t run_ns = 0;
    uint64_t wait_ns = 0;
  };
  static std::map<pid_t, Sample> ReadAll(std::map<pid_t, ThreadSpan>* spans);
  void Run();

  const std::chrono::milliseconds stall_;
  const std::chrono::milliseconds tick_;
  const std::function<void(const Stall&)> report_;
  const std::function<std::string(bool)> context_;
  std::atomic<int64_t> last_progress_ns_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace railyard::bench
