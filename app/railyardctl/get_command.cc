// SPDX-License-Identifier: Apache-2.0
#include "app/railyardctl/get_command.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <optional>

#include "app/railyardctl/drain_wait.h"
#include "app/railyardctl/json_line.h"
#include "core/cluster/admin_client.h"
#include "core/cluster/doc_copies.h"
#include "core/cluster/replication_names.h"
#include "core/cluster/text_files.h"
#include "core/rpc/client.h"
#include "railyard/docservice.boxcar.h"

namespace railyard::ctl {

namespace {

// Exit code 1 is reserved for copies that differ: a fault, where "behind" is news.
constexpr int kExitCopiesDiffer = kExitFailed;

std::string PositionText(uint64_t position) {
  return position == 0 ? "-" : std::to_string(position);
}

void PrintTable(const std::vector<cluster::NodeCopy>& copies,
                const cluster::CopyComparison& comparison) {
  std::printf("%-22s %-8s %-8s %-9s %9s %-16s %12s %12s  %s\n", "NODE", "ROLE", "VERDICT", "ENTRY",
              "SIZE", "CHECKSUM", "POSITION", "APPLIED", "ANSWERED BY");
  for (size_t i = 0; i < copies.size(); ++i) {
    const cluster::NodeCopy& c = copies[i];
    const std::string_view verdict = cluster::CopyVerdictName(comparison.verdicts[i]);
    if (!c.status.ok()) {
      std::printf("%-22s %-8s %-8.*s %s\n", c.node.c_str(), "-", static_cast<int>(verdict.size()),
                  verdict.data(), c.status.ToString().c_str());
      continue;
    }
    const admin::DocLocation& l = c.location;
    const std::string_view role = cluster::DocstoreRoleName(l.role());
    const std::string_view entry = cluster::EntryKindName(l);
    const std::string size =
        entry == "document" ? std::to_string(l.size_bytes()) : std::string("-");
    std::printf("%-22s %-8.*s %-8.*s %-9.*s %9s %-16s %12s %12s  %s\n", c.node.c_str(),
                static_cast<int>(role.size()), role.data(), static_cast<int>(verdict.size()),
                verdict.data(), static_cast<int>(entry.size()), entry.data(), size.c_str(),
                cluster::ChecksumText(l).c_str(), PositionText(l.position()).c_str(),
                std::to_string(l.applied_position()).c_str(), cluster::AnsweredBy(l).c_str());
  }
}

void PrintJson(const std::vector<cluster::NodeCopy>& copies,
               const cluster::CopyComparison& comparison) {
  for (size_t i = 0; i < copies.size(); ++i) {
    const cluster::NodeCopy& c = copies[i];
    JsonLine line;
    line.Add("node", c.node)
        .Add("verdict", std::string(cluster::CopyVerdictName(comparison.verdicts[i])));
    if (c.status.ok()) {
      line.Add("location", c.location);
    } else {
      line.Add("error", c.status.ToString()).Add("exit_code", int64_t{ExitFor(c.status)});
    }
    line.Print();
  }
}

// The document's bytes on stdout, read over the serving nodes' docservices (their addresses from
// their telemetry), as a client would.
int ReadDocument(const GetOptions& o, const cluster::ClusterAccess& access) {
  const std::chrono::milliseconds timeout = *ParseTimeout(o.timeout);
  rpc::ClientOptions client_options;
  client_options.client_name = "railyardctl-get";
  client_options.pool_size = 2;
  for (const cluster::NodeTarget& n : access.nodes) {
    cluster::AdminClient admin(n.admin, access.token, "railyardctl", access.tls);
    admin::Telemetry t;
    if (!admin.Connect(timeout).ok() || !admin.Telemetry(&t).ok()) continue;
    if (t.state() != admin::NODE_SERVING || !t.has_storage()) continue;
    if (std::optional<rpc::Endpoint> service = rpc::ParseEndpoint(t.service_address())) {
      client_options.servers.push_back(*service);
    }
  }
  if (client_options.servers.empty()) {
    std::fprintf(stderr, "railyardctl: no node serves documents now\n");
    return kExitUnreachable;
  }
  if (!DataTlsOf(o.data_tls, &client_options.tls)) return kExitUsage;
  if (!o.data_token_file.empty()) {
    std::vector<std::string> tokens;
    rpc::Status s = cluster::ReadTokenFile(o.data_token_file, &tokens);
    if (s.ok() && tokens.empty()) {
      s = {rpc::Code::kInvalidArgument, o.data_token_file + " holds no token"};
    }
    if (!s.ok()) {
      std::fprintf(stderr, "railyardctl: --data-token-file: %s\n", s.message().c_str());
      return kExitUsage;
    }
    client_options.credentials = tokens.front();
  }
  rpc::Client client(client_options);
  if (rpc::Status s = client.Start(); !s.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", s.ToString().c_str());
    return kExitUsage;
  }
  (void)client.WaitForPool(1, timeout);  // Else the call says why.
  doc::GetRequest request;
  request.set_id(o.id);
  request.set_min_position(o.min_position);
  doc::GetResponse response;
  const rpc::CallResult result = doc::DocService::Stub(client).Get(request, &response, timeout);
  if (result.status.code() == rpc::Code::kNotFound) {
    std::fprintf(stderr, "railyardctl: document %" PRIu64 " not found\n", o.id);
    return kExitFailed;
  }
  if (!result.status.ok()) {
    std::fprintf(stderr, "railyardctl: %s\n", result.status.ToString().c_str());
    return std::max(kExitFailed, ExitFor(result.status));
  }
  std::fwrite(response.doc().data(), 1, response.doc().size(), stdout);
  return kExitOk;
}

}  // namespace

CLI::App* AddGetCommand(CLI::App& app, GetOptions& o) {
  CLI::App* get = app.add_subcommand(
      "get",
      "A document's bytes, read from the nodes that serve; with --all-nodes, where the updater "
      "and every replica hold it (its entry, size, checksum and queue position, the index and "
      "Bloom page that answered) and which are behind (viewer token)");
  get->add_option("id", o.id, "The document's id")->required();
  get->add_flag("--all-nodes", o.all_nodes,
                "Where every node holds it, instead of its bytes (a viewer token will do)");
  get->add_option("--data-token-file", o.data_token_file,
                  "Without --all-nodes: the docservice's reader token (first line)");
  get->add_option("--min-position", o.min_position,
                  "Without --all-nodes: a node must have applied this queue position (as a "
                  "write's answer gives it) to answer");
  AddTargetOptions(*get, o.target);
  AddDataTlsOptions(*get, o.data_tls);
  get->add_flag("--json", o.target.json,
                "One JSON object per node and line: {\"node\", \"verdict\", \"location\"} or "
                "{\"node\", \"verdict\", \"error\", \"exit_code\"}");
  get->add_option("--timeout", o.timeout, "Per node, to connect and answer (default 5s)")
      ->check([](const std::string& text) {
        return ParseTimeout(text) ? std::string() : "not a duration: " + text;
      });
  get->footer(
      "Verdicts: newest (holds the newest entry of any node), behind (has not applied that "
      "entry's position), absent (no node holds the id), DIFFERS (applied it, holds another: a "
      "fault), unknown (could not be asked), no store (a process without a docstore).\n"
      "Exit codes with --all-nodes: 0 every node answered and no copy differs, 1 a copy differs, "
      "2 usage, 3 token refused, 4 node unreachable. Without: 0 the document is on stdout, 1 not "
      "found or the read failed, 2 usage, 4 no node serves.");
  return get;
}

int RunGet(const GetOptions& o) {
  cluster::ClusterAccess access;
  if (int rc = ResolveAccess(o.target, &access); rc != kExitOk) return rc;
  if (!o.all_nodes) return ReadDocument(o, access);
  const std::vector<cluster::NodeCopy> copies =
      cluster::LocateEverywhere(cluster::CopyTargetsOf(access), o.id, *ParseTimeout(o.timeout));
  const cluster::CopyComparison comparison = cluster::CompareCopies(copies);
  if (o.target.json) {
    PrintJson(copies, comparison);
  } else {
    std::printf(
        "document %" PRIu64 ": %s\n", o.id,
        comparison.newest_position == 0
            ? "no node holds it"
            : ("newest entry at queue position " + std::to_string(comparison.newest_position) +
               (comparison.newest_deleted ? " (a deletion)" : ""))
                  .c_str());
    PrintTable(copies, comparison);
  }
  int worst = kExitOk;
  for (size_t i = 0; i < copies.size(); ++i) {
    if (comparison.verdicts[i] == cluster::CopyVerdict::kNoStore) continue;  // Nothing to hold.
    if (!copies[i].status.ok()) {
      std::fprintf(stderr, "railyardctl: %s: %s\n", copies[i].node.c_str(),
                   copies[i].status.ToString().c_str());
      worst = std::max(worst, ExitFor(copies[i].status));
    }
    if (comparison.verdicts[i] == cluster::CopyVerdict::kDiffers) {
      worst = std::max(worst, kExitCopiesDiffer);
    }
  }
  return worst;
}

}  // namespace railyard::ctl
