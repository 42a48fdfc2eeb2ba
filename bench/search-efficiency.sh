#!/usr/bin/env bash
# Search efficiency of the candidate orders. Tunes a corpus of 22 distinct
# dispatches (matmuls, transposed-B matmuls, batch matmuls, convolutions)
# with every candidate measured once (the heuristic's best COUNT, default
# 40, per dispatch), then `retune-ranker evaluate` prints, per dispatch, the
# trials until a candidate within 5% of its best: random order (the
# expectation over all orders), the heuristic's order, and the learned order
# of a model trained on the other dispatches (leave-one-dispatch-out). Ends
# with `trials to 5% of best (geomean): random R, heuristic H, learned L`.
# Target: L at most R / 4. Builds what it needs in build/.
# usage: bench/search-efficiency.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
tools=$build/bin
count=${COUNT:-40}
start=$(date +%s)
cmake --build "$build" --target retune retune-dump retune-candidates \
  retune-compile retune-bench retune-link retune-model retune-select \
  retune-report retune-ranker >/dev/null
work=$(mktemp -d)
# KEEP=1 keeps the tune's build directory (to train or evaluate again).
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$work"' EXIT; fi
# Whether a measurement is kept must not depend on the machine's load.
export RETUNE_MIN_CPU_SHARE=0

# One function with one fill + root op per dispatch, all results returned.
python3 - "$work/model.mlir" <<'PY'
import sys
matmuls = [(128, 128, 128), (256, 256, 256), (384, 256, 128), (64, 512, 256),
           (256, 64, 512), (192, 320, 128), (512, 128, 64), (96, 384, 192)]
transposed = [(256, 192, 256), (128, 384, 256)]
batch = [(4, 128, 128, 128), (8, 64, 128, 64), (2, 256, 256, 128),
         (16, 64, 64, 128)]
# n, output h/w, output channels, kernel h/w, input channels
convs = [(1, 16, 64, 3, 32), (1, 28, 32, 3, 16), (1, 14, 128, 3, 64),
         (1, 8, 256, 3, 128), (1, 32, 16, 3, 16), (1, 28, 64, 1, 64),
         (2, 12, 96, 3, 48), (1, 20, 48, 5, 24)]
args, results, body = [], [], []
def t(*dims): return "tensor<" + "x".join(map(str, dims)) + "xf32>"
def arg(ty):
    args.append((f"%a{len(args)}", ty)); return args[-1][0]
def root(i, out_ty, op):
    body.append(f"  %e{i} = tensor.empty() : {out_ty}")
    body.append(f"  %f{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {out_ty}) -> {out_ty}")
    body.append(f"  %r{i} = " + op.replace("INIT", f"%f{i}"))
    results.append((f"%r{i}", out_ty))
i = 0
for m, n, k in matmuls:
    a, b = arg(t(m, k)), arg(t(k, n))
    root(i, t(m, n), f"linalg.matmul ins({a}, {b} : {t(m, k)}, {t(k, n)}) outs(INIT : {t(m, n)}) -> {t(m, n)}"); i += 1
for m, n, k in transposed:
    a, b = arg(t(m, k)), arg(t(n, k))
    maps = ("indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
            "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]")
    root(i, t(m, n), f"linalg.matmul {maps} ins({a}, {b} : {t(m, k)}, {t(n, k)}) outs(INIT : {t(m, n)}) -> {t(m, n)}"); i += 1
for bb, m, n, k in batch:
    a, b = arg(t(bb, m, k)), arg(t(bb, k, n))
    root(i, t(bb, m, n), f"linalg.batch_matmul ins({a}, {b} : {t(bb, m, k)}, {t(bb, k, n)}) outs(INIT : {t(bb, m, n)}) -> {t(bb, m, n)}"); i += 1
for n, o, f, kw, c in convs:
    img, flt, out = t(n, o + kw - 1, o + kw - 1, c), t(kw, kw, c, f), t(n, o, o, f)
    a, b = arg(img), arg(flt)
    attrs = "{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}"
    root(i, out, f"linalg.conv_2d_nhwc_hwcf {attrs} ins({a}, {b} : {img}, {flt}) outs(INIT : {out}) -> {out}"); i += 1
with open(sys.argv[1], "w") as f:
    f.write("func.func @forward(" + ", ".join(f"{n}: {ty}" for n, ty in args) + ")\n")
    f.write("    -> (" + ", ".join(ty for _, ty in results) + ") {\n")
    f.write("  %zero = arith.constant 0.0 : f32\n" + "\n".join(body) + "\n")
    f.write("  return " + ", ".join(n for n, _ in results) + " : " +
            ", ".join(ty for _, ty in results) + "\n}\n")
PY
cat >"$work/tune.toml" <<TOML
[model]
path = "model.mlir"
entry = "forward"

[tune]
candidates = $count

[bench]
warmup = 1
repetitions = 10
min_sample_s = 0.002

[cache]
dir = "off"
TOML
"$tools/retune" plan "$work/tune.toml" -B "$work/build" >/dev/null
# Every candidate's compile, bench and select, not the whole-model step
# (the corpus model has more arguments than the model benchmark takes): the
# manifest phase first (dump, candidates, re-plan), then the select edges.
{ ninja -C "$work/build" build.ninja &&
  mapfile -t selects < <(ninja -C "$work/build" -t targets rule select) &&
  ninja -C "$work/build" "${selects[@]}"; } >"$work/tune.log" 2>&1 \
  || { tail -20 "$work/tune.log" >&2; exit 1; }
measured=$(find "$work/build/results" -name '[0-9]*.json' | wc -l)
echo "measured $measured candidates in $(($(date +%s) - start)) s"
[ -z "${KEEP:-}" ] || echo "tune build directory: $work/build"
"$tools/retune-ranker" evaluate "$work/build"
