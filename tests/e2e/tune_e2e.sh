#!/usr/bin/env bash
# End-to-end tests of `retune plan` + real `ninja tune` on a tiny model.
# usage: tune_e2e.sh <tool dir> <scratch dir>
. "$(dirname "$0")/common.sh" "$@"

# A model repository: the tiny model and a tune.toml with the given extra lines.
make_repo() { # <dir> <tune.toml body...>
  rm -rf "$1" && mkdir -p "$1"
  cp "$here/tiny/model.mlir" "$1/model.mlir"
  printf '[model]\npath = "model.mlir"\nentry = "forward"\n' >"$1/tune.toml"
  shift_dir=$1
  shift
  printf '%s\n' "$@" >>"$shift_dir/tune.toml"
}


rm -rf "$work" && mkdir -p "$work"
# These checks are about the cache and the graph, not about load: on a busy
# machine every measurement would be "disturbed" and none cached
# (reliability_e2e.sh tests that on purpose).
export RETUNE_MIN_CPU_SHARE=0

echo "== a fresh tune produces a spec and a report"
export RETUNE_CACHE_DIR=$work/cache
repo=$work/repo
# A deliberately weak baseline (scalar default code): every vectorized
# candidate beats it on any CPU, so winners exist whatever this machine is.
weak='[mlir-cpu]'$'\n''compile_flags = ["--retune-default-scalar"]'
make_repo "$repo" '[tune]' 'candidates = 3' '[bench]' 'repetitions = 3' "$weak"
"$retune" plan "$repo/tune.toml" -B "$repo/build" || fail "retune plan"
out=$(ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "ninja tune exits 0" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
[ -s "$repo/build/tuning_spec.mlir" ] && pass "tuning_spec.mlir exists" || fail "no tuning_spec.mlir"
[ -s "$repo/build/report/summary.json" ] && pass "summary.json exists" || fail "no summary.json"
[ -s "$repo/build/report/index.html" ] && pass "index.html exists" || fail "no index.html"
expect_contains "$out" "retune: tuning summary" "console table printed"
# Rules, the plan's variables and the tools' options agree: every variable
# a rule uses is bound, every option passed is one the tool has.
contract=$(python3 "$here/check_plan_contract.py" "$repo/build" "$tools" 2>&1) \
  && pass "rules, plan variables and tool options agree" || { fail "plan contract"; echo "$contract"; }
expect_contains "$(json_field "$repo/build/report/summary.json" 'd["schema"], len(d["dispatches"]), d["model"]["speedup"] > 0')" \
  "retune.summary/1 2 True" "summary has schema, both dispatches and a model speedup"
expect_contains "$(json_field "$repo/build/report/summary.json" '[x["winner"] is not None for x in d["dispatches"]]')" \
  "[True, True]" "both dispatches beat the weak baseline"
expect_contains "$(json_field "$repo/build/report/summary.json" 'len(d["model"]["winners_kept"]), d["model"]["speedup"] > 1')" \
  "2 True" "the model step keeps both winners and the model is faster"
"$tools/retune-compile" --payload "$repo/model.mlir" --spec "$repo/build/tuning_spec.mlir" \
  --output "$work/check.so" --record "$work/check.json"
expect_contains "$(cat "$work/check.json")" '"status": "ok"' "the final spec compiles the model"

echo "== the model step drops a winner that hurts the model, and says why"
# Smaller dispatch first: it is the one made harmful, so that the winner
# kept is the larger one, whose gain over the weak baseline dwarfs any
# noise a busy machine adds to the model's timing.
ids=($(json_field "$repo/build/dispatches/index.json" '" ".join(x["id"] for x in sorted(d["dispatches"], key=lambda x: x["flops"]))'))
for id in "${ids[@]}"; do
  printf '{"schema": "retune.select/1", "dispatch": "%s", "winner": 0, "spec": "candidates/%s/0.spec.mlir"}\n' \
    "$id" "$id" >"$work/select-$id.json"
done
(cd "$repo/build" && RETUNE_CACHE_DIR=off RETUNE_INJECT_FAULT="wrong:tuned.spec,wrong:solo-${ids[0]}" \
  "$tools/retune-model" --model ../model.mlir --work-dir "$work/model-drop" --final-spec "$work/drop.spec.mlir" \
  --compiler-flag=--retune-default-scalar \
  --output "$work/drop.json" --entry forward --repetitions 3 "$work"/select-*.json) || fail "retune-model"
# Against the weak baseline the other winner alone makes the model faster.
expect_contains "$(json_field "$work/drop.json" '[(x["dispatch"], x["reason"][:29]) for x in d["winners_dropped"]]')" \
  "[('${ids[0]}', 'alone it gives wrong_result: ')]" "the harmful winner, and only it, is dropped with its reason"
expect_contains "$(json_field "$work/drop.json" 'd["winners_kept"]')" \
  "['${ids[1]}']" "the other winner is kept"
grep -q "match_${ids[1]}_c0" "$work/drop.spec.mlir" && pass "the kept winner is in the final spec" \
  || fail "the kept winner is not in the final spec"
grep -q "match_${ids[0]}_c0" "$work/drop.spec.mlir" && fail "the dropped winner is still in the spec" \
  || pass "the dropped winner is not in the final spec"

echo "== a fresh build directory with a warm cache replays"
"$retune" plan "$repo/tune.toml" -B "$repo/build2"
out=$(ninja -C "$repo/build2" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "replayed run exits 0" || { fail "replay exit $rc"; echo "$out" | tail -20; }
uncached=$(grep -L '"cached": true' "$repo"/build2/artifacts/*/*.json "$repo"/build2/results/*/*.json | wc -l)
[ "$uncached" -eq 0 ] && pass "every compile and bench came from the cache" || fail "$uncached records were not cached"
cmp -s "$repo/build/tuning_spec.mlir" "$repo/build2/tuning_spec.mlir" \
  && pass "the replayed spec is the same" || fail "the replayed spec differs"
diff -r -x index.json -x .index.json.blake3 "$repo/build/dispatches" "$repo/build2/dispatches" >/dev/null \
  && diff -r -x index.json -x .index.json.blake3 "$repo/build/candidates" "$repo/build2/candidates" >/dev/null \
  && cmp -s "$repo/build/spec/linked.mlir" "$repo/build2/spec/linked.mlir" \
  && pass "the replayed dispatches, candidates and linked spec are the same" \
  || fail "the replayed dispatches, candidates or linked spec differ"
# A candidate set enumerated again would carry its own enumeration time.
for index in "$repo"/build/candidates/*/index.json; do
  id=$(basename "$(dirname "$index")")
  [ "$(json_field "$index" 'd["enumeration_s"]')" = \
    "$(json_field "$repo/build2/candidates/$id/index.json" 'd["enumeration_s"]')" ] \
    && pass "candidates of $id came from the cache" \
    || fail "candidates of $id were enumerated again"
done

echo "== a second run does no work"
out=$(ninja -C "$repo/build" tune 2>&1)
expect_contains "$out" "no work to do" "second ninja tune is a no-op"

echo "== changing the candidate count redoes only what it affects"
sed -i 's/candidates = 3/candidates = 4/' "$repo/tune.toml"
out=$(ninja -C "$repo/build" tune 2>&1)
grep -q "DUMP" <<<"$out" && fail "dump re-ran" || pass "dump did not re-run"
compiles=$(grep -c "COMPILE artifacts" <<<"$out")
benches=$(grep -c "BENCH results" <<<"$out")
[ "$compiles" -eq 2 ] && pass "one new compile per dispatch" || { fail "$compiles compiles"; echo "$out"; }
[ "$benches" -eq 2 ] && pass "one new bench per dispatch" || fail "$benches benches"

echo "== crashing, hanging and wrong candidates are records, not failures"
export RETUNE_CACHE_DIR=$work/cache-faults
repo=$work/faults
# The timeout cuts the hanging compile; long enough that a loaded machine
# (the suite runs two tests at once) still reaches the crash before it.
make_repo "$repo" '[tune]' 'candidates = 3' '[compile]' 'timeout_s = 10' '[bench]' 'repetitions = 3'
"$retune" plan "$repo/tune.toml" -B "$repo/build"
out=$(RETUNE_INJECT_FAULT="crash:/0.spec.mlir,hang:/1.spec.mlir,wrong:/2.spec.mlir" \
  ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the run finishes" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
for id in $(json_field "$repo/build/dispatches/index.json" '" ".join(x["id"] for x in d["dispatches"])'); do
  expect_contains "$(json_field "$repo/build/results/$id/0.json" 'd["status"], d["message"]')" "crash" "crash recorded ($id)"
  expect_contains "$(json_field "$repo/build/results/$id/1.json" 'd["status"]')" "timeout" "hang recorded as timeout ($id)"
  expect_contains "$(json_field "$repo/build/results/$id/2.json" 'd["status"], d["message"]')" "wrong_result max relative error" "wrong numbers recorded ($id)"
  expect_contains "$(json_field "$repo/build/best/$id.json" 'd["winner"]')" "None" "no faulty candidate wins ($id)"
done
expect_contains "$out" "why: no candidate could be measured; 6 failed (see the report)" \
  "the console says why the spec is empty"
expect_contains "$(json_field "$repo/build/report/summary.json" 'd["model"]["why_no_winner"]')" \
  "no candidate could be measured; 6 failed" "summary.json says why the spec is empty"

echo "== a run over its time budget ends with what it has; the next run does the rest"
export RETUNE_CACHE_DIR=off
repo=$work/budget
make_repo "$repo" '[tune]' 'candidates = 3' 'budget = "30m"' '[bench]' 'repetitions = 3' "$weak"
"$retune" plan "$repo/tune.toml" -B "$repo/build" || fail "retune plan with a budget"
expect_contains "$(cat "$repo/build/.retune/budget")" "1800" "the plan leaves the budget for the steps"
# The budget is spent, deterministically, for candidates 1 and 2 of each
# dispatch (a fault hook: a real run measures its ninja's age).
out=$(RETUNE_INJECT_FAULT="budget-spent:/1.json,budget-spent:/2.json" ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "a run over its budget still exits 0" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
[ -s "$repo/build/tuning_spec.mlir" ] && pass "and ships a spec" || fail "no tuning_spec.mlir"
ids=$(json_field "$repo/build/dispatches/index.json" '" ".join(x["id"] for x in d["dispatches"])')
for id in $ids; do
  expect_contains "$(json_field "$repo/build/results/$id/2.json" 'd["status"], d["message"]')" \
    "skipped not run: the run's time budget" "a skipped bench is a record that says why ($id)"
  expect_contains "$(json_field "$repo/build/best/$id.json" 'd["winner"]')" "0" "the candidate measured wins ($id)"
done
expect_contains "$out" "  skipped" "the console table has a skipped column"
[ "$(wc -l <"$repo/build/.retune/skipped")" -ge 4 ] && pass "the skipped steps are in the ledger" || fail "ledger"
out=$(ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the next run finishes" || { fail "next run exit $rc"; echo "$out" | tail -30; }
expect_contains "$out" "step(s) an earlier run's time budget skipped run now" "the next run says it picks up"
for id in $ids; do
  expect_contains "$(json_field "$repo/build/results/$id/2.json" 'd["status"]')" "ok" "and measures what was skipped ($id)"
done
[ -e "$repo/build/.retune/skipped" ] && fail "the ledger outlives the run that did its steps" || pass "ledger emptied"
out=$(ninja -C "$repo/build" tune 2>&1)
expect_contains "$out" "ninja: no work to do." "a third run does nothing"
"$retune" plan "$repo/tune.toml" -B "$repo/build" --budget 5m >/dev/null || fail "plan --budget"
expect_contains "$(cat "$repo/build/.retune/budget")" "300" "--budget overrides tune.toml"
expect_contains "$(ninja -C "$repo/build" tune 2>&1)" "ninja: no work to do." "a new budget redoes no measurement"
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" --budget soon 2>&1) && fail "plan --budget soon"
expect_contains "$out" "--budget soon: not a duration" "a bad --budget is refused"
out=$("$retune" plan "$repo/tune.toml" -B "$work/pinned" --pin-flag=-O3 2>&1) && fail "plan --pin-flag on mlir-cpu"
expect_contains "$out" "need [backend] kind = \"iree\"" "--pin-flag is refused without the iree backend"

echo "== a killed run resumes without redoing finished candidates"
export RETUNE_CACHE_DIR=off
repo=$work/resume
make_repo "$repo" '[tune]' 'candidates = 6' '[bench]' 'repetitions = 3'
"$retune" plan "$repo/tune.toml" -B "$repo/build"
# Candidate 5's measurements never end, so the run cannot finish before the
# interrupt whatever this machine's speed. Benches run one at a time (the
# device pool) in build.ninja's order: once a hanging one measures, the
# benches before it are done and no other is in flight, so the interrupt
# cuts no step but the hanging one.
RETUNE_INJECT_FAULT="bench-hang:/5.json" setsid ninja -C "$repo/build" tune >"$work/killed.log" 2>&1 &
pid=$!
for _ in $(seq 1 6000); do
  pgrep -f -- "retune-bench-worker .*--output=results/[0-9a-f]*/5\.json" >/dev/null && break
  sleep 0.05
done
kill -INT -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
done_before=$(find "$repo/build/results" -name '*.json' | sort)
count_before=$(grep -c . <<<"$done_before")
stamp_before=$(for f in $done_before; do stat -c '%n %Y.%y' "$f"; done)
[ "$count_before" -ge 1 ] && [ "$count_before" -lt 12 ] \
  && pass "$count_before of 12 results were done at the interrupt" \
  || { fail "$count_before results at the interrupt (expected 1 to 11)"; tail -5 "$work/killed.log"; }
grep -q '/5\.json$' <<<"$done_before" && fail "a hanging bench wrote a result" || pass "no hanging bench wrote a result"
out=$(ninja -C "$repo/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "the resumed run finishes" || { fail "resume exit $rc"; echo "$out" | tail -20; }
stamp_after=$(for f in $done_before; do stat -c '%n %Y.%y' "$f"; done)
[ "$stamp_before" = "$stamp_after" ] && pass "$count_before finished results were kept" || fail "finished results were redone"
benches=$(grep -c "BENCH results" <<<"$out")
[ "$benches" -eq $((12 - count_before)) ] && pass "only the $benches missing benches ran" || fail "$benches benches ran after $count_before were done"

echo "== bad input: one clear error, non-zero exit, no partial outputs"
repo=$work/bad
make_repo "$repo" '[tune]' 'candidatez = 3'
err=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "unknown key accepted"
expect_contains "$err" "tune.toml:5: unknown key 'candidatez' in [tune]" "unknown key named with its line"
[ -e "$repo/build" ] && fail "build dir created for a bad config" || pass "no build dir for a bad config"

make_repo "$repo" '[tune' 'candidates = 3'
err=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "malformed TOML accepted"
expect_contains "$err" "tune.toml:4:" "malformed TOML named with its line"
expect_contains "$err" "invalid TOML" "malformed TOML explained"
[ -e "$repo/build" ] && fail "build dir created for malformed TOML" || pass "no build dir for malformed TOML"

make_repo "$repo" '[bench]' 'repetitions = -1'
err=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "bad value accepted"
expect_contains "$err" "tune.toml:5: [bench] repetitions must be an integer from 1" "bad value named with its line"

make_repo "$repo"
sed -i 's/path = "model.mlir"/path = "missing.mlir"/' "$repo/tune.toml"
err=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "missing model accepted"
expect_contains "$err" "missing.mlir: no such file" "missing model named"
[ -e "$repo/build" ] && fail "build dir created for a missing model" || pass "no build dir for a missing model"

make_repo "$repo"
sed -i 's/linalg.matmul ins(%x, %w1/linalg.matmul ins(%x %w1/' "$repo/model.mlir"
# The plan parses an mlir-cpu model (to check [model] entry): it fails first.
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "plan of an unparsable model"
expect_contains "$out" "model.mlir:8:" "parse error names the model line"
[ -e "$repo/build/dispatches/index.json" ] && fail "partial dispatch index" || pass "no dispatch index for a bad model"

# Shapes no machine can hold: refused at plan time with the tensor and its
# line, before any benchmark segfaults on them.
matmul_model() { # <M> <K> <N>
  local a="tensor<$1x$2xf32>" b="tensor<$2x$3xf32>" c="tensor<$1x$3xf32>"
  printf '%s\n' "func.func @forward(%a: $a, %b: $b) -> $c {" \
    "  %zero = arith.constant 0.0 : f32" "  %e = tensor.empty() : $c" \
    "  %f = linalg.fill ins(%zero : f32) outs(%e : $c) -> $c" \
    "  %m = linalg.matmul ins(%a, %b : $a, $b) outs(%f : $c) -> $c" \
    "  return %m : $c" "}" >"$repo/model.mlir"
}
make_repo "$repo"
matmul_model 64 1000000 1000000
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "plan of a model larger than memory"
expect_contains "$out" "model.mlir:1:48: tensor<1000000x1000000xf32> holds 4000000000000 bytes, more than this machine's memory" \
  "a tensor larger than memory is named with its line"
matmul_model 4294967296 4294967296 1
out=$("$retune" plan "$repo/tune.toml" -B "$repo/build" 2>&1) && fail "plan of a model with 2^64-element tensors"
expect_contains "$out" "model.mlir:1:20: tensor<4294967296x4294967296xf32>: its element count overflows 64 bits" \
  "an element count that overflows is named with its line"
[ -e "$repo/build" ] && fail "build dir created for a model too large" || pass "no build dir for a model too large"

echo
[ $failures -eq 0 ] && echo "all end-to-end checks passed" || echo "$failures end-to-end checks failed"
exit $((failures > 0))
