#!/usr/bin/env bash
# Reliability end to end (issue 12): hostile values, damaged state, late
# errors, a damaged cache, two runs on one machine and kill -9 at random
# points, each with real `retune plan` + `ninja tune` on the tiny model.
# usage: reliability_e2e.sh <tool dir> <scratch dir>
. "$(dirname "$0")/common.sh" "$@"
# A model repository with the tiny model; extra tune.toml lines follow.
make_repo() { # <dir> <tune.toml lines...>
  local dir=$1; shift
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$here/tiny/model.mlir" "$dir/model.mlir"
  printf '[model]\npath = "model.mlir"\nentry = "forward"\n[tune]\ncandidates = 2\n[bench]\nrepetitions = 3\n' >"$dir/tune.toml"
  printf '%s\n' "$@" >>"$dir/tune.toml"
}
tune() { ninja -C "$1/build" tune 2>&1; }
plan_and_tune() { "$retune" plan "$1/tune.toml" -B "$1/build" 2>&1 && tune "$1"; }

rm -rf "$work" && mkdir -p "$work"
export RETUNE_LOCK_DIR=$work/locks
export RETUNE_MIN_CPU_SHARE=0
export RETUNE_CACHE_DIR=off

echo "== 1. values from tune.toml never run as shell code"
repo=$work/inject
make_repo "$repo" '[cache]' "dir = \"x'; touch $work/PWNED; '\""
mv "$repo/model.mlir" "$repo/it's a \$model.mlir"
sed -i "s|path = \"model.mlir\"|path = \"it's a \$model.mlir\"|" "$repo/tune.toml"
out=$(plan_and_tune "$repo"); rc=$?
[ $rc -eq 0 ] && pass "a quote, a dollar and a space in paths tune" || { fail "exit $rc"; echo "$out" | tail -20; }
[ -e "$work/PWNED" ] && fail "[cache] dir ran a command" || pass "[cache] dir did not run a command"
[ -d "$repo/x'; touch $work/PWNED; '" ] && pass "the cache went to the literal directory" || fail "no literal cache directory"
make_repo "$repo"
sed -i "s|entry = \"forward\"|entry = \"forward; touch $work/PWNED\"|" "$repo/tune.toml"
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "an entry with ';' was accepted"
expect_contains "$out" "tune.toml:3: [model] entry 'forward; touch" "an entry with ';' is rejected with its line"

echo "== 4. what can be checked at plan time is"
make_repo "$repo"
sed -i 's|entry = "forward"|entry = "nosuch"|' "$repo/tune.toml"
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "entry nosuch accepted"
expect_contains "$out" "tune.toml:3: [model] entry 'nosuch' is not a public function" "a missing entry is named with its line"
make_repo "$repo"
sed -i '/entry = /d' "$repo/tune.toml"
printf 'func.func @other(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %%a : tensor<4xf32>\n}\n' >>"$repo/model.mlir"
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "two public functions and no entry accepted"
expect_contains "$out" "2 public functions (@forward, @other); name the one to time with [model] entry" "two public functions need an entry"
make_repo "$repo"
sed -i 's|path = "model.mlir"|path = "."|' "$repo/tune.toml"
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "model path '.' accepted"
expect_contains "$out" "tune.toml:2: [model] path:" "model path '.' is rejected with its line"
expect_contains "$out" "not a regular file" "model path '.' is explained"
[ -e "$repo/build" ] && fail "a refused plan left a build directory" || pass "a refused plan leaves nothing"
make_repo "$repo" '[select]' 'margin = nan'
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "margin = nan accepted"
expect_contains "$out" "[select] margin must be a number from 0 to 0.9" "margin = nan is rejected"
make_repo "$repo" '[cache]' 'dir = "afile"'
touch "$repo/afile"
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "a [cache] dir that is a file accepted"
expect_contains "$out" "tune.toml:9: [cache] dir:" "a [cache] dir that is a file is rejected with its line"
echo "-- a model the baseline cannot compile fails before tuning"
make_repo "$repo"
# A dynamic-shape argument: parses and forms dispatches, but the model has
# no C interface the benchmark could call.
sed -i 's|%w2: tensor<128x64xf32>)|%w2: tensor<128x64xf32>, %extra: tensor<?xf32>)|' "$repo/model.mlir"
out=$(plan_and_tune "$repo"); rc=$?
[ $rc -ne 0 ] && pass "ninja tune fails" || fail "ninja tune exit 0 for a model that does not compile"
expect_contains "$out" "the model does not compile without a spec" "the reason is on the console"
grep -q "COMPILE artifacts" <<<"$out" && fail "candidates were compiled first" || pass "nothing was tuned first"

