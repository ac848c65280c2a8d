// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "app/railyardctl/load_targets.h"
#include "core/cluster/access.h"
#include "core/load/load_generator.h"

namespace CLI {
class App;
}

namespace railyard::ctl {

struct LoadCommandOptions {
  load::LoadOptions load;
  LoadTargetFlags targets;  // Resolved into load.updater and load.servers.
  std::string distribution = "uniform";
  double duration_s = 10;
  int progress_ms = 1000;
  std::string data_token_file;  // Its first token goes into load.credentials.
  cluster::TlsFlags data_tls;   // --data-tls*: into load.tls.
  std::string admin_listen;     // Empty: no admin service.
  // Tokens the admin service accepts (one per line), as a node's; none: open to any caller.
  std::string admin_viewer_token_file;
  std::string admin_operator_token_file;
  bool json = false;
  std::string record_workload;  // Write every operation issued to this recording.
  std::string replay;           // Replay the workload recorded in this file.
  double replay_speed = 1.0;
  bool duration_given = false;         // A replay otherwise runs until its workload is done.
  std::string policy = "lowest-slot";  // A core/balance policy name.
  std::string subset = "none";         // none, random or deterministic.
  size_t subset_size = 0;
  uint64_t client_index = 0;  // --client-index, when client_index_given.
  bool client_index_given = false;
  // Verifying load that remembers every acknowledged write, checks reads of them on every node
  // during the run, and reads them all back from every node after each outage and at the end (a
  // crash-loop's witness).
  bool verify = false;
};

CLI::App* AddLoadCommand(CLI::App& app, LoadCommandOptions& options);
// One line per failure code of `r`, with its count and the first failure's message ("  CODE: N,
// the first: ..."), as `load` and `demo` end.
void PrintFailuresByCode(const load::LoadResult& r);
// Exit code 0 when no call failed (not-found reads are answers, not failures), 1 otherwise.
int RunLoad(LoadCommandOptions options);

}  // namespace railyard::ctl
