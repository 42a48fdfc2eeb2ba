#!/usr/bin/env bash
# End-to-end tests of re-tuning after a compiler change: the previous
# winners are verified first (pipeline/Reverify.h), kept when they still
# win, and searched again when they fail or no longer apply.
# usage: reverify_e2e.sh <tool dir> <scratch dir>
. "$(dirname "$0")/common.sh" "$@"

rm -rf "$work" && mkdir -p "$work"
export RETUNE_MIN_CPU_SHARE=0
export RETUNE_CACHE_DIR=$work/cache
repo=$work/repo
mkdir -p "$repo"
cp "$here/tiny/model.mlir" "$repo/model.mlir"
# Every compile gets --retune-default-scalar: a deliberately weak default
# heuristic (scalar code) that every vectorized candidate beats on any CPU,
# so both dispatches have a winner to verify whatever this machine is.
write_toml() { # <more compile flags (TOML array items)>
  printf '[model]\npath = "model.mlir"\nentry = "forward"\n[tune]\ncandidates = 4\n[bench]\nrepetitions = 3\n[select]\nmargin = 0.02\n[mlir-cpu]\ncompile_flags = ["--retune-default-scalar"%s]\n' \
    "${1:+, $1}" >"$repo/tune.toml"
}
summary=$repo/build/report/summary.json
winners() { json_field "$summary" '" ".join(x["id"] for x in d["dispatches"] if x["winner"] is not None)'; }

echo "== a first tune finds winners"
write_toml ''
"$retune" plan "$repo/tune.toml" -B "$repo/build" || fail "retune plan"
out=$(ninja -C "$repo/build" tune 2>&1) || { fail "first ninja tune"; echo "$out" | tail -20; }
ids=($(winners))
[ ${#ids[@]} -eq 2 ] && pass "both dispatches have a winner to verify later" \
  || { fail "${#ids[@]} winner(s) against the weak baseline; expected 2"; exit 1; }

echo "== a compiler flag that changes the identity, not the code: winners kept, nothing searched"
write_toml '"--x86-asm-syntax=intel"'
out=$(ninja -C "$repo/build" tune 2>&1) || { fail "ninja tune after the change"; echo "$out" | tail -20; }
expect_contains "$out" "winner(s) of the previous compiler are verified first" "the plan says it verifies first"
expect_contains "$out" "COMPILE verify/${ids[0]}/artifacts/0.json" "the previous winner compiles with the new compiler"
for id in "${ids[@]}"; do
  expect_contains "$(json_field "$summary" "[x['after_compiler_change']['previous_winner'] for x in d['dispatches'] if x['id'] == '$id']")" \
    "['kept']" "summary.json: dispatch $id's previous winner kept"
  expect_contains "$(json_field "$repo/build/candidates/$id/index.json" 'len(d["candidates"]), d["reverify"]["decision"]')" \
    "1 kept" "dispatch $id: its winner is the only candidate"
done
searched=$(grep -c "COMPILE artifacts/${ids[0]}/[1-9]" <<<"$out")
[ "$searched" -eq 0 ] && pass "no other candidate of a kept dispatch compiled" || fail "$searched search compiles"
expect_contains "$out" "after the compiler change, " "the console says what became of each winner"
out=$(ninja -C "$repo/build" tune 2>&1)
expect_contains "$out" "no work to do" "a second run after the change does no work"

echo "== a winner that no longer applies, and one that fails, are searched again"
# As if the dispatch's code no longer matched: the recorded winner is a spec
# written for another dispatch (its matcher does not hit this one).
other=$(json_field "$repo/build/dispatches/index.json" "[x['id'] for x in d['dispatches'] if x['id'] != '${ids[0]}'][0]")
python3 - "$repo/build/best/${ids[0]}.json" "$other" <<'PY'
import json, sys
path, other = sys.argv[1], sys.argv[2]
record = json.load(open(path))
record["spec"] = f"candidates/{other}/0.spec.mlir"
json.dump(record, open(path, "w"))
PY
write_toml '"--x86-asm-syntax=att"'
out=$(RETUNE_INJECT_FAULT="crash:verify/${ids[1]}/" ninja -C "$repo/build" tune 2>&1) \
  || { fail "ninja tune after the second change"; echo "$out" | tail -20; }
expect_contains "$(json_field "$summary" "[x['after_compiler_change']['why'][:17] for x in d['dispatches'] if x['id'] == '${ids[0]}']")" \
  "['no longer applies']" "summary.json: a winner whose matcher misses is detected and re-searched"
expect_contains "$(json_field "$repo/build/verify/${ids[0]}/results/0.json" 'd["status"]')" "not_applied" \
  "its verification is not_applied (the code is the baseline's)"
expect_contains "$(json_field "$repo/build/candidates/${ids[0]}/index.json" 'len(d["candidates"]) > 1, d["reverify"]["decision"]')" \
  "True re-searched" "the whole space is searched again"
expect_contains "$(json_field "$summary" "[x['after_compiler_change']['why'] for x in d['dispatches'] if x['id'] == '${ids[1]}']")" \
  "['fails with the new compiler (crash)']" "summary.json: a winner that crashes the new compiler is re-searched"

echo "== a damaged verify round is detected, and the dispatch searched"
printf '// edited\n' >>"$repo/build/verify/${ids[1]}/candidates/0.spec.mlir"
out=$(ninja -C "$repo/build" tune 2>&1) || { fail "ninja tune with an edited verify spec"; echo "$out" | tail -20; }
expect_contains "$out" "is missing or not what the candidates step wrote" "the edited spec is named"
expect_contains "$(json_field "$repo/build/candidates/${ids[1]}/index.json" 'len(d["candidates"]) > 1, "reverify" in d')" \
  "True False" "the round is dropped: the whole space is searched, nothing verified"
# A deleted one stops Ninja with the file named; planning again drops it.
rm -rf "$repo/build/verify"
out=$(ninja -C "$repo/build" tune 2>&1) && fail "ninja tune with the verify rounds deleted succeeded"
expect_contains "$out" "verify/" "the missing verify file is named"
"$retune" plan "$repo/tune.toml" -B "$repo/build" && out=$(ninja -C "$repo/build" tune 2>&1) \
  && pass "planning again recovers" || { fail "planning again did not recover"; echo "$out" | tail -20; }

echo
[ $failures -eq 0 ] && echo "all end-to-end checks passed" || echo "$failures end-to-end checks failed"
exit $((failures > 0))
