#!/usr/bin/env bash
# Warm-cache replay against a cold run. Tunes an example (MODEL, default
# mlp) in a fresh build directory with an empty cache (cold), then again in
# another fresh build directory with that cache (warm: every compile and
# bench replays). Repeats ROUNDS times (default 3) and prints each run's wall
# seconds, the slowest steps of the last warm run (from Ninja's log), and
# ends with `warm replay / cold: R` (medians). Target: R <= 0.05.
# usage: bench/cpu/warm_replay.sh [build dir of retune, default build/]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=$(cd "${1:-$root/build}" && pwd)/bin
model=${MODEL:-mlp}
rounds=${ROUNDS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Whether a measurement is cached must not depend on the machine's load.
export RETUNE_MIN_CPU_SHARE=0
cp "$root/examples/$model/model.mlir" "$work/"

# Prints the wall seconds of plan + `ninja tune` in <build dir>.
timed_tune() { # <build dir>
  local start end
  start=$(date +%s.%N)
  "$tools/retune" plan "$work/tune.toml" -B "$1" >/dev/null
  ninja -C "$1" tune >"$1.log" 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

colds=() warms=()
for round in $(seq "$rounds"); do
  { sed '/^\[cache\]/,$d' "$root/examples/$model/tune.toml"
    printf '\n[cache]\ndir = "%s"\n' "$work/cache-$round"
  } >"$work/tune.toml"
  cold=$(timed_tune "$work/cold-$round")
  warm=$(timed_tune "$work/warm-$round")
  grep -q "cache hits: compile \([0-9]*\)/\1, bench \([0-9]*\)/\2" "$work/warm-$round.log" \
    || { echo "round $round: the warm run did not replay everything:" >&2
         grep "cache hits" "$work/warm-$round.log" >&2; exit 1; }
  printf 'round %d: cold %.2f s, warm %.2f s\n' "$round" "$cold" "$warm"
  colds+=("$cold") warms+=("$warm")
done
echo "slowest steps of the last warm run (ms):"
awk 'NR > 1 { printf "  %5d %s\n", $2 - $1, $4 }' "$work/warm-$rounds/.ninja_log" | sort -rn | head -8
python3 - "${colds[*]}" "${warms[*]}" <<'PY'
import statistics, sys
cold, warm = (statistics.median(map(float, a.split())) for a in sys.argv[1:])
print(f"steps: {cold:.2f} s cold, {warm:.2f} s warm (medians)")
print(f"warm replay / cold: {warm / cold:.3f}")
PY
