// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/record_command.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <asio.hpp>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "app/prometheus_flags.h"
#include "app/railyardctl/json_line.h"
#include "app/railyardctl/stop_signal.h"
#include "core/cluster/admin_client.h"
#include "core/cluster/history_fetch.h"
#include "core/cluster/prometheus_recording.h"
#include "core/cluster/telemetry_poller.h"
#include "core/cluster/time_span.h"
#include "core/trace/recording_reader.h"
#include "core/trace/recording_writer.h"
#include "core/trace/telemetry_recorder.h"

namespace railyard::ctl {

namespace {

using Clock = std::chrono::steady_clock;

// The one telemetry poller, set up as a command-line tool wants it: every round reports every
// node (waiting for connections), and a node that is down is asked again about once per
// `interval` (at least every 200 ms, the backoff's floor), so its return shows within about a
// round: a refused connection fails at once, and a longer backoff read a replica restarted in
// 200 ms as down for another second.
std::unique_ptr<cluster::TelemetryPoller> MakePoller(const cluster::ClusterAccess& access,
                                                     std::chrono::milliseconds interval) {
  std::vector<cluster::PollTarget> targets;
  for (size_t i = 0; i < access.nodes.size(); ++i) {
    targets.push_back({static_cast<int>(i), access.nodes[i].admin, access.token, access.tls});
  }
  cluster::PollerOptions options;
  options.client_name = "railyardctl";
  options.wait_for_connect = true;
  options.backoff_max = std::max(options.backoff_min, interval);
  // Asking again with a refused token only counts towards the node's lockout, which would refuse
  // a correct railyardctl or console from this host too.
  options.pause_on_refused_token = true;
  return std::make_unique<cluster::TelemetryPoller>(std::move(targets), options);
}

constexpr const char* kNotAskedAgain =
    " (not asked again with this token: retries would lock this host out)";

std::string FormatTime(int64_t unix_ms) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[40];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &tm);
  return std::string(text) + "." + std::to_string(1000 + unix_ms % 1000).substr(1) + "Z";
}

void PrintInspectJson(const std::string& file, const trace::RecordingReader& reader,
                      const trace::TimeSpan* span, uint64_t snapshots,
                      const std::vector<std::string>& nodes,
                      const std::vector<trace::Event>& events) {
  JsonLine line;
  line.Add("file", file)
      .Add("format", int64_t{reader.info().format_version})
      .Add("writer", reader.info().writer);
  if (span) line.Add("first_unix_ms", span->first_unix_ms).Add("last_unix_ms", span->last_unix_ms);
  std::vector<JsonLine> event_lines;
  for (const trace::Event& e : events) {
    event_lines.push_back(JsonLine()
                              .Add("unix_ms", e.unix_ms)
                              .Add("node", e.node)
                              .Add("kind", e.kind)
                              .Add("detail", e.detail));
  }
  line.Add("snapshots", static_cast<int64_t>(snapshots))
      .Add("nodes", nodes)
      .Add("events", event_lines)
      .Print();
}

// One node's row of a `watch --json` round.
JsonLine WatchJson(int round, int64_t unix_ms, const std::string& node) {
  return JsonLine().Add("round", int64_t{round}).Add("unix_ms", unix_ms).Add("node", node);
}

// Writes what each node's flight recorder kept since `from_unix_ms` into the recording, node by
// node, a page at a time. A node that keeps none, or cannot be reached, is said and skipped.
int RecordPast(const cluster::ClusterAccess& access, int64_t from_unix_ms,
               trace::TelemetryRecorder& recorder, trace::RecordingWriter& writer,
               uint64_t* snapshots, uint64_t* events) {
  int worst = kExitOk;
  const bool tty = isatty(STDERR_FILENO);  // Else one line per node, not one per page.
  for (const cluster::NodeTarget& node : access.nodes) {
    cluster::AdminClient client(node.admin, access.token, "railyardctl record", access.tls);
    rpc::Status s = client.Connect(std::chrono::seconds(5));
    uint64_t mine = 0;
    bool written = true;
    cluster::HistoryFetchResult fetched;
    if (s.ok()) {
      s = cluster::FetchHistory(
          client, from_unix_ms, 0, {},
          [&](admin::History& page) {
            for (const admin::Telemetry& t : page.snapshots()) {
              if (trace::Status w = recorder.Record(node.name, t, events); !w.ok()) {
                std::fprintf(stderr, "railyardctl: %s\n", w.ToString().c_str());
                return written = false;
              }
              ++mine;
            }
            if (trace::Status w = writer.Commit(); !w.ok()) {
              std::fprintf(stderr, "railyardctl: %s\n", w.ToString().c_str());
              return written = false;
            }
            if (tty) {
              std::fprintf(stderr, "\rrecord: %s: %llu snapshots of the past   ", node.name.c_str(),
                           static_cast<unsigned long long>(mine));
            }
            return true;
          },
          &fetched);
    }
    if (!written) return kExitFailed;
    if (tty) {
      std::fprintf(stderr, "\n");
    } else if (mine > 0) {
      std::fprintf(stderr, "record: %s: %llu snapshots of the past\n", node.name.c_str(),
                   static_cast<unsigned long long>(mine));
    }
    if (!s.ok()) {
      std::fprintf(stderr, "record: %s: no past: %s\n", node.name.c_str(), s.ToString().c_str());
      worst = std::max(worst, ExitFor(s));
    }
    *snapshots += mine;
  }
  return worst;
}

