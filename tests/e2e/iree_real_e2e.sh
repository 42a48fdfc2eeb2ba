#!/usr/bin/env bash
# End-to-end tests with the real IREE release the set-up installs into the
# project's .venv (no fakes): the MLP and an ONNX model (MiniLM) tuned
# through llvm-cpu on this CPU, and ROCm (gfx942) candidates compiled for
# real. Exits 77 (skipped) when IREE is not installed.
# usage: iree_real_e2e.sh <tool dir> <source dir> <scratch dir>
source_dir=$(cd "$2" && pwd)
. "$(dirname "$0")/common.sh" "$1" "$3"
venv=$source_dir/.venv

if [ ! -x "$venv/bin/iree-compile" ]; then
  echo "SKIP: real IREE is not installed in $venv (scripts/setup.sh installs it)"
  exit 77
fi
# Only the project's .venv provides IREE: no fakes, no other installation.
export PATH=/usr/local/bin:/usr/bin:/bin

# Status counts of every compile record of a build directory.
compile_statuses() {
  python3 - "$1" <<'PY'
import collections, glob, json, sys
counts = collections.Counter(json.load(open(f))["status"]
                             for f in glob.glob(sys.argv[1] + "/artifacts/*/*.json"))
print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))
PY
}
# Trims a copied tune.toml for test time: fewer candidates and repetitions,
# and two of the default flag sets (data tiling with and without ukernels;
# the others are for convolutions, which these models do not have).
quick() { # <tune.toml> <candidates>
  sed -i -e "s/^candidates = .*/candidates = $2/" -e 's/^repetitions = .*/repetitions = 3/' \
    -e 's/^model_rounds = .*/model_rounds = 2/' \
    -e 's/^\[iree\]$/[iree]\nflag_sets = [["--iree-global-opt-data-tiling", "--iree-global-opt-enable-early-materialization", "--iree-llvmcpu-enable-ukernels=all"], ["--iree-global-opt-data-tiling", "--iree-global-opt-enable-early-materialization"]]/' "$1"
}

# A tiny model of tests/e2e/tiny as <dir>/model.mlir, tuned like the MLP
# with its own entry, quickly.
tiny_model() { # <dir> <tiny file> <entry>
  mkdir -p "$1" && cp "$source_dir/tests/e2e/tiny/$2" "$1/model.mlir"
  sed -e "s/^entry = .*/entry = \"$3\"/" -e 's/^path = .*/path = "model.mlir"/' \
    "$source_dir/examples/mlp/tune-iree.toml" >"$1/tune.toml"
  quick "$1/tune.toml" 2
}

# Makes a flag choice name the search's rewrite with the default flags (one
# of the sets the search may choose), whatever the timing chose.
choose_the_rewrite() { # <flags/chosen.json>
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["chosen"] = []; d["input"] = "flags/rewritten.mlir"
json.dump(d, open(sys.argv[1], "w"))
PY
}

rm -rf "$work" && mkdir -p "$work"
# This test's own cache: what it replays, it compiled itself.
export RETUNE_CACHE_DIR=$work/cache

echo "== the MLP through real IREE on this CPU (llvm-cpu)"
mlp=$work/mlp
mkdir -p "$mlp" && cp "$source_dir/examples/mlp/model.mlir" "$source_dir/examples/mlp/tune-iree.toml" "$mlp/"
quick "$mlp/tune-iree.toml" 3
out=$("$retune" plan "$mlp/tune-iree.toml" -B "$mlp/build" 2>&1) || fail "retune plan: $out"
expect_contains "$out" "IREE 3.13" "IREE 3.13 is accepted without a version pin"
expect_contains "$out" "(from the project's .venv)" "the plan says where IREE was found"
out=$(ninja -C "$mlp/build" tune 2>&1); rc=$?
[ $rc -eq 0 ] && pass "ninja tune exits 0" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
expect_contains "$out" "model (end to end)" "console table with the model line"
expect_contains "$out" "room for a spec: " "the console gives a spec's ceiling from the dump's profile"
# Every llvm-cpu compile aligns each function, so a spec that changes one
# dispatch does not move the others' loops (docs/iree-backend.md).
expect_contains "$(cat "$mlp/build/compile_flags.txt")" "--align-all-functions=6" \
  "the shipped flags align every function"
expect_contains "$(grep '^iree_compile_flags' "$mlp/build/build.ninja")" "--align-all-functions=6" \
  "the dispatch benchmarks compile with the same alignment"
statuses=$(compile_statuses "$mlp/build")
expect_contains "$statuses" "ok=" "candidates compiled: $statuses"
[[ "$statuses" != *compile_error* ]] && pass "no llvm-cpu candidate fails to compile" \
  || fail "llvm-cpu compile errors: $statuses"
