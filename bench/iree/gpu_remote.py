#!/usr/bin/env python3
"""Tune GPU dispatches here, time them on a machine that has the GPU.

This machine has no GPU; a GPU machine is lent now and then, without Retune's
build on it. So the candidates are generated, compiled and selected here by
the real pipeline, and only the benchmarks run there:

  prepare  tune each case here with bench/iree/gpu_replay as the benchmark
           tool; every module it has no GPU record for is collected (module +
           arguments) into <bundle>/wanted
  device   (on the GPU machine) run the real iree-benchmark-module on each
           wanted module with its arguments; the outputs go to <out>/records.tar
  ingest   unpack records.tar into the replay's records, then `prepare` again
           finishes the tunes from the recorded outputs
  table    per dispatch: IREE's own config vs the best candidate, as timed on
           the GPU

usage: gpu_remote.py prepare <repo> <scratch> <bundle> [--cases a,b] [--candidates N]
                              [--order auto|heuristic|...] [--target sm_80]
       gpu_remote.py device <bundle> <out> [--budget-s S]
       gpu_remote.py ingest <records.tar> <scratch>
       gpu_remote.py table <scratch>
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def cases():
    sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e"))
    import rocm_corpus as rc
    return {
        "mm_nn_2048x1280x1280": rc.contraction(0, 2048, 1280, 1280, "mk", "kn"),
        "mm_nt_1024x1280x1280": rc.contraction(0, 1024, 1280, 1280, "mk", "nk"),
        "bmm_8x512x384x256": rc.contraction(8, 512, 384, 256, "mk", "kn"),
        "mm_bf16_1024x1024x1024": rc.contraction(0, 1024, 1024, 1024, "mk", "kn", "bf16", "f32"),
        "conv_2x34x34x1280_3x3x1280": rc.conv(2, 34, 34, 1280, 3, 3, 1280),
        "conv_s2_1x65x65x64_3x3x128": rc.conv(1, 65, 65, 64, 3, 3, 128, stride=2),
    }


def tune_toml(entry, tools, target, candidates, order):
    """The corpus's tune.toml (tests/e2e/rocm_corpus.py) with this run's
    candidate count and order."""
    import rocm_corpus as rc
    rc.SAMPLE = candidates
    return rc.tune_toml(target, "tile_and_fuse", order, tools, entry)


def replay_tools(repo, scratch):
    """IREE's tools from the repository's .venv, with the replaying
    iree-benchmark-module in place of the real one."""
    tools = os.path.join(scratch, "tools")
    shutil.rmtree(tools, ignore_errors=True)
    os.makedirs(tools)
    for tool in glob.glob(os.path.join(repo, ".venv", "bin", "iree-*")):
        os.symlink(tool, os.path.join(tools, os.path.basename(tool)))
    os.remove(os.path.join(tools, "iree-benchmark-module"))
    os.symlink(os.path.join(HERE, "gpu_replay", "iree-benchmark-module"),
               os.path.join(tools, "iree-benchmark-module"))
    return tools


def prepare(a):
    repo, scratch = os.path.abspath(a.repo), os.path.abspath(a.scratch)
    os.makedirs(scratch, exist_ok=True)
    tools = replay_tools(repo, scratch)
    records = os.path.join(scratch, "records")
    os.environ["RETUNE_GPU_RECORDS"] = records
    shutil.rmtree(os.path.join(records, "wanted"), ignore_errors=True)
    chosen = a.cases.split(",") if a.cases else list(cases())
    for name in chosen:
        d = os.path.join(scratch, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model.mlir"), "w") as f:
            f.write(cases()[name].replace("@NAME", "@" + name))
        with open(os.path.join(d, "tune.toml"), "w") as f:
            f.write(tune_toml(name, tools, a.target, a.candidates, a.order))
        build = os.path.join(d, "build")
        subprocess.run([os.path.join(repo, "build", "bin", "retune"), "plan",
                        os.path.join(d, "tune.toml"), "-B", build], check=True,
                       stdout=subprocess.DEVNULL)
        # Up to the link: the model step's output checks run iree-run-module
        # on the device, which this replay does not cover.
        r = subprocess.run(["ninja", "-C", build, "-k", "0", "spec/linked.mlir"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(f"{name}: ninja exit {r.returncode}")
    wanted = os.path.join(records, "wanted")
    bundle = os.path.abspath(a.bundle)
    shutil.rmtree(os.path.join(bundle, "wanted"), ignore_errors=True)
    os.makedirs(bundle, exist_ok=True)
    if os.path.isdir(wanted):
        shutil.copytree(wanted, os.path.join(bundle, "wanted"))
    else:
        os.makedirs(wanted)
    with open(os.path.join(bundle, "order.txt"), "w") as f:
        f.write("".join(f"{key} {path}\n" for key, path in device_order(wanted)))
    runtime = glob.glob(os.path.join(repo, ".venv", "lib", "python3*", "site-packages",
                                     "iree", "_runtime_libs", "iree-benchmark-module"))[0]
    os.makedirs(os.path.join(bundle, "bin"), exist_ok=True)
    shutil.copy(runtime, os.path.join(bundle, "bin"))
    shutil.copy(os.path.abspath(__file__), bundle)
    n = len(glob.glob(os.path.join(bundle, "wanted", "*.vmfb")))
    print(f"{n} modules wanted on the GPU; bundle: {bundle}")


def device_order(wanted):
    """Every case's IREE baseline first, then the cases' candidates in turn
    (the first of each, the second of each, ...): a run cut short by its
    budget still compares something for every case."""
    by_case = {}
    for path_file in glob.glob(os.path.join(wanted, "*.path")):
        key = os.path.basename(path_file)[:-5]
        path = open(path_file).read().strip()
        case = path.split("/build/")[0]
        name = os.path.basename(path)[:-5]
        rank = -1 if name == "baseline" else int(name) if name.isdigit() else 10**6
        by_case.setdefault(case, []).append((rank, key, path))
    lists = [sorted(v) for _, v in sorted(by_case.items())]
    order = []
    for i in range(max((len(l) for l in lists), default=0)):
        order += [(key, path) for l in lists if i < len(l) for _, key, path in [l[i]]]
    return order


def device(a):
    bundle, out = os.path.abspath(a.bundle), os.path.abspath(a.out)
    tool = os.path.join(bundle, "bin", "iree-benchmark-module")
    tar = tarfile.open(os.path.join(out, "records.tar"), "w")
    start = time.time()
    with open(os.path.join(bundle, "order.txt")) as f:
        keys = [line.split()[0] for line in f if line.strip()]
    done = 0
    for key in keys:
        if time.time() - start > a.budget_s:
            print(f"budget reached: {done} of {len(keys)} timed")
            break
        with open(os.path.join(bundle, "wanted", key + ".args")) as f:
            args = [l for l in f.read().splitlines() if l]
        cmd = [tool, "--module=" + os.path.join(bundle, "wanted", key + ".vmfb"),
               "--benchmark_format=json", f"--benchmark_repetitions={a.repetitions}"] + args
        t0 = time.time()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for suffix, text in ((".json", r.stdout), (".rc", str(r.returncode)), (".stderr", r.stderr)):
            path = os.path.join(out, key + suffix)
            with open(path, "w") as f:
                f.write(text)
            tar.add(path, arcname=key + suffix)
            os.remove(path)
        done += 1
        print(f"{key} rc={r.returncode} {time.time() - t0:.1f}s {r.stderr.strip()[:160]}", flush=True)
    tar.close()


def ingest(a):
    records = os.path.join(os.path.abspath(a.scratch), "records")
    os.makedirs(records, exist_ok=True)
    with tarfile.open(a.tar) as t:
        t.extractall(records)
    print(f"records: {len(glob.glob(os.path.join(records, '*.json')))}")


def table(a):
    """Medians from the bench records the tune wrote (the GPU's samples)."""
    print("| dispatch | IREE default | best candidate | speedup | timed | stopped early | Retune keeps |")
    print("|---|---|---|---|---|---|---|")
    for build in sorted(glob.glob(os.path.join(a.scratch, "*", "build"))):
        for measured in sorted(glob.glob(os.path.join(build, "measure", "*"))):
            load = lambda p: json.load(open(p))
            base = load(os.path.join(measured, "baseline.before.0.json"))["median_s"]
            cands = [load(p) for p in glob.glob(os.path.join(measured, "[0-9]*.json"))
                     if not p.endswith(".gbench.json")]
            ok = [c for c in cands if c["status"] == "ok"]
            early = sum("stopped after" in c["message"] for c in ok)
            best = min(c["median_s"] for c in ok)
            chosen = load(os.path.join(build, "best", os.path.basename(measured) + ".json"))
            keeps = "yes" if chosen.get("winner") is not None else "no"
            name = os.path.basename(os.path.dirname(build))
            print(f"| {name} | {base * 1e6:.1f} us | {best * 1e6:.1f} us | "
                  f"{base / best:.2f}x | {len(ok)}/{len(cands)} | {early} | {keeps} |")


def main():
    p = argparse.ArgumentParser()
    s = p.add_subparsers(dest="cmd", required=True)
    q = s.add_parser("prepare")
    q.add_argument("repo"); q.add_argument("scratch"); q.add_argument("bundle")
    q.add_argument("--cases", default="")
    q.add_argument("--candidates", type=int, default=16)
    q.add_argument("--target", default="sm_80")
    q.add_argument("--order", default="auto", help="[gpu] order")
    q = s.add_parser("device")
    q.add_argument("bundle"); q.add_argument("out")
    q.add_argument("--budget-s", type=float, default=400)
    q.add_argument("--repetitions", type=int, default=5)
    q = s.add_parser("ingest")
    q.add_argument("tar"); q.add_argument("scratch")
    q = s.add_parser("table")
    q.add_argument("scratch")
    a = p.parse_args()
    {"prepare": prepare, "device": device, "ingest": ingest, "table": table}[a.cmd](a)


if __name__ == "__main__":
    main()
