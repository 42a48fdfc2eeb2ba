#!/usr/bin/env bash
# Tunes linalg.matmul 1024x1024x1024 f32 with `ninja tune` (one thread), then
# prints the tuned, default-config and OpenBLAS sgemm GFLOP/s measured in
# the same process, interleaved, on the same inputs. Bar: tuned >= 0.9x
# OpenBLAS. OpenBLAS picks its kernel from the CPU it recognizes; on an
# AVX-512 host it is measured a second time with its AVX-512 (SkylakeX)
# kernel forced, since that kernel may be faster than the one it picks.
# usage: bench/cpu/matmul_vs_openblas.sh [build dir of retune, default build/]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=${1:-$root/build}/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/bench/cpu/model/model.mlir" "$root/bench/cpu/model/tune.toml" "$work/"
# A benchmark measures: no replay from the cache. Everything runs on one
# core, the one the final comparison uses.
export RETUNE_CACHE_DIR=off
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
"$tools/retune" plan "$work/tune.toml" -B "$work/build"
$pin ninja -C "$work/build" tune >"$work/tune.log" 2>&1 || { cat "$work/tune.log"; exit 1; }
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dispatches"][0]["id"])' \
  "$work/build/dispatches/index.json")
winner=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["winner"]; print("" if w is None else w)' \
  "$work/build/best/$id.json")
# What a user of the tuned spec gets: the winner's build, or the default
# config's when no candidate beat it (the spec then leaves it alone).
tuned=artifacts/$id/$winner.json
if [ -z "$winner" ]; then
  echo "no candidate beat the default config on this machine (see best/$id.json in the"
  echo "tune); the tuned spec keeps the default, so 'tuned' below is the default build"
  tuned=artifacts/$id/baseline.json
fi
cd "$work/build"
# OpenBLAS picks its kernel from the CPU unless told: the environment's
# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are dropped for this command alone,
# and the bench prints the kernel it ran.
run() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@" $pin "$tools/retune-matmul-bench" \
  --tuned "$tuned" --default "artifacts/$id/baseline.json"; }
run
if grep -qw avx512f /proc/cpuinfo; then
  echo
  run OPENBLAS_CORETYPE=SkylakeX
fi
