#!/usr/bin/env python3
"""GPU corpus (ROCm and CUDA): every emitted candidate must compile with the
real iree-compile, and on CUDA also apply (its module differs from IREE's
own build of the dispatch: a spec that never reaches the dispatch is the
failure this catches).

For each small linalg model and pipeline, `retune plan` + `ninja candidates
compiled` emits a seeded, shuffled sample of candidates and compiles each for
the target (compile only, no GPU needed); the table shows emitted and compiled
counts and the first error line of each kind of failure.

usage: rocm_corpus.py <tool dir> <iree bin dir> <scratch dir> [case-filter]
Exit: 0 all compiled, 1 a candidate failed or the pipeline broke.
"""
import glob
import json
import os
import re
import subprocess
import sys
import time

SAMPLE = int(os.environ.get("RETUNE_CORPUS_SAMPLE", "8"))
SEED = int(os.environ.get("RETUNE_CORPUS_SEED", "11"))


def contraction(batch, m, n, k, a, b, in_type="f16", acc_type="f32"):
    """A function template of a linalg.generic contraction; `a`/`b` spell
    operand dim orders, e.g. "km"."""
    sizes = {"b": batch, "m": m, "n": n, "k": k}
    loops = (["b"] if batch else []) + ["m", "n", "k"]
    dim = {name: f"d{i}" for i, name in enumerate(loops)}
    pre = ["b"] if batch else []

    def shape(order):
        return "x".join(str(sizes[c]) for c in pre + list(order))

    def amap(order):
        return f"affine_map<({', '.join(dim[l] for l in loops)}) -> ({', '.join(dim[c] for c in pre + list(order))})>"

    iters = ", ".join('"reduction"' if l == "k" else '"parallel"' for l in loops)
    ta, tb, tc = f"tensor<{shape(a)}x{in_type}>", f"tensor<{shape(b)}x{in_type}>", f"tensor<{shape('mn')}x{acc_type}>"
    ext = in_type != acc_type
    fl = acc_type.startswith("f")
    zero = "0.0" if fl else "0"
    body = []
    x, y = "%x", "%y"
    if ext:
        op = "arith.extf" if fl else "arith.extsi"
        body += [f"%xe = {op} %x : {in_type} to {acc_type}", f"%ye = {op} %y : {in_type} to {acc_type}"]
        x, y = "%xe", "%ye"
    body += [f"%p = arith.{'mulf' if fl else 'muli'} {x}, {y} : {acc_type}",
             f"%s = arith.{'addf' if fl else 'addi'} %acc, %p : {acc_type}", f"linalg.yield %s : {acc_type}"]
    body = "\n      ".join(body)
    return f"""func.func @NAME(%a: {ta}, %b: {tb}) -> {tc} {{
  %zero = arith.constant {zero} : {acc_type}
  %e = tensor.empty() : {tc}
  %init = linalg.fill ins(%zero : {acc_type}) outs(%e : {tc}) -> {tc}
  %r = linalg.generic {{indexing_maps = [{amap(a)}, {amap(b)}, {amap('mn')}], iterator_types = [{iters}]}}
      ins(%a, %b : {ta}, {tb}) outs(%init : {tc}) {{
    ^bb0(%x: {in_type}, %y: {in_type}, %acc: {acc_type}):
      {body}
  }} -> {tc}
  return %r : {tc}
}}
"""


def conv(n, h, w, c, fh, fw, f, stride=1, in_type="f16", acc_type="f32"):
    """linalg.conv_2d_nhwc_hwcf on an input of n x h x w x c."""
    oh, ow = (h - fh) // stride + 1, (w - fw) // stride + 1
    ti, tf, to = (f"tensor<{n}x{h}x{w}x{c}x{in_type}>", f"tensor<{fh}x{fw}x{c}x{f}x{in_type}>",
                  f"tensor<{n}x{oh}x{ow}x{f}x{acc_type}>")
    return f"""func.func @NAME(%i: {ti}, %f: {tf}) -> {to} {{
  %zero = arith.constant 0.0 : {acc_type}
  %e = tensor.empty() : {to}
  %init = linalg.fill ins(%zero : {acc_type}) outs(%e : {to}) -> {to}
  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}}
      ins(%i, %f : {ti}, {tf}) outs(%init : {to}) -> {to}
  return %r : {to}
}}
"""


