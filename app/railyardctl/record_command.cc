#include "app/railyardctl/record_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <asio.hpp>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <thread>

#include "app/railyardctl/stop_signal.h"
#include "core/node/admin_client.h"
#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"

namespace railyard::ctl {

namespace {

using Clock = std::chrono::steady_clock;

// One admin connection per node, reconnected when it drops.
class NodePoller {
 public:
  NodePoller(NamedNode node, std::string token)
      : node_(std::move(node)), token_(std::move(token)) {}
  rpc::Status Poll(admin::Telemetry* telemetry) {
    if (!client_) {
      client_ = std::make_unique<node::AdminClient>(node_.admin, token_);
      if (rpc::Status s = client_->Connect(std::chrono::milliseconds(500)); !s.ok()) {
        client_.reset();
        return s;
      }
    }
    rpc::Status s = client_->Telemetry(telemetry);
    if (s.code() == rpc::Code::kUnavailable) client_.reset();
    return s;
  }
  const NamedNode& node() const { return node_; }

 private:
  NamedNode node_;
  std::string token_;
  std::unique_ptr<node::AdminClient> client_;
};

std::string FormatTime(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[40];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &tm);
  return std::string(text) + "." + std::to_string(1000 + unix_ms % 1000).substr(1) + "Z";
}

}  // namespace

CLI::App* AddRecordCommand(CLI::App& app, RecordOptions& o) {
  CLI::App* record = app.add_subcommand(
      "record", "Poll every node's telemetry into a recording the console can replay");
  AddTargetOptions(*record, o.target);
  record->add_option("-o,--out", o.out, "Recording file (created, or appended to)")->required();
  record->add_option("--interval-ms", o.interval_ms, "Polling interval")
      ->check(CLI::Range(50, 3600000))
      ->capture_default_str();
  record->add_option("--duration-s", o.duration_s, "Stop after this long (0: until Ctrl-C)")
      ->check(CLI::Range(0.0, 604800.0))
      ->capture_default_str();
  return record;
}

CLI::App* AddInspectCommand(CLI::App& app, InspectOptions& o) {
  CLI::App* inspect = app.add_subcommand("inspect", "Describe a recording: nodes, span, events");
  inspect->add_option("file", o.file, "Recording file")->required()->check(CLI::ExistingFile);
  return inspect;
}

CLI::App* AddWatchCommand(CLI::App& app, WatchOptions& o) {
  CLI::App* watch = app.add_subcommand("watch", "The status table, refreshed until Ctrl-C");
  AddTargetOptions(*watch, o.target);
  watch->add_option("--interval-ms", o.interval_ms, "Refresh interval")
      ->check(CLI::Range(100, 3600000))
      ->capture_default_str();
  watch->add_option("--count", o.count, "Refreshes before exiting (0: until Ctrl-C)")
      ->check(CLI::Range(0, 1000000));
  return watch;
}

int RunRecord(const RecordOptions& o) {
  std::vector<NamedNode> nodes;
  if (int rc = ResolveTargets(o.target, &nodes); rc != kExitOk) return rc;
  std::string token;
  if (int rc = ResolveToken(o.target, &token); rc != kExitOk) return rc;
  std::unique_ptr<trace::RecordingWriter> writer;
  trace::WriterOptions writer_options;
  writer_options.writer = "railyardctl record";
  if (trace::Status s = trace::RecordingWriter::Create(o.out, writer_options, &writer); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitUsage;
  }
  std::vector<NodePoller> pollers;
  for (const NamedNode& n : nodes) pollers.emplace_back(n, token);
  std::map<std::string, int64_t> last_event;  // Per node: newest command already recorded.
  std::map<std::string, std::string> last_problem;

  StopSignal stop;
  const Clock::time_point start = Clock::now();
  uint64_t snapshots = 0, events = 0;
  int worst = kExitOk;
  Clock::time_point next = start;
  while (!stop.stopped()) {
    for (NodePoller& poller : pollers) {
      const std::string& name = poller.node().name;
      admin::Telemetry telemetry;
      const rpc::Status s = poller.Poll(&telemetry);
      if (!s.ok()) {
        // Say it once per change, not once per poll.
        if (last_problem[name] != s.ToString()) {
          std::fprintf(stderr, "\nrecord: %s: %s\n", name.c_str(), s.ToString().c_str());
          last_problem[name] = s.ToString();
        }
        if (s.code() == rpc::Code::kUnauthenticated) worst = kExitRefused;
        continue;
      }
      last_problem.erase(name);
      if (trace::Status w = writer->AppendSnapshot(name, telemetry); !w.ok()) {
        std::fprintf(stderr, "railyardctl: %s\n", w.ToString().c_str());
        return kExitFailed;
      }
      ++snapshots;
      int64_t& seen = last_event[name];
      for (const admin::CommandEvent& e : telemetry.recent_commands()) {
        if (e.unix_ms() <= seen) continue;
        seen = e.unix_ms();
        writer->AppendEvent(e.unix_ms(), name, e.command(), trace::NodeCommandEventDetail(e));
        ++events;
      }
    }
    writer->Commit();  // Between polls the writer is idle: make the round durable now.
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    std::fprintf(stderr, "\rrecord: %.0f s, %llu snapshots, %llu events -> %s   ", elapsed,
                 static_cast<unsigned long long>(snapshots),
                 static_cast<unsigned long long>(events), o.out.c_str());
    std::fflush(stderr);
    if (o.duration_s > 0 && elapsed >= o.duration_s) break;
    next += std::chrono::milliseconds(o.interval_ms);
    stop.SleepFor(std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()));
  }
  std::fprintf(stderr, "\n");
  if (trace::Status s = writer->Close(); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitFailed;
  }
  std::printf("recorded %llu snapshots and %llu events of %zu nodes into %s\n",
              static_cast<unsigned long long>(snapshots), static_cast<unsigned long long>(events),
              nodes.size(), o.out.c_str());
  return snapshots > 0 ? worst : std::max(worst, kExitUnreachable);
}

