#!/usr/bin/env bash
# Installs what Retune needs, builds it, and tunes a bundled example end to
# end on this CPU.
#
#   ./scripts/quickstart.sh          MiniLM (a real ONNX model) through real
#                                    IREE: ends with IREE default vs Retune vs
#                                    onnxruntime, what Retune chose, the report
#   ./scripts/quickstart.sh mlp      the MLP on the embedded mlir-cpu backend
#
# A second run reuses everything: ninja has no work, only the table is
# measured again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
example=${1:-minilm}
case "$example" in
  minilm | mlp) ;;
  *) echo "usage: $0 [minilm|mlp]" >&2; exit 2 ;;
esac
"$root/scripts/setup.sh"
"$root/scripts/build.sh" retune-tools
repo=$root/examples/$example
venv=$root/.venv

if [ "$example" = mlp ]; then
  "$root/build/bin/retune" plan "$repo/tune.toml" -B "$repo/build"
  ninja -C "$repo/build" tune
  echo
  echo "tuning spec: $repo/build/tuning_spec.mlir"
  echo "report:      $repo/build/report/index.html (summary.json beside it)"
  python3 - "$repo/build/report/summary.json" <<'PY'
import json, sys
model = json.load(open(sys.argv[1]))["model"]
print(f"model speedup: {model['speedup']:.2f}x "
      f"({model['baseline_s'] * 1e3:.2f} ms -> {model['tuned_s'] * 1e3:.2f} ms)")
if model.get("why_no_winner"):
    print(f"why: {model['why_no_winner']}")
PY
  exit 0
fi

# MiniLM: the PyPI package's ONNX model made static (1x128 tokens), tuned
# through IREE's compiler and runtime from .venv/.
"$venv/bin/python" "$repo/make_static.py"
"$root/build/bin/retune" plan "$repo/tune.toml" -B "$repo/build"
ninja -C "$repo/build" tune
"$venv/bin/python" "$root/scripts/quickstart_table.py" "$venv/bin" \
  "$repo/build" "$repo/model.onnx" --threads 1
