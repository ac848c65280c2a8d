// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/prometheus_recording.h"

#include <cstdio>
#include <memory>
#include <queue>
#include <string>
#include <tuple>

#include "core/cluster/text_files.h"
#include "core/cluster/time_span.h"
#include "core/trace/recording.h"
#include "core/trace/recording_writer.h"

namespace railyard::cluster {

base::Status ResolvePrometheusSource(const PrometheusSourceSpec& spec, int64_t now_ms,
                                     PrometheusServer* server, PrometheusHistoryOptions* options) {
  if (spec.url.rfind("http://", 0) != 0 && spec.url.rfind("https://", 0) != 0) {
    return base::Status::InvalidArgument("--prometheus " + spec.url +
                                         ": a URL such as http://prometheus:9090");
  }
  *server = {};
  server->url = spec.url;
  server->ca_file = spec.ca_file;
  server->cert_file = spec.cert_file;
  server->key_file = spec.key_file;
  if (!(spec.timeout_s > 0)) return base::Status::InvalidArgument("a query timeout of 0");
  server->timeout = std::chrono::milliseconds(static_cast<int64_t>(spec.timeout_s * 1000));
  if (!spec.token_file.empty()) {
    // Read as the nodes and railyardctl read token files: the first token in it.
    std::vector<std::string> tokens;
    if (base::Status s = ReadTokenFile(spec.token_file, &tokens); !s.ok()) return s;
    if (tokens.empty()) {
      return base::Status::InvalidArgument("the token file " + spec.token_file + " holds no token");
    }
    server->bearer_token = tokens.front();
  }
  *options = {};
  options->match = spec.match;
  int64_t span = 0;
  if (!ParseTimeSpan(spec.since, &span)) {
    return base::Status::InvalidArgument("--since " + spec.since +
                                         ": a span such as 15m, 1h, 6h or 2d");
  }
  if (!ParseTimePoint(spec.until, now_ms, &options->to_ms)) {
    return base::Status::InvalidArgument(
        "--until " + spec.until + ": now, a span ago (30m) or a UTC time (2026-11-29T03:10:00Z)");
  }
  options->from_ms = options->to_ms - span;
  if (!spec.step.empty() && !ParseTimeSpan(spec.step, &options->step_ms)) {
    return base::Status::InvalidArgument("--step " + spec.step + ": a span such as 15s or 1m");
  }
  if (options->step_ms != 0 && options->step_ms < 1000) {
    return base::Status::InvalidArgument("--step " + spec.step + ": at least 1s");
  }
  if ((options->to_ms - options->from_ms) / HistoryStepMs(*options) > 11000) {
    // Prometheus refuses more than 11,000 points a series.
    return base::Status::InvalidArgument("--step " + spec.step +
                                         ": more than 11,000 steps in the range");
  }
  return base::Status::Ok();
}

base::Status RecordPrometheusHistory(const PrometheusServer& server,
                                     const PrometheusHistoryOptions& options,
                                     const std::string& path,
                                     const std::function<void(size_t, size_t)>& progress,
                                     size_t* nodes, uint64_t* snapshots) {
  // The file first: a path that cannot be written is said before any query is sent.
  trace::WriterOptions writer_options;
  writer_options.error_if_exists = true;
  writer_options.writer = "Prometheus at " + server.url;
  std::unique_ptr<trace::RecordingWriter> writer;
  if (base::Status s = trace::RecordingWriter::Create(path, writer_options, &writer); !s.ok()) {
    return s;
  }
  std::vector<PrometheusNodePast> pasts;
  base::Status s = FetchPrometheusHistory(server, options, &pasts, progress);
  if (s.ok()) s = WritePrometheusHistory(pasts, writer.get(), snapshots);
  if (s.ok()) s = writer->Close();
  if (!s.ok()) {
    writer.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
    return s;
  }
  if (nodes) *nodes = pasts.size();
  return base::Status::Ok();
}

base::Status WritePrometheusHistory(const std::vector<PrometheusNodePast>& pasts,
                                    trace::RecordingWriter* writer, uint64_t* snapshots) {
  std::vector<std::string> order;
  for (const PrometheusNodePast& p : pasts) order.push_back(p.node);
  if (base::Status s = writer->SetNodeOrder(order); !s.ok()) return s;
  // Merged by time across the nodes, as a live recorder would have appended them.
  using Next = std::tuple<int64_t, size_t, size_t>;  // Time, node, index in its snapshots.
  std::priority_queue<Next, std::vector<Next>, std::greater<>> next;
  for (size_t n = 0; n < pasts.size(); ++n) {
    if (!pasts[n].snapshots.empty()) next.emplace(pasts[n].snapshots[0].unix_ms(), n, 0);
  }
  uint64_t written = 0;
  while (!next.empty()) {
    const auto [unix_ms, n, i] = next.top();
    next.pop();
    const PrometheusNodePast& past = pasts[n];
    if (base::Status s = writer->AppendSnapshot(past.node, past.snapshots[i]); !s.ok()) return s;
    ++written;
    if (i + 1 < past.snapshots.size()) next.emplace(past.snapshots[i + 1].unix_ms(), n, i + 1);
  }
  for (const PrometheusNodePast& past : pasts) {
    for (const PrometheusNodePast::Gap& gap : past.gaps) {
      if (base::Status s =
              writer->AppendEvent(gap.unix_ms, past.node, trace::kEventUnreachable, gap.reason);
          !s.ok()) {
        return s;
      }
    }
  }
  if (snapshots) *snapshots = written;
  return writer->Commit();
}

}  // namespace railyard::cluster
