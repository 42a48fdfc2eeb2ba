//===- Features.cpp - Numbers a learned ranker sees of a candidate --------===//
//
// The features are named after the roles of the loops rather than their
// positions, so that one model serves matmuls, batch matmuls and
// convolutions: "rows" is the innermost row loop ('m', or the output image
// 'o'), "cols" the vectorized loop ('n', or the output channel 'f'), "red"
// the reduction loops together. Sizes enter as log2 so that a tree's splits
// mean ratios, which carry between problem sizes.
//
//===----------------------------------------------------------------------===//
#include "stages/search/ranker/Features.h"

#include "stages/search/cpu/CpuCostModel.h"
#include "stages/search/cpu/CpuSpace.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace retune::ranker {

namespace {

/// Collects names, values or both, so that one function defines both and
/// they cannot drift apart.
struct Row {
  std::vector<std::string> *names = nullptr;
  std::vector<float> *values = nullptr;
  void add(const char *name, double value) {
    if (names)
      names->push_back(name);
    if (values)
      values->push_back(std::isfinite(value) ? static_cast<float>(value) : 0);
  }
};

double lg(double x) { return std::log2(std::max(x, 1e-9)); }

/// Bits of an element type name ("f32", "bf16", "i8"); 32 when unknown.
unsigned elementBits(StringRef type) {
  unsigned bits = 0;
  StringRef digits = type.drop_while([](char c) { return !isdigit(c); });
  if (digits.getAsInteger(10, bits) || bits == 0)
    return 32;
  return bits;
}

/// The tile a level gives loop `dim`: 0 (untiled) or past the end means the
/// extent the enclosing level leaves.
int64_t tileOf(ArrayRef<int64_t> tiles, unsigned dim, int64_t enclosing) {
  if (dim >= tiles.size() || tiles[dim] <= 0)
    return enclosing;
  return std::min(tiles[dim], enclosing);
}

/// The last loop whose role is one of `roles`, or -1.
int lastWithRole(const Problem &problem, StringRef roles) {
  for (int i = static_cast<int>(problem.dimRoles.size()) - 1; i >= 0; --i)
    if (roles.contains(problem.dimRoles[i]))
      return i;
  return -1;
}

bool isReduction(const Problem &problem, unsigned dim) {
  return dim < problem.iteratorTypes.size() &&
         problem.iteratorTypes[dim] == "reduction";
}

/// Per loop: the extent left by the outer tiles, the reduction tiles and
/// the register tiles.
struct Levels {
  SmallVector<int64_t> range, outer, cache, reg;
};

Levels levelsOf(const Problem &problem, const cpu::CpuConfig &config) {
  Levels l;
  for (auto [dim, range] : llvm::enumerate(problem.loopRanges)) {
    int64_t r = std::max<int64_t>(range, 1);
    l.range.push_back(r);
    l.outer.push_back(tileOf(config.outerTiles, dim, r));
    l.cache.push_back(tileOf(config.reductionTiles, dim, l.outer.back()));
    l.reg.push_back(tileOf(config.registerTiles, dim, l.cache.back()));
  }
  return l;
}

/// Extent of loop `dim` at one level; 1 for a missing loop (-1).
int64_t at(ArrayRef<int64_t> level, int dim) {
  return dim < 0 ? 1 : level[dim];
}

/// Rounding up `range` to a multiple of `tile`, as a fraction of `range`.
double waste(int64_t range, int64_t tile) {
  int64_t padded = (range + tile - 1) / tile * tile;
  return static_cast<double>(padded) / range - 1;
}

bool isIdentity(ArrayRef<int64_t> order) {
  for (auto [i, v] : llvm::enumerate(order))
    if (v != static_cast<int64_t>(i))
      return false;
  return true;
}

void describe(const Problem &problem, const cpu::CpuConfig &config,
              const cpu::CpuHost &host, Row &row) {
  Levels l = levelsOf(problem, config);
  int rows = lastWithRole(problem, "mo");
  int cols = lastWithRole(problem, "nf");
  unsigned inBits = problem.elementTypes.empty()
                        ? 32
                        : elementBits(problem.elementTypes.front());
  unsigned outBits = problem.elementTypes.empty()
                         ? 32
                         : elementBits(problem.elementTypes.back());
  double inBytes = inBits / 8.0, outBytes = outBits / 8.0;
  int64_t lanes = std::max<int64_t>(host.lanes(inBits), 1);
  // Reduction loops and the other parallel loops (batch, image rows, ...).
  double red = 1, redCache = 1, redReg = 1, other = 1, outerIters = 1;
  int innerRed = -1;
  for (unsigned d = 0; d < l.range.size(); ++d) {
    outerIters *= static_cast<double>(l.range[d]) / l.outer[d];
    if (isReduction(problem, d)) {
      red *= l.range[d];
      redCache *= l.cache[d];
      redReg *= l.reg[d];
      innerRed = d;
    } else if (static_cast<int>(d) != rows && static_cast<int>(d) != cols) {
      other *= l.range[d];
    }
  }
  double regRows = at(l.reg, rows), regCols = at(l.reg, cols);
  double accumulators = regRows * std::ceil(regCols / lanes);

  row.add("log2_flops", lg(problem.flops()));
  row.add("is_convolution", problem.kind == OpKind::Convolution);
  row.add("loops", l.range.size());
  row.add("in_bits", inBits);
  row.add("log2_rows", lg(at(l.range, rows)));
  row.add("log2_cols", lg(at(l.range, cols)));
  row.add("log2_reduction", lg(red));
  row.add("log2_other_parallel", lg(other));
  row.add("log2_outer_rows", lg(at(l.outer, rows)));
  row.add("log2_outer_cols", lg(at(l.outer, cols)));
  row.add("outer_rows_share", at(l.outer, rows) / double(at(l.range, rows)));
  row.add("outer_cols_share", at(l.outer, cols) / double(at(l.range, cols)));
  row.add("log2_outer_iterations", lg(outerIters));
  row.add("log2_cache_reduction", lg(redCache));
  row.add("cache_reduction_share", redCache / red);
  row.add("reg_rows", regRows);
  row.add("reg_col_vectors", regCols / lanes);
  row.add("reg_cols_fit_lanes", static_cast<int64_t>(regCols) % lanes == 0);
  row.add("accumulators_per_register",
          accumulators / std::max(host.vectorRegisters, 1u));
  row.add("log2_reg_reduction", lg(redReg));
  row.add("k_unroll", config.kUnroll);
  // Bytes one cache tile touches: the rows and vector operands' panels
  // over the cached reduction, and the accumulator block.
  double rowsE = at(l.outer, rows), colsE = at(l.outer, cols);
  double footprint =
      (rowsE + colsE) * redCache * inBytes + rowsE * colsE * outBytes;
  double vectorPanel = redCache * regCols * inBytes;
  row.add("log2_tile_bytes_over_l1", lg(footprint / host.l1Bytes));
  row.add("log2_tile_bytes_over_l2", lg(footprint / host.l2Bytes));
  row.add("log2_vector_panel_over_l1", lg(vectorPanel / host.l1Bytes));
  row.add("reg_rows_waste", waste(at(l.outer, rows), regRows));
  row.add("reg_cols_waste", waste(at(l.outer, cols), regCols));
  row.add("outer_rows_waste", waste(at(l.range, rows), rowsE));
  row.add("outer_cols_waste", waste(at(l.range, cols), colsE));
  double cost = cpu::estimateCost(problem, host, config);
  row.add("log2_estimated_cost", lg(cost));
  row.add("log2_estimated_gflops", lg(problem.flops() / cost / 1e9));
  row.add("threads", config.threads);
  row.add("decompose", config.decompose);
  row.add("outer_interchange_permuted", !isIdentity(config.outerInterchange));
  row.add("register_interchange_permuted",
          !isIdentity(config.registerInterchange));
  row.add("innermost_register_loop_reduces",
          !config.registerInterchange.empty()
              ? isReduction(problem, config.registerInterchange.back())
              : innerRed == static_cast<int>(l.range.size()) - 1);
}

} // namespace

