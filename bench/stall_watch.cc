// SPDX-License-Identifier: Apache-2.0
#include "bench/stall_watch.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "bench/proc_sample.h"

namespace railyard::bench {

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

StallWatch::StallWatch(std::chrono::milliseconds stall, std::chrono::milliseconds tick,
                       std::function<void(const Stall&)> report,
                       std::function<std::string(bool)> context)
    : stall_(stall),
      tick_(tick),
      report_(std::move(report)),
      context_(std::move(context)),
      last_progress_ns_(NowNs()) {
  thread_ = std::thread([this] { Run(); });
}

StallWatch::~StallWatch() {
  stop_ = true;
  thread_.join();
}

void StallWatch::Progress() { last_progress_ns_.store(NowNs(), std::memory_order_relaxed); }

std::map<pid_t, StallWatch::Sample> StallWatch::ReadAll(std::map<pid_t, ThreadSpan>* spans) {
  std::map<pid_t, Sample> out;
  const pid_t self = getpid();
  for (pid_t tid : ThreadsOf(self)) {
    const std::string dir = "/proc/self/task/" + std::to_string(tid);
    Sample s;
    // A thread that exited since the listing has nothing to read: left out, not counted as 0.
    if (!(std::istringstream(ReadLine(dir + "/schedstat")) >> s.run_ns >> s.wait_ns)) continue;
    out[tid] = s;
    if (!spans) continue;
    ThreadSpan& span = (*spans)[tid];
    if (span.name.empty()) {
      span.name = ReadLine(dir + "/comm");
      span.wchan = ReadLine(dir + "/wchan");
    }
    span.states += ThreadState(self, tid);
  }
  return out;
}

void StallWatch::Run() {
  std::map<pid_t, Sample> baseline = ReadAll(nullptr);
  int64_t seen_progress = last_progress_ns_.load();
  bool stalled = false;
  int64_t stall_from = 0;
  std::string at_start;
  std::map<pid_t, ThreadSpan> spans;
  while (!stop_) {
    std::this_thread::sleep_for(tick_);
    const int64_t progress = last_progress_ns_.load(std::memory_order_relaxed);
    if (progress != seen_progress) {
      if (stalled) {
        const std::map<pid_t, Sample> now = ReadAll(&spans);
        Stall stall;
        stall.span_ms = double(progress - stall_from) / 1e6;
        stall.at_start = std::move(at_start);
        if (context_) stall.at_end = context_(false);
        for (auto& [tid, span] : spans) {
          const auto was = baseline.find(tid);
          const auto is = now.find(tid);
          if (is == now.end()) {
            span.name += " (exited)";  // Its figures went with it.
          } else {
            // A thread born during the stall counts from zero: its whole life lies within it.
            const Sample before = was != baseline.end() ? was->second : Sample{};
            auto since = [](uint64_t now_ns, uint64_t then_ns) {
              return now_ns >= then_ns ? double(now_ns - then_ns) / 1e6 : 0.0;
            };
            span.run_ms = since(is->second.run_ns, before.run_ns);
            span.wait_ms = since(is->second.wait_ns, before.wait_ns);
          }
          stall.threads[tid] = std::move(span);
        }
        report_(stall);
        spans.clear();
        stalled = false;
      }
      seen_progress = progress;
      baseline = ReadAll(nullptr);
      continue;
    }
    if (NowNs() - progress >= std::chrono::nanoseconds(stall_).count()) {
      if (!stalled) {
        stalled = true;
        stall_from = progress;
        at_start = context_ ? context_(true) : std::string();
      }
      ReadAll(&spans);
    }
  }
}

std::string StallWatch::ToJson(const Stall& stall, const std::string& label) {
  std::vector<std::pair<pid_t, const ThreadSpan*>> threads;
  for (const auto& [tid, span] : stall.threads) threads.push_back({tid, &span});
  std::sort(threads.begin(), threads.end(), [](const auto& a, const auto& b) {
    return a.second->run_ms + a.second->wait_ms > b.second->run_ms + b.second->wait_ms;
  });
  char head[160];
  std::snprintf(head, sizeof(head), "{\"bench\":\"stall\",\"label\":\"%s\",\"span_ms\":%.1f,",
                label.c_str(), stall.span_ms);
  std::string out = head;
  out += "\"threads\":[";
  bool first = true;
  for (const auto& [tid, span] : threads) {
    // A long stall's states, shortened: the first ticks, then how many more.
    std::string states = span->states.substr(0, 80);
    if (span->states.size() > 80) states += "+" + std::to_string(span->states.size() - 80);
    char row[512];
    std::snprintf(row, sizeof(row),
                  "%s{\"tid\":%d,\"name\":\"%s\",\"run_ms\":%.1f,\"wait_ms\":%.1f,"
                  "\"states\":\"%s\",\"wchan\":\"%s\"}",
                  first ? "" : ",", int(tid), span->name.c_str(), span->run_ms, span->wait_ms,
                  states.c_str(), span->wchan.c_str());
    out += row;
    first = false;
  }
  // The contexts are JSON values of their own, or nothing.
  out += "]";
  if (!stall.at_start.empty()) out += ",\"at_start\":" + stall.at_start;
  if (!stall.at_end.empty()) out += ",\"at_end\":" + stall.at_end;
  return out + "}";
}

}  // namespace railyard::bench
