"""Times IREE default, IREE + Retune's spec and onnxruntime on the same model,
interleaved round by round in one process tree, at 1 and 2 threads, and
prints one table. Called by bench/iree/models.sh, which tunes the models
first; see there.

usage: measure.py <venv bin> <name> <model.mlir> <tuning_spec.mlir> <onnx|-> \
                  [--flags-file <compile_flags.txt>] \
                  [--mlir-cpu <model/result.json of the mlir-cpu backend>] \
                  [--threads 1 [2]] [--json <medians.json>]

"IREE+Retune" is the model compiled the way Retune says: the flags of
compile_flags.txt (the model-level search's choice), the tuning spec and
the configured executables beside it (executables/, where there are any);
with a flags file, "flags only" is the same build without the spec, so the
table separates what the flag choice gains from what the spec adds.

Each time is the median of the samples of a build's runs, without the runs
the machine slowed as a whole (over 1.25x the build's fastest run, as
Retune's model step judges; a line says which were set aside).
"""
import argparse
import filecmp
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

CPU_FLAGS = ["--iree-hal-target-device=local",
             "--iree-hal-local-target-device-backends=llvm-cpu",
             "--iree-llvmcpu-target-cpu=host"]
ROUNDS = 5
REPETITIONS = 5


def compile_model(bin_dir, model, spec, out, flags=CPU_FLAGS):
    # One thread with a spec, as Retune compiles (docs/iree-backend.md).
    spec_flags = ([f"--iree-codegen-tuning-spec-path={spec}",
                   "--mlir-disable-threading"] if spec else [])
    # The winners the spec does not reach in the model come as configured
    # executables in executables/ beside it (docs/iree-backend.md).
    executables = os.path.join(os.path.dirname(spec), "executables") if spec else ""
    if executables and os.path.isdir(executables) and os.listdir(executables):
        spec_flags.append(
            f"--iree-hal-substitute-executable-configurations-from={executables}")
    subprocess.run([f"{bin_dir}/iree-compile", model, *flags, *spec_flags,
                    "-o", out], check=True)


def device_flags(threads):
    # IREE's caching allocator, as Retune measures (docs/iree-backend.md):
    # with the default one each run faults its transient buffers in anew,
    # while onnxruntime keeps its arena.
    allocator = "--device_allocator=caching"
    if threads == 1:
        return ["--device=local-sync", allocator]
    return ["--device=local-task", f"--task_topology_group_count={threads}",
            allocator]


