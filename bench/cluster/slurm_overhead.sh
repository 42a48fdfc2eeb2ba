#!/usr/bin/env bash
# What running the steps through Slurm costs, on this machine: starts the
# single-node test cluster (tests/e2e/slurm_cluster.sh), tunes the tiny model
# locally and through Slurm (`[cluster] kind = "slurm"`) with the same
# settings and no cache, and compares each compile, bench and model step's
# wall time from .ninja_log (srun per step vs the same command here). Then
# launches 8 trivial steps as 8 srun jobs and as one job array
# (`sbatch --array --wait`): the latency of the two ways to hand steps to
# Slurm. Repeats each tune RUNS times (default 3) and prints medians.
# usage: bench/cluster/slurm_overhead.sh [build dir of retune, default build/]
# Needs root and Debian (it apt-installs munge and Slurm when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tools=$(cd "${1:-$root/build}/bin" && pwd)
runs=${RUNS:-3}
work=$(mktemp -d)
source "$root/tests/e2e/slurm_cluster.sh"
slurm_install
slurm_start "$work/slurm"
trap 'slurm_stop; rm -rf "$work"' EXIT
export RETUNE_CACHE_DIR=off

tune() { # <name> <extra tune.toml lines...>: one fresh tune; prints the log path
  local name=$1 repo=$work/$1; shift
  rm -rf "$repo" && mkdir -p "$repo"
  cp "$root/tests/e2e/tiny/model.mlir" "$repo/"
  printf '%s\n' '[model]' 'path = "model.mlir"' 'entry = "forward"' '[tune]' \
    'candidates = 3' 'jobs = 2' '[bench]' 'repetitions = 3' "$@" >"$repo/tune.toml"
  "$tools/retune" plan "$repo/tune.toml" -B "$repo/build" >/dev/null
  local t0=$(date +%s.%N)
  ninja -C "$repo/build" tune >/dev/null
  echo "$name $t0 $(date +%s.%N)" >>"$work/walls"
  echo "$repo/build/.ninja_log"
}

logs_local=() logs_slurm=()
srun --quiet true  # the first job after start-up is slower; not counted
for i in $(seq 1 "$runs"); do
  logs_local+=("$(tune "local-$i")")
  logs_slurm+=("$(tune "slurm-$i" '[cluster]' 'kind = "slurm"' 'cpus = 2' 'devices = 2')")
done

python3 - "$runs" "${logs_local[@]}" "${logs_slurm[@]}" <<'PY'
import statistics, sys
runs = int(sys.argv[1]); local, slurm = sys.argv[2:2 + runs], sys.argv[2 + runs:]
def steps(logs):
    out = {"compile": [], "bench": [], "model": []}
    for log in logs:
        for line in open(log):
            if line.startswith("#"):
                continue
            start, end, _, path, _ = line.split("\t")
            kind = ("compile" if path.startswith("artifacts/") else
                    "bench" if path.startswith("results/") else
                    "model" if path == "model/result.json" else None)
            if kind:
                out[kind].append((int(end) - int(start)) / 1000)
    return out
l, s = steps(local), steps(slurm)
print("step     per run  local median/mean/max s  slurm median/mean/max s  overhead median/mean s")
def stats(v): return f"{statistics.median(v):.3f}/{statistics.mean(v):.3f}/{max(v):.3f}"
for kind in ("compile", "bench", "model"):
    lv, sv = l[kind], s[kind]
    print(f"{kind:8} {len(sv) // runs:7d}  {stats(lv):>23}  {stats(sv):>23}  "
          f"{statistics.median(sv) - statistics.median(lv):.3f}/{statistics.mean(sv) - statistics.mean(lv):.3f}")
every_l = [x for v in l.values() for x in v]; every_s = [x for v in s.values() for x in v]
print(f"all {len(every_s) // runs} steps: mean {statistics.mean(every_l):.3f} s local, "
      f"{statistics.mean(every_s):.3f} s through Slurm: {statistics.mean(every_s) - statistics.mean(every_l):.3f} s/step")
PY

python3 - "$work/walls" <<'PY'
import statistics, sys
walls = {"local": [], "slurm": []}
for line in open(sys.argv[1]):
    name, a, b = line.split(); walls[name.split("-")[0]].append(float(b) - float(a))
l, s = statistics.median(walls["local"]), statistics.median(walls["slurm"])
print(f"ninja tune wall time, median of {len(walls['local'])}: local {l:.2f} s, "
      f"through Slurm {s:.2f} s (+{s - l:.2f} s for 15 steps)")
PY
echo "8 trivial steps (true) handed to Slurm:"
t0=$(date +%s.%N); for i in $(seq 8); do srun --quiet --ntasks=1 true; done; t1=$(date +%s.%N)
sbatch --quiet --wait --array=0-7 --output=/dev/null --wrap true; t2=$(date +%s.%N)
python3 -c "import sys; a,b,c=map(float,sys.argv[1:]); print(f'  8 x srun, one after another: {b-a:.2f} s ({(b-a)/8:.3f} s/step)'); print(f'  one job array of 8 (sbatch --array --wait): {c-b:.2f} s')" "$t0" "$t1" "$t2"
