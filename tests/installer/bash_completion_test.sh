#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# installer/railyardctl.bash-completion against the built railyardctl: TAB after `railyardctl`
# offers every subcommand its --help lists, TAB after `railyardctl SUB --` every flag of
# `railyardctl SUB --help`, and flags that take a file or one of a few words complete those.
#   bash_completion_test.sh SOURCE_DIR RAILYARDCTL
set -euo pipefail

completion=$1/installer/railyardctl.bash-completion
ctl_dir=$(cd "$(dirname "$2")" && pwd)
export PATH=$ctl_dir:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
touch run.rec notes.txt

# shellcheck source=/dev/null
source /usr/share/bash-completion/bash_completion
# shellcheck source=/dev/null
source "$completion"

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# complete WORD...: what TAB offers with the cursor at the end of the last word.
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _railyardctl
  printf '%s\n' "${COMPREPLY[@]}"
}
# expect_all "WHAT" "WANTED (one per line)" "OFFERED (one per line)"
expect_all() {
  local word
  while read -r word; do
    [ -n "$word" ] || continue
    grep -qxF -- "$word" <<<"$3" || fail "$1: $word not offered (offered: ${3//$'\n'/ })"
  done <<<"$2"
}

# The subcommands and flags as railyardctl's own help lists them, read here independently of the
# completion's parser.
subcommands=$(railyardctl --help | awk '/^Subcommands:/ { on = 1; next } on && NF { print $1 }')
[ "$(wc -l <<<"$subcommands")" -ge 10 ] || fail "railyardctl --help lists only: $subcommands"
expect_all "railyardctl TAB" "$subcommands" "$(complete_words railyardctl '')"
expect_all "railyardctl dr TAB" "drain" "$(complete_words railyardctl dr)"

for sub in $subcommands; do
  flags=$(railyardctl "$sub" --help | grep -oE '^  (-[A-Za-z0-9],)?--[A-Za-z0-9-]+' |
    grep -oE -- '--[A-Za-z0-9-]+')
  expect_all "railyardctl $sub --TAB" "$flags" "$(complete_words railyardctl "$sub" --)"
done
expect_all "railyardctl --TAB" "--log-level" "$(complete_words railyardctl --)"

# Values: a file, one of a few words, nothing for free text.
expect_all "load --cluster TAB" $'run.rec\nnotes.txt' "$(complete_words railyardctl load --cluster '')"
expect_all "inspect TAB" "run.rec" "$(complete_words railyardctl inspect '')"
expect_all "load --distribution TAB" $'uniform\nzipfian' \
  "$(complete_words railyardctl load --distribution '')"
expect_all "--log-level d TAB" "debug" "$(complete_words railyardctl --log-level d)"
[ -z "$(complete_words railyardctl drain --token '')" ] || fail "drain --token offers words"
# After a switch, the next flag; after --log-level's value, the subcommands.
expect_all "drain --tls --TAB" "--node" "$(complete_words railyardctl drain --tls --)"
expect_all "--log-level debug sta TAB" "status" \
  "$(complete_words railyardctl --log-level debug sta)"

[ "$failures" -eq 0 ] || exit 1
echo "PASS"