int RunInspect(const InspectOptions& o) {
  std::unique_ptr<trace::RecordingReader> reader;
  if (trace::Status s = trace::RecordingReader::Open(o.file, &reader); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitUsage;
  }
  std::vector<std::string> nodes;
  trace::TimeSpan span;
  uint64_t count = 0;
  std::vector<trace::Event> events;
  trace::Status s = reader->Nodes(&nodes);
  if (s.ok()) s = reader->SnapshotCount(&count);
  if (s.ok()) s = reader->Events(&events);
  const trace::Status span_status = reader->Span(&span);
  if (!s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitFailed;
  }
  std::printf("recording %s (format %d, written by %s)\n", o.file.c_str(),
              reader->info().format_version, reader->info().writer.c_str());
  if (span_status.ok()) {
    std::printf("span: %s .. %s (%.1f s)\n", FormatTime(span.first_unix_ms).c_str(),
                FormatTime(span.last_unix_ms).c_str(),
                static_cast<double>(span.last_unix_ms - span.first_unix_ms) / 1000.0);
  } else {
    std::printf("span: empty\n");
  }
  std::printf("snapshots: %llu\nnodes (%zu):", static_cast<unsigned long long>(count),
              nodes.size());
  for (const std::string& n : nodes) std::printf(" %s", n.c_str());
  std::printf("\nevents (%zu):\n", events.size());
  for (const trace::Event& e : events) {
    std::printf("  %s  %-10s %-8s %s\n", FormatTime(e.unix_ms).c_str(), e.node.c_str(),
                e.kind.c_str(), e.detail.c_str());
  }
  return kExitOk;
}

int RunWatch(const WatchOptions& o) {
  std::vector<NamedNode> nodes;
  if (int rc = ResolveTargets(o.target, &nodes); rc != kExitOk) return rc;
  std::string token;
  if (int rc = ResolveToken(o.target, &token); rc != kExitOk) return rc;
  std::vector<NodePoller> pollers;
  for (const NamedNode& n : nodes) pollers.emplace_back(n, token);
  const bool tty = isatty(STDOUT_FILENO);
  StopSignal stop;
  int worst = kExitOk;
  for (int round = 0; !stop.stopped() && (o.count == 0 || round < o.count); ++round) {
    if (round > 0) stop.SleepFor(std::chrono::milliseconds(o.interval_ms));
    if (tty) std::printf("\033[H\033[2J");
    PrintStatusHeader();
    worst = kExitOk;
    for (NodePoller& poller : pollers) {
      admin::Telemetry telemetry;
      const rpc::Status s = poller.Poll(&telemetry);
      if (s.ok()) {
        PrintStatusRow(poller.node().name, telemetry);
      } else {
        std::printf("%-22s %s\n", poller.node().name.c_str(), s.ToString().c_str());
        worst = std::max(worst, ExitFor(s));
      }
    }
    std::fflush(stdout);
  }
  return worst;
}

}  // namespace railyard::ctl
