#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# cmake/moc_cache.py against the real moc: a second checkout at another path hits the first one's
# entry and gets the same output with its own dependency list, as does a second build folder beside
# the first (CI's ASan stage after release); a build folder elsewhere in the checkout, or whose
# generated header differs, does not; a changed include is never answered from a stale entry; a
# damaged entry costs a miss, not a wrong file; moc's own errors pass through.
#   moc_cache_check.sh SOURCE_DIR MOC
set -euo pipefail
cache_script=$1/cmake/moc_cache.py
moc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache=$tmp/cache
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# A checkout: a QObject whose slots come from a macro in a header it includes, and another slot
# from a header generated into the build folder (as protoc's are).
make_checkout() {
  mkdir -p "$1/src"
  cat > "$1/src/extra.h" <<'H'
#define EXTRA_SLOTS void fromMacro();
H
  cat > "$1/src/widget.h" <<'H'
#include <QObject>
#include "src/extra.h"
#include "generated.h"
class Widget : public QObject {
  Q_OBJECT
 public Q_SLOTS:
  EXTRA_SLOTS
  GENERATED_SLOTS
};
H
}
# make_build CHECKOUT FOLDER [SLOT]: a build folder (relative to the checkout) whose generated
# header declares SLOT (default fromGenerator).
make_build() {
  mkdir -p "$1/$2/gen"
  echo "#define GENERATED_SLOTS void ${3:-fromGenerator}();" > "$1/$2/generated.h"
}
# run_moc CHECKOUT [FOLDER]: moc through the cache as AUTOMOC calls it in FOLDER (default build);
# its status.
run_moc() {
  local build=$1/${2:-build}
  python3 "$cache_script" "$1" "$build" "$cache" "$moc" -I"$1" -I"$build" \
    -I/usr/include/x86_64-linux-gnu/qt6 -I/usr/include/x86_64-linux-gnu/qt6/QtCore \
    --output-dep-file -o "$build/gen/moc_widget.cpp" "$1/src/widget.h"
}
entries() { find "$cache" -name out | wc -l; }
entry_inode() { find "$cache" -mindepth 2 -maxdepth 2 -type d -printf '%i\n' | sort | tr '\n' ' '; }

make_checkout "$tmp/a"
make_checkout "$tmp/b"
make_build "$tmp/a" build
make_build "$tmp/b" build
run_moc "$tmp/a" || fail "moc in checkout a"
grep -q fromMacro "$tmp/a/build/gen/moc_widget.cpp" || fail "a's output lacks the macro's slot"
grep -q fromGenerator "$tmp/a/build/gen/moc_widget.cpp" || fail "a's output lacks the generated slot"
[ "$(entries)" -eq 1 ] || fail "no single entry after the first run"
stored=$(entry_inode)

# Another checkout at another path: the same entry answers (not replaced), the same output, and a
# dependency list naming b's files, not a's.
run_moc "$tmp/b" || fail "moc in checkout b"
[ "$(entry_inode)" = "$stored" ] || fail "checkout b did not hit a's entry"
cmp -s "$tmp/a/build/gen/moc_widget.cpp" "$tmp/b/build/gen/moc_widget.cpp" ||
  fail "b's output differs from a's"
grep -q "$tmp/b/src/extra.h" "$tmp/b/build/gen/moc_widget.cpp.d" || fail "b's dep file lacks b's extra.h"
if grep -q "$tmp/a/" "$tmp/b/build/gen/moc_widget.cpp.d"; then fail "b's dep file names a's files"; fi

# Build folders of one checkout: one at the same depth as the first hits its entry; one elsewhere
# (moc names the input relative to its output) and one whose generated header differs each run moc.
make_build "$tmp/a" asan
run_moc "$tmp/a" asan || fail "moc in a second build folder"
[ "$(entry_inode)" = "$stored" ] || fail "a build folder beside the first did not hit its entry"
cmp -s "$tmp/a/build/gen/moc_widget.cpp" "$tmp/a/asan/gen/moc_widget.cpp" ||
  fail "the second build folder's output differs"
grep -q "$tmp/a/asan/generated.h" "$tmp/a/asan/gen/moc_widget.cpp.d" ||
  fail "the second build folder's dep file lacks its own generated header"
make_build "$tmp/a" out/deeper
run_moc "$tmp/a" out/deeper || fail "moc in a deeper build folder"
[ "$(entries)" -eq 2 ] || fail "a build folder at another depth hit an entry made for another"
grep -q '"../../../src/widget.h"' "$tmp/a/out/deeper/gen/moc_widget.cpp" ||
  fail "the deeper build folder's output names the input wrongly: $(grep '#include "' "$tmp/a/out/deeper/gen/moc_widget.cpp")"
make_build "$tmp/a" other otherSlot
run_moc "$tmp/a" other || fail "moc with another generated header"
grep -q otherSlot "$tmp/a/other/gen/moc_widget.cpp" ||
  fail "a stale entry answered for a build folder whose generated header differs"

# An included header changed: moc runs again and the output has the new slot.
echo '#define EXTRA_SLOTS void fromMacro(); void addedLater();' > "$tmp/b/src/extra.h"
run_moc "$tmp/b" || fail "moc after the change"
grep -q addedLater "$tmp/b/build/gen/moc_widget.cpp" || fail "a stale entry answered after extra.h changed"

# A damaged entry: a miss, and the right output.
find "$cache" -name deps.json -exec sh -c 'echo "{" > "$1"' _ {} \;
rm -f "$tmp/b/build/gen/moc_widget.cpp"
run_moc "$tmp/b" || fail "moc with a damaged entry"
grep -q addedLater "$tmp/b/build/gen/moc_widget.cpp" || fail "wrong output after a damaged entry"

# moc's own error passes through with its status.
printf '#include <QObject>\nclass Broken : public QObject {\n  Q_OBJECT\n  Q_PROPERTY(int)\n};\n' \
  > "$tmp/a/src/widget.h"
if run_moc "$tmp/a" 2> "$tmp/err"; then fail "a header moc rejects passed"; fi
grep -q "Parse error" "$tmp/err" || fail "moc's error was not shown: $(cat "$tmp/err")"

[ "$failures" -eq 0 ] || exit 1
echo "PASS"
