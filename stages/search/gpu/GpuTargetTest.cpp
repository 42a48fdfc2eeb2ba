//===- GpuTargetTest.cpp - Targets and intrinsics -------------------------===//
#include "stages/search/gpu/GpuTarget.h"
#include "stages/search/gpu/Intrinsics.h"

#include "stages/support/FileUtil.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace retune;
using namespace retune::gpu;

namespace {

/// As IREE prints it in a dumped benchmark (one line, chip with SKU).
constexpr const char *kGfx942Attr =
    R"(hal.executable.variant public @rocm_hsaco_fb target(<"rocm", "rocm-hsaco-fb", {abi = "hip", )"
    R"(iree_codegen.target_info = #iree_gpu.target<arch = "gfx942", features = "", wgp = <compute = )"
    R"( fp64|fp32|fp16|int64|int32|int16|int8, storage =  b64|b32|b16|b8, subgroup =  shuffle|arithmetic, )"
    R"(dot =  dp4xi8toi32, mma = [<MFMA_F32_16x16x4_F32>, <MFMA_F32_16x16x16_F16>, <MFMA_F32_32x32x8_F16>, )"
    R"(<MFMA_F64_16x16x4_F64>, <MFMA_F32_16x16x16_BF16>, <MFMA_F32_32x32x8_BF16>, <MFMA_I32_16x16x32_I8>, )"
    R"(<MFMA_I32_32x32x16_I8>], subgroup_size_choices = [64], max_workgroup_sizes = [1024, 1024, 1024], )"
    R"(max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 65536, max_workgroup_counts = )"
    R"([2147483647, 2147483647, 2147483647], max_load_instruction_bits = 128, simds_per_wgp = 4, )"
    R"(vgpr_space_bits = 16384>, chip = <wgp_count = 304, sku = "mi300x">>, ukernels = "none"}>) {)";

/// As IREE lit tests write it (aliases, line breaks, no chip, no mma).
constexpr const char *kTestStyleAttr = R"(#gpu_target = #iree_gpu.target<arch = "gfx1100", features = "", wgp = <
  compute = fp32, storage = b32, subgroup = shuffle,
  subgroup_size_choices = [32, 64],
  max_load_instruction_bits = 128,
  max_workgroup_sizes = [1024, 1024, 1024],
  max_thread_count_per_workgroup = 1024,
  max_workgroup_memory_bytes = 65536,
  max_workgroup_counts = [2147483647, 2147483647, 2147483647]
>>
#exec_target = #hal.executable.target<"rocm", "rocm-hsaco-fb", {iree_codegen.target_info = #gpu_target}>)";

TEST(GpuTarget, ParsesDumpedAttribute) {
  Expected<GpuTarget> target = parseGpuTargetAttr(kGfx942Attr);
  ASSERT_TRUE(bool(target)) << toString(target.takeError());
  EXPECT_EQ(target->arch, "gfx942");
  EXPECT_EQ(target->sku, "mi300x");
  EXPECT_EQ(target->subgroupSizeChoices, (SmallVector<int64_t>{64}));
  EXPECT_EQ(target->mmaIntrinsics.size(), 8u);
  EXPECT_EQ(target->mmaIntrinsics[1], "MFMA_F32_16x16x16_F16");
  EXPECT_EQ(target->maxThreadsPerWorkgroup, 1024);
  EXPECT_EQ(target->maxWorkgroupMemoryBytes, 65536);
  EXPECT_EQ(target->simdsPerWgp, 4);
  EXPECT_EQ(target->wgpCount, 304);
  EXPECT_EQ(target->vgprSpaceBits, 16384);
}

TEST(GpuTarget, ParsesTestStyleAttribute) {
  Expected<GpuTarget> target = parseGpuTargetAttr(kTestStyleAttr);
  ASSERT_TRUE(bool(target)) << toString(target.takeError());
  EXPECT_EQ(target->arch, "gfx1100");
  EXPECT_EQ(target->minSubgroupSize(), 32);
  EXPECT_TRUE(target->mmaIntrinsics.empty());
  EXPECT_EQ(target->wgpCount, 0);
}

TEST(GpuTarget, MissingFieldIsNamed) {
  Expected<GpuTarget> target =
      parseGpuTargetAttr(R"(#iree_gpu.target<arch = "gfx942", wgp = <subgroup_size_choices = [64]>>)");
  ASSERT_FALSE(bool(target));
  EXPECT_NE(toString(target.takeError()).find("max_thread_count_per_workgroup"), std::string::npos);
}

TEST(GpuTarget, EveryFixtureAttributeParses) {
  // /work/shared/fixtures/iree holds real IREE files; parse every
  // #iree_gpu.target in them. (At the time of writing they carry none: the
  // ROCm test there uses --iree-gpu-test-target instead.)
  std::string dir = std::string(RETUNE_SOURCE_DIR) + "/../shared/fixtures/iree";
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec; it.increment(ec)) {
    Expected<std::string> text = readFile(it->path());
    ASSERT_TRUE(bool(text));
    StringRef rest = *text;
    while (std::optional<StringRef> attr = findGpuTargetAttr(rest)) {
      Expected<GpuTarget> target = parseGpuTargetAttr(*attr);
      EXPECT_TRUE(bool(target)) << it->path() << ": " << toString(target.takeError());
      rest = rest.drop_front(attr->end() - rest.begin());
    }
  }
}

