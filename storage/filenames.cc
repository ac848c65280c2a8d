// SPDX-License-Identifier: Apache-2.0
#include "storage/filenames.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "storage/file.h"

namespace railyard::storage {

std::string NumberedName(std::string_view prefix, uint64_t number, std::string_view suffix) {
  char digits[24];
  std::snprintf(digits, sizeof(digits), "%06llu", static_cast<unsigned long long>(number));
  return std::string(prefix) + digits + std::string(suffix);
}

bool ParseNumberedName(std::string_view name, std::string_view prefix, std::string_view suffix,
                       uint64_t* number) {
  if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
      name.substr(name.size() - suffix.size()) != suffix) {
    return false;
  }
  const std::string_view digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  const auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), *number);
  return err == std::errc() && end == digits.data() + digits.size();
}

Status ListNumbered(Env* env, const std::string& directory, std::string_view prefix,
                    std::string_view suffix, std::vector<uint64_t>* numbers) {
  numbers->clear();
  std::vector<std::string> names;
  if (const int error = env->ListDirectory(directory, &names); error != 0) {
    return ErrnoStatus("list " + directory, error);
  }
  for (const std::string& name : names) {
    uint64_t number = 0;
    if (ParseNumberedName(name, prefix, suffix, &number)) numbers->push_back(number);
  }
  std::sort(numbers->begin(), numbers->end());
  return Status::Ok();
}

}  // namespace railyard::storage