# (name, target, model text). An f16-accumulating matmul is left out: IREE
# 3.13 fails its own default config on it ("failed to distribute").
CASES = [
    ("mm_nn_2048x1280x1280", "gfx942", contraction(0, 2048, 1280, 1280, "mk", "kn")),
    ("mm_nt_1024x1280x1280", "gfx942", contraction(0, 1024, 1280, 1280, "mk", "nk")),
    ("mm_tn_1024x1024x512", "gfx942", contraction(0, 1024, 1024, 512, "km", "kn")),
    ("mm_tt_512x768x256", "gfx942", contraction(0, 512, 768, 256, "km", "nk")),
    ("mm_skinny_5369x112x112", "gfx942", contraction(0, 5369, 112, 112, "mk", "kn")),
    ("mm_unaligned_n_256x300x256", "gfx942", contraction(0, 256, 300, 256, "mk", "nk")),
    ("mm_unaligned_k_512x512x200", "gfx942", contraction(0, 512, 512, 200, "mk", "kn")),
    ("bmm_8x512x384x256", "gfx942", contraction(8, 512, 384, 256, "mk", "kn")),
    ("mm_bf16_1024x1024x1024", "gfx942", contraction(0, 1024, 1024, 1024, "mk", "kn", "bf16", "f32")),
    ("mm_i8_512x512x512", "gfx942", contraction(0, 512, 512, 512, "mk", "nk", "i8", "i32")),
    ("conv_2x34x34x1280_3x3x1280", "gfx942", conv(2, 34, 34, 1280, 3, 3, 1280)),
    ("conv_s2_1x65x65x64_3x3x128", "gfx942", conv(1, 65, 65, 64, 3, 3, 128, stride=2)),
    ("mm_nn_1024x1280x1280_rdna3", "gfx1100", contraction(0, 1024, 1280, 1280, "mk", "kn")),
    ("conv_2x18x18x320_3x3x320_rdna3", "gfx1100", conv(2, 18, 18, 320, 3, 3, 320)),
    ("mm_nn_2048x1280x1280_sm80", "sm_80", contraction(0, 2048, 1280, 1280, "mk", "kn")),
    ("mm_nt_1024x1280x1280_sm80", "sm_80", contraction(0, 1024, 1280, 1280, "mk", "nk")),
    ("mm_skinny_5369x112x112_sm80", "sm_80", contraction(0, 5369, 112, 112, "mk", "kn")),
    ("mm_unaligned_n_256x300x256_sm80", "sm_80", contraction(0, 256, 300, 256, "mk", "nk")),
    ("bmm_8x512x384x256_sm80", "sm_80", contraction(8, 512, 384, 256, "mk", "kn")),
    ("mm_bf16_1024x1024x1024_sm80", "sm_80", contraction(0, 1024, 1024, 1024, "mk", "kn", "bf16", "f32")),
    ("conv_2x34x34x1280_3x3x1280_sm80", "sm_80", conv(2, 34, 34, 1280, 3, 3, 1280)),
    ("conv_s2_1x65x65x64_3x3x128_sm80", "sm_80", conv(1, 65, 65, 64, 3, 3, 128, stride=2)),
    ("mm_nn_1024x1280x1280_sm89", "sm_89", contraction(0, 1024, 1280, 1280, "mk", "kn")),
    ("conv_2x18x18x320_3x3x320_sm89", "sm_89", conv(2, 18, 18, 320, 3, 3, 320)),
]
PIPELINES = ["vector_distribute", "tile_and_fuse"]


def is_cuda(target):
    return target.startswith("sm_")


def variants_for(target):
    """(pipeline, order) rows of a target. On CUDA IREE 3.13 crashes on
    VectorDistribute and picks TileAndFuse itself; Retune builds no
    VectorDistribute space there. CUDA also gets the default order (the
    candidates nearest IREE's own config), whose first candidates must
    compile and apply too."""
    if is_cuda(target):
        return [("tile_and_fuse", "shuffle"), ("tile_and_fuse", "auto")]
    return [(p, "shuffle") for p in PIPELINES]


def device_lines(target):
    if is_cuda(target):
        return (f'compile_flags = ["--iree-hal-target-device=cuda", "--iree-cuda-target={target}"]\n'
                'devices = ["cuda://0"]')
    return (f'compile_flags = ["--iree-hal-target-device=hip", "--iree-rocm-target={target}"]\n'
            'devices = ["hip://0"]')


def tune_toml(target, pipeline, order, iree_bin, entry):
    return f"""[model]
path = "model.mlir"
entry = "{entry}"
[backend]
kind = "iree"
[tune]
candidates = {SAMPLE}
[compile]
timeout_s = 120
[cache]
dir = "off"
[iree]
tools_dir = "{iree_bin}"
{device_lines(target)}
[gpu]
pipelines = ["{pipeline}"]
order = "{order}"
seed = {SEED}
"""


