#!/usr/bin/env bash
# Whole-model speed of the embedded mlir-cpu backend against what a user
# would otherwise run: the same model written as OpenBLAS sgemm calls plus
# plain C loops (retune-model-bench). For each bundled example and thread
# count it tunes the model with `ninja tune`, compiles the default and the
# tuned build, and times all three interleaved in one process on the same
# inputs after checking they agree. Prints ms, GFLOP/s, % of the FMA peak
# measured in the same run, page faults per call and the ratios. At 2+
# threads each sample starts after 300 ms idle (--park-ms), so that one
# variant's spinning workers (libomp, OpenBLAS) do not take the next's cores.
# Bar: tuned / OpenBLAS-composed >= 1.0 for mlp and transformer.
# usage: bench/cpu/model_vs_openblas.sh [build dir of retune, default build/]
#   MODELS="mlp mixed transformer" THREADS="1 2" select what runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=$(cd "${1:-$root/build}" && pwd)/bin
models=${MODELS:-mlp mixed transformer}
thread_counts=${THREADS:-1 2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A benchmark measures: no replay from the cache.
export RETUNE_CACHE_DIR=off
cores=$(nproc)
for model in $models; do
  case $model in mlp|mixed|transformer) ;; *)
    echo "unknown model '$model' (expected mlp, mixed or transformer)" >&2
    exit 2 ;;
  esac
  for threads in $thread_counts; do
    case $threads in 1|2|3|4|5|6|7|8) ;; *)
      echo "thread count '$threads' must be 1..8" >&2; exit 2 ;;
    esac
    if [ "$threads" -gt "$cores" ]; then
      echo "skipping $model at $threads threads: this machine has $cores cores"
      continue
    fi
    dir=$work/$model-$threads
    mkdir -p "$dir"
    cp "$root/examples/$model/model.mlir" "$dir/"
    sed "s/^threads = [0-9]*/threads = $threads/" \
      "$root/examples/$model/tune.toml" >"$dir/tune.toml"
    pin=""
    command -v taskset >/dev/null && pin="taskset -c 0-$((threads - 1))"
    "$tools/retune" plan "$dir/tune.toml" -B "$dir/build" >/dev/null
    $pin ninja -C "$dir/build" tune >"$dir/tune.log" 2>&1 ||
      { cat "$dir/tune.log"; exit 1; }
    for build in default tuned; do
      spec=()
      [ $build = tuned ] && spec=(--spec="$dir/build/tuning_spec.mlir")
      "$tools/retune-compile" --payload="$dir/model.mlir" "${spec[@]}" \
        --code-threads="$threads" --output="$dir/$build.so" \
        --record="$dir/$build.json" >"$dir/$build.log" 2>&1 ||
        { cat "$dir/$build.log"; exit 1; }
    done
    # OpenBLAS picks its own kernel for this CPU (printed), not the one the
    # environment may force.
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS="$threads" \
      $pin "$tools/retune-model-bench" --model="$model" \
      --blas-threads="$threads" --default="$dir/default.json" \
      --tuned="$dir/tuned.json"
    echo
  done
done