# (The MLP's other dispatches, a layer called once and, read through IREE's
# library, a computing generic, count one call each.)
expect_contains "$(json_field "$mlp/build/dispatches/index.json" \
  '2 in [e["occurrences"] for e in d["dispatches"]]')" "True" \
  "the layer called twice counts two calls"
# Shares on this CPU are each dispatch's time in the model: the dump's
# compile wrote the model, IREE's profiler ran it, and no dispatch was timed
# alone.
[ -s "$mlp/build/dump/model.vmfb" ] && [ -s "$mlp/build/dump/model.profile.jsonl" ] \
  && pass "the dump profiled the model it compiled" || fail "no profile of the model in dump/"
[ ! -e "$mlp/build/dump/timed" ] && pass "no dispatch was timed alone for the shares" \
  || fail "dispatches were timed alone"
expect_contains "$(json_field "$mlp/build/dispatches/index.json" \
  'abs(sum(e["share"] for e in d["dispatches"]) - 1) < 1e-6 and d["dispatches"][0]["share"] > 0.5')" \
  "True" "the shares are of the model's time, its two-call layer first"
# With the profile each dispatch has its time to gain: a matmul's share
# above what its FLOPs take at the CPU's peak rate (its FLOP rate over the
# peak recorded), an elementwise dispatch's whole share.
expect_contains "$(json_field "$mlp/build/dispatches/index.json" \
  'all(0 <= e["gain_share"] <= e["share"] + 1e-12 and (0 < e["peak_fraction"] <= 1) == (e["problem"]["kind"] == "contraction") for e in d["dispatches"]) and any(e["problem"]["kind"] == "contraction" for e in d["dispatches"])')" \
  "True" "the profiled dump records each dispatch's time to gain and a matmul's fraction of the peak rate"
# A model the profiler cannot run (here: no such entry) falls back to each
# dispatch timed alone with IREE's default config, time x calls.
dump_cmd=$(ninja -C "$mlp/build" -t commands dispatches/index.json | tail -1)
dump_cmd=${dump_cmd/--output-dir dispatches/--output-dir $work/fallback/dispatches}
dump_cmd=${dump_cmd/--work-dir dump/--work-dir $work/fallback/dump}
fallback_out=$(cd "$mlp/build" && eval "$dump_cmd --entry=no_such_function" 2>&1) \
  || fail "the dump with an entry it cannot profile: $fallback_out"
expect_contains "$fallback_out" "each dispatch timed alone for the shares: the model could not be profiled" \
  "a model the profiler cannot run is said so"
expect_contains "$(ls "$work"/fallback/dump/timed/*.bench.json 2>/dev/null | wc -l)" \
  "$(json_field "$work/fallback/dispatches/index.json" 'len(d["dispatches"])')" \
  "then every dispatch is timed alone for its share"
expect_contains "$(json_field "$work/fallback/dispatches/index.json" \
  'any("gain_share" in e for e in d["dispatches"])')" "False" \
  "and no time to gain is claimed without the model's profile"
expect_contains "$(json_field "$mlp/build/report/summary.json" \
  'd["model"]["room_for_spec"]["ceiling"] >= 1')" "True" \
  "summary.json gives the spec's ceiling"
expect_contains "$(json_field "$mlp/build/candidates/$(json_field "$mlp/build/dispatches/index.json" 'd["dispatches"][0]["id"]')/index.json" \
  'len(set(c["file"] for c in d["candidates"])) == len(d["candidates"])')" "True" "candidate specs are distinct"
