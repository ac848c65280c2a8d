// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace railyard::base {

// Which malloc this process runs on, as an operator would want it in --version: "jemalloc"
// followed by its release where jemalloc provides malloc (an executable linked with it, or
// LD_PRELOAD), else "the C library's malloc". Decided at run time, from the symbols the process
// has, so it says what is true rather than what the build meant.
// Thread safety: any thread.
std::string AllocatorDescription();

}  // namespace railyard::base
