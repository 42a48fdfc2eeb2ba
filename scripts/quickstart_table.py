"""The quickstart's closing table: the model as IREE builds it by default,
as Retune says to build it (chosen flags + tuning spec), and onnxruntime at
the same thread count, measured interleaved round by round in this process
tree, then what Retune chose and where the report is.

usage: quickstart_table.py <venv bin> <build dir> <model.onnx> [--threads N]

It measures the modules the tune left in the build directory
(flags/default.vmfb: IREE's default flags; model/shipped.vmfb: Retune's flags
and spec, the build the model step decided on), so it compiles nothing.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench", "iree"))
import measure  # noqa: E402  (bench/iree/measure.py: the same timing code)

ROUNDS = 3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("build")
    parser.add_argument("onnx")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    build = args.build
    summary = json.load(open(f"{build}/report/summary.json"))
    modules = {"IREE default": f"{build}/flags/default.vmfb",
               "Retune (flags + spec)": f"{build}/model/shipped.vmfb"}
    for name, path in modules.items():
        if not os.path.exists(path):
            sys.exit(f"quickstart: {path} is missing; run `ninja -C {build} tune` again")
    function, inputs = measure.signature_inputs(f"{build}/import/model.mlir")
    # Weights imported as parameters ([model] parameters): both builds need them.
    archive = f"{build}/import/model.irpa"
    extra = [f"--parameters=model={archive}"] if os.path.exists(archive) else []
    session = measure.ort_session(args.onnx, args.threads)
    feeds = measure.ort_feeds(session)
    times = {name: [] for name in modules}
    times["onnxruntime"] = []
    for _ in range(ROUNDS):  # interleaved: drift hits all three alike
        for name, path in modules.items():
            times[name] += measure.iree_samples(args.bin_dir, path, function,
                                                inputs, args.threads, extra)
        times["onnxruntime"] += measure.ort_samples(session, feeds)
    med = {k: statistics.median(v) * 1e3 for k, v in times.items()}
    base = med["IREE default"]
    print(f"\nwhole model, {args.threads} thread(s), median of "
          f"{ROUNDS} interleaved rounds measured just now:")
    print(f"  {'':24} {'time':>10} {'vs IREE default':>16}")
    for name, ms in med.items():
        print(f"  {name:24} {ms:7.2f} ms {base / ms:15.2f}x")
    m = summary["model"]
    chosen = summary.get("compile_flags", {}).get("chosen", [])
    print("\nwhat Retune chose:")
    print(f"  compile flags: {' '.join(chosen) if chosen else 'IREE defaults (no set won)'}")
    kept = m.get("winners_kept", [])
    spec = f"{len(kept)} dispatch config(s) kept" if kept else "empty"
    print(f"  tuning spec:   {spec}; {m['decision']}")
    if m.get("why_no_winner"):
        print(f"                 why: {m['why_no_winner']}")
    shares = ""
    if "flags_speedup" in m:
        shares = f" (flags {m['flags_speedup']:.2f}x, spec {m['spec_speedup']:.2f}x)"
    print(f"  Retune's own measurement during the tune: {m['speedup']:.2f}x{shares}")
    print(f"\nreport:      {build}/report/index.html (summary.json beside it)")
    print(f"tuning spec: {build}/tuning_spec.mlir, flags: {build}/compile_flags.txt")
    executables = os.path.join(build, "executables")
    if os.path.isdir(executables) and os.listdir(executables):
        print(f"configured executables (the spec cannot reach them): {executables}/")


if __name__ == "__main__":
    main()