# Every emitted spec is read by the real iree-opt (the spelling of 3.13).
spec_errors=0
for spec in "$mlp"/build/candidates/*/*.spec.mlir "$mlp/build/tuning_spec.mlir"; do
  "$venv/bin/iree-opt" "$spec" -o /dev/null 2>"$work/iree-opt.log" || { spec_errors=$((spec_errors + 1)); cat "$work/iree-opt.log"; }
done
[ $spec_errors -eq 0 ] && pass "every spec parses and verifies with the real iree-opt" \
  || fail "$spec_errors specs rejected by iree-opt"
expect_contains "$(json_field "$mlp/build/model/result.json" 'd["status"], d["speedup"] > 0')" \
  "ok True" "the whole model was measured with the spec"
# The headline is IREE's default flags -> Retune (flags and spec): the
# flag step's ratio times the model step's, whatever either found.
expect_contains "$out" "compiler defaults -> Retune: flags " "the console's model line gives both shares"
expect_contains "$(json_field "$mlp/build/report/summary.json" 'd["model"]["flags_speedup"] > 0 and d["model"]["spec_baseline_s"] > 0 and abs(d["model"]["speedup"] - d["model"]["flags_speedup"] * d["model"]["spec_speedup"]) < 1e-9')" \
  "True" "summary.json: speedup = flags_speedup x spec_speedup"
expect_contains "$(json_field "$mlp/build/report/summary.json" 'abs(d["model"]["spec_speedup"] - json.load(open(sys.argv[1].replace("report/summary.json", "model/result.json")))["speedup"]) < 1e-9')" \
  "True" "summary.json: the spec's share is the model step's speedup"
# Where the model's time goes, from IREE's own profiler of the whole model:
# every tuned dispatch is found in it by name, with its calls and time.
expect_contains "$(json_field "$mlp/build/report/summary.json" '[x["dispatch"] for x in d["model"]["in_model_profile"] if "dispatch" in x] != [] and all(x["calls_per_run"] > 0 and x["baseline_us"] > 0 for x in d["model"]["in_model_profile"])')" \
  "True" "summary.json: the model's per-dispatch profile names tuned dispatches"
expect_contains "$(json_field "$mlp/build/report/summary.json" 'all(x["in_model_s"] > 0 for x in d["dispatches"] if x["candidates"] > 0)')" \
  "True" "summary.json: each tuned dispatch's time inside the model"
expect_contains "$out" "where the model's time goes (IREE's profiler" "the console shows where the model's time goes"
# The record's profile is the baseline profiled again at the end of the
# step (beside the tuned build's, when a spec is kept), not the step's
# first profile, which ran right after its first compile.
# The profile lists every call (--dispatch_events): a function's mean is
# the mean of its calls' duration_ns.
expect_contains "$(json_field "$mlp/build/model/result.json" '(lambda calls: all(abs(x["baseline_us"] - sum(calls[x["function"]]) / len(calls[x["function"]])) <= 1e-6 * x["baseline_us"] for x in d["in_model_profile"]))(__import__("functools").reduce(lambda m, r: m.setdefault(r["key"], []).append(r["duration_ns"] / 1e3) or m, [r for r in map(json.loads, open(sys.argv[1].replace("result.json", "baseline-last.profile.jsonl"))) if "duration_ns" in r], {})), d["in_model_profile"] != []')" \
  "True True" "the record's profile is the baseline's last one"
# With the model's profile, options are tried in rounds, every dispatch's
# next option in one build, each judged by its time in the model (whether
# a dispatch got winners to try depends on the search: then there is none).
expect_contains "$(json_field "$mlp/build/model/result.json" 'all(("dispatch_in_model_ratio" in t and "its time in the model without a spec" in t["measured"]) or "failed" in t for t in d.get("in_model_trials", [])), not d.get("in_model_trials") or __import__("os").path.exists(sys.argv[1].replace("result.json", "round-0.compile.json"))')" \
  "True True" "options were tried in profiled rounds in the model"
out=$(ninja -C "$mlp/build" tune 2>&1)
expect_contains "$out" "ninja: no work to do." "second ninja tune is a no-op"
# Where each whole-model compile's time went (MLIR's pass timing).
expect_contains "$(json_field "$mlp/build/flags/chosen.json" 'len(d["default_compile_passes"]) > 0 and all(len(s["compile_passes"]) > 0 for s in d["sets"] if s["status"] == "ok")')" \
  "True" "flags/chosen.json: the slowest passes of each whole-model compile"
# A whole-model build is compiled once: the flag search of the same model
# in a new build directory replays every build from the content cache
# (keeping what each compile cost), and so does the model step when its
# outputs are lost: its baseline and each candidate tried in the model, the
# builds its dispatch results decide (which combinations it tries after
# depends on the model's timing). Candidates' compiles always were cached;
# a new build directory may choose other flags, and so other dispatches.
"$retune" plan "$mlp/tune-iree.toml" -B "$mlp/again" >/dev/null 2>&1 || fail "retune plan (again)"
ninja -C "$mlp/again" flags/chosen.json >/dev/null 2>&1 || fail "ninja flags (again)"
# (A refinement follows the set each search timed fastest, so only the sets
# both searches built are compared: all but at most two.)
expect_contains "$(json_field "$mlp/again/flags/chosen.json" '*(lambda first: (all(s["compile_cached"] and s["compile_s"] > 0 for s in d["sets"] if s["flags"] in first), sum(s["flags"] in first for s in d["sets"]) >= len(first) - 2, d["default_compile_s"] > 0))([s["flags"] for s in json.load(open(sys.argv[1].replace("/again/", "/build/")))["sets"]])')" \
  "True True True" "the flag search in a new build directory replays every whole-model build"
# The builds the first model step made, by the hash of what each compiled:
# the second step compiles the same ones again (baseline, first options),
# and which combinations it tries after depends on its timings, so a build
# is checked where the two steps made the same one (a failed compile is
# not cached).
first_keys=$(python3 - "$mlp/build/model" <<'PY'
import glob, json, sys
records = [json.load(open(r)) for r in glob.glob(sys.argv[1] + "/*.compile.json")]
print(" ".join(sorted({r["key"] for r in records if r["status"] == "ok" and r["key"]})))
PY
)
rm -rf "$mlp/build/model"
ninja -C "$mlp/build" tune >/dev/null 2>&1 || fail "ninja tune after losing model/"
expect_contains "$(python3 - "$mlp/build/model" $first_keys <<'PY'
import glob, json, sys
first = set(sys.argv[2:])
again = [json.load(open(r)) for r in glob.glob(sys.argv[1] + "/*.compile.json")]
same = [r for r in again if r["key"] in first]
print(len(same) >= 1, all(r["cached"] for r in same))
PY
)" "True True" "the model step's lost builds are replayed, not compiled"

echo "== strided ConvTransposes: the flag search rewrites them, checks the rewrite against the model and the later steps compile it"
ct=$work/conv_transpose
tiny_model "$ct" conv_transpose.mlir main_graph
"$retune" plan "$ct/tune.toml" -B "$ct/build" >/dev/null 2>&1 || fail "retune plan (conv_transpose)"
ninja -C "$ct/build" flags/chosen.json >"$work/ct.log" 2>&1 || { fail "ninja flags (conv_transpose)"; tail -20 "$work/ct.log"; }
# Every set builds from the rewrite (the default flags on it too), and each
# computes the model's results on seeded inputs and weights: the rewrite is
# checked by the real IREE, whichever set the timing chooses.
# (A set whose module another set built is not run again: not_applied;
# which flags change this tiny model's module depends on the CPU. The last
# set refines the choice with reassociated reductions: when no set was
# chosen, the default flags on the model as given.)
expect_contains "$(json_field "$ct/build/flags/chosen.json" 'len(d["rewritten"]), d["sets"][0]["flags"], sorted(set(s["input"] for s in d["sets"][:-1])), d["sets"][0]["status"], all(s["status"] in ("ok", "not_applied") for s in d["sets"])')" \
  "2 [] ['flags/rewritten.mlir'] ok True" "both ConvTransposes are rewritten and every set on the rewrite computes the model's results"
expect_contains "$(json_field "$ct/build/flags/chosen.json" 'd["sets"][-1]["flags"][-1], d["sets"][-1].get("input", "") == d.get("input", "")')" \
  "--iree-llvmcpu-reassociate-fp-reductions=true True" "the choice is tried with reassociated reductions, built from the model the choice compiles"
grep -c '"onnx.DepthToSpace"' "$ct/build/flags/rewritten.mlir" | grep -qx 2 \
  && pass "flags/rewritten.mlir interleaves both layers' phases" || fail "no DepthToSpace in flags/rewritten.mlir"
# A rewrite IREE cannot compile (injected: an op no lowering knows, as an
# opset-12 model's ONNX Slice was) would fail every set built from it: it is
# dropped, said so, and the search goes on with the model as given.
bad=$work/conv_transpose_uncompilable
tiny_model "$bad" conv_transpose.mlir main_graph
"$retune" plan "$bad/tune.toml" -B "$bad/build" >/dev/null 2>&1 || fail "retune plan (uncompilable rewrite)"
out=$(RETUNE_INJECT_FAULT=uncompilable-rewrite:conv_transpose_uncompilable \
  ninja -C "$bad/build" flags/chosen.json 2>&1) || { fail "ninja flags (uncompilable rewrite)"; echo "$out" | tail -20; }
expect_contains "$out" "the model is not rewritten: IREE cannot compile the rewritten model" \
  "a rewrite IREE cannot compile is said so"
expect_contains "$(json_field "$bad/build/flags/chosen.json" 'len(d["rewritten"]), repr(d.get("input", "")), sorted(set(s.get("input", "") for s in d["sets"])), any(s["status"] == "ok" for s in d["sets"]), len([l for l in d["not_rewritten"] if "not kept: IREE cannot compile" in l])')" \
  "0 '' [''] True 2" "and the sets are built and checked on the model as given, the two rewrites listed as not kept"

# A choice that builds from the rewrite (whichever set the timing chose):
# the dump compiles it.
choose_the_rewrite "$ct/build/flags/chosen.json"
"$retune" plan "$ct/tune.toml" -B "$ct/build" >/dev/null 2>&1 || fail "re-plan (conv_transpose)"
# The whole tune on the rewrite: the report names the model to compile.
out=$(ninja -C "$ct/build" tune 2>&1) || { fail "ninja tune (conv_transpose)"; echo "$out" | tail -20; }
expect_contains "$out" "the model it builds from is flags/rewritten.mlir" "the console names the rewritten model to compile"
expect_contains "$(json_field "$ct/build/dispatches/index.json" 'd["model"]')" "flags/rewritten.mlir" \
  "the dump compiles the rewritten model the choice names"
expect_contains "$(json_field "$ct/build/report/summary.json" 'd["compile_flags"]["model"], len(d["compile_flags"]["rewritten"])')" \
  "flags/rewritten.mlir 2" "summary.json names the rewritten model and what was rewritten"
[ -s "$ct/build/model/shipped.vmfb" ] && pass "the tuned rewrite ships a module" || fail "no model/shipped.vmfb"
# Damaged (not what the search wrote): VERIFY removes it and the search's
# record, and the search makes it again in the same build, before the dump
# and the plan (whatever it chooses now, the report reads dispatches the
# plan made edges for).
echo "module {" >>"$ct/build/flags/rewritten.mlir"
out=$(ninja -C "$ct/build" tune 2>&1) || { fail "ninja tune after damaging the rewrite"; echo "$out" | tail -20; }
expect_contains "$out" "flags/rewritten.mlir: does not match the hash its step wrote" \
  "the damaged rewrite is found"
expect_contains "$out" "FLAGS" "the flag search runs again"
[ -s "$ct/build/flags/chosen.json" ] && pass "the search chose again" || fail "no flags/chosen.json after the re-run"
# [iree] rewrite_model = false: the model is searched as given. The plan
# is made while the last choice still names the rewrite (as the timing may
# have chosen): the dump must compile what the new search chooses.
choose_the_rewrite "$ct/build/flags/chosen.json"
sed -i 's/^\[iree\]$/[iree]\nrewrite_model = false/' "$ct/tune.toml"
"$retune" plan "$ct/tune.toml" -B "$ct/build" >/dev/null 2>&1 || fail "re-plan (rewrite_model = false)"
ninja -C "$ct/build" flags/chosen.json >"$work/ct.log" 2>&1 || { fail "ninja flags (rewrite_model = false)"; tail -20 "$work/ct.log"; }
expect_contains "$(json_field "$ct/build/flags/chosen.json" '"rewritten" in d, "input" in d, any("input" in s for s in d["sets"])')" \
  "False False False" "with rewrite_model = false nothing is rewritten"
ninja -C "$ct/build" tune >"$work/ct.log" 2>&1 || { fail "ninja tune (rewrite_model = false)"; tail -20 "$work/ct.log"; }
expect_contains "$(json_field "$ct/build/dispatches/index.json" 'd["model"].endswith("conv_transpose/model.mlir")')" "True" \
  "a plan made before the search ran again dumps the model the new search chose"
# A garbled choice: the dump, which reads it, names it and removes it; the
# next run searches again.
echo "garbage" >"$ct/build/flags/chosen.json"
out=$(ninja -C "$ct/build" tune 2>&1) && fail "ninja tune with a garbled flags/chosen.json succeeded"
expect_contains "$out" "flags/chosen.json: invalid JSON" "a garbled choice is named"
ninja -C "$ct/build" tune >"$work/ct.log" 2>&1 && pass "the next run searches again and tunes" \
  || { fail "ninja tune after a garbled choice"; tail -20 "$work/ct.log"; }

echo "== a biased 3x3 convolution: the Winograd set computes the model's results once the rewrite adds the bias after it"
wg=$work/winograd
tiny_model "$wg" winograd_conv.mlir main_graph
# The default Winograd set alone (the last of defaultCpuFlagSets), as the
# plan writes the default sets.
sed -i '/^flag_sets = /d' "$wg/tune.toml"
"$retune" plan "$wg/tune.toml" -B "$wg/build" >/dev/null 2>&1 || fail "retune plan (winograd, default sets)"
python3 - "$wg/build/flags/sets.json" "$wg/tune.toml" <<'PY'
import json, sys
last = json.load(open(sys.argv[1]))["sets"][-1]
toml = open(sys.argv[2]).read().replace("[iree]\n", "[iree]\nflag_sets = [" + json.dumps(last) + "]\n", 1)
open(sys.argv[2], "w").write(toml)
PY
"$retune" plan "$wg/tune.toml" -B "$wg/build" >/dev/null 2>&1 || fail "retune plan (winograd)"
ninja -C "$wg/build" flags/chosen.json >"$work/wg.log" 2>&1 || { fail "ninja flags (winograd)"; tail -20 "$work/wg.log"; }
# Without the rewrite IREE's transform drops the bias and the set's results
# differ from the default build's (results_differ).
expect_contains "$(json_field "$wg/build/flags/chosen.json" 'd["rewritten"], [(s["status"], (s["flags"] or ["-"])[-1]) for s in d["sets"][:2]], all(s["module_bytes"] > 0 for s in d["sets"][:2]), d["default_module_bytes"] > 0')" \
  "['line 6: Conv 1x8x14x14 -> 1x16x14x14, 3x3 at stride 1 with a bias: the bias added after it'] [('ok', '-'), ('ok', '--iree-opt-const-expr-max-size-increase-threshold=268435456')] True True" \
  "the bias is added after the convolution, the Winograd set on the rewrite computes the model's results, and each build's module size is recorded"

echo "== a transpose: data movement gets candidates that reach IREE"
tr=$work/transpose
tiny_model "$tr" transpose.mlir main
sed -i 's/^flag_sets = .*/flag_sets = []/' "$tr/tune.toml"
"$retune" plan "$tr/tune.toml" -B "$tr/build" >/dev/null 2>&1 || fail "retune plan (transpose)"
ninja -C "$tr/build" tune >"$work/transpose.log" 2>&1 || { fail "ninja tune (transpose)"; tail -20 "$work/transpose.log"; }
expect_contains "$(json_field "$tr/build/dispatches/index.json" \
  '[(e["problem"]["kind"], e["problem"]["dim_roles"]) for e in d["dispatches"]]')" \
  "[('elementwise', 'vv')]" "the transpose is read as data movement"