/// Appended to each row by extractGroupFeatures.
constexpr const char *kGroupColumns[] = {"log2_estimated_cost_over_best"};

const std::vector<std::string> &featureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    Row row{&out, nullptr};
    describe(Problem{}, cpu::CpuConfig{}, cpu::CpuHost{}, row);
    out.insert(out.end(), std::begin(kGroupColumns), std::end(kGroupColumns));
    return out;
  }();
  return names;
}

/// The columns describe() writes for one configuration.
static std::vector<float> configColumns(const Problem &problem,
                                        const cpu::CpuConfig &config,
                                        const cpu::CpuHost &host) {
  std::vector<float> values;
  Row row{nullptr, &values};
  describe(problem, config, host, row);
  return values;
}

std::vector<float> extractFeatures(const Problem &problem,
                                   const cpu::CpuConfig &config,
                                   const cpu::CpuHost &host) {
  return extractGroupFeatures(problem, {config}, host);
}

std::vector<float> extractGroupFeatures(const Problem &problem,
                                        ArrayRef<cpu::CpuConfig> configs,
                                        const cpu::CpuHost &host) {
  static const size_t costColumn =
      llvm::find(featureNames(), "log2_estimated_cost") -
      featureNames().begin();
  std::vector<std::vector<float>> rows;
  float best = HUGE_VALF;
  for (const cpu::CpuConfig &config : configs) {
    rows.push_back(configColumns(problem, config, host));
    best = std::min(best, rows.back()[costColumn]);
  }
  std::vector<float> values;
  for (std::vector<float> &row : rows) {
    row.push_back(row[costColumn] - best);
    values.insert(values.end(), row.begin(), row.end());
  }
  return values;
}

} // namespace retune::ranker
