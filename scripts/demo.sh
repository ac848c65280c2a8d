#!/usr/bin/env bash
# Installs what is missing, builds, and runs the local demo: 3 servers and a load client on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release
exec build/release/bin/railyardctl demo "$@"
