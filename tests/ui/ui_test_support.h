// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small pieces the console's model and widget tests share. Header-only; tests link railyard_ui
// (screenshots of widgets: tests/ui/screenshot.h).

#include <memory>
#include <string>

#include "railyard/admin.pb.h"

namespace railyard::ui::testing {

// A serving node's snapshot with nothing else in it, for tests to fill.
inline std::shared_ptr<admin::Telemetry> MakeTelemetry(const std::string& name, int64_t unix_ms) {
  auto t = std::make_shared<admin::Telemetry>();
  t->set_node(name);
  t->set_unix_ms(unix_ms);
  t->set_state(admin::NODE_SERVING);
  return t;
}

}  // namespace railyard::ui::testing
