// SPDX-License-Identifier: Apache-2.0
#pragma once

// The admin service's method names on the wire (the typed AdminClient and the node's
// AdminService are the only code that reads them), and the one refusal text clients tell apart.

namespace railyard::cluster::admin_methods {

inline constexpr char kTelemetry[] = "admin.Telemetry";
inline constexpr char kDrain[] = "admin.Drain";
inline constexpr char kUndrain[] = "admin.Undrain";
inline constexpr char kCompact[] = "admin.Compact";
inline constexpr char kFlush[] = "admin.Flush";
// For viewers too: a time range of the node's flight recorder (admin.History).
inline constexpr char kHistory[] = "admin.History";

// How a refusal of a locked-out host begins (UNAUTHENTICATED, whatever the token): a client
// tells it from a refused token, which retrying with the same token would only make worse.
inline constexpr char kLockedOutReason[] = "too many wrong admin tokens from this host";

}  // namespace railyard::cluster::admin_methods
