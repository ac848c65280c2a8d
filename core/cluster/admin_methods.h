// SPDX-License-Identifier: Apache-2.0
#pragma once

// The refusal texts of the admin service that clients tell apart. (Its method names are
// generated from admin.proto: admin::AdminService::kTelemetryMethod and the like.)

namespace railyard::cluster::admin_methods {

// How a refusal of a locked-out host begins (UNAUTHENTICATED, whatever the token): a client
// tells it from a refused token, which retrying with the same token would only make worse.
inline constexpr char kLockedOutReason[] = "too many wrong admin tokens from this host";

// How admin.Locate's FAILED_PRECONDITION from a process with no docstore (a load client, a service
// with node::ServiceAdmin) ends: nothing to compare, where a node still opening its store is not
// known yet.
inline constexpr char kNoDocumentStore[] = "has no document store";

}  // namespace railyard::cluster::admin_methods