tid=$(json_field "$tr/build/dispatches/index.json" 'd["dispatches"][0]["id"]')
# Which square tile comes first depends on IREE's own config for this CPU
# (8x8 where IREE picks 16x16, as on AVX-512; 4x4 where it picks 8x8).
expect_contains "$(json_field "$tr/build/candidates/$tid/index.json" \
  'len(set(d["candidates"][0]["config"]["vector_common_parallel"])) == 1')" \
  "True" "its first candidate is a square register tile"
# Each candidate's spec matched the dispatch: its module differs from the
# baseline's (a DAG matcher that misses leaves the module byte-identical).
expect_contains "$(python3 - "$tr/build/artifacts/$tid" <<'PY'
import glob, json, sys
base = json.load(open(sys.argv[1] + "/baseline.json"))["artifact_hash"]
records = [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/[0-9]*.json")]
print(len(records) > 0 and all(r["status"] == "ok" and r["artifact_hash"] != base for r in records))
PY
)" "True" "every transpose candidate compiles and changes the dispatch's module"
# And the same spec reaches the whole model: its module changes too.
"$venv/bin/iree-compile" "$tr/model.mlir" --iree-hal-target-device=local \
  --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=host \
  -o "$work/transpose-base.vmfb" && "$venv/bin/iree-compile" "$tr/model.mlir" \
  --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu \
  --iree-llvmcpu-target-cpu=host --mlir-disable-threading \
  --iree-codegen-tuning-spec-path="$tr/build/candidates/$tid/0.spec.mlir" \
  -o "$work/transpose-spec.vmfb" || fail "iree-compile the transpose model"
