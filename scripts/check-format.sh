#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails if clang-format (with the repository's .clang-format) would change any tracked C++ file,
# or if a tracked source file has no SPDX-License-Identifier line near its top.
# scripts/test.sh runs it first; `clang-format -i FILE...` applies the format.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-format: not a git checkout, nothing to list; skipped"
  exit 0
fi
mapfile -t files < <(git ls-files '*.cc' '*.h')
report=$(mktemp)
trap 'rm -f "$report"' EXIT
if ! clang-format --dry-run -Werror "${files[@]}" 2>"$report"; then
  grep -o '^[^:]*\.\(cc\|h\)' "$report" | sort -u | sed 's/^/  needs clang-format: /'
  exit 1
fi
# Every source file says its license in its first lines (LICENSE; README.md "License").
mapfile -t sources < <(git ls-files '*.cc' '*.h' '*.proto' '*.sh' '*.py' 'CMakeLists.txt' '*.cmake' '*.cmake.in')
unlicensed=()
for f in "${sources[@]}"; do
  head -n 3 "$f" | grep -q 'SPDX-License-Identifier:' || unlicensed+=("$f")
done
if [ ${#unlicensed[@]} -gt 0 ]; then
  printf '  no SPDX-License-Identifier line in its first 3 lines: %s\n' "${unlicensed[@]}"
  exit 1
fi
echo "check-format: ${#files[@]} files formatted, ${#sources[@]} files with an SPDX line"
