// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace railyard::base {

// A server's self-reported load, carried on every response (railyard.rpc.LoadReport on the
// wire): what rpc::Server reports and what the balance policies weigh backends by.
struct LoadReport {
  double utilization = 0;  // 0..1 (may exceed 1 when overloaded).
  double requests_per_s = 0;
  double errors_per_s = 0;
};

}  // namespace railyard::base