cmp -s "$work/transpose-base.vmfb" "$work/transpose-spec.vmfb" \
  && fail "the transpose's spec left the whole model's module byte-identical" \
  || pass "the transpose's spec changes the whole model's module"

echo "== CUDA: a target this IREE does not know is refused at plan time"
cuda=$work/cuda
mkdir -p "$cuda" && cp "$source_dir/examples/mlp/model.mlir" "$cuda/"
printf '[model]\npath = "model.mlir"\n[backend]\nkind = "iree"\n[iree]\ncompile_flags = ["--iree-hal-target-device=cuda", "--iree-cuda-target=sm_90"]\ndevices = ["cuda://0"]\n' >"$cuda/tune.toml"
out=$("$retune" plan "$cuda/tune.toml" -B "$cuda/build" 2>&1) && fail "sm_90 accepted by IREE 3.13's plan"
expect_contains "$out" "tune.toml:6: [iree] compile_flags: IREE 3.13" "an unknown CUDA target is named with its line"
expect_contains "$out" "does not know the CUDA target 'sm_90'" "the CUDA target is named"
sed -i 's/sm_90/sm_80/' "$cuda/tune.toml"
"$retune" plan "$cuda/tune.toml" -B "$cuda/build" >/dev/null 2>&1 && pass "sm_80 is accepted" || fail "sm_80 refused"

