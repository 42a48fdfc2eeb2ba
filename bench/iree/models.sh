#!/usr/bin/env bash
# Whole-model speed with IREE (llvm-cpu, this CPU): for the MLP and MiniLM
# (ONNX, 1x128), tunes each with `ninja tune` through the iree backend, then
# times IREE's default build, IREE as Retune says to build it (the chosen
# compile_flags.txt and tuning_spec.mlir) and onnxruntime, interleaved round by round, at 1 and 2 threads; for the MLP
# also the embedded mlir-cpu backend's tuned model. Target: IREE+Retune >=
# 1.10x IREE default on MiniLM and no slower than onnxruntime.
# usage: bench/iree/models.sh [build dir of retune, default build/]
# Needs scripts/setup.sh (IREE, onnx, onnxruntime and MiniLM in .venv/).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=${1:-$root/build}/bin
venv=$root/.venv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A benchmark measures: no replay from the cache.
export RETUNE_CACHE_DIR=off

tune() { # <dir> <toml>
  "$tools/retune" plan "$1/$2" -B "$1/build-${2%.toml}" >/dev/null
  ninja -C "$1/build-${2%.toml}" tune >"$1/$2.log" 2>&1 || { tail -30 "$1/$2.log"; exit 1; }
  sed -n '/tuning summary/,$p' "$1/$2.log"
}

echo "== tuning the MLP (iree llvm-cpu, then the embedded mlir-cpu backend)"
mkdir -p "$work/mlp"
cp "$root/examples/mlp/model.mlir" "$root/examples/mlp/tune.toml" "$root/examples/mlp/tune-iree.toml" "$work/mlp/"
tune "$work/mlp" tune-iree.toml
tune "$work/mlp" tune.toml
# The same MLP as ONNX for onnxruntime.
"$venv/bin/python" "$root/bench/iree/zoo/make_mlp.py" "$work/mlp/model.onnx"

echo "== tuning MiniLM (ONNX, 1x128, iree llvm-cpu)"
mkdir -p "$work/minilm"
cp "$root/examples/minilm/tune.toml" "$work/minilm/"
"$venv/bin/python" "$root/examples/minilm/make_static.py" "$work/minilm/model.onnx" >/dev/null
tune "$work/minilm" tune.toml

echo "== whole-model times (median ms), measured interleaved in this run"
"$venv/bin/python" "$root/bench/iree/measure.py" "$venv/bin" mlp \
  "$work/mlp/model.mlir" "$work/mlp/build-tune-iree/tuning_spec.mlir" "$work/mlp/model.onnx" \
  --flags-file "$work/mlp/build-tune-iree/compile_flags.txt" --mlir-cpu "$work/mlp/build-tune/model/result.json"
"$venv/bin/python" "$root/bench/iree/measure.py" "$venv/bin" minilm \
  "$work/minilm/build-tune/import/model.mlir" "$work/minilm/build-tune/tuning_spec.mlir" \
  "$work/minilm/model.onnx" --flags-file "$work/minilm/build-tune/compile_flags.txt"
