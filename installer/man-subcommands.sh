#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Prints a help2man include section with each railyardctl subcommand's --help: man-subcommands.sh
# PATH_TO_RAILYARDCTL > railyardctl.h2m (installer/CMakeLists.txt runs it for the man page).
set -e
ctl=$1
echo "[SUBCOMMANDS]"
"$ctl" --help | sed -n '/^Subcommands:/,$ s/^  \([a-z][a-z0-9-]*\) .*/\1/p' | while read -r sub; do
  echo ".SS \"railyardctl $sub\""
  echo ".nf"
  # roff: a backslash is \e, and a line may not start with a dot or an apostrophe.
  "$ctl" "$sub" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/" -e 's/^Usage: [^ ]*railyardctl/Usage: railyardctl/'
  echo ".fi"
done
