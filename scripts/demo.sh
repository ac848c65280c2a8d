#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds, and runs the console on a local demo cluster: 3 nodes and load clients on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release railyard  # The console and the railyard-node it starts, nothing else.
exec build/release/bin/railyard --demo "$@"
