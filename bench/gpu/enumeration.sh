#!/usr/bin/env bash
# Enumeration time and solution count of the ROCm search spaces (gfx942,
# f16 -> f32), per pipeline and engine.
#
#   bench/gpu/enumeration.sh [BUILD_DIR]     (default: build-gpu)
#   SLOW=1 bench/gpu/enumeration.sh          also time the pure-Z3 engines
#                                            on 1024x1280x1280 (minutes)
#
# Times are the best of 3 runs of one whole enumeration, in one process.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$repo/build-gpu}
bench=$build/bin/gpu-enum-bench
if [[ ! -x $bench ]]; then
  cmake -S "$repo" -B "$build" -G Ninja >/dev/null
  ninja -C "$build" gpu-enum-bench >/dev/null
fi

cases=(mm:1024x1280x1280 mm:2048x2048x2048 mm:2048x3840x1280 mm:5369x112x112
       conv:2x32x32x256x3x3x128 attn:16x4096x64x64x4096)

echo "== default engine (lattice: C++ over the same constraint model) =="
"$bench" --engine=lattice --repeat=3 "${cases[@]}"

echo "== lattice-z3 (C++ walks the divisor lattice, Z3 solves the rest) =="
"$bench" --engine=lattice-z3 --repeat=1 mm:1024x1280x1280 mm:5369x112x112 \
  conv:2x32x32x256x3x3x128 attn:16x4096x64x64x4096

if [[ ${SLOW:-0} == 1 ]]; then
  for engine in z3-incremental z3-blocking; do
    echo "== $engine (Z3 alone) =="
    "$bench" --engine=$engine --repeat=1 mm:1024x1280x1280
  done
fi