echo "== ROCm (gfx942): candidates compile with the real compiler and apply"
rocm=$work/rocm
mkdir -p "$rocm"
cat > "$rocm/model.mlir" <<'MLIR'
func.func @main(%a: tensor<2048x1280xf16>, %b: tensor<1280x1280xf16>) -> tensor<2048x1280xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x1280xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x1280xf32>) -> tensor<2048x1280xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2048x1280xf16>, tensor<1280x1280xf16>)
                     outs(%f : tensor<2048x1280xf32>) -> tensor<2048x1280xf32>
  return %m : tensor<2048x1280xf32>
}
MLIR
cat > "$rocm/tune.toml" <<'TOML'
[model]
path = "model.mlir"
[backend]
kind = "iree"
[tune]
candidates = 8
[iree]
compile_flags = ["--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"]
devices = ["hip://0"]
[gpu]
pipelines = ["vector_distribute", "tile_and_fuse"]
TOML
"$retune" plan "$rocm/tune.toml" -B "$rocm/build" >/dev/null 2>&1 || fail "retune plan (rocm)"
ninja -C "$rocm/build" candidates >/dev/null 2>&1 || fail "ninja candidates (rocm)"
# No GPU here: compile every candidate, benchmark none.
ninja -C "$rocm/build" compiled >/dev/null 2>&1 || fail "ninja compiled (rocm)"
statuses=$(compile_statuses "$rocm/build")
expect_contains "$statuses" "ok=" "gfx942 candidates compiled: $statuses"
[[ "$statuses" != *compile_error* ]] && pass "every gfx942 candidate compiles" \
  || fail "gfx942 compile errors: $statuses"
