#!/usr/bin/env bash
# Configures and builds Retune into build/ (Release, Ninja): everything, or
# the given targets (scripts/quickstart.sh builds `retune-tools` only).
# usage: build.sh [target...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$root/build" "${targets[@]}"
