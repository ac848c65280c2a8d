// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one refusal text of the admin service that clients tell apart. (Its method names are
// generated from admin.proto: admin::AdminService::kTelemetryMethod and the like.)

namespace railyard::cluster::admin_methods {

// How a refusal of a locked-out host begins (UNAUTHENTICATED, whatever the token): a client
// tells it from a refused token, which retrying with the same token would only make worse.
inline constexpr char kLockedOutReason[] = "too many wrong admin tokens from this host";

}  // namespace railyard::cluster::admin_methods
