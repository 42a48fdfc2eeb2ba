#!/usr/bin/env bash
# Re-tuning after a compiler upgrade, against tuning from scratch with the
# new compiler (docs/user-guide.md, "After a compiler upgrade").
#
# For each bundled example (MODELS, default "mlp transformer") it tunes the
# model with the compiler as built, then simulates two upgrades with
# [mlir-cpu] compile_flags, each a real change of the compiler identity:
#   no code change:     --x86-asm-syntax=intel (same machine code)
#   defaults changed:   --retune-default-cache-tile=32 (the default
#                       heuristic's cache tiles, so every baseline changes)
# After each upgrade it runs `ninja tune` in the same build directory (the
# previous winners are verified first) and, as the reference, a full tune
# with that compiler in a fresh build directory with a fresh cache. It
# prints each dispatch's decision and the costs (wall seconds; compiles and
# benches run), and ends with `work fraction: F`: the retunes' total wall
# time over the full tunes' for the no-code-change upgrade. Target: <= 0.25.
# usage: bench/retune-after-upgrade.sh   (no arguments; builds build/ first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" >/dev/null
tools=$root/build/bin
models=${MODELS:-mlp transformer}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The same conditions for every run: a busy machine must not change which
# measurements are cached.
export RETUNE_MIN_CPU_SHARE=0

# tune.toml of the example, with its cache in <cache dir> and <flags>.
write_toml() { # <repo> <cache dir> <compile_flags items>
  { sed '/^\[mlir-cpu\]/,$d' "$root/examples/$model/tune.toml"
    printf '\n[cache]\ndir = "%s"\n\n[mlir-cpu]\ncompile_flags = [%s]\n' "$2" "$3"
  } >"$1/tune.toml.new"
  mv "$1/tune.toml.new" "$1/tune.toml"
}

# Runs `ninja tune` in <build>; prints "<wall s> <compiles> <benches>".
timed_tune() { # <repo> <build dir> <log>
  local start end
  start=$(date +%s.%N)
  "$tools/retune" plan "$1/tune.toml" -B "$2" >/dev/null 2>>"$3"
  ninja -C "$2" tune >>"$3" 2>&1
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc) $(grep -c '] COMPILE ' "$3" || true) $(grep -c '] BENCH ' "$3" || true)"
}

decisions() { # <summary.json>
  python3 - "$1" <<'PY'
import json, sys
for d in json.load(open(sys.argv[1]))["dispatches"]:
    change = d.get("after_compiler_change")
    what = f'{change["previous_winner"]}: {change["why"]}' if change else "no previous winner: searched"
    print(f'    {d["name"]:<36} {what}')
PY
}

retune_total=0 full_total=0 retune2_total=0 full2_total=0
for model in $models; do
  [ -f "$root/examples/$model/tune.toml" ] || { echo "no example '$model'" >&2; exit 2; }
  repo=$work/$model
  mkdir -p "$repo"
  cp "$root/examples/$model/model.mlir" "$repo/"
  echo "== $model: first tune (compiler as built)"
  write_toml "$repo" "$work/$model-cache" ''
  read -r wall compiles benches < <(timed_tune "$repo" "$repo/build" "$work/$model-first.log")
  printf '  %.2f s, %d compiles, %d benches\n' "$wall" "$compiles" "$benches"

  for upgrade in intel cache32; do
    case $upgrade in
      intel) flags='"--x86-asm-syntax=intel"'; what="no code change (--x86-asm-syntax=intel)" ;;
      cache32) flags='"--x86-asm-syntax=intel", "--retune-default-cache-tile=32"'; what="defaults changed (--retune-default-cache-tile=32)" ;;
    esac
    echo "== $model: upgrade, $what"
    write_toml "$repo" "$work/$model-cache" "$flags"
    read -r rwall rcompiles rbenches < <(timed_tune "$repo" "$repo/build" "$work/$model-$upgrade.log")
    decisions "$repo/build/report/summary.json"
    fresh=$work/$model-$upgrade-fresh
    mkdir -p "$fresh" && cp "$repo/model.mlir" "$fresh/"
    write_toml "$fresh" "$work/$model-$upgrade-fresh-cache" "$flags"
    read -r fwall fcompiles fbenches < <(timed_tune "$fresh" "$fresh/build" "$work/$model-$upgrade-full.log")
    printf '  retune %.2f s (%d compiles, %d benches); full tune %.2f s (%d compiles, %d benches); fraction %.3f\n' \
      "$rwall" "$rcompiles" "$rbenches" "$fwall" "$fcompiles" "$fbenches" "$(echo "$rwall / $fwall" | bc -l)"
    python3 - "$repo/build/report/summary.json" "$fresh/build/report/summary.json" <<'PY'
import json, sys
retuned, full = (json.load(open(p))["model"] for p in sys.argv[1:])
print(f'  model speedup: retuned {retuned["speedup"]:.2f}x, full tune {full["speedup"]:.2f}x')
PY
    if [ $upgrade = intel ]; then
      retune_total=$(echo "$retune_total + $rwall" | bc); full_total=$(echo "$full_total + $fwall" | bc)
    else
      retune2_total=$(echo "$retune2_total + $rwall" | bc); full2_total=$(echo "$full2_total + $fwall" | bc)
    fi
  done
done
printf 'defaults changed: work fraction %.3f\n' "$(echo "$retune2_total / $full2_total" | bc -l)"
printf 'work fraction: %.3f\n' "$(echo "$retune_total / $full_total" | bc -l)"
