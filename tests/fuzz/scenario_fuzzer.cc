// SPDX-License-Identifier: Apache-2.0
// Simulator scenario files, which operators write by hand: any text parses or is refused with a
// line number, and whatever parses formats back to text that parses again.
#include <string_view>

#include "core/sim/scenario.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::sim;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Scenario scenario;
  ParseError error;
  if (!ParseScenario(text, &scenario, &error)) return 0;
  Scenario again;
  if (!ParseScenario(FormatScenario(scenario), &again, &error)) __builtin_trap();
  return 0;
}
