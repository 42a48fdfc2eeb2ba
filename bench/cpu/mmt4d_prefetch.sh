#!/usr/bin/env bash
# The inner loop of IREE's f32 mmt4d microkernel on AVX-512 (16x16x1 tiles),
# timed on this CPU at the shapes of the zoo's hottest data-tiled matmuls,
# without and with a software prefetch ahead in K; prints GFLOP/s and the
# ratio, measured in the same run. No tuning spec can add the prefetch
# (docs/iree-backend.md, "The data-tiled inner loop"): this is the ceiling
# the per-dispatch stage does not reach on those dispatches.
# usage: bench/cpu/mmt4d_prefetch.sh [build dir of retune, default build/]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=${1:-$root/build}/bin/retune-mmt4d-loop-bench
[ -x "$bench" ] || { echo "mmt4d_prefetch.sh: $bench is not built (x86-64 only)" >&2; exit 1; }
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
# K1 M1 N1: panels in L1; the MLP's mmt4d 16x64x1024 in IREE's grid
# (RHS 4 MB, beyond L2) and one workgroup of its [16, 1] grid; MiniLM's
# FFN 1x8x24x1536 and 1x8x96x384 (one workgroup's M1); the CRNN's 2x25x4096.
for shape in "128 4 4" "1024 16 64" "1024 16 1" "1536 8 1" "384 8 1" "4096 2 1"; do
  set -- $shape
  $pin "$bench" --k "$1" --m1 "$2" --n1 "$3"
done
