// SPDX-License-Identifier: Apache-2.0
#pragma once

// How many cores this process may use: what a default thread count should follow. A systemd unit
// (CPUAffinity=, CPUQuota=), a container (docker --cpus, --cpuset-cpus) or taskset often allows
// fewer than the machine has, and std::thread::hardware_concurrency() counts the machine's.

#include <cstddef>
#include <optional>
#include <string_view>

namespace railyard::base {

// The cores in the calling thread's affinity mask, capped by the CPU quota of the process's cgroup
// and each of its ancestors (cgroup v2 `cpu.max`, or v1 `cpu.cfs_quota_us` over
// `cpu.cfs_period_us`), a fractional quota rounded up; at least 1. Where a source cannot be read
// it is left out (no affinity call: hardware_concurrency(); no cgroup: no cap).
// Thread safety: safe. Reads /proc and /sys on each call: for start-up, not for a hot path.
size_t UsableCores();

// The quota of cgroup v2's `cpu.max` text ("150000 100000" -> 1.5 cores; "max 100000" -> none).
// Exposed for tests; nullopt for "max" and for text it cannot read.
std::optional<double> CpuMaxCores(std::string_view cpu_max);

// cgroup v1's pair: quota and period in microseconds (quota -1: none). nullopt where there is none.
std::optional<double> CfsQuotaCores(long long quota_us, long long period_us);

}  // namespace railyard::base