def first_error(log_path):
    try:
        with open(log_path, errors="replace") as f:
            for line in f:
                if "error:" in line:
                    return re.sub(r"^.*?error: ", "", line.strip())[:110]
    except OSError:
        pass
    return "(no error line in the log)"


def run_target(tools, iree_bin, work, target, cases, pipeline, order):
    """One plan for every case of `target` (one function each); returns
    {case: (emitted, compiled, applied, {error: [candidates]})} or an error
    string."""
    d = os.path.join(work, f"{target}-{pipeline}-{order}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.mlir"), "w") as f:
        f.write("\n".join(model.replace("@NAME", "@" + name) for name, _, model in cases))
    with open(os.path.join(d, "tune.toml"), "w") as f:
        f.write(tune_toml(target, pipeline, order, iree_bin, cases[0][0]))
    build = os.path.join(d, "build")
    steps = [[os.path.join(tools, "retune"), "plan", os.path.join(d, "tune.toml"), "-B", build],
             ["ninja", "-C", build, "candidates"], ["ninja", "-C", build, "compiled"]]
    for cmd in steps:
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            lines = (p.stdout + p.stderr).strip().splitlines() or ["(no output)"]
            return f"{' '.join(cmd[:2])} failed: {lines[-1][:200]}"
    results = {name: (0, 0, 0, {}) for name, _, _ in cases}
    index = json.load(open(os.path.join(build, "dispatches", "index.json")))
    for dispatch in index["dispatches"]:
        name = next((c for c, _, _ in cases if dispatch["name"].startswith(c + "_dispatch_")), None)
        if name is None:
            continue
        ident = dispatch["id"]
        emitted, compiled, applied, errors = results[name]
        try:
            baseline = json.load(open(os.path.join(build, "artifacts", ident, "baseline.json")))["artifact_hash"]
        except (OSError, ValueError, KeyError):
            baseline = None
        for spec in glob.glob(os.path.join(build, "candidates", ident, "[0-9]*.spec.mlir")):
            n = os.path.basename(spec).split(".")[0]
            emitted += 1
            record = os.path.join(build, "artifacts", ident, f"{n}.json")
            try:
                compile_record = json.load(open(record))
                status = compile_record.get("status")
            except (OSError, ValueError):
                status, compile_record = "missing", {}
            if status == "ok":
                compiled += 1
                applied += compile_record.get("artifact_hash") != baseline
            else:
                errors.setdefault(first_error(record + ".log"), []).append(f"{ident[:8]}/{n}")
        results[name] = (emitted, compiled, applied, errors)
    return results


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    tools, iree_bin, work = (os.path.abspath(a) for a in sys.argv[1:4])
    only = sys.argv[4] if len(sys.argv) > 4 else ""
    os.makedirs(work, exist_ok=True)
    cases = [c for c in CASES if only in c[0]]
    failed, total_e, total_c = 0, 0, 0
    start = time.time()
    print(f"{SAMPLE} candidates per case and pipeline (shuffled, seed {SEED}; on CUDA also the "
          f"first in the default order), compiled with {iree_bin}")
    print(f"{'case':36} {'target':8} {'pipeline':18} {'emitted':>7} {'compiled':>8} {'applied':>7}  first error")
    for target in dict.fromkeys(t for _, t, _ in cases):
        mine = [c for c in cases if c[1] == target]
        for pipeline, order in variants_for(target):
            t0 = time.time()
            results = run_target(tools, iree_bin, work, target, mine, pipeline, order)
            label = pipeline if order == "shuffle" else f"{pipeline}/{order}"
            if isinstance(results, str):
                failed += 1
                print(f"{'(all ' + target + ')':36} {target:8} {label:18}  BROKEN: {results}")
                continue
            for name, _, _ in mine:
                emitted, compiled, applied, errors = results[name]
                first = next(iter(errors), "")
                if is_cuda(target) and applied != compiled and not first:
                    first = f"{compiled - applied} compiled to IREE's own module (spec not applied)"
                print(f"{name:36} {target:8} {label:18} {emitted:7} {compiled:8} {applied:7}  {first}", flush=True)
                for err, which in list(errors.items())[1:]:
                    print(f"{'':80}  {len(which)} x {err}")
                # VectorDistribute has no space, by rule, for unaligned shapes
                # and strided convolutions; on CUDA TileAndFuse must have one.
                failed += compiled != emitted or (
                    is_cuda(target) and (emitted == 0 or applied != compiled))
                total_e += emitted
                total_c += compiled
            print(f"  ({target} {label}: {time.time() - t0:.0f} s)", flush=True)
    print(f"total: {total_c} of {total_e} emitted candidates compiled, {failed} failing row(s), "
          f"{time.time() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
