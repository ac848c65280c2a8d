// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the simulator's tests share: a shipped scenario loaded by name, and one run of it. Both
// stop the test binary with the reason (qFatal) rather than return an error: a scenario that
// does not load or run is a broken test, not a result.

#include <QtGlobal>
#include <string>

#include "core/balance/policy.h"
#include "core/sim/scenario.h"
#include "core/sim/simulator.h"
#include "tests/support/test_paths.h"

namespace railyard::sim::testing {

// `file` from the source tree's resources/scenarios, or any path when `file` holds a '/'.
inline Scenario LoadShipped(const std::string& file) {
  const std::string path =
      file.find('/') == std::string::npos
          ? std::string(::railyard::testing::SourcePath("resources/scenarios/" + file))
          : file;
  Scenario s;
  std::string error;
  if (!LoadScenarioFile(path, &s, &error)) qFatal("%s", error.c_str());
  return s;
}

inline SimResult RunPolicy(const Scenario& s, balance::PolicyKind policy, SimOptions options = {}) {
  options.policy = policy;
  SimResult r;
  std::string error;
  if (!Simulate(s, options, &r, &error)) qFatal("simulate %s: %s", s.name.c_str(), error.c_str());
  return r;
}

}  // namespace railyard::sim::testing
