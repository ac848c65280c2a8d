// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

#include "core/sim/simulator.h"

namespace railyard::sim {

// One JSON object on one line (no newline): the scenario, the policy and every summary figure of
// the run, plus per-backend attempts and utilization.
std::string FormatJsonLine(const SimResult& result);

// A fixed-width table, one row per result, grouped as given (callers sort by scenario).
std::string FormatTable(const std::vector<SimResult>& results);

}  // namespace railyard::sim
