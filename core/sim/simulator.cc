// SPDX-License-Identifier: Apache-2.0
#include "core/sim/simulator.h"

#include "core/sim/engine.h"

namespace railyard::sim {

bool Simulate(const Scenario& scenario, const SimOptions& options, SimResult* result,
              std::string* error) {
  internal::Engine engine(scenario, options);
  std::string message;
  if (!engine.Run(result, &message)) {
    if (error) *error = "recording: " + message;
    return false;
  }
  return true;
}

}  // namespace railyard::sim
