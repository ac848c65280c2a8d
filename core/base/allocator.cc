// SPDX-License-Identifier: Apache-2.0
#include "core/base/allocator.h"

#include <dlfcn.h>

#include <cstddef>

namespace railyard::base {

std::string AllocatorDescription() {
  // jemalloc's control interface; glibc has no symbol of that name. Looked up rather than
  // linked, so that this library does not itself pull jemalloc in.
  using MallctlFn = int (*)(const char*, void*, size_t*, void*, size_t);
  auto mallctl = reinterpret_cast<MallctlFn>(dlsym(RTLD_DEFAULT, "mallctl"));
  if (mallctl == nullptr) return "the C library's malloc";
  const char* version = nullptr;
  size_t size = sizeof(version);
  if (mallctl("version", &version, &size, nullptr, 0) != 0 || version == nullptr) {
    return "jemalloc";
  }
  // "5.3.0-0-g<commit>": the release is enough for an operator.
  const std::string full(version);
  return "jemalloc " + full.substr(0, full.find('-'));
}

}  // namespace railyard::base
