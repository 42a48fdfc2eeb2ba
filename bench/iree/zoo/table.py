"""Prints the model-zoo table of bench/iree/zoo.sh: per model, the medians
measure.py wrote (IREE default, IREE with Retune's flags alone, with its
flags + spec, onnxruntime) and what the tune did (from the build's
report/summary.json and flags/chosen.json).

usage: table.py [--threads N] <work dir> <model>...
       (reads <work>/<model>/build and <work>/<model>/medians.json)
"""
import collections
import json
import sys


def tune_facts(build):
    summary = json.load(open(f"{build}/report/summary.json"))
    dispatches = summary["dispatches"]
    searched = [d for d in dispatches if d.get("candidates", 0) > 0]
    won = [d for d in dispatches if d.get("winner")]
    skipped = [d for d in dispatches if d.get("candidates", 0) == 0]
    reasons = collections.Counter(d.get("note") or d.get("reason", "?")
                                  for d in skipped)
    ok = sum(d.get("candidates_ok", 0) for d in dispatches)
    total = sum(d.get("candidates", 0) for d in dispatches)
    try:
        kept = len(json.load(open(f"{build}/model/result.json")).get(
            "winners_kept", []))
    except (OSError, ValueError):
        kept = None
    room = summary.get("model", {}).get("room_for_spec")
    return {"problems": len(dispatches), "searched": len(searched),
            "ceiling": room["ceiling"] if room else None,
            "kept": kept,
            "won": len(won),
            "skipped": len(skipped), "reasons": reasons,
            "compiled": f"{ok}/{total}",
            "flags": summary.get("compile_flags", {}).get("chosen", [])}


def flag_outcomes(build):
    chosen = json.load(open(f"{build}/flags/chosen.json"))
    for s in chosen.get("sets", []):
        bound = (f", below {s['ratio_upper']:.3f}x with 97.5% confidence"
                 if s.get("ratio_upper") else "")
        what = (f"{s['ratio']:.3f}x the default's time{bound}"
                if s.get("ratio")
                else f"{s.get('status')}: {s.get('message', '')[:90]}")
        flags = " ".join(s.get("flags", [])) or "default flags"
        if s.get("input"):
            flags += f" on {s['input']}"
        yield flags, what


def rewrites(build):
    """What the flag search rewrote in the model (flags/chosen.json)."""
    chosen = json.load(open(f"{build}/flags/chosen.json"))
    for line in chosen.get("rewritten", []):
        yield f"rewritten: {line}"
    for line in chosen.get("not_rewritten", []):
        yield f"not rewritten: {line}"
    if chosen.get("input"):
        yield f"the chosen set builds from {chosen['input']}"


def hottest_in_model(build, count=5):
    """The model step's profile of the build it started from (the chosen
    flags): per dispatch function its time per model run."""
    try:
        profile = json.load(open(f"{build}/model/result.json")).get(
            "in_model_profile", [])
    except (OSError, ValueError):
        return []
    rows = [(p["baseline_us"] * p["calls_per_run"], p) for p in profile]
    total = sum(t for t, _ in rows) or 1
    rows.sort(key=lambda r: -r[0])
    return [(t, t / total, p) for t, p in rows[:count]]


def model_step(build):
    """What the model step decided, where the spec reached, and each
    trial's verdict."""
    try:
        result = json.load(open(f"{build}/model/result.json"))
    except (OSError, ValueError):
        return []
    lines = [f"model step: {result.get('decision', '')}"]
    if result.get("spec_reach"):
        lines.append(f"spec reach: {result['spec_reach']}")
    for e in result.get("executables", []):
        lines.append(f"kept as configured executable: {e['executable']} "
                     f"({e['dispatch']})")
    for t in result.get("in_model_trials", []):
        lines.append(f"trial {t.get('dispatch', '')}: "
                     f"{t.get('measured', t.get('failed', ''))}")
    return lines


def main():
    args = sys.argv[1:]
    threads = 1
    if args[:1] == ["--threads"]:
        threads, args = int(args[1]), args[2:]
    work, models = args[0], args[1:]
    print(f"{'model':8} {'IREE default':>13} {'flags only':>11} "
          f"{'IREE+Retune':>12} {'onnxruntime':>12} {'tuned/default':>14} "
          f"{'spec':>6} {'ceiling':>7} {'vs ort':>7}  "
          f"problems searched skipped winners compiled")
    facts = {}
    for m in models:
        med = json.load(open(f"{work}/{m}/medians.json"))[f"{threads}T"]
        f = facts[m] = tune_facts(f"{work}/{m}/build")
        default, tuned, ort = med["default"], med["tuned"], med.get("ort")
        flags = med.get("flags")
        flags_ms = f"{flags:8.2f} ms" if flags else "       -   "
        # An empty spec: flags only and IREE+Retune are one module, and
        # their ratio is noise, not a gain.
        spec = ("empty " if f["kept"] == 0 else
                f"{flags / tuned:5.2f}x" if flags else "    - ")
        ceiling = f"{f['ceiling']:6.2f}x" if f["ceiling"] else "     - "
        ort_ms = f"{ort:9.2f} ms" if ort else "        -   "
        vs_ort = f"{ort / tuned:6.2f}x" if ort else "     - "
        print(f"{m:8} {default:10.2f} ms {flags_ms} {tuned:9.2f} ms {ort_ms} "
              f"{default / tuned:13.2f}x {spec} {ceiling} {vs_ort}  "
              f"{f['problems']:8} {f['searched']:8} {f['skipped']:7} "
              f"{f['won']:7} {f['compiled']:>8}")
    print(f"({threads} thread{'s' if threads > 1 else ''}, median ms; IREE "
          "runs on its caching allocator (--device_allocator=caching); flags "
          "only: Retune's compile flags without its spec; spec: what the spec "
          "adds on top of those flags (empty: no winner kept, the two are one "
          "module); ceiling: the most any spec could add, with the time "
          "above what the dispatches' FLOPs take at this CPU's peak rate "
          "all gone (report/summary.json's room_for_spec); vs ort > 1: "
          "IREE+Retune is faster than "
          "onnxruntime; searched: dispatches with candidates; winners: "
          "dispatches that beat IREE's default; compiled: candidates that "
          "compiled / generated)")
    for m in models:
        f = facts[m]
        print(f"\n{m}: compile flags chosen: {' '.join(f['flags']) or '(default)'}")
        for line in rewrites(f"{work}/{m}/build"):
            print(f"  {line}")
        for flags, what in flag_outcomes(f"{work}/{m}/build"):
            print(f"  flag set [{flags}]: {what}")
        for reason, n in f["reasons"].most_common():
            print(f"  skipped {n}: {reason}")
        for line in model_step(f"{work}/{m}/build"):
            print(f"  {line}")
        for us, share, p in hottest_in_model(f"{work}/{m}/build"):
            tuned = " (tuned)" if p.get("dispatch") else ""
            print(f"  in the model: {us / 1e3:8.3f} ms/run {share:6.1%}  "
                  f"{p['calls_per_run']:3}x {p['function']}{tuned}")


if __name__ == "__main__":
    main()
