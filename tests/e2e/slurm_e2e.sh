#!/usr/bin/env bash
# `ninja tune` through a real single-node Slurm cluster (munged, slurmctld,
# slurmd on localhost; two fake GPUs as GRES), with [cluster] kind = "slurm".
# Exits 77 (ctest: skipped) only where Slurm cannot be installed.
# usage: slurm_e2e.sh <tool dir> <scratch dir>
set -u
tools=$(cd "$1" && pwd)
work=$2
here=$(cd "$(dirname "$0")" && pwd)
retune=$tools/retune
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
check() { # <what> <command...>: passes when the command succeeds
  local what=$1; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

source "$here/slurm_cluster.sh"
if ! slurm_install; then
  echo "SKIP: Slurm (munge, slurmctld, slurmd) is not installed and cannot be installed here"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
slurm_start "$work/slurm" || { echo "FAIL: the Slurm cluster did not start"; exit 1; }
export RETUNE_CACHE_DIR=off

# A model repository: the tiny model, [cluster] on Slurm plus the given lines.
make_repo() { # <dir> <extra tune.toml lines...>
  rm -rf "$1" && mkdir -p "$1"
  cp "$here/tiny/model.mlir" "$1/model.mlir"
  local dir=$1; shift
  printf '%s\n' '[model]' 'path = "model.mlir"' 'entry = "forward"' \
    '[tune]' 'candidates = 3' "$@" >"$dir/tune.toml"
}
cluster_table=('[cluster]' 'kind = "slurm"' 'partition = "tune"' 'cpus = 2' 'devices = 2')

# The Slurm job whose bench is measuring <result> (its measuring child is
# on this node: retune-bench-worker), once one is; waits up to 5 minutes.
measuring_job() { # <results/<id>/<n>.json>
  local pid= job=
  for _ in $(seq 1 3000); do
    pid=$(pgrep -f -- "retune-bench-worker .*--output=$1" | head -1)
    [ -n "$pid" ] && job=$(tr '\0' '\n' </proc/"$pid"/environ 2>/dev/null | sed -n 's/^SLURM_JOB_ID=//p')
    [ -n "$job" ] && { echo "$job"; return 0; }
    sleep 0.1
  done
  return 1
}

# The id the next Slurm job will get (job ids are sequential).
next_job_id() { echo $(($(srun --quiet --job-name=probe printenv SLURM_JOB_ID) + 1)); }

# Checks every bench record of a build directory; prints its job ids.
check_placements() { # <build dir>
  python3 - "$1" <<'PY'
import glob, json, sys
bad, jobs, gpus = [], [], set()
for path in sorted(glob.glob(sys.argv[1] + "/results/*/*.json")):
    slurm = json.load(open(path)).get("slurm")
    if not slurm or not slurm.get("job_id"):
        bad.append(path + ": no Slurm placement")
        continue
    one = [g for g in slurm["gpus"].split(",") if g]
    visible = [g for g in slurm["cuda_visible_devices"].split(",") if g]
    if len(one) != 1 or len(visible) != 1 or one[0] not in ("0", "1"):
        bad.append(path + ": held GPUs %r, saw %r" % (one, visible))
    jobs.append(slurm["job_id"]); gpus.update(one)
for line in bad:
    print(line)
print("benches=%d distinct_jobs=%d gpus_used=%s" % (len(jobs), len(set(jobs)), ",".join(sorted(gpus))))
sys.exit(1 if bad or not jobs or len(set(jobs)) != len(jobs) else 0)
PY
}

echo "== ninja tune runs every compile, bench and the model step through Slurm"
repo=$work/repo
make_repo "$repo" '[bench]' 'repetitions = 3' "${cluster_table[@]}"
"$retune" plan "$repo/tune.toml" -B "$repo/build" || fail "retune plan"
first=$(next_job_id)
out=$(ninja -C "$repo/build" tune 2>&1); rc=$?
last=$(next_job_id)
[ $rc -eq 0 ] && pass "ninja tune through Slurm exits 0" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
steps=$(grep -cE '(COMPILE|BENCH|MODEL) ' <<<"$out")
jobs=$((last - first - 1))
echo "slurm: $steps compile, bench and model steps, $jobs Slurm jobs"
[ "$steps" -eq 15 ] && [ "$jobs" -eq "$steps" ] \
  && pass "each of the 15 steps (8 compiles, 6 benches, the model) was one Slurm job" \
  || fail "$steps steps ran as $jobs Slurm jobs (expected 15 and 15)"
placements=$(check_placements "$repo/build"); rc=$?
echo "$placements"
[ $rc -eq 0 ] && pass "every bench ran in its own Slurm job holding exactly one GPU" \
  || fail "bench placements"
check "tuning_spec.mlir and the report exist" test -s "$repo/build/tuning_spec.mlir" -a -s "$repo/build/report/summary.json"
out=$(ninja -C "$repo/build" tune 2>&1)
grep -q "no work to do" <<<"$out" && pass "a second ninja tune is a no-op" || { fail "second run did work"; echo "$out"; }

echo "== the same records as a local run"
local_repo=$work/local
make_repo "$local_repo" '[bench]' 'repetitions = 3'
"$retune" plan "$local_repo/tune.toml" -B "$local_repo/build" && ninja -C "$local_repo/build" tune >/dev/null 2>&1 \
  || fail "local ninja tune"
records() { # <build dir>: every record's path, status and artifact hash
  (cd "$1" && python3 -c '
import glob, json
for p in sorted(glob.glob("artifacts/*/*.json") + glob.glob("results/*/*.json") + glob.glob("best/*.json")):
    d = json.load(open(p)); print(p, d.get("status", "-"), d.get("artifact_hash", "-"))')
}
[ "$(records "$repo/build")" = "$(records "$local_repo/build")" ] \
  && pass "same record files, statuses and artifact hashes as locally" \
  || { fail "records differ from a local run"; diff <(records "$repo/build") <(records "$local_repo/build"); }

echo "== a bench job cancelled mid-step is a failed step that reruns"
repo=$work/killed
make_repo "$repo" '[bench]' 'repetitions = 3' "${cluster_table[@]}"
"$retune" plan "$repo/tune.toml" -B "$repo/build"
ninja -C "$repo/build" dispatches >/dev/null 2>&1 || fail "ninja dispatches"
hung=results/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dispatches"][0]["id"])' \
  "$repo/build/dispatches/index.json")/1.json
# That bench's measurement never ends (a test fault hook): its job is
# cancelled while it measures, whatever this machine's speed.
RETUNE_INJECT_FAULT="bench-hang:$hung" ninja -C "$repo/build" -k 0 tune >"$work/killed.log" 2>&1 &
ninja_pid=$!
victim=$(measuring_job "$hung")
[ -n "$victim" ] && scancel "$victim" && pass "cancelled bench job $victim while it measured $hung" \
  || fail "no measuring bench job of $hung to cancel"
wait "$ninja_pid"; rc=$?
[ $rc -ne 0 ] && pass "ninja -k 0 reports the failed step (exit $rc)" || fail "ninja exited 0 after a cancelled step"
missing=$(python3 - "$repo/build" <<'PY'
import glob, json, os, sys
os.chdir(sys.argv[1])
missing = []
for index in glob.glob("candidates/*/index.json"):
    d = json.load(open(index))
    for c in d["candidates"]:
        path = "results/%s/%d.json" % (d["dispatch"], c["index"])
        if not os.path.exists(path):
            missing.append(path)
            continue
        assert json.load(open(path))["schema"] == "retune.bench/2", path
print(" ".join(missing))
PY
); rc=$?
[ $rc -eq 0 ] && pass "every result on disk is a whole record" || fail "a half-written result: $missing"
[ "$missing" = "$hung" ] && pass "exactly the cancelled bench has no result ($missing)" \
  || { fail "missing results after the cancel: '$missing'"; tail -20 "$work/killed.log"; }
out=$(ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the rerun finishes" || { fail "rerun exit $rc"; echo "$out" | tail -20; }
benches=$(grep -c "BENCH results" <<<"$out")
[ "$benches" -eq 1 ] && grep -q "BENCH $missing" <<<"$out" \
  && pass "the rerun redid only the cancelled bench" || { fail "$benches benches reran"; echo "$out"; }
check_placements "$repo/build" >/dev/null && pass "the rerun bench also held one GPU" || fail "placements after the rerun"

echo "== interrupting ninja (Ctrl-C) ends its Slurm jobs; the next run resumes"
ninja -C "$repo/build" -t clean >/dev/null
RETUNE_INJECT_FAULT="bench-hang:$hung" setsid ninja -C "$repo/build" tune >"$work/interrupted.log" 2>&1 &
ninja_pid=$!
measuring_job "$hung" >/dev/null || fail "no bench job measured before the interrupt"
kill -INT -- -"$ninja_pid"; wait "$ninja_pid"
slurm_wait_for '[ -z "$(squeue -h -n retune-compile,retune-bench,retune-model -o %A)" ]' 60 \
  && pass "no Slurm job of the interrupted run is left" \
  || { fail "jobs left after the interrupt:"; squeue; }
out=$(ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && [ -s "$repo/build/tuning_spec.mlir" ] && pass "the resumed run finishes" \
  || { fail "resume exit $rc"; echo "$out" | tail -20; }
grep -q "COMPILE" <<<"$out" && fail "the resumed run compiled again" || pass "finished compiles were kept"

echo
[ $failures -eq 0 ] && echo "all Slurm end-to-end checks passed" || echo "$failures Slurm end-to-end checks failed"
exit $((failures > 0))
