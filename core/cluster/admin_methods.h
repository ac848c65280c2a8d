#pragma once

// The admin service's method names on the wire: the typed AdminClient and the node's
// AdminService are the only code that reads them.

namespace railyard::cluster::admin_methods {

inline constexpr char kTelemetry[] = "admin.Telemetry";
inline constexpr char kDrain[] = "admin.Drain";
inline constexpr char kUndrain[] = "admin.Undrain";
inline constexpr char kCompact[] = "admin.Compact";
inline constexpr char kFlush[] = "admin.Flush";

}  // namespace railyard::cluster::admin_methods
