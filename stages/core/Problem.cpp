//===- Problem.cpp - What a dispatch computes, independent of IR ----------===//
#include "stages/core/Problem.h"

#include "stages/support/FileUtil.h"
#include "stages/support/Hash.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace retune {

StringRef toString(OpKind kind) {
  switch (kind) {
  case OpKind::Contraction:
    return "contraction";
  case OpKind::Convolution:
    return "convolution";
  case OpKind::Attention:
    return "attention";
  case OpKind::Elementwise:
    return "elementwise";
  }
  llvm_unreachable("unknown op kind");
}

std::optional<OpKind> parseOpKind(StringRef text) {
  if (text == "contraction")
    return OpKind::Contraction;
  if (text == "convolution")
    return OpKind::Convolution;
  if (text == "attention")
    return OpKind::Attention;
  if (text == "elementwise")
    return OpKind::Elementwise;
  return std::nullopt;
}

SmallVector<unsigned> Problem::dimsWithRole(char role) const {
  SmallVector<unsigned> dims;
  for (auto [index, r] : llvm::enumerate(dimRoles))
    if (r == role)
      dims.push_back(index);
  return dims;
}

int64_t Problem::extentOf(char role) const {
  int64_t extent = 1;
  for (unsigned dim : dimsWithRole(role))
    extent *= loopRanges[dim];
  return extent;
}

double Problem::flops() const {
  double iterations = 1;
  for (int64_t range : loopRanges)
    iterations *= static_cast<double>(range);
  // Attention has two chained contractions over the same iteration space.
  return (kind == OpKind::Attention ? 4.0 : 2.0) * iterations;
}

std::string Problem::stableId() const {
  FieldHasher hasher;
  hasher.add("kind", toString(kind)).add("op", opName);
  for (int64_t range : loopRanges)
    hasher.add("range", range);
  for (const std::string &it : iteratorTypes)
    hasher.add("iter", it);
  for (const std::string &map : indexingMaps)
    hasher.add("map", map);
  for (const std::string &type : elementTypes)
    hasher.add("type", type);
  hasher.add("inputs", numInputs).add("target", target);
  // Absent from problems without one, so their ids stay what they were.
  for (const EpilogueOp &op : epilogue) {
    hasher.add("epilogue", op.body);
    for (const std::string &map : op.inputMaps)
      hasher.add("epilogue_map", map);
  }
  for (const PrologueOp &op : prologue)
    hasher.add("prologue_input", op.input).add("prologue_map", op.map);
  if (!rootDag.empty())
    hasher.add("root_dag", rootDag);
  return hasher.hex(8);
}

std::string Problem::readableName() const {
  StringRef shortOp = StringRef(opName).rsplit('.').second;
  if (shortOp.empty())
    shortOp = opName;
  std::string name = shortOp.str();
  if (shortOp == "generic")
    name = toString(kind).str();
  name += "_";
  name += join(map_range(loopRanges, [](int64_t r) { return std::to_string(r); }),
               "x");
  if (!elementTypes.empty())
    name += "_" + elementTypes.front();
  for (const EpilogueOp &op : epilogue)
    for (StringRef bodyOp : split(op.body, ','))
      name += "_" + bodyOp.rsplit('.').second.str();
  for (const PrologueOp &op : prologue)
    name += "_packed" + std::to_string(op.input);
  return name;
}

json::Value toJson(const Problem &problem) {
  json::Array maps, iters, types, ranges;
  for (const std::string &m : problem.indexingMaps)
    maps.push_back(m);
  for (const std::string &it : problem.iteratorTypes)
    iters.push_back(it);
  for (const std::string &t : problem.elementTypes)
    types.push_back(t);
  for (int64_t r : problem.loopRanges)
    ranges.push_back(r);
  json::Object object{
      {"kind", toString(problem.kind)},   {"op", problem.opName},
      {"loop_ranges", std::move(ranges)}, {"iterator_types", std::move(iters)},
      {"indexing_maps", std::move(maps)}, {"element_types", std::move(types)},
      {"num_inputs", problem.numInputs},  {"dim_roles", problem.dimRoles},
      {"target", problem.target}};
  if (!problem.epilogue.empty()) {
    json::Array epilogue;
    for (const EpilogueOp &op : problem.epilogue) {
      json::Array inputMaps;
      for (const std::string &map : op.inputMaps)
        inputMaps.push_back(map);
      epilogue.push_back(json::Object{{"body", op.body},
                                      {"input_maps", std::move(inputMaps)}});
    }
    object["epilogue"] = std::move(epilogue);
  }
  if (!problem.prologue.empty()) {
    json::Array prologue;
    for (const PrologueOp &op : problem.prologue)
      prologue.push_back(json::Object{{"input", op.input}, {"map", op.map}});
    object["prologue"] = std::move(prologue);
  }
  if (!problem.rootDag.empty())
    object["root_dag"] = problem.rootDag;
  return object;
}

