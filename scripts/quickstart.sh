#!/usr/bin/env bash
# Installs what Retune needs, builds it, and tunes the bundled MLP example
# end to end on this CPU. Prints the tuning summary and the model speedup.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
example=${1:-mlp}
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
repo=$root/examples/$example
"$root/build/bin/retune" plan "$repo/tune.toml" -B "$repo/build"
ninja -C "$repo/build" tune
echo
echo "tuning spec: $repo/build/tuning_spec.mlir"
echo "report:      $repo/build/report/summary.json"
python3 - "$repo/build/report/summary.json" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
model = summary["model"]
print(f"model speedup: {model['speedup']:.2f}x "
      f"({model['baseline_s'] * 1e3:.2f} ms -> {model['tuned_s'] * 1e3:.2f} ms)")
PY
