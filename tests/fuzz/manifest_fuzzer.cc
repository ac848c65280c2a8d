// SPDX-License-Identifier: Apache-2.0
// The MANIFEST text a store reads at open.
#include <string>

#include "storage/manifest.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace railyard::storage;
  Manifest manifest;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (DecodeManifest(text, &manifest).ok()) {
    Manifest again;
    (void)DecodeManifest(EncodeManifest(manifest), &again);
  }
  return 0;
}
