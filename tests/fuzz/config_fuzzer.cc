// SPDX-License-Identifier: Apache-2.0
// Node and cluster configuration files (protobuf text format) and the options built from them.
#include "core/cluster/cluster_file.h"
#include "core/node/config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard;
  const std::string path = fuzz::WriteScratchFile(data, size, "config.textproto");
  config::NodeConfig node;
  if (node::LoadNodeConfig(path, &node).ok()) {
    node::NodeOptions options;
    (void)node::NodeOptionsFrom(node, &options);
  }
  config::Cluster cluster;
  (void)cluster::LoadClusterFile(path, &cluster);
  return 0;
}