TEST(GpuTarget, KnownTargetsLoad) {
  for (auto [name, lds, wgps, subgroup] :
       {std::tuple{"gfx942", 65536, 304, 64}, std::tuple{"gfx950", 163840, 256, 64},
        std::tuple{"gfx1100", 65536, 48, 32}, std::tuple{"gfx1201", 65536, 32, 32},
        std::tuple{"mi300a", 65536, 228, 64}, std::tuple{"rx9070", 65536, 28, 32}}) {
    Expected<GpuTarget> target = loadKnownTarget(name);
    ASSERT_TRUE(bool(target)) << toString(target.takeError());
    EXPECT_EQ(target->maxWorkgroupMemoryBytes, lds) << name;
    EXPECT_EQ(target->wgpCount, wgps) << name;
    EXPECT_EQ(target->minSubgroupSize(), subgroup) << name;
    for (const std::string &mma : target->mmaIntrinsics)
      EXPECT_NE(lookupIntrinsic(mma), nullptr) << name << " lists unknown " << mma;
  }
  Expected<GpuTarget> unknown = loadKnownTarget("gfx000");
  ASSERT_FALSE(bool(unknown));
  EXPECT_NE(toString(unknown.takeError()).find("gfx000"), std::string::npos);
}

TEST(GpuTarget, DispatchAttributeWinsOverFile) {
  Expected<GpuTarget> fromText = resolveTarget(kGfx942Attr, "gfx1100");
  ASSERT_TRUE(bool(fromText));
  EXPECT_EQ(fromText->mmaIntrinsics.size(), 8u);
  Expected<GpuTarget> fromFile = resolveTarget("func.func @f() { return }", "gfx1100");
  ASSERT_TRUE(bool(fromFile));
  EXPECT_EQ(fromFile->arch, "gfx1100");
}

TEST(Intrinsics, TableParsesShapesAndTypes) {
  const Intrinsic *in = lookupIntrinsic("MFMA_F32_16x16x16_F16");
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(std::tuple(in->m, in->n, in->k), std::tuple(16, 16, 16));
  EXPECT_EQ(std::tuple(in->aType, in->bType, in->cType), std::tuple("f16", "f16", "f32"));
  const Intrinsic *fp8 = lookupIntrinsic("MFMA_F32_32x32x16_F8E5M2FNUZ_F8E4M3FNUZ");
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->aType, "f8E5M2FNUZ");
  EXPECT_EQ(fp8->bType, "f8E4M3FNUZ");
  EXPECT_EQ(fp8->k, 16);
  const Intrinsic *nv = lookupIntrinsic("NV_MMA_SYNC_F32_16x8x16_BF16");
  ASSERT_NE(nv, nullptr);
  EXPECT_EQ(std::tuple(nv->m, nv->n, nv->k), std::tuple(16, 8, 16));
  EXPECT_TRUE(lookupIntrinsic("VMFMA_F32_32x32x16_F16")->isVirtual);
  EXPECT_TRUE(lookupIntrinsic("MFMA_SCALE_F32_16x16x128_B32")->isScaled);
  EXPECT_FALSE(bool(parseIntrinsicName("NOT_AN_INTRINSIC")));
  // CDNA 16x16 accumulators: 4 rows per lane, 16 lanes across.
  EXPECT_EQ(in->c.thread, (std::array<int64_t, 2>{4, 16}));
  EXPECT_EQ(lookupIntrinsic("MFMA_F32_32x32x8_F16")->c.outer, (std::array<int64_t, 2>{4, 1}));
}

TEST(Intrinsics, CompatibilityRule) {
  GpuTarget target = cantFail(loadKnownTarget("gfx942"));
  auto names = [](ArrayRef<const Intrinsic *> list) {
    SmallVector<std::string> out;
    for (const Intrinsic *in : list)
      out.push_back(in->name);
    return out;
  };
  EXPECT_EQ(names(compatibleIntrinsics(target, "f16", "f16", "f32", false)),
            (SmallVector<std::string>{"MFMA_F32_16x16x16_F16", "MFMA_F32_32x32x8_F16"}));
  EXPECT_EQ(names(compatibleIntrinsics(target, "f16", "f16", "f32", true)).size(), 4u);
  EXPECT_EQ(names(compatibleIntrinsics(target, "i8", "i8", "i32", false)),
            (SmallVector<std::string>{"MFMA_I32_16x16x32_I8", "MFMA_I32_32x32x16_I8"}));
  // IREE upcasts an f16 accumulator to an f32 intrinsic...
  EXPECT_EQ(names(compatibleIntrinsics(target, "f16", "f16", "f16", false)),
            (SmallVector<std::string>{"MFMA_F32_16x16x16_F16", "MFMA_F32_32x32x8_F16"}));
  // ...but never narrows: no f16-result intrinsic for an f32 accumulator
  // (IREE 3.13 fails every such WMMAR3_F16 configuration on gfx1100).
  GpuTarget rdna = cantFail(loadKnownTarget("gfx1100"));
  EXPECT_EQ(names(compatibleIntrinsics(rdna, "f16", "f16", "f32", false)),
            (SmallVector<std::string>{"WMMAR3_F32_16x16x16_F16"}));
  EXPECT_TRUE(compatibleIntrinsics(target, "f16", "f16", "i32", false).empty());
  EXPECT_EQ(elementBytes("f16"), 2);
  EXPECT_EQ(elementBytes("f8E4M3FNUZ"), 1);
  EXPECT_EQ(elementBytes("i32"), 4);
}

} // namespace