if grep -l "expected attribute value\|unknown pipeline\|expected '>'" "$rocm"/build/artifacts/*/*.log >/dev/null 2>&1; then
  fail "a spec is spelled wrong for 3.13"
else
  pass "no spec is rejected for its spelling"
fi
applied=$(python3 - "$rocm/build" <<'PY'
import glob, json, os, sys
n = 0
for d in glob.glob(sys.argv[1] + "/artifacts/*/"):
    base = json.load(open(d + "baseline.json"))["artifact_hash"]
    for f in glob.glob(d + "[0-9]*.json"):
        r = json.load(open(f))
        n += r["status"] == "ok" and r["artifact_hash"] != base
print(n)
PY
)
[ "${applied:-0}" -gt 0 ] && pass "$applied compiled gfx942 candidates differ from the baseline (the spec applied)" \
  || fail "no gfx942 candidate applied"

echo "== an ONNX model (MiniLM 1x128): import, entry and inputs from the model"
if ! "$venv/bin/python" -c "import onnx" 2>/dev/null; then
  fail "the onnx package is missing from $venv (scripts/setup.sh installs it)"
else
  minilm=$work/minilm
  mkdir -p "$minilm" && cp "$source_dir/examples/minilm/tune.toml" "$minilm/"
  "$venv/bin/python" "$source_dir/examples/minilm/make_static.py" "$minilm/model.onnx" >/dev/null \
    || fail "make_static.py"
  quick "$minilm/tune.toml" 1
  sed -i '/^top_k = /d; s/^\[tune\]/[tune]\ntop_k = 2/' "$minilm/tune.toml"
  # Data tiling given, not searched: the dump holds data-tiled dispatches
  # whatever this machine's timings are.
  flags=(--iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu
         --iree-llvmcpu-target-cpu=host --iree-global-opt-data-tiling
         --iree-global-opt-enable-early-materialization)
  sed -i -e 's/^flag_sets = .*/flag_sets = []/' \
    -e 's/"--iree-llvmcpu-target-cpu=host"\]/"--iree-llvmcpu-target-cpu=host", "--iree-global-opt-data-tiling", "--iree-global-opt-enable-early-materialization"]/' \
    "$minilm/tune.toml"
  "$retune" plan "$minilm/tune.toml" -B "$minilm/build" >/dev/null 2>&1 || fail "retune plan (onnx)"
  out=$(ninja -C "$minilm/build" tune 2>&1); rc=$?
  [ $rc -eq 0 ] && pass "ninja tune on an ONNX model exits 0" || { fail "ninja tune exit $rc"; echo "$out" | tail -30; }
  expect_contains "$out" "IMPORT" "the model is imported by iree-import-onnx"
  # 69 MB of ONNX: [model] parameters = "auto" puts the weights in an archive
  # that every run of the model is given; the module the compiles parse is small.
  [ -s "$minilm/build/import/model.irpa" ] && [ "$(stat -c %s "$minilm/build/import/model.mlir")" -lt 1000000 ] \
    && pass "the weights are imported as a parameter archive" || fail "the weights were imported inline"
  expect_contains "$(json_field "$minilm/build/dispatches/index.json" 'len(d["dispatches"]) >= 5')" "True" \
    "the encoder's dispatches are dumped"
  expect_contains "$(cat "$minilm"/build/model/baseline.bench.json.0 2>/dev/null)" "BM_main_graph" \
    "the model benchmark runs @main_graph, read from the signature"
  # Data-tiled dispatches are what they are: every candidate of a
  # batch_mmt4d or mmt4d dispatch is a data-tiled one (Mmt4dTilingExpert),
  # never the plain contraction space's (which ran 14-26x slower).
  tiled=$(python3 - "$minilm/build" <<'PY'
import glob, json, os, sys
build = sys.argv[1]
tiled, wrong = 0, []
for index in glob.glob(build + "/candidates/*/index.json"):
    d = json.load(open(index))
    problem = json.load(open(f"{build}/dispatches/{d['dispatch']}/problem.json"))["dispatches"][0]
    if "mmt4d" not in problem["problem"].get("op", problem["name"]):
        continue
    tiled += 1
    wrong += [c["file"] for c in d["candidates"] if c["config"].get("pipeline") != "Mmt4dTilingExpert"]
print(tiled, len(wrong))
PY
)
  set -- $tiled
  [ "${1:-0}" -ge 1 ] && [ "${2:-1}" -eq 0 ] \
    && pass "$1 data-tiled dispatch(es) got data-tiled candidates only" \
    || fail "data-tiled candidates: $tiled (dispatches, wrong candidates)"
  # A candidate's spec reaches the whole model: compiled with those flags
  # and a tuned batch_mmt4d dispatch's candidate, the model's module differs
  # from the one without it. (IREE's late encoding materialization hid every
  # data-tiled dispatch from the spec's matchers; see ModelFlags.cpp.)
  spec=$(ls "$minilm"/build/candidates/*/0.spec.mlir | head -1)
  # (One thread with a spec, as Retune compiles: IREE 3.13 can deadlock
  # loading a spec on a threaded compile; see compileArgs in IreeRun.cpp.)
  timeout 300 "$venv/bin/iree-compile" "$minilm/build/import/model.mlir" "${flags[@]}" -o "$work/plain.vmfb" \
    && timeout 300 "$venv/bin/iree-compile" "$minilm/build/import/model.mlir" "${flags[@]}" \
         --iree-codegen-tuning-spec-path="$spec" --mlir-disable-threading -o "$work/spec.vmfb" \
    || fail "iree-compile of the model with and without the candidate's spec"
  cmp -s "$work/plain.vmfb" "$work/spec.vmfb" && fail "the candidate's spec does not change the whole model" \
    || pass "the candidate's spec changes the whole model's module"
fi

echo "== the fake iree-opt links specs as IREE's linker does"
# Retune links with iree-opt --iree-codegen-link-tuning-specs; the tests'
# fake iree-opt answers with a text linker (tests/fakes/TextSpecLinker.h).
# On real specs (MiniLM's and the ROCm matmul's first candidates, with a
# name clash in every one) both must give the same module, as iree-opt
# prints them.
specs=$(ls "$minilm"/build/candidates/*/0.spec.mlir "$rocm"/build/candidates/*/[01].spec.mlir 2>/dev/null | head -4)
if [ "$(echo "$specs" | grep -c .)" -ge 2 ]; then
  { echo 'module attributes {transform.with_named_sequence} {'; cat $specs; echo '}'; } >"$work/specs.mlir"
  "$venv/bin/iree-opt" --iree-codegen-link-tuning-specs "$work/specs.mlir" -o "$work/iree-linked.mlir" \
    && "$tools/../tests/fakes/bin/fake-iree-link" "$work/specs.mlir" "$work/text-linked.mlir" \
    && "$venv/bin/iree-opt" "$work/iree-linked.mlir" -o "$work/iree-linked.printed.mlir" \
    && "$venv/bin/iree-opt" "$work/text-linked.mlir" -o "$work/text-linked.printed.mlir" \
    || fail "linking $(echo $specs | wc -w) specs with IREE's and the fake's linker"
  cmp -s "$work/iree-linked.printed.mlir" "$work/text-linked.printed.mlir" \
    && pass "$(echo $specs | wc -w) specs: the fake's link is IREE's, as iree-opt prints it" \
    || { fail "the fake's link differs from IREE's"; diff "$work/iree-linked.printed.mlir" "$work/text-linked.printed.mlir" | head -20; }
else
  fail "fewer than two candidate specs to link"
fi

echo "== $failures failure(s)"
[ $failures -eq 0 ]
