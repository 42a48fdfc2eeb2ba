#!/usr/bin/env bash
# End-to-end test of the iree backend: real `retune plan` + `ninja tune` on
# examples/iree-fakes with the fake IREE tools (tests/fakes) first on PATH.
# usage: iree_e2e.sh <tool dir> <fakes bin dir> <example dir> <scratch dir>
fakes=$(cd "$2" && pwd)
example=$3
. "$(dirname "$0")/common.sh" "$1" "$4"
export PATH=$fakes:$PATH

rm -rf "$work" && mkdir -p "$work"
# This test's own cache: the fakes change between builds of the project,
# and a cache keyed by their (fixed) version must not outlive them.
export RETUNE_CACHE_DIR=$work/cache
repo=$work/repo
cp -r "$example" "$repo" && rm -rf "$repo/build"
# Short timeouts: the fakes hang on purpose below.
sed -i 's/^timeout_s = .*/timeout_s = 3/' "$repo/tune.toml"

echo "== a fresh tune produces a verified linked spec and a report"
"$retune" plan "$repo/tune.toml" -B "$repo/build" || fail "retune plan"
out=$(ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "ninja tune exits 0" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
expect_contains "$out" "retune: tuning summary" "console table printed"
expect_contains "$(json_field "$repo/build/report/summary.json" 'd["schema"], d["backend"], len(d["dispatches"])')" \
  "retune.summary/1 iree 4" "summary: schema, backend, four dispatches"
expect_contains "$(head -c 2000 "$repo/build/spec/linked.mlir")" "transform.iree.match" "linked spec has IREE matchers"
expect_contains "$(cat "$repo/build/tuning_spec.mlir")" "@__kernel_config" "tuning_spec.mlir written"
# The verifier runs on every write; check a spec file by hand as well.
(cd "$repo/build" && "$tools/retune-iree-link" --output "$work/relinked.mlir" best/*.json) \
  && pass "winners relink and verify" || fail "relink"
devices=$(cat "$repo"/build/results/*/*.json | grep -o 'device hip://[01]' | sort -u | wc -l)
[ "$devices" -eq 2 ] && pass "candidates measured on both devices" || fail "$devices devices used"
ls "$repo"/build/measure/*/baseline.after.1.json >/dev/null 2>&1 \
  && pass "baseline measured after the candidates on device 1" || fail "no after-baseline"
# Rules, the plan's variables and the tools' options agree: every variable
# a rule uses is bound, every option passed is one the tool has.
contract=$(python3 "$here/check_plan_contract.py" "$repo/build" "$tools" 2>&1) \
  && pass "rules, plan variables and tool options agree" || { fail "plan contract"; echo "$contract"; }

echo "== retune plan --pin-flag and --tune-tied-set-of pin flags and turn the flag search off"
"$retune" plan "$repo/tune.toml" -B "$work/pinned" --pin-flag='--fake-pinned=a(b)' >/dev/null \
  || fail "plan --pin-flag"
expect_contains "$(grep -m1 '^plan_flags' "$work/pinned/build.ninja")" "--pin-flag=--fake-pinned=a(b)" \
  "re-plans keep the pinned flag, quoted"
# The re-plan's own command line, through the shell, pins it again.
(cd "$work/pinned" && rm -f build.ninja.kept && mv build.ninja build.ninja.kept \
  && sh -c "$(ninja -f build.ninja.kept -t commands build.ninja | tail -1)" >/dev/null) \
  || fail "the re-plan's command"
pinned_uses=$(grep -v '^plan_flags' "$work/pinned/build.ninja" | grep -cF -- '--fake-pinned=a(b)')
[ "$pinned_uses" -ge 1 ] && pass "the pinned flag is among the compile flags" || fail "pinned flag not in the plan"
out=$("$retune" plan "$repo/tune.toml" -B "$work/tied" --tune-tied-set-of "$repo/build" 2>&1) \
  && fail "--tune-tied-set-of a build without a flag search"
expect_contains "$out" "$repo/build/flags/chosen.json" "a build without a flag choice is refused, naming the file"
[ -e "$work/tied" ] && fail "the refused plan left $work/tied" || pass "the refused plan left nothing"
mkdir -p "$work/searched/flags"
printf '{"schema":"retune.flags/1","chosen":["--fake-a"],"tied_with":["--fake-b","--fake-c"],"sets":[],"reason":""}\n' \
  >"$work/searched/flags/chosen.json"
"$retune" plan "$repo/tune.toml" -B "$work/tied" --tune-tied-set-of "$work/searched" >/dev/null \
  || fail "plan --tune-tied-set-of"
expect_contains "$(grep -m1 '^plan_flags' "$work/tied/build.ninja")" "--pin-flag=--fake-b --pin-flag=--fake-c" \
  "the tied set is pinned"

echo "== a second run does no work"
out=$(ninja -C "$repo/build" tune 2>&1)
expect_contains "$out" "no work to do" "second ninja tune is a no-op"

echo "== a winner that slows the whole model is not chosen in the model; the others are"
winners=$(cd "$repo/build" && python3 -c 'import json,glob; print(" ".join(sorted(json.load(open(f))["dispatch"] for f in glob.glob("best/*.json") if json.load(open(f))["spec"])))')
slow=${winners%% *}
[ "$(wc -w <<<"$winners")" -ge 2 ] && pass "two or more winners to choose from" || fail "winners: $winners"
rm -f "$repo/build/model/result.json"
out=$(FAKE_IREE_MODEL_SLOW_WITH=$slow ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the run finishes" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
result=$repo/build/model/result.json
expect_contains "$(json_field "$result" 'd["winners_dropped"][0]["dispatch"], d["winners_dropped"][0]["reason"]')" \
  "$slow alone" "the slow dispatch is dropped, with its measurement in the model"
expect_contains "$(json_field "$result" 'len(d["winners_kept"]), d["decision"]')" \
  "$(( $(wc -w <<<"$winners") - 1 )) all winners kept" "the other dispatches' choices are kept"
expect_contains "$(json_field "$result" 'len(d["in_model_trials"]) >= len(d["winners_kept"]) + 1')" \
  "True" "every option was measured in the model"

echo "== when no option helps the model, the empty spec is not compiled: the baseline's runs beside the trials are its runs"
rm -f "$repo/build/model/result.json" "$repo"/build/model/tuned.*
out=$(FAKE_IREE_MODEL_SLOW_WITH='[0-9a-f]' ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the run finishes" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
expect_contains "$(json_field "$result" 'len(d["winners_kept"]), d["decision"]')" \
  "0 the candidates of $(wc -w <<<"$winners") dispatch(es) did not help in the model" "every winner is dropped in the model"
[ ! -e "$repo/build/model/tuned.vmfb" ] && pass "no compile of the empty spec" || fail "the empty spec was compiled"
cmp -s "$repo/build/model/shipped.vmfb" "$repo/build/model/baseline.vmfb" \
  && pass "the module shipped is the baseline's" || fail "model/shipped.vmfb is not the baseline's module"
expect_contains "$(json_field "$result" 'len(d["baseline_samples_s"]) >= 3 * len(d["in_model_trials"]), d["baseline_samples_s"] == d["tuned_samples_s"], d["speedup"]')" \
  "True True 1" "the record's runs are the baseline's from every trial, on both sides"
expect_contains "$(cat "$repo/build/tuning_spec.mlir")" "transform.named_sequence" "the spec shipped is valid (empty)"

echo "== with model_candidates = 0 the dispatch winners are pruned in the model"
sed -i 's/^model_rounds = .*/&\nmodel_candidates = 0/' "$repo/tune.toml"
rm -f "$repo/build/model/result.json"
out=$(FAKE_IREE_MODEL_SLOW_WITH=$slow ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the run finishes" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
result=$repo/build/model/result.json
expect_contains "$(json_field "$result" 'd["winners_dropped"][0]["dispatch"], d["winners_dropped"][0]["reason"]')" \
  "$slow alone it gives 5.000x the baseline time" "the slow winner is dropped, with its measurement"
expect_contains "$(json_field "$result" 'len(d["winners_kept"]), d["decision"]')" \
  "$(( $(wc -w <<<"$winners") - 1 )) the tuned model was not faster; dropped 1 of" "the other winners are kept"
grep -q "$slow" "$repo/build/tuning_spec.mlir" && fail "tuning_spec.mlir still has $slow" \
  || pass "tuning_spec.mlir leaves the slow winner out"
expect_contains "$(cat "$repo/build/tuning_spec.mlir")" "@__kernel_config" "the pruned spec is a linked IREE spec"

echo "== when the last trial fails and nothing is kept, the record times the baseline shipped by its runs beside the trials"
# Its builds compile again (the model step's and the cache's were fine).
rm -rf "$repo/build/model"
out=$(RETUNE_CACHE_DIR=$work/cache-model-error FAKE_IREE_MODEL_COMPILE_ERROR_WITH=$slow FAKE_IREE_MODEL_SLOW_WITH='[0-9a-f]' ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the run finishes" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
expect_contains "$(json_field "$result" 'd["status"], len(d["winners_kept"]), d["baseline_median_s"] > 0, d["baseline_samples_s"] == d["tuned_samples_s"], d["speedup"]')" \
  "ok 0 True True 1" "the record is the baseline's, timed, with nothing kept"
expect_contains "$(json_field "$result" 'd["message"]')" \
  "the last trial (tuned) failed: compile_error: " "the failed last trial stays in the record's message"
expect_contains "$(json_field "$result" '[x["reason"] for x in d["winners_dropped"] if x["dispatch"] == "'"$slow"'"][0]')" \
  "large vector sizes" "the dispatch whose spec breaks the model's compile says so"
sed -i '/^model_candidates = 0/d' "$repo/tune.toml"

echo "== a budget spent before the model step: all winners together only; the next run does the rest"
sed -i 's/^\[tune\]$/[tune]\nbudget = "30m"/' "$repo/tune.toml"
"$retune" plan "$repo/tune.toml" -B "$repo/build" >/dev/null || fail "retune plan with a budget"
rm -f "$repo/build/model/result.json"
out=$(FAKE_IREE_MODEL_SLOW_WITH=$slow RETUNE_INJECT_FAULT=budget-spent:model/result.json ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the run finishes" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
expect_contains "$(json_field "$result" 'len(d.get("in_model_trials", [])), len(d["winners_kept"]), d["decision"]')" \
  "0 0 no combination of winners made the model faster; the spec is empty; the run's time budget was spent" \
  "only all winners together were measured, and the slower model ships no spec"
expect_contains "$(json_field "$result" 'd["winners_dropped"][0]["reason"], d["profile_note"]')" \
  "not measured (not run: the run's time budget" "the winners not tried say why"
expect_contains "$(cat "$repo/build/tuning_spec.mlir")" "transform.named_sequence" "the spec shipped is valid (empty)"
expect_contains "$(cat "$repo/build/.retune/skipped")" "model/result.json" "the model step is in the ledger"
out=$(FAKE_IREE_MODEL_SLOW_WITH=$slow ninja -C "$repo/build" tune 2>&1)
expect_contains "$out" "step(s) an earlier run's time budget skipped run now" "the next run picks up the model step"
expect_contains "$(json_field "$result" 'len(d["in_model_trials"]) > 0, len(d["winners_kept"]), d["decision"]')" \
  "True $(( $(wc -w <<<"$winners") - 1 )) all winners kept" "the next run tries each candidate in the model"
sed -i '/^budget = /d' "$repo/tune.toml"
"$retune" plan "$repo/tune.toml" -B "$repo/build" >/dev/null || fail "retune plan without a budget"

echo "== failures injected through the fakes are records, not fatal"
hot=$(json_field "$repo/build/dispatches/index.json" 'd["dispatches"][0]["id"]')
inject() { echo "// fake-iree: $2" >>"$repo/build/candidates/$hot/$1.spec.mlir"; }
inject 0 compile-crash
inject 1 compile-no-output
inject 2 bench-error
inject 3 bench-hang
out=$(ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the run finishes" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
status() { json_field "$repo/build/results/$hot/$1.json" 'd["status"], d["message"][:80]'; }
expect_contains "$(status 0)" "crash" "compiler crash recorded"
[ -s "$repo/build/artifacts/$hot/0.vmfb.crash.mlir" ] && pass "crash reproducer kept" || fail "no reproducer"
expect_contains "$(status 1)" "compile_error compile: iree-compile exited 0 but wrote no module" "missing vmfb recorded"
expect_contains "$(status 2)" "bench_error" "benchmark error recorded"
expect_contains "$(status 3)" "timeout" "hanging benchmark recorded as timeout"
expect_contains "$(json_field "$repo/build/best/$hot.json" 'd["winner"]')" "None" "no faulty candidate wins"

echo "== a missing tool is one clear error at plan time, and leaves nothing behind"
mkdir -p "$work/missing-tool"
cp "$repo/model.mlir" "$work/missing-tool/"
sed 's|^\[iree\]|[iree]\niree_compile = "/nonexistent/iree-compile"|' "$repo/tune.toml" \
  > "$work/missing-tool/tune.toml"
out=$("$retune" plan "$work/missing-tool/tune.toml" -B "$work/no-tools" 2>&1); rc=$?
[ $rc -ne 0 ] && pass "plan fails" || fail "plan succeeded without IREE"
[ ! -e "$work/no-tools" ] && pass "the refused plan left no build directory" \
  || fail "the refused plan left $work/no-tools behind"
expect_contains "$out" "/nonexistent/iree-compile' does not exist" "the error names the tool"

echo "== a measurement waits while another run holds the device"
record=$(ls "$repo"/build/artifacts/*/baseline.json | head -1)
export RETUNE_LOCK_DIR=$work/locks
mkdir -p "$RETUNE_LOCK_DIR"
rm -f "$work/held" "$work/release" "$work/locked.json"
# Another run measuring on hip://0 (the lock file Retune uses) until told.
flock "$RETUNE_LOCK_DIR/hip___0.lock" sh -c 'touch "$1"; while [ ! -e "$2" ]; do sleep 0.05; done' \
  sh "$work/held" "$work/release" &
holder=$!
until [ -e "$work/held" ]; do sleep 0.05; done
(cd "$repo/build" && "$tools/retune-iree-bench" --compile-record "$record" \
  --output "$work/locked.json" --device=hip://0 --repetitions 1 \
  --iree-compile="$fakes/iree-compile" --iree-opt="$fakes/iree-opt" \
  --iree-benchmark-module="$fakes/iree-benchmark-module" --iree-version=3.11.0) 2>"$work/locked.err" &
bench=$!
# The bench says when it starts to wait; until the holder lets go it
# cannot have measured.
for _ in $(seq 1 3000); do grep -q "waiting for device" "$work/locked.err" && break; sleep 0.1; done
expect_contains "$(cat "$work/locked.err")" "retune: waiting for device 'hip://0': another run is measuring on it" \
  "the bench says it waits for the device"
[ -e "$work/locked.json" ] && fail "the bench measured while another run held hip://0" \
  || pass "nothing measured while another run held hip://0"
touch "$work/release"
wait $holder
wait $bench || fail "retune-iree-bench under a held lock"
[ -s "$work/locked.json" ] && pass "the bench measured once the lock was released" \
  || fail "no record after the lock was released"
unset RETUNE_LOCK_DIR

echo "== after a compiler change the previous winners are verified first"
winners=$(cd "$repo/build" && python3 -c 'import json,glob; print(" ".join(sorted(json.load(open(f))["dispatch"] for f in glob.glob("best/*.json") if json.load(open(f))["spec"])))')
sed -i 's|"--iree-rocm-target=gfx942"\]|"--iree-rocm-target=gfx942", "--mlir-disable-threading"]|' "$repo/tune.toml"
out=$(ninja -C "$repo/build" tune 2>&1) || { fail "ninja tune after the change"; echo "$out" | tail -30; }
expect_contains "$out" "winner(s) of the previous compiler are verified first" "the plan verifies first"
for id in $winners; do
  expect_contains "$(json_field "$repo/build/candidates/$id/index.json" 'len(d["candidates"]), d["reverify"]["decision"]')" \
    "1 kept" "dispatch $id: the previous winner is kept, alone"
  ls "$repo"/build/verify/$id/measure/baseline.before.*.json >/dev/null 2>&1 \
    && pass "dispatch $id: verified against the new baseline" || fail "dispatch $id: no verify baseline"
done
expect_contains "$(json_field "$repo/build/report/summary.json" 'sorted(x["id"] for x in d["dispatches"] if x.get("after_compiler_change", {}).get("previous_winner") == "kept")')" \
  "$(python3 -c 'import sys; print(sorted(sys.argv[1:]))' $winners)" "summary.json: every previous winner kept"

echo "== on two workers a data-tiled choice is tried with finer matmul tiles"
# A CPU model whose data tiling builds other code, as real IREE's does: the
# fake runs a module 0.8x the time for each such flag it was built with.
cpu=$work/cpu
mkdir -p "$cpu" && cp "$example/model.mlir" "$cpu/"
cat >"$cpu/tune.toml" <<'TOML'
[model]
path = "model.mlir"
entry = "main"

[backend]
kind = "iree"

[tune]
threads = 2

[iree]
compile_flags = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"]
benchmark_flags = ["--input=2048x1280xf16", "--input=10240x1280xf16"]
devices = ["local-task"]
repetitions = 3
model_rounds = 2
flag_sets = [["--iree-global-opt-data-tiling", "--iree-global-opt-enable-early-materialization"]]
TOML
tiles=--iree-llvmcpu-matmul-tile-bytes=16384
reassociate=--iree-llvmcpu-reassociate-fp-reductions=true
export FAKE_IREE_FASTER_WITH_FLAGS="--iree-global-opt-data-tiling $tiles"
"$retune" plan "$cpu/tune.toml" -B "$cpu/build" >/dev/null 2>&1 || fail "retune plan (cpu)"
ninja -C "$cpu/build" flags/chosen.json >"$work/cpu.log" 2>&1 || { fail "ninja flags (cpu)"; tail -20 "$work/cpu.log"; }
expect_contains "$(json_field "$cpu/build/flags/chosen.json" 'len(d["sets"]), d["sets"][1]["flags"][-1], d["sets"][1]["status"], d["chosen"][-1]')" \
  "4 $tiles ok $tiles" "the refinement was built, timed and, faster, chosen"
expect_contains "$(json_field "$cpu/build/flags/chosen.json" 'd["sets"][1]["message"]')" \
  "tried for 2 workers" "the record says what the refinement is"
expect_contains "$(cat "$cpu/build/compile_flags.txt")" "$tiles" "every later step builds with it"
# With it, the same with reductions reassociated and the first choice with
# reductions reassociated: this model's module does not change, so neither
# is timed and the choice stands.
expect_contains "$(json_field "$cpu/build/flags/chosen.json" '[(s["flags"][2:], s["status"], s["message"]) for s in d["sets"][2:]]')" \
  "[(['$tiles', '$reassociate'], 'not_applied', \"its module is byte-identical to set1's: the flags change nothing here (not timed)\"), (['$reassociate'], 'not_applied', \"its module is byte-identical to set0's: the flags change nothing here (not timed)\")]" \
  "reassociated reductions that change nothing are not timed"
# One worker: nothing to share out, no finer tiles; reassociated reductions
# that build faster code are chosen. (Another fake compiler's output: a
# cache of its own.)
export FAKE_IREE_FASTER_WITH_FLAGS="--iree-global-opt-data-tiling $reassociate"
sed -i 's/^threads = 2/threads = 1/; s/^devices = .*/devices = ["local-sync"]/' "$cpu/tune.toml"
"$retune" plan "$cpu/tune.toml" -B "$cpu/one" >/dev/null 2>&1 || fail "retune plan (cpu, 1 thread)"
RETUNE_CACHE_DIR=$work/cache-reassociating ninja -C "$cpu/one" flags/chosen.json >"$work/cpu.log" 2>&1 \
  || { fail "ninja flags (cpu, 1 thread)"; tail -20 "$work/cpu.log"; }
expect_contains "$(json_field "$cpu/one/flags/chosen.json" 'len(d["sets"]), d["sets"][1]["status"], d["chosen"]')" \
  "2 ok ['--iree-global-opt-data-tiling', '--iree-global-opt-enable-early-materialization', '$reassociate']" \
  "on one worker no finer tiles; reassociated reductions, faster, chosen"
expect_contains "$(json_field "$cpu/one/flags/chosen.json" 'd["sets"][1]["message"]')" \
  "the chosen set with floating-point reductions reassociated" "the record says what that refinement is"
unset FAKE_IREE_FASTER_WITH_FLAGS

echo "== $failures failure(s)"
[ $failures -eq 0 ]