static Expected<SmallVector<EpilogueOp>>
epilogueFromJson(const json::Array *array) {
  SmallVector<EpilogueOp> epilogue;
  if (!array)
    return epilogue;
  for (const json::Value &value : *array) {
    const json::Object *object = value.getAsObject();
    std::optional<StringRef> body =
        object ? object->getString("body") : std::nullopt;
    const json::Array *maps = object ? object->getArray("input_maps") : nullptr;
    if (!body || !maps)
      return makeError("problem: each 'epilogue' entry needs 'body' and "
                       "'input_maps'");
    EpilogueOp op;
    op.body = body->str();
    for (const json::Value &map : *maps) {
      std::optional<StringRef> text = map.getAsString();
      if (!text)
        return makeError("problem: 'input_maps' must hold strings");
      op.inputMaps.push_back(text->str());
    }
    epilogue.push_back(std::move(op));
  }
  return epilogue;
}

static Expected<SmallVector<PrologueOp>>
prologueFromJson(const json::Array *array) {
  SmallVector<PrologueOp> prologue;
  if (!array)
    return prologue;
  for (const json::Value &value : *array) {
    const json::Object *object = value.getAsObject();
    std::optional<int64_t> input =
        object ? object->getInteger("input") : std::nullopt;
    std::optional<StringRef> map =
        object ? object->getString("map") : std::nullopt;
    if (!input || *input < 0 || !map)
      return makeError("problem: each 'prologue' entry needs 'input' (an "
                       "operand index) and 'map'");
    prologue.push_back({static_cast<unsigned>(*input), map->str()});
  }
  return prologue;
}

Expected<Problem> problemFromJson(const json::Value &value) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return makeError("problem: expected an object");
  Problem problem;
  auto str = [&](StringRef key, std::string &out) -> Error {
    std::optional<StringRef> s = object->getString(key);
    if (!s)
      return makeError("problem: missing string field '" + key + "'");
    out = s->str();
    return Error::success();
  };
  auto strList = [&](StringRef key, SmallVector<std::string> &out) -> Error {
    const json::Array *array = object->getArray(key);
    if (!array)
      return makeError("problem: missing array field '" + key + "'");
    for (const json::Value &v : *array) {
      std::optional<StringRef> s = v.getAsString();
      if (!s)
        return makeError("problem: '" + key + "' must hold strings");
      out.push_back(s->str());
    }
    return Error::success();
  };
  std::string kind;
  if (Error err = str("kind", kind))
    return std::move(err);
  std::optional<OpKind> parsedKind = parseOpKind(kind);
  if (!parsedKind)
    return makeError("problem: unknown kind '" + kind + "'");
  problem.kind = *parsedKind;
  if (Error err = str("op", problem.opName))
    return std::move(err);
  if (Error err = strList("iterator_types", problem.iteratorTypes))
    return std::move(err);
  if (Error err = strList("indexing_maps", problem.indexingMaps))
    return std::move(err);
  if (Error err = strList("element_types", problem.elementTypes))
    return std::move(err);
  if (Error err = str("dim_roles", problem.dimRoles))
    return std::move(err);
  if (Error err = str("target", problem.target))
    return std::move(err);
  const json::Array *ranges = object->getArray("loop_ranges");
  if (!ranges)
    return makeError("problem: missing array field 'loop_ranges'");
  for (const json::Value &v : *ranges) {
    std::optional<int64_t> r = v.getAsInteger();
    if (!r)
      return makeError("problem: 'loop_ranges' must hold integers");
    problem.loopRanges.push_back(*r);
  }
  problem.numInputs = object->getInteger("num_inputs").value_or(0);
  problem.rootDag = object->getString("root_dag").value_or("").str();
  Expected<SmallVector<EpilogueOp>> epilogue =
      epilogueFromJson(object->getArray("epilogue"));
  if (!epilogue)
    return epilogue.takeError();
  problem.epilogue = std::move(*epilogue);
  Expected<SmallVector<PrologueOp>> prologue =
      prologueFromJson(object->getArray("prologue"));
  if (!prologue)
    return prologue.takeError();
  problem.prologue = std::move(*prologue);
  for (const PrologueOp &op : problem.prologue)
    if (op.input >= problem.numInputs)
      return makeError("problem: prologue input " + Twine(op.input) +
                       " is not one of the " + Twine(problem.numInputs) +
                       " inputs");
  if (problem.dimRoles.size() != problem.loopRanges.size() ||
      problem.iteratorTypes.size() != problem.loopRanges.size())
    return makeError("problem: dim_roles, iterator_types and loop_ranges "
                     "must have one entry per loop");
  return problem;
}

} // namespace retune