// record --prometheus: the range from a Prometheus server into a new recording.
int RecordFromPrometheus(const RecordOptions& o) {
  cluster::PrometheusSourceSpec spec = o.prometheus;
  if (!o.since.empty()) spec.since = o.since;
  cluster::PrometheusServer server;
  cluster::PrometheusHistoryOptions range;
  if (base::Status s =
          cluster::ResolvePrometheusSource(spec, cluster::UnixMsNow(), &server, &range);
      !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.message().c_str());
    return kExitUsage;
  }
  if (std::filesystem::exists(o.out)) {
    std::fprintf(stderr, "railyardctl: %s exists: a past from Prometheus goes into a new file\n",
                 o.out.c_str());
    return kExitUsage;
  }
  size_t nodes = 0;
  uint64_t snapshots = 0;
  // On a terminal, one line redrawn per query; into a log, every tenth and the last.
  const bool tty = isatty(STDERR_FILENO);
  const base::Status s = cluster::RecordPrometheusHistory(
      server, range, o.out,
      [tty](size_t i, size_t n) {
        if (tty) {
          std::fprintf(stderr, "\rrecord: query %zu of %zu   ", i + 1, n);
        } else if ((i + 1) % 10 == 0 || i + 1 == n) {
          std::fprintf(stderr, "record: query %zu of %zu\n", i + 1, n);
        }
      },
      &nodes, &snapshots);
  if (tty) std::fprintf(stderr, "\n");
  if (!s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return ExitFor(s);
  }
  std::printf("recorded %llu snapshots of %zu nodes (one per %lld s) from %s into %s\n",
              static_cast<unsigned long long>(snapshots), nodes,
              static_cast<long long>(cluster::HistoryStepMs(range) / 1000), server.url.c_str(),
              o.out.c_str());
  return kExitOk;
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
  record
      ->add_option("--progress-every-s", o.progress_every_s,
                   "Into a log, a progress line this often (a terminal: one line, redrawn)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  record->add_option("--since", o.since,
                     "First write the past from each node's flight recorder (15m, 1h, 2d: up to "
                     "24 h, the last 15 min at full detail); then stop, or poll live for "
                     "--duration-s if given");
  cluster::PrometheusSourceSpec& p = o.prometheus;
  record
      ->add_option("--prometheus", p.url,
                   "Instead of the nodes: record --since (default 1h) up to --until from this "
                   "Prometheus server's HTTP API (http(s)://host:port; Thanos, Mimir and "
                   "VictoriaMetrics too): the figures the nodes' /metrics carry, per node")
      ->excludes("--duration-s", "--interval-ms");
  railyard::app::AddPrometheusRangeFlags(*record, p);
  return record;
}

CLI::App* AddInspectCommand(CLI::App& app, InspectOptions& o) {
  CLI::App* inspect = app.add_subcommand("inspect", "Describe a recording: nodes, span, events");
  inspect->add_option("file", o.file, "Recording file")->required()->check(CLI::ExistingFile);
  inspect->add_flag("--json", o.json,
                    "One JSON object: file, format, writer, first_unix_ms, last_unix_ms, "
                    "snapshots, nodes, events");
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
  watch->add_flag("--json", o.json,
                  "Each refresh as one JSON object per node and line (railyardctl status --json's, "
                  "plus round and unix_ms)");
  return watch;
}

