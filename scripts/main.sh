#!/usr/bin/env bash
# The first README command: install what is missing, build, run the main job (scripts/demo.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh" "${MEPI_BUILD_DIR:-$root/build}"
bash "$root/scripts/demo.sh" "${MEPI_BUILD_DIR:-$root/build}/bin/mepi-opt"
