// SPDX-License-Identifier: Apache-2.0
#include "bench/kv_service.h"

#include <cstdio>
#include <cstring>

namespace railyard::bench {
namespace {

constexpr size_t kKeyDigits = 16;

}  // namespace

std::string ValueFor(uint64_t key, size_t size) {
  std::string value(size, '\0');
  for (size_t i = 0; i < size; ++i) value[i] = static_cast<char>('a' + (key + i) % 26);
  char digits[kKeyDigits + 1];
  std::snprintf(digits, sizeof digits, "%016llx", static_cast<unsigned long long>(key));
  value.replace(0, std::min(size, kKeyDigits), digits, std::min(size, kKeyDigits));
  return value;
}

bool IsValueFor(uint64_t key, size_t size, const char* value, size_t length) {
  if (length != size) return false;
  if (size == 0) return true;
  // The key it starts with, and its last byte: enough to tell documents and truncations apart
  // without comparing every byte of every answer.
  const std::string expected = ValueFor(key, std::min(size, kKeyDigits));
  return std::memcmp(value, expected.data(), expected.size()) == 0 &&
         (size <= kKeyDigits || value[size - 1] == static_cast<char>('a' + (key + size - 1) % 26));
}

}  // namespace railyard::bench