echo "== 2. damaged state is redone, or named with the command that repairs it"
repo=$work/damage
make_repo "$repo"
out=$(plan_and_tune "$repo") || { fail "first tune"; echo "$out" | tail -20; }
ids=($(json_field "$repo/build/dispatches/index.json" '" ".join(x["id"] for x in d["dispatches"])'))
id=${ids[0]}
check_redone() { # <what> <step pattern>
  local out rc
  out=$(tune "$repo"); rc=$?
  [ $rc -eq 0 ] && grep -q "$2" <<<"$out" && pass "$1: redone" || { fail "$1: exit $rc"; echo "$out" | tail -15; }
  json_field "$repo/build/model/result.json" 'd["status"]' | grep -q ok || fail "$1: the model step did not finish"
}
# A damaged record is either redone in the same run, or the run fails
# naming the file and the command that repairs it, and that command works.
recovers() { # <what> <record>
  local out rc
  out=$(tune "$repo"); rc=$?
  if [ $rc -ne 0 ]; then
    expect_contains "$out" "$2" "$1: the file is named"
    expect_contains "$out" 'ninja tune` again' "$1: the repair is named"
    out=$(tune "$repo"); rc=$?
  fi
  [ $rc -eq 0 ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$repo/build/$2" \
    && pass "$1: repaired" || { fail "$1: not repaired (exit $rc)"; echo "$out" | tail -15; }
}
head -c 40 "$repo/build/candidates/$id/index.json" >"$work/t" && mv "$work/t" "$repo/build/candidates/$id/index.json"
check_redone "truncated candidates index" "CANDIDATES"
head -c 300 /dev/urandom >"$repo/build/dispatches/index.json"
check_redone "random bytes in the dispatch index" "DUMP"
# Valid JSON, but not what the dump wrote: damage, not "nothing to tune"
# (that is the dump's own finding: PlannerTest).
python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['dispatches']=[]; json.dump(d,open(p,'w'))" "$repo/build/dispatches/index.json"
check_redone "a dispatch index edited to list nothing" "DUMP"
echo 'garbage {' >"$repo/build/dispatches/$id/dispatch.mlir"
check_redone "garbled dispatch.mlir" "DUMP"
grep -l compile_error "$repo"/build/artifacts/*/*.json >/dev/null 2>&1 && fail "garbled dispatch gave compile errors" || pass "no compile_error after a garbled dispatch"
echo 'garbage {' >"$repo/build/candidates/$id/0.spec.mlir"
check_redone "garbled spec" "CANDIDATES"
for bad in '"abc"' 'null' '-5' 'MISSING'; do
  python3 - "$repo/build/results/$id/0.json" "$bad" <<'PY'
import json, sys
p, bad = sys.argv[1], sys.argv[2]
d = json.load(open(p)); d["status"] = "ok"
if bad == "MISSING": d.pop("ratio")
else: d["ratio"] = json.loads(bad)
json.dump(d, open(p, "w"))
PY
  recovers "ratio $bad" "results/$id/0.json"
  [ "$(json_field "$repo/build/results/$id/0.json" 'd["ratio"] > 0')" = True ] \
    && pass "ratio $bad: remeasured" || fail "ratio $bad: still bad"
done
# Records that lie (issue 28): an ok measurement of ratio 0.5 with its noise
# missing or null, numbers that are not JSON, a duplicate "ratio" (the last
# would win), a denormal ratio, 50,000 levels of nesting (llvm::json
# recursed until SIGSEGV). Each is named, removed and measured again.
for lie in no-noise null-noise dot-number plus-number duplicate-ratio tiny-ratio deep; do
  python3 - "$repo/build/results/$id/0.json" "$lie" <<'PY'
import json, re, sys
p, lie = sys.argv[1], sys.argv[2]
d = json.load(open(p)); d["status"] = "ok"; d["ratio"] = 0.5
if lie == "no-noise": d.pop("noise")
if lie == "null-noise": d["noise"] = None
text = json.dumps(d)
if lie == "dot-number": text = text.replace('"ratio": 0.5', '"ratio": .5')
if lie == "plus-number": text = text.replace('"ratio": 0.5', '"ratio": +0.5')
if lie == "duplicate-ratio": text = text[:-1] + ', "ratio": 0.010}'
if lie == "tiny-ratio": text = text.replace('"ratio": 0.5', '"ratio": 1e-320')
if lie == "deep": text = text[:-1] + ', "x": ' + "[" * 50000 + "]" * 50000 + "}"
open(p, "w").write(text)
PY
  recovers "a lying record ($lie)" "results/$id/0.json"
  # Measured again: none of the lie's numbers survive.
  [ "$(json_field "$repo/build/results/$id/0.json" 'd["ratio"] not in (0.5, 0.01, 1e-320) and d["noise"] is not None and "x" not in d')" = True ] \
    && pass "$lie: remeasured" || fail "$lie: still lies"
done
for record in "best/$id.json" "model/result.json" "artifacts/$id/1.json" "results/$id/1.json"; do
  head -c 30 "$repo/build/$record" >"$work/t" && mv "$work/t" "$repo/build/$record"
  recovers "truncated $record" "$record"
done
head -c 1000 "$repo/build/artifacts/$id/1.so" >"$work/t" && mv "$work/t" "$repo/build/artifacts/$id/1.so"
touch "$repo/build/artifacts/$id/1.json"  # as if just compiled: its bench reruns
recovers "truncated artifacts/$id/1.so" "artifacts/$id/1.json"

echo "== 9. what a run leaves behind is verified on every ninja tune (issue 28)"
# Each damage is named, redone in the same run, and the next run has
# nothing to do (a step that kept rerunning was case 7).
redone_in_one_run() { # <what> <note> <check>
  local out rc
  out=$(tune "$repo"); rc=$?
  [ $rc -eq 0 ] && pass "$1: the run finishes" || { fail "$1: exit $rc"; echo "$out" | tail -15; }
  expect_contains "$out" "$2" "$1: named"
  [ "$(cd "$repo/build" && eval "$3")" = yes ] && pass "$1: redone" || fail "$1: not redone"
  out=$(tune "$repo")
  expect_contains "$out" "ninja: no work to do." "$1: the next run has nothing to do"
}
ok_json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('yes' if $2 else 'no')" "$1"; }
rm "$repo/build/dispatches/$id/problem.json"
redone_in_one_run "a lost problem.json" "dispatches/$id/problem.json is missing" \
  "ok_json dispatches/$id/problem.json 'd[\"dispatches\"][0][\"id\"] == \"$id\"'"
python3 - "$repo/build/compiler.id" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
b[40:48] = b"xxxxxxxx"
open(p, "wb").write(b)
PY
out=$(tune "$repo"); rc=$?
[ $rc -eq 0 ] && pass "a garbled compiler.id: the run finishes" || { fail "garbled compiler.id: exit $rc"; echo "$out" | tail; }
expect_contains "$out" "compiler.id: does not match the hash its step wrote" "a garbled compiler.id is named"
grep -q "compiler changed" <<<"$out" && fail "a garbled compiler.id was taken for a compiler change" \
  || pass "a garbled compiler.id is not a compiler change"
ok_json "$repo/build/compiler.id" '"id" in d and "xxxx" not in open(sys.argv[1]).read()' | grep -q yes \
  && pass "compiler.id is written again" || fail "compiler.id still garbled"
expect_contains "$(tune "$repo")" "ninja: no work to do." "after a garbled compiler.id the next run has nothing to do"
garble() { printf 'garbage\n' >>"$1"; }
for file in tuning_spec.mlir spec/linked.mlir report/index.html; do
  garble "$repo/build/$file"
  redone_in_one_run "a garbled $file" "$file: does not match the hash its step wrote" \
    "grep -q garbage $file && echo no || echo yes"
done
head -c 100 "$repo/build/report/summary.json" >"$work/t" && mv "$work/t" "$repo/build/report/summary.json"
redone_in_one_run "a truncated report/summary.json" "report/summary.json: does not match" \
  "ok_json report/summary.json 'len(d[\"dispatches\"]) == 2'"
python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['dispatches']=[]; json.dump(d,open(p,'w'))" "$repo/build/report/summary.json"
redone_in_one_run "report/summary.json edited to no dispatches" "report/summary.json: does not match" \
  "ok_json report/summary.json 'len(d[\"dispatches\"]) == 2'"
echo 'garbage {' >"$repo/build/dispatches/$id/dispatch.mlir"
redone_in_one_run "a repaired dispatch.mlir (case 7)" "dispatches/$id/dispatch.mlir does not match" \
  "grep -q garbage dispatches/$id/dispatch.mlir && echo no || echo yes"
head -c 300 /dev/urandom >"$repo/build/dispatches/index.json"
redone_in_one_run "a repaired dispatch index (case 7)" "dispatches/index.json: does not match" \
  "ok_json dispatches/index.json 'len(d[\"dispatches\"]) == 2'"

echo "== 8. the cache repairs itself"
export RETUNE_CACHE_DIR=$work/cache
repo=$work/cached
make_repo "$repo"
out=$(plan_and_tune "$repo") || { fail "tune with a cache"; echo "$out" | tail; }
"$retune" cache verify >/dev/null && pass "a fresh cache verifies" || fail "a fresh cache does not verify"
# Damage only entries the rerun surely asks for again: a dispatch's baseline
# compile and its first candidate's bench. The tuned model's compile is not
# one: a re-measured bench may pick other winners, and then a spec of another
# key, leaving the damaged entry unasked (found in CI, where keys differ).
first=$(json_field "$repo/build/dispatches/index.json" 'd["dispatches"][0]["id"]')
entry_of() { local key; key=$(json_field "$1" 'd["key"]'); echo "$RETUNE_CACHE_DIR/${key:0:2}/$key"; }
blob=$(entry_of "$repo/build/results/$first/0.json")/record.json
echo 'damage' >>"$blob"
out=$("$retune" cache verify 2>&1) && fail "verify missed a damaged blob"
expect_contains "$out" "1 damaged" "verify counts the damaged entry"
manifest=$(entry_of "$repo/build/artifacts/$first/baseline.json")/manifest.json
python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d['blobs'].pop('artifact.so'); json.dump(d,open(p,'w'))" "$manifest"
mkdir -p "$RETUNE_CACHE_DIR/00/00deadbeef.tmp-999999"
out=$("$retune" cache verify 2>&1)
expect_contains "$out" "2 damaged, 1 stale staging" "a stripped manifest and stale staging are found"
rm -rf "$repo/build"
out=$(plan_and_tune "$repo"); rc=$?
[ $rc -eq 0 ] && pass "a run over the damaged cache finishes" || { fail "exit $rc"; echo "$out" | tail; }
missing=0
for r in "$repo"/build/artifacts/*/*.json; do
  a=$(json_field "$r" 'd["artifact"] if d["status"] == "ok" else ""')
  [ -z "$a" ] || [ -s "$repo/build/$a" ] || missing=$((missing + 1))
done
[ $missing -eq 0 ] && pass "every ok compile has its object" || fail "$missing ok compiles without an object"
out=$("$retune" cache verify 2>&1)
expect_contains "$out" "0 damaged" "the run replaced the damaged entries"
"$retune" cache repair >/dev/null
expect_contains "$("$retune" cache verify 2>&1)" "0 damaged, 0 stale staging" "repair removes stale staging"

echo "== 6. two runs on one machine measure one at a time"
export RETUNE_CACHE_DIR=$work/shared-cache
make_repo "$work/run-a"; make_repo "$work/run-b"
"$retune" plan "$work/run-a/tune.toml" -B "$work/run-a/build" >/dev/null
"$retune" plan "$work/run-b/tune.toml" -B "$work/run-b/build" >/dev/null
tune "$work/run-a" >"$work/run-a.log" & a=$!
tune "$work/run-b" >"$work/run-b.log" & b=$!
wait $a && wait $b && pass "both runs finish" || fail "a concurrent run failed"
python3 - "$work/run-a/build" "$work/run-b/build" <<'PY' && pass "no two measurements overlapped" || fail "measurements overlapped"
import glob, json, sys
spans = []
for build in sys.argv[1:]:
    for path in glob.glob(build + "/results/*/*.json"):
        d = json.load(open(path))
        if not d["cached"] and d["seconds"] > 0:
            spans.append((d["started_at"], d["started_at"] + d["seconds"], path))
spans.sort()
bad = [(a[2], b[2]) for a, b in zip(spans, spans[1:]) if b[0] < a[1] - 1e-3]
print(len(spans), "measurements;", bad[:3])
sys.exit(1 if bad or len(spans) < 2 else 0)
PY
for id in $(json_field "$work/run-a/build/dispatches/index.json" '" ".join(x["id"] for x in d["dispatches"])'); do
  wa=$(json_field "$work/run-a/build/best/$id.json" 'd["winner"]')
  wb=$(json_field "$work/run-b/build/best/$id.json" 'd["winner"]')
  [ "$wa" = "$wb" ] && pass "winners agree ($id: $wa)" || fail "winners differ ($id: $wa vs $wb)"
done
echo "-- a measurement disturbed by load is used, not cached"
unset RETUNE_MIN_CPU_SHARE
export RETUNE_CACHE_DIR=$work/load-cache
repo=$work/load
make_repo "$repo"
hogs=()
for _ in $(seq 1 $(( $(nproc) * 3 ))); do (while :; do :; done) & hogs+=($!); done
out=$(plan_and_tune "$repo"); rc=$?
for h in "${hogs[@]}"; do kill "$h"; done; wait "${hogs[@]}" 2>/dev/null
[ $rc -eq 0 ] && pass "a run under load finishes" || { fail "exit $rc"; echo "$out" | tail; }
disturbed=$(grep -l '"disturbed": true' "$repo"/build/results/*/*.json | wc -l)
[ "$disturbed" -gt 0 ] && pass "$disturbed measurements marked disturbed" || fail "no measurement marked disturbed"
benches=$(ls "$RETUNE_CACHE_DIR"/*/*/record.json 2>/dev/null | xargs -r grep -l '"samples_s"' | xargs -r grep -l '"disturbed": true' | wc -l)
[ "$benches" -eq 0 ] && pass "no disturbed measurement was cached" || fail "$benches disturbed measurements cached"
export RETUNE_MIN_CPU_SHARE=0

echo "== 7. kill -9 at random points: no finished step is redone"
export RETUNE_CACHE_DIR=$work/kill-cache
repo=$work/kill
make_repo "$repo"
sed -i 's/candidates = 2/candidates = 4/' "$repo/tune.toml"
"$retune" plan "$repo/tune.toml" -B "$repo/build" >/dev/null
RANDOM=12
# A redone step writes new bytes (started_at changes): compare contents of
# finished records. A crash or timeout record may be the kill itself (a
# parent that saw its child die first): such steps are meant to run again.
snapshot() {
  { python3 - "$repo/build" <<'PY'
import glob, hashlib, json, sys
for path in sorted(glob.glob(sys.argv[1] + "/*/*/*.json")):
    if "/dispatches/" in path or "/model/" in path:
        continue
    data = open(path, "rb").read()
    try:
        status = json.loads(data).get("status", "ok")
    except ValueError:
        continue
    if status in ("ok", "wrong_result", "compile_error"):
        print(hashlib.md5(data).hexdigest(), path)
PY
  } | sort
}
redone=0
for i in $(seq 1 10); do
  before=$(snapshot)
  setsid ninja -C "$repo/build" tune >"$work/kill-$i.log" 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
  kill -9 -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  after=$(snapshot)
  # Every record that existed before this attempt is untouched.
  changed=$(comm -23 <(echo "$before") <(echo "$after") | grep -c . || true)
  [ "$changed" -eq 0 ] || { redone=$((redone + changed)); echo "attempt $i rewrote:"; comm -23 <(echo "$before") <(echo "$after"); }
done
before=$(snapshot)
out=$(tune "$repo"); rc=$?
[ $rc -eq 0 ] && pass "the run finishes after 10 kills" || { fail "exit $rc"; echo "$out" | tail; }
changed=$(comm -23 <(echo "$before") <(echo "$after") | grep -c . || true)
redone=$((redone + changed))
[ $redone -eq 0 ] && pass "no finished step was redone" || fail "$redone finished records were rewritten"
"$retune" cache verify >"$work/verify.log" 2>&1 && pass "retune cache verify is clean" || { fail "cache verify"; cat "$work/verify.log"; }

echo
[ $failures -eq 0 ] && echo "all reliability checks passed" || echo "$failures reliability checks failed"
exit $((failures > 0))
