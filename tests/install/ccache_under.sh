# SPDX-License-Identifier: Apache-2.0
# Sourced by the install tests, which build projects out of tree in a new temporary folder each
# run: `. ccache_under.sh DIR` makes ccache rewrite paths under DIR relative (to the compiler's
# working folder), so that a later run, in another folder or another clone, hits the cache as the
# preset's own build does (scripts/build.sh sets the same for the source tree). Without that
# every compile here missed, and the install tests were the suite's longest. Sets the array
# `launcher`: (ccache), or empty where ccache is not installed. CCACHE_DISABLE=1 (the cold run)
# still turns it off.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(ccache)
  export CCACHE_BASEDIR="$1" CCACHE_NOHASHDIR=true
  # Installed headers are copied seconds before they are compiled: without this ccache would
  # not trust their times and fall back to preprocessing every file.
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
fi
