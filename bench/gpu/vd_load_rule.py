#!/usr/bin/env python3
"""Checks the VectorDistribute promoted-load rule against the real compiler.

Enumerates IREE's own VectorDistribute constraint set for an f16 -> f32
NN matmul (LLVMGPUConstraintGenerator.cpp, emitVectorDistributeConstraints:
the set `--iree-codegen-emit-pipeline-constraints` describes), splits it by
Retune's load rule (stages/search/gpu/LoadDistribution.h, restated here), and
compiles a seeded sample of each side with iree-compile for gfx942: the rule
is exact when every accepted configuration compiles and every rejected one
fails with "failed to derive layout for promoted read-like op".

usage: bench/gpu/vd_load_rule.py [--iree-bin DIR] [--sample N] [MxNxK ...]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

MMAS = [("MFMA_F32_16x16x16_F16", 16, 16), ("MFMA_F32_32x32x8_F16", 32, 8)]


def element_tile(shape, threads, bits=16):
    v = 128 // bits
    inner, flat = shape[-1], 1
    for s in shape:
        flat *= s
    tile = [1] * len(shape)
    if flat % threads:
        tile[-1] = v if inner >= v else inner
        return tile
    w = min(v, flat // threads)
    if inner % w and w % inner:
        return tile
    tile[-1] = min(inner, w)
    if inner >= w:
        return tile
    w //= inner
    for i in range(len(shape) - 2, -1, -1):
        if w % shape[i]:
            break
        tile[i] = shape[i]
        w //= shape[i]
    return tile


def loads(shape, threads):
    r = threads
    for s, e in reversed(list(zip(shape, element_tile(shape, threads)))):
        if s % e:
            return False
        s //= e
        if r % s == 0:
            r //= s
        elif s % r == 0:
            r = 1
        else:
            return False
    return True


def iree_vd_set(M, N, K):
    """IREE's VD constraints for gfx942 (subgroup 64, 1024 threads, 64 KiB)."""
    for name, mn, mk in MMAS:
        for m in range(mn, min(M, 512) + 1, mn):
            for n in range(mn, min(N, 512) + 1, mn):
                for k in range(mk, min(K, 512) + 1, mk):
                    if M % m or N % n or K % k or k % mn or k // mk > 32:
                        continue
                    for sm in range(1, 11):
                        for sn in range(1, 11 // sm + 1):
                            t = 64 * sm * sn
                            if m % (sm * mn) or n % (sn * mn) or m // (sm * mn) > 32 or n // (sn * mn) > 32:
                                continue
                            if (k * m) % t or (k * n) % t or 2 * (m + n) * k > 65536:
                                continue
                            if not (t <= m or t <= n):
                                continue
                            yield name, m, n, k, sm, sn, t


def model(M, N, K):
    return f"""func.func @main(%a: tensor<{M}x{K}xf16>, %b: tensor<{K}x{N}xf16>) -> tensor<{M}x{N}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{M}x{N}xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{M}x{K}xf16>, tensor<{K}x{N}xf16>) outs(%init : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %r : tensor<{M}x{N}xf32>
}}
"""


def spec(M, N, K, cfg):
    name, m, n, k, sm, sn, t = cfg
    info = (f"#iree_codegen.compilation_info<lowering_config = #iree_gpu.lowering_config<{{"
            f"mma_kind = #iree_gpu.mma_layout<{name}>, promote_operands = [0, 1], reduction = [0, 0, {k}], "
            f"subgroup_basis = [[{sm}, {sn}, 1], [0, 1, 2]], workgroup = [{m}, {n}, 0]}}>, "
            f"translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> "
            f"workgroup_size = [{t}, 1, 1] subgroup_size = 64, "
            f"{{gpu_pipeline_options = #iree_gpu.pipeline_options<prefetch_num_stages = 2>}}>>")
    return f"""module attributes {{iree_codegen.tuning_spec_with_default_entrypoint, transform.with_named_sequence}} {{
  transform.named_sequence @apply(%op: !transform.any_op {{transform.readonly}}, %cfg: !transform.any_param {{transform.readonly}}) {{
    transform.annotate %op "compilation_info" = %cfg : !transform.any_op, !transform.any_param
    transform.yield
  }}
  transform.named_sequence @match(%op: !transform.any_op {{transform.readonly}}) -> (!transform.any_op, !transform.any_param) {{
    %b, %m, %n, %k = transform.iree.match.contraction %op, lhs_type = f16, rhs_type = f16, output_type = f32 : !transform.any_op -> !transform.param<i64>
    transform.iree.match.dims_equal %m, [{M}] : !transform.param<i64>
    transform.iree.match.dims_equal %n, [{N}] : !transform.param<i64>
    transform.iree.match.dims_equal %k, [{K}] : !transform.param<i64>
    %c = transform.param.constant {info} -> !transform.any_param
    transform.yield %op, %c : !transform.any_op, !transform.any_param
  }}
  transform.named_sequence @__kernel_config(%root: !transform.any_op {{transform.consumed}}) -> !transform.any_op attributes {{iree_codegen.tuning_spec_entrypoint}} {{
    %r = transform.foreach_match in %root @match -> @apply : (!transform.any_op) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }}
}}
"""


def compile_one(iree_bin, work, M, N, K, index, cfg):
    path = os.path.join(work, f"{M}x{N}x{K}_{index}.spec.mlir")
    with open(path, "w") as f:
        f.write(spec(M, N, K, cfg))
    p = subprocess.run([os.path.join(iree_bin, "iree-compile"), os.path.join(work, f"{M}x{N}x{K}.mlir"),
                        "--iree-hal-target-device=hip", "--iree-rocm-target=gfx942",
                        f"--iree-codegen-tuning-spec-path={path}", "-o", os.devnull],
                       capture_output=True, text=True)
    if p.returncode == 0:
        return "ok"
    err = next((l for l in p.stderr.splitlines() if "error:" in l), "error")
    return err.split("error: ", 1)[-1][:90]


def main():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap = argparse.ArgumentParser()
    ap.add_argument("--iree-bin", default=os.path.join(repo, ".venv", "bin"))
    ap.add_argument("--sample", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("cases", nargs="*", default=["2048x1280x1280", "1024x1024x512"])
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="vd_load_rule.")
    rng = random.Random(args.seed)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for case in args.cases:
            M, N, K = (int(x) for x in case.split("x"))
            with open(os.path.join(work, f"{M}x{N}x{K}.mlir"), "w") as f:
                f.write(model(M, N, K))
            configs = list(iree_vd_set(M, N, K))
            accepted = [c for c in configs if loads([c[1], c[3]], c[6]) and loads([c[3], c[2]], c[6])]
            rejected = [c for c in configs if c not in accepted]
            print(f"{case}: IREE's VD set {len(configs)}, load rule accepts {len(accepted)}, "
                  f"rejects {len(rejected)}")
            for label, group in (("accepted", accepted), ("rejected", rejected)):
                sample = rng.sample(group, min(args.sample, len(group)))
                outcomes = list(pool.map(lambda ic: compile_one(args.iree_bin, work, M, N, K, f"{label}{ic[0]}", ic[1]),
                                         enumerate(sample)))
                tally = {}
                for o in outcomes:
                    tally[o] = tally.get(o, 0) + 1
                print(f"  {label:8} sample {len(sample):3}: " +
                      "; ".join(f"{v} x {k}" for k, v in sorted(tally.items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
