#!/usr/bin/env bash
# How much room a tuning spec has on a model's matmuls: for each f32
# contraction dispatch of a tuned iree build (dispatches/index.json), its
# time with IREE's own config on the dispatch benchmark (the tune's
# measure/<id>/baseline.before.0.json) next to OpenBLAS's sgemm on the same
# batch, M, N and K (numpy's OpenBLAS, timed here, best of five runs of
# twenty), as GFLOP/s and the ratio IREE / OpenBLAS. A dispatch IREE already
# runs at or above OpenBLAS's speed leaves a spec little to gain; one far
# below it is where the search should find something.
# usage: bench/iree/dispatch_vs_openblas.sh <build dir of a tuned model> [threads, default 1]
# Needs scripts/setup.sh (numpy comes with onnx in .venv/).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: dispatch_vs_openblas.sh <build dir of a tuned model> [threads]}
threads=${2:-1}
case $threads in ''|*[!0-9]*|0) echo "dispatch_vs_openblas.sh: threads $threads: give a count >= 1" >&2; exit 2 ;; esac
[ -f "$build/dispatches/index.json" ] || {
  echo "dispatch_vs_openblas.sh: $build/dispatches/index.json: not found; give the build dir of a model tuned with the iree backend (ninja tune)" >&2
  exit 2
}
# OpenBLAS picks its own kernel for this CPU: the environment's coretype
# and L2 overrides are for other benches.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS="$threads" \
  "$root/.venv/bin/python" - "$build" <<'PY'
import ctypes, glob, json, math, os, sys, time
import numpy as np

build = sys.argv[1]
libs = glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "*openblas*"))
kernel = "unknown"
for lib in libs:
    handle = ctypes.CDLL(lib)
    for name in ("scipy_openblas_get_corename64_", "openblas_get_corename64_",
                 "openblas_get_corename"):
        if hasattr(handle, name):
            getter = getattr(handle, name)
            getter.restype = ctypes.c_char_p
            kernel = getter().decode()
            break
print(f"OpenBLAS kernel: {kernel}, {os.environ['OPENBLAS_NUM_THREADS']} thread(s)")

def extent(problem, role):
    return math.prod(r for r, c in zip(problem["loop_ranges"], problem["dim_roles"]) if c == role)

def openblas_seconds(b, m, n, k):
    rng = np.random.default_rng(1)
    lhs = rng.random((b, m, k), dtype=np.float32)
    rhs = rng.random((b, k, n), dtype=np.float32)
    for _ in range(3):
        lhs @ rhs
    best = math.inf
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(20):
            lhs @ rhs
        best = min(best, (time.perf_counter() - start) / 20)
    return best

index = json.load(open(os.path.join(build, "dispatches", "index.json")))
print(f"{'dispatch':<58} {'BxMxNxK':>20} {'share':>6} {'IREE GF/s':>10} {'OpenBLAS GF/s':>14} {'IREE/OpenBLAS':>14}")
for d in sorted(index["dispatches"], key=lambda d: -d.get("share", 0)):
    p = d["problem"]
    if p["kind"] != "contraction" or set(p["element_types"]) != {"f32"}:
        continue
    record = os.path.join(build, "measure", d["id"], "baseline.before.0.json")
    if not os.path.exists(record):
        continue
    iree = json.load(open(record)).get("median_s", 0)
    if iree <= 0:
        continue
    b, m, n, k = (extent(p, r) for r in "bmnk")
    flops = 2.0 * b * m * n * k
    blas = openblas_seconds(b, m, n, k)
    print(f"{d['name'][-58:]:<58} {f'{b}x{m}x{n}x{k}':>20} {d.get('share', 0):6.1%} "
          f"{flops / iree / 1e9:10.1f} {flops / blas / 1e9:14.1f} {blas / iree:13.2f}x")
PY