int RunRecord(const RecordOptions& o) {
  if (!o.prometheus.url.empty()) return RecordFromPrometheus(o);
  cluster::ClusterAccess access;
  if (int rc = ResolveAccess(o.target, &access); rc != kExitOk) return rc;
  std::unique_ptr<trace::RecordingWriter> writer;
  trace::WriterOptions writer_options;
  writer_options.writer = "railyardctl record";
  if (trace::Status s = trace::RecordingWriter::Create(o.out, writer_options, &writer); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitUsage;
  }
  trace::TelemetryRecorder recorder(writer.get());
  // The cluster file's order, which the console shows too: a replay keeps it.
  std::vector<std::string> order;
  for (const cluster::NodeTarget& node : access.nodes) order.push_back(node.name);
  if (trace::Status s = writer->SetNodeOrder(order); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s (a replay orders the nodes by name)\n",
                 s.ToString().c_str());
  }
  uint64_t snapshots = 0, events = 0;
  int worst = kExitOk;
  if (!o.since.empty()) {
    int64_t since_ms = 0;
    if (!cluster::ParseTimeSpan(o.since, &since_ms)) {
      std::fprintf(stderr, "railyardctl: --since %s: a time such as 90s, 15m, 1h or 2d\n",
                   o.since.c_str());
      return kExitUsage;
    }
    worst =
        RecordPast(access, cluster::UnixMsNow() - since_ms, recorder, *writer, &snapshots, &events);
    if (worst == kExitFailed) return worst;
    if (o.duration_s <= 0) {
      if (trace::Status s = writer->Close(); !s.ok()) {
        std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
        return kExitFailed;
      }
      std::printf("recorded %llu snapshots and %llu events of the past %s of %zu nodes into %s\n",
                  static_cast<unsigned long long>(snapshots),
                  static_cast<unsigned long long>(events), o.since.c_str(), access.nodes.size(),
                  o.out.c_str());
      return snapshots == 0 && worst == kExitOk ? kExitUnreachable : worst;
    }
  }
  const std::unique_ptr<cluster::TelemetryPoller> poller =
      MakePoller(access, std::chrono::milliseconds(o.interval_ms));
  std::map<int, std::string> last_problem;  // Per node: said once per change, not per poll.

  StopSignal stop;
  const Clock::time_point start = Clock::now();
  size_t paused = 0;  // Nodes that refused the token: never asked again.
  Clock::time_point next = start;
  // On a terminal, one line redrawn each round; into a log, a line every --progress-every-s (a
  // round every 100 ms otherwise wrote hundreds of carriage-returned updates).
  const bool tty = isatty(STDERR_FILENO);
  Clock::time_point next_progress_line = start;
  while (!stop.stopped()) {
    for (const cluster::PollResult& r : poller->PollRound()) {
      const std::string& name = access.nodes[static_cast<size_t>(r.id)].name;
      if (!r.status.ok()) {
        if (last_problem[r.id] != r.status.ToString()) {
          std::fprintf(stderr, "%srecord: %s: %s%s\n", tty ? "\n" : "", name.c_str(),
                       r.status.ToString().c_str(), r.paused ? kNotAskedAgain : "");
          last_problem[r.id] = r.status.ToString();
        }
        if (ExitFor(r.status) == kExitRefused) worst = kExitRefused;
        // A refused token says nothing of the node; any other failure is an outage a replay shows.
        if (r.paused) {
          ++paused;
        } else if (trace::Status w = recorder.RecordUnreachable(name, cluster::UnixMsNow(),
                                                                r.status.ToString(), &events);
                   !w.ok()) {
          std::fprintf(stderr, "railyardctl: %s\n", w.ToString().c_str());
          return kExitFailed;
        }
        continue;
      }
      last_problem.erase(r.id);
      if (trace::Status w = recorder.Record(name, *r.telemetry, &events); !w.ok()) {
        std::fprintf(stderr, "railyardctl: %s\n", w.ToString().c_str());
        return kExitFailed;
      }
      ++snapshots;
    }
    writer->Commit();  // Between polls the writer is idle: make the round durable now.
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const bool last = o.duration_s > 0 && elapsed >= o.duration_s;
    if (tty || last || Clock::now() >= next_progress_line) {
      std::fprintf(stderr, "%srecord: %.0f s, %llu snapshots, %llu events -> %s%s", tty ? "\r" : "",
                   elapsed, static_cast<unsigned long long>(snapshots),
                   static_cast<unsigned long long>(events), o.out.c_str(), tty ? "   " : "\n");
      std::fflush(stderr);
      next_progress_line = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(o.progress_every_s));
    }
    if (last) break;
    if (paused == access.nodes.size()) break;  // Nothing left that would answer.
    // A round that ran late is followed by one round at once, not by a burst making up for the
    // missed ones (it wrote a dozen snapshots within 5 ms).
    next = std::max(next + std::chrono::milliseconds(o.interval_ms), Clock::now());
    stop.SleepFor(std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()));
  }
  if (tty) std::fprintf(stderr, "\n");
  if (trace::Status s = writer->Close(); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitFailed;
  }
  std::printf("recorded %llu snapshots and %llu events of %zu nodes into %s\n",
              static_cast<unsigned long long>(snapshots), static_cast<unsigned long long>(events),
              access.nodes.size(), o.out.c_str());
  // Nothing recorded: a refused token says what to fix; otherwise nothing could be reached.
  if (snapshots == 0 && worst != kExitRefused) return kExitUnreachable;
  return worst;
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
  if (o.json) {
    PrintInspectJson(o.file, *reader, span_status.ok() ? &span : nullptr, count, nodes, events);
    return kExitOk;
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
  cluster::ClusterAccess access;
  if (int rc = ResolveAccess(o.target, &access); rc != kExitOk) return rc;
  const std::unique_ptr<cluster::TelemetryPoller> poller =
      MakePoller(access, std::chrono::milliseconds(o.interval_ms));
  const bool tty = isatty(STDOUT_FILENO);
  StopSignal stop;
  int worst = kExitOk;
  std::vector<std::string> last_error(access.nodes.size());  // Shown while a node backs off.
  std::vector<bool> paused(access.nodes.size(), false);      // Refused the token: not asked again.
  for (int round = 0; !stop.stopped() && (o.count == 0 || round < o.count); ++round) {
    if (round > 0) stop.SleepFor(std::chrono::milliseconds(o.interval_ms));
    std::vector<std::string> rows(access.nodes.size());
    worst = kExitOk;
    const int64_t now_ms = cluster::UnixMsNow();
    for (const cluster::PollResult& r : poller->PollRound()) {
      const std::string& name = access.nodes[static_cast<size_t>(r.id)].name;
      if (r.status.ok() && o.json) {
        rows[static_cast<size_t>(r.id)] =
            WatchJson(round, now_ms, name).Add("telemetry", *r.telemetry).Text() + "\n";
      } else if (r.status.ok()) {
        rows[static_cast<size_t>(r.id)] = StatusRow(name, *r.telemetry);
      } else {
        char row[1024];
        std::snprintf(row, sizeof(row), "%-22s %s%s\n", name.c_str(), r.status.ToString().c_str(),
                      r.paused ? kNotAskedAgain : "");
        rows[static_cast<size_t>(r.id)] = row;
        if (o.json) {
          rows[static_cast<size_t>(r.id)] = WatchJson(round, now_ms, name)
                                                .Add("error", r.status.ToString())
                                                .Add("exit_code", int64_t{ExitFor(r.status)})
                                                .Add("asked_again", r.paused ? "no" : "yes")
                                                .Text() +
                                            "\n";
        }
        last_error[static_cast<size_t>(r.id)] = r.status.ToString();
        if (r.paused) paused[static_cast<size_t>(r.id)] = true;
        worst = std::max(worst, ExitFor(r.status));
      }
    }
    if (tty && !o.json) std::printf("\033[H\033[2J");
    if (!o.json) PrintStatusHeader();
    for (size_t i = 0; i < rows.size(); ++i) {
      // A node backing off after a failure has no news this round: its last problem stands.
      if (rows[i].empty()) worst = std::max(worst, paused[i] ? kExitRefused : kExitUnreachable);
      if (rows[i].empty() && o.json) {
        WatchJson(round, now_ms, access.nodes[i].name)
            .Add("error", last_error[i])
            .Add("exit_code", int64_t{paused[i] ? kExitRefused : kExitUnreachable})
            .Add("asked_again", paused[i] ? "no" : "yes")
            .Print();
      } else if (rows[i].empty() && paused[i]) {
        std::printf("%-22s %s%s\n", access.nodes[i].name.c_str(), last_error[i].c_str(),
                    kNotAskedAgain);
      } else if (rows[i].empty()) {
        std::printf("%-22s %s (retrying)\n", access.nodes[i].name.c_str(), last_error[i].c_str());
      } else {
        std::fputs(rows[i].c_str(), stdout);
      }
    }
    std::fflush(stdout);
    // Every node refused the token: nothing will change until it is fixed.
    if (std::find(paused.begin(), paused.end(), false) == paused.end()) break;
  }
  return worst;
}

}  // namespace railyard::ctl
