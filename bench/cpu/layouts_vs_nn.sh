#!/usr/bin/env bash
# Is every operand layout as fast as NN? Tunes one f32 contraction per
# layout with `ninja tune` (one thread) and times the tuned build against
# OpenBLAS on the same inputs (retune-model-bench), then prints each
# layout's tuned GFLOP/s as a ratio to the NN one of the same family.
# Bar: NT, TN and the batch variants within 10% of NN (ratio >= 0.90).
# usage: bench/cpu/layouts_vs_nn.sh [build dir of retune, default build/]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=$(cd "${1:-$root/build}" && pwd)/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export RETUNE_CACHE_DIR=off
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
M=256 N=1024 K=1024 B=8

# model.mlir of one contraction: $1 = "" or "batch-", $2 = layout (nn, nt, tn).
write_model() {
  local batched=$1 layout=$2 b="" bd="" op=linalg.matmul
  if [ -n "$batched" ]; then b="$B""x" bd="b, " op=linalg.batch_matmul; fi
  local a_shape="$b${M}x${K}" a_map="${bd}m, k"
  local b_shape="$b${K}x${N}" b_map="${bd}k, n"
  [ "${layout:0:1}" = t ] && a_shape="$b${K}x${M}" a_map="${bd}k, m"
  [ "${layout:1:1}" = t ] && b_shape="$b${N}x${K}" b_map="${bd}n, k"
  local c="$b${M}x${N}" dims="(${bd}m, n, k)"
  cat <<MLIR
func.func @forward(%a: tensor<${a_shape}xf32>, %b: tensor<${b_shape}xf32>) -> tensor<${c}xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<${c}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<${c}xf32>) -> tensor<${c}xf32>
  %r = $op indexing_maps = [affine_map<$dims -> ($a_map)>, affine_map<$dims -> ($b_map)>, affine_map<$dims -> (${bd}m, n)>]
      ins(%a, %b : tensor<${a_shape}xf32>, tensor<${b_shape}xf32>) outs(%f : tensor<${c}xf32>) -> tensor<${c}xf32>
  return %r : tensor<${c}xf32>
}
MLIR
}

declare -A gflops
printf '%-20s %9s %9s %9s %11s\n' layout "tuned" "OpenBLAS" "GFLOP/s" "vs NN"
for batched in "" batch-; do
  for layout in nn nt tn; do
    name=${batched}matmul-$layout
    dir=$work/$name
    mkdir -p "$dir"
    write_model "$batched" "$layout" >"$dir/model.mlir"
    printf '[model]\npath = "model.mlir"\nentry = "forward"\n[tune]\ncandidates = 6\nthreads = 1\n[bench]\nrepetitions = 8\n' \
      >"$dir/tune.toml"
    "$tools/retune" plan "$dir/tune.toml" -B "$dir/build" >/dev/null
    $pin ninja -C "$dir/build" tune >"$dir/tune.log" 2>&1 || { cat "$dir/tune.log"; exit 1; }
    for build in default tuned; do
      spec=()
      [ $build = tuned ] && spec=(--spec="$dir/build/tuning_spec.mlir")
      "$tools/retune-compile" --payload="$dir/model.mlir" "${spec[@]}" \
        --output="$dir/$build.so" --record="$dir/$build.json" >"$dir/$build.log" 2>&1 ||
        { cat "$dir/$build.log"; exit 1; }
    done
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1 $pin \
      "$tools/retune-model-bench" --model="$name" --default="$dir/default.json" \
      --tuned="$dir/tuned.json" >"$dir/bench.txt" || { cat "$dir/bench.txt"; exit 1; }
    tuned=$(awk '/tuned mlir-cpu/ {print $4}' "$dir/bench.txt")
    blas=$(awk '/OpenBLAS-composed/ && !/speed/ {print $3}' "$dir/bench.txt")
    gflops[$name]=$tuned
    nn=${gflops[${batched}matmul-nn]}
    printf '%-20s %9s %9s %9s %10.2fx\n' "$name" "$tuned" "$blas" "GFLOP/s" \
      "$(python3 -c "print($tuned / $nn)")"
  done
done
grep -h "OpenBLAS kernel" "$work"/*/bench.txt | head -1