def iree_samples(bin_dir, vmfb, function, inputs, threads, extra=()):
    """Seconds per call: real_time of every repetition; `extra`: further
    flags (a parameter archive)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(
            [f"{bin_dir}/iree-benchmark-module", f"--module={vmfb}",
             f"--function={function}", *device_flags(threads),
             *[f"--input={i}" for i in inputs], *extra,
             f"--benchmark_repetitions={REPETITIONS}",
             # As Retune times models: the first run warms up, unsampled.
             "--benchmark_min_warmup_time=0.1",
             "--benchmark_report_aggregates_only=false",
             f"--benchmark_out={out.name}", "--benchmark_out_format=json"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rows = json.load(open(out.name))["benchmarks"]
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    return [r["real_time"] * scale[r["time_unit"]] for r in rows
            if r.get("run_type") == "iteration"]


# As Retune's model step (kSlowedRunFactor, docs/file-formats.md "Ratio and
# noise"): a run more than this much slower than its build's fastest run
# was slowed by the machine (at 2 threads this VM has phases of seconds that
# slow everything 1.3-1.7x), and its samples say nothing of the build.
SLOWED_RUN = 1.25


def steady_runs(runs):
    """The runs (lists of samples) not slowed as a whole by the machine."""
    fastest = min(statistics.median(run) for run in runs)
    return [run for run in runs if statistics.median(run) <= fastest * SLOWED_RUN]


def ort_session(onnx_path, threads):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(onnx_path, options,
                                providers=["CPUExecutionProvider"])


def ort_feeds(session):
    rng = np.random.default_rng(1)
    feeds = {}
    for i in session.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        if "int64" in i.type:
            feeds[i.name] = rng.integers(0, 2, size=shape, dtype=np.int64)
        else:
            feeds[i.name] = rng.uniform(-1, 1, size=shape).astype(np.float32)
    return feeds


def ort_samples(session, feeds, seconds=0.5):
    for _ in range(3):
        session.run(None, feeds)
    samples, start = [], time.perf_counter()
    while time.perf_counter() - start < seconds or len(samples) < REPETITIONS:
        t = time.perf_counter()
        session.run(None, feeds)
        samples.append(time.perf_counter() - t)
    return samples


def signature_inputs(model):
    """--input values from the entry's signature (as Retune reads them)."""
    import re
    text = open(model, errors="replace").read(1 << 20)
    # A quoted name too: @"Model from PaddlePaddle." (rapidocr's detector).
    m = re.search(r'func\.func @(\w+|"[^"]*")\((.*?)\)\s*->', text, re.S)
    inputs = []
    types = {"f32": "f32", "f16": "f16", "si64": "i64", "si32": "i32"}
    for t in re.findall(r"(?<!v)tensor<([0-9x]+)x(f32|f16)>|"
                        r"vtensor<\[([0-9,]+)\],(f32|f16|si64|si32)>",
                        m.group(2)):
        inputs.append(f"{t[0]}x{t[1]}" if t[0] else
                      "x".join(t[2].split(",")) + "x" + types[t[3]])
    return m.group(1).strip('"'), inputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("name")
    parser.add_argument("model")
    parser.add_argument("spec")
    parser.add_argument("onnx")
    parser.add_argument("--flags-file")
    parser.add_argument("--mlir-cpu")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--json", help="write the medians (ms) here")
    parser.add_argument("--tuned-model",
                        help="the model the tuned (and flags-only) builds compile, when "
                             "Retune rewrote it (flags/chosen.json's input); default: model")
    parser.add_argument("--parameters",
                        help="the parameter archive (scope `model`) of a model imported "
                             "with its weights external")
    args = parser.parse_args()
    # The builds (hundreds of MB for the zoo's models) go when the process
    # exits, also on an error.
    scratch = tempfile.TemporaryDirectory()
    work = scratch.name
    default_vmfb, tuned_vmfb = f"{work}/default.vmfb", f"{work}/tuned.vmfb"
    compile_model(args.bin_dir, args.model, None, default_vmfb)
    tuned_flags = CPU_FLAGS
    if args.flags_file:
        tuned_flags = [f for f in open(args.flags_file).read().split("\n") if f]
        print(f"{args.name:8} Retune's compile flags: {' '.join(tuned_flags)}")
    tuned_model = args.tuned_model or args.model
    if args.tuned_model:
        print(f"{args.name:8} Retune's model: {tuned_model}")
    compile_model(args.bin_dir, tuned_model, args.spec, tuned_vmfb, tuned_flags)
    builds = {"default": default_vmfb, "tuned": tuned_vmfb}
    # An empty spec (or one that matches nothing) builds the flags' module
    # byte for byte: timing it twice would report noise as the spec's gain.
    one_module = False
    if args.flags_file:
        flags_vmfb = f"{work}/flags.vmfb"
        compile_model(args.bin_dir, tuned_model, None, flags_vmfb, tuned_flags)
        one_module = filecmp.cmp(flags_vmfb, tuned_vmfb, shallow=False)
        builds = {"default": default_vmfb, "flags": flags_vmfb}
        if one_module:
            print(f"{args.name:8} the spec leaves the module as the flags "
                  f"build it: one module, timed once")
        else:
            builds["tuned"] = tuned_vmfb
    function, inputs = signature_inputs(args.model)
    extra = [f"--parameters=model={args.parameters}"] if args.parameters else []
    medians = {}
    for threads in args.threads:
        # Per build, the samples of each run (one process, or one round of
        # onnxruntime).
        times = {name: [] for name in [*builds, "ort"]}
        session = ort_session(args.onnx, threads) if args.onnx != "-" else None
        feeds = ort_feeds(session) if session else None
        names = list(builds)
        for r in range(ROUNDS):
            # Interleaved, so drift hits all alike, and each round starts
            # one build later, so no build always runs right after another.
            for name in names[r % len(names):] + names[:r % len(names)]:
                times[name].append(iree_samples(args.bin_dir, builds[name],
                                                function, inputs, threads,
                                                extra))
            if session:
                times["ort"].append(ort_samples(session, feeds))
        if one_module:
            times["tuned"] = times["flags"]
        med, aside = {}, []
        for k, runs in times.items():
            if runs:
                steady = steady_runs(runs)
                med[k] = statistics.median(
                    [t for run in steady for t in run]) * 1e3
                if len(steady) < len(runs):
                    aside.append(f"{k} {len(runs) - len(steady)}")
        if aside:
            print(f"{args.name:8} {threads}T  runs the machine slowed (over "
                  f"{SLOWED_RUN:.2f}x the build's fastest run), set aside: "
                  + ", ".join(aside), flush=True)
        ort = f"{med['ort']:8.2f} ms" if "ort" in med else "       -   "
        flags = (f"  flags only {med['flags']:8.2f} ms" if "flags" in med
                 else "")
        line = (f"{args.name:8} {threads}T  IREE default {med['default']:8.2f} ms"
                f"{flags}  IREE+Retune {med['tuned']:8.2f} ms  onnxruntime {ort}"
                f"  tuned/default {med['default'] / med['tuned']:5.2f}x")
        if "flags" in med:
            line += f"  spec on the flags {med['flags'] / med['tuned']:5.2f}x"
        if "ort" in med:
            line += f"  tuned vs onnxruntime {med['ort'] / med['tuned']:5.2f}x"
        print(line, flush=True)
        medians[f"{threads}T"] = med
    if args.json:
        with open(args.json, "w") as out:
            json.dump(medians, out)
    if args.mlir_cpu:
        r = json.load(open(args.mlir_cpu))
        print(f"{args.name:8} 1T  embedded mlir-cpu backend (its own "
              f"interleaved run): default {r['baseline_median_s'] * 1e3:.2f} ms,"
              f" tuned {r['tuned_median_s'] * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
