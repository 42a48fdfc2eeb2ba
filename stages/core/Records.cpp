//===- Records.cpp - The JSON records stage tools exchange ----------------===//
#include "stages/core/Records.h"

#include "stages/support/FileUtil.h"
#include "stages/support/HashedFile.h"
#include "stages/support/RunBudget.h"
#include "stages/support/StrictJson.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <cstdlib>

using namespace llvm;

namespace retune {

double unixSeconds() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

StringRef toString(Status status) {
  switch (status) {
  case Status::Ok:
    return "ok";
  case Status::CompileError:
    return "compile_error";
  case Status::Crash:
    return "crash";
  case Status::Timeout:
    return "timeout";
  case Status::WrongResult:
    return "wrong_result";
  case Status::BenchError:
    return "bench_error";
  case Status::NotApplied:
    return "not_applied";
  case Status::Skipped:
    return "skipped";
  }
  llvm_unreachable("unknown status");
}

std::optional<Status> parseStatus(StringRef text) {
  for (Status s : {Status::Ok, Status::CompileError, Status::Crash,
                   Status::Timeout, Status::WrongResult, Status::BenchError,
                   Status::NotApplied, Status::Skipped})
    if (toString(s) == text)
      return s;
  return std::nullopt;
}

namespace {

/// Reads typed fields of one JSON object, remembering the first problem.
/// A field of the wrong type, a non-finite number or one out of range is a
/// problem, never a silent 0: a damaged record must not look like data.
class FieldReader {
public:
  static constexpr double kMax = std::numeric_limits<double>::max();

  FieldReader(const json::Value &value, StringRef what) : what(what) {
    object = value.getAsObject();
    if (!object)
      fail("expected an object");
  }

  std::string str(StringRef key, bool required = true) {
    const json::Value *v = field(key, required);
    if (!v)
      return {};
    if (std::optional<StringRef> s = v->getAsString())
      return s->str();
    fail("'" + key + "' must be a string");
    return {};
  }
  /// A finite number in [min, max]; 0 when absent and not required.
  double num(StringRef key, bool required = true, double min = 0,
             double max = kMax) {
    const json::Value *v = field(key, required);
    if (!v)
      return 0;
    std::optional<double> d = v->getAsNumber();
    if (!d || !std::isfinite(*d) || *d < min || *d > max) {
      fail(formatv("'{0}' must be a number from {1} to {2}", key, min, max));
      return 0;
    }
    return *d;
  }
  /// A whole number in [min, max].
  uint64_t integer(StringRef key, bool required = true, uint64_t min = 0,
                   uint64_t max = UINT32_MAX) {
    const json::Value *v = field(key, required);
    if (!v)
      return min;
    std::optional<int64_t> i = v->getAsInteger();
    if (!i || *i < 0 || static_cast<uint64_t>(*i) < min ||
        static_cast<uint64_t>(*i) > max) {
      fail(formatv("'{0}' must be a whole number from {1} to {2}", key, min,
                   max));
      return min;
    }
    return static_cast<uint64_t>(*i);
  }
  bool boolean(StringRef key) {
    const json::Value *v = field(key, false);
    if (!v)
      return false;
    if (std::optional<bool> b = v->getAsBoolean())
      return *b;
    fail("'" + key + "' must be true or false");
    return false;
  }
  /// An array of finite, non-negative numbers (samples, times).
  std::vector<double> nums(StringRef key) {
    std::vector<double> out;
    const json::Value *v = field(key, false);
    if (!v)
      return out;
    const json::Array *array = v->getAsArray();
    if (!array) {
      fail("'" + key + "' must be an array of numbers");
      return out;
    }
    for (const json::Value &item : *array) {
      std::optional<double> d = item.getAsNumber();
      if (!d || !std::isfinite(*d) || *d < 0) {
        fail("'" + key + "' must hold finite numbers >= 0");
        return {};
      }
      out.push_back(*d);
    }
    return out;
  }
  /// An optional array of strings (empty when absent).
  std::vector<std::string> strs(StringRef key) {
    std::vector<std::string> out;
    const json::Value *v = field(key, false);
    if (!v)
      return out;
    const json::Array *array = v->getAsArray();
    for (size_t i = 0; array && i < array->size(); ++i) {
      std::optional<StringRef> text = (*array)[i].getAsString();
      if (!text)
        break;
      out.push_back(text->str());
    }
    if (!array || out.size() != array->size()) {
      fail("'" + key + "' must be an array of strings");
      return {};
    }
    return out;
  }
  const json::Array *array(StringRef key) {
    const json::Value *v = field(key, true);
    const json::Array *a = v ? v->getAsArray() : nullptr;
    if (v && !a)
      fail("'" + key + "' must be an array");
    return a;
  }
  Status status() {
    std::string text = str("status");
    if (std::optional<Status> s = parseStatus(text))
      return *s;
    if (!text.empty())
      fail("unknown status '" + text + "'");
    return Status::BenchError;
  }
  /// A name used to build a path: no separators, no "..".
  std::string fileName(StringRef key) {
    std::string name = str(key);
    if (name.empty() || StringRef(name).contains('/') || name == "." ||
        name == ".." || StringRef(name).contains('\0'))
      fail("'" + key + "' must be a plain file name");
    return name;
  }
  void fail(const Twine &message) {
    if (error.empty())
      error = (what + ": " + message).str();
  }
  Error take() {
    return error.empty() ? Error::success() : makeError(error);
  }
  const json::Object *object = nullptr;

private:
  /// The value of `key`, or null (a problem when `required`).
  const json::Value *field(StringRef key, bool required) {
    if (!object)
      return nullptr;
    const json::Value *v = object->get(key);
    if (v && v->kind() == json::Value::Null && !required)
      return nullptr;
    if (!v && required)
      fail("missing field '" + key + "'");
    return v;
  }

  std::string what;
  std::string error;
};

json::Array toArray(const std::vector<double> &values) {
  json::Array array;
  for (double v : values)
    array.push_back(v);
  return array;
}

} // namespace

json::Value toJson(const DispatchIndex &index) {
  json::Array dispatches;
  for (const DispatchEntry &d : index.dispatches) {
    json::Object entry{{"id", d.id},
                       {"name", d.name},
                       {"func", d.func},
                       {"flops", d.flops},
                       {"share", d.share},
                       {"occurrences", d.occurrences},
                       {"exports", json::Array(d.allExports())},
                       {"ir_hash", d.irHash},
                       {"problem", toJson(d.problem)}};
    if (d.gainShare >= 0) {
      entry["gain_share"] = d.gainShare;
      entry["peak_fraction"] = d.peakFraction;
      if (d.peakFlopsPerSecond > 0)
        entry["peak_flops_per_second"] = d.peakFlopsPerSecond;
    }
    dispatches.push_back(std::move(entry));
  }
  return json::Object{{"schema", schema::kDispatches},
                      {"model", index.model},
                      {"total_flops", index.totalFlops},
                      {"dispatches", std::move(dispatches)}};
}

Expected<DispatchIndex> dispatchIndexFromJson(const json::Value &v) {
  FieldReader reader(v, "dispatch index");
  DispatchIndex index;
  index.model = reader.str("model");
  index.totalFlops = reader.num("total_flops");
  if (const json::Array *array = reader.array("dispatches")) {
    std::set<std::string> ids;
    for (const json::Value &item : *array) {
      FieldReader entryReader(item, "dispatch entry");
      DispatchEntry entry;
      // Ids name directories: they must be plain names, and unique.
      entry.id = entryReader.fileName("id");
      if (!ids.insert(entry.id).second)
        entryReader.fail("id '" + entry.id + "' appears twice");
      entry.name = entryReader.str("name");
      entry.func = entryReader.str("func");
      entry.flops = entryReader.num("flops");
      entry.share = entryReader.num("share", true, 0, 1);
      entry.occurrences = entryReader.integer("occurrences", false, 1);
      entry.exports = entryReader.strs("exports");
      if (entryReader.object && entryReader.object->get("gain_share")) {
        entry.gainShare = entryReader.num("gain_share", true, 0, 1);
        entry.peakFraction = entryReader.num("peak_fraction", true, 0, 1);
        entry.peakFlopsPerSecond =
            entryReader.num("peak_flops_per_second", false, 0);
      }
      entry.irHash = entryReader.str("ir_hash", false);
      if (Error err = entryReader.take())
        return std::move(err);
      const json::Value *problem = entryReader.object->get("problem");
      if (!problem)
        return makeError("dispatch entry '" + entry.id + "': missing problem");
      Expected<Problem> parsed = problemFromJson(*problem);
      if (!parsed)
        return parsed.takeError();
      entry.problem = std::move(*parsed);
      index.dispatches.push_back(std::move(entry));
    }
  }
  if (Error err = reader.take())
    return std::move(err);
  return index;
}

json::Value toJson(const CandidateIndex &index) {
  json::Array candidates;
  for (const CandidateEntry &c : index.candidates)
    candidates.push_back(json::Object{{"index", c.index},
                                      {"file", c.file},
                                      {"cost", c.cost},
                                      {"spec_hash", c.specHash},
                                      {"config", json::Object(c.config)}});
  json::Object object{
      {"schema", schema::kCandidates},
      {"dispatch", index.dispatch},
      {"total_solutions", static_cast<int64_t>(index.totalSolutions)},
      {"enumeration_s", index.enumerationSeconds},
      {"started_at", index.startedAt},
      {"note", index.note},
      {"key", index.key},
      {"candidates", std::move(candidates)}};
  if (!index.reverify.empty())
    object["reverify"] =
        json::Object{{"decision", index.reverify}, {"why", index.reverifyWhy}};
  if (!index.order.empty())
    object["order"] =
        json::Object{{"used", index.order}, {"why", index.orderWhy}};
  return object;
}

Expected<CandidateIndex> candidateIndexFromJson(const json::Value &v) {
  FieldReader reader(v, "candidate index");
  CandidateIndex index;
  index.dispatch = reader.fileName("dispatch");
  index.totalSolutions = reader.integer("total_solutions", true, 0, UINT64_MAX);
  index.enumerationSeconds = reader.num("enumeration_s", false);
  index.startedAt = reader.num("started_at", false);
  index.note = reader.str("note", false);
  index.key = reader.str("key", false);
  if (reader.object)
    if (const json::Value *reverify = reader.object->get("reverify")) {
      FieldReader reverifyReader(*reverify, "reverify");
      index.reverify = reverifyReader.str("decision");
      index.reverifyWhy = reverifyReader.str("why", false);
      if (index.reverify != "kept" && index.reverify != "re-searched")
        reverifyReader.fail("decision must be \"kept\" or \"re-searched\"");
      if (Error err = reverifyReader.take())
        return std::move(err);
    }
  if (reader.object)
    if (const json::Value *order = reader.object->get("order")) {
      FieldReader orderReader(*order, "order");
      index.order = orderReader.str("used");
      index.orderWhy = orderReader.str("why", false);
      if (index.order != "learned" && index.order != "heuristic")
        orderReader.fail("used must be \"learned\" or \"heuristic\"");
      if (Error err = orderReader.take())
        return std::move(err);
    }
  if (const json::Array *array = reader.array("candidates")) {
    std::set<unsigned> seen;
    for (const json::Value &item : *array) {
      FieldReader entryReader(item, "candidate entry");
      CandidateEntry entry;
      entry.index = entryReader.integer("index");
      if (!seen.insert(entry.index).second)
        entryReader.fail(formatv("index {0} appears twice", entry.index));
      entry.file = entryReader.fileName("file");
      entry.cost = entryReader.num("cost", false, -FieldReader::kMax);
      entry.specHash = entryReader.str("spec_hash", false);
      if (entryReader.object)
        if (const json::Object *config = entryReader.object->getObject("config"))
          entry.config = *config;
      if (Error err = entryReader.take())
        return std::move(err);
      index.candidates.push_back(std::move(entry));
    }
  }
  if (Error err = reader.take())
    return std::move(err);
  return index;
}

static json::Value toJson(const TensorSpec &tensor) {
  json::Array shape;
  for (int64_t d : tensor.shape)
    shape.push_back(d);
  return json::Object{{"shape", std::move(shape)},
                      {"element_type", tensor.elementType}};
}

static Expected<std::vector<TensorSpec>> tensorsFromJson(const json::Array *a,
                                                         StringRef what) {
  std::vector<TensorSpec> tensors;
  if (!a)
    return makeError("signature: missing '" + what + "'");
  for (const json::Value &item : *a) {
    FieldReader reader(item, "tensor");
    TensorSpec tensor;
    tensor.elementType = reader.str("element_type");
    for (double d : reader.nums("shape"))
      if (d != std::floor(d) || d > static_cast<double>(INT64_MAX))
        reader.fail("'shape' must hold whole numbers");
      else
        tensor.shape.push_back(static_cast<int64_t>(d));
    if (Error err = reader.take())
      return std::move(err);
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

json::Value toJson(const FuncSignature &signature) {
  json::Array args, results;
  for (const TensorSpec &t : signature.args)
    args.push_back(toJson(t));
  for (const TensorSpec &t : signature.results)
    results.push_back(toJson(t));
  return json::Object{{"name", signature.name},
                      {"args", std::move(args)},
                      {"results", std::move(results)}};
}

Expected<FuncSignature> funcSignatureFromJson(const json::Value &v) {
  FieldReader reader(v, "signature");
  FuncSignature signature;
  signature.name = reader.str("name");
  if (Error err = reader.take())
    return std::move(err);
  auto args = tensorsFromJson(reader.object->getArray("args"), "args");
  if (!args)
    return args.takeError();
  auto results = tensorsFromJson(reader.object->getArray("results"), "results");
  if (!results)
    return results.takeError();
  signature.args = std::move(*args);
  signature.results = std::move(*results);
  return signature;
}

json::Value toJson(const CompileRecord &record) {
  json::Array functions;
  for (const FuncSignature &f : record.functions)
    functions.push_back(toJson(f));
  return json::Object{{"schema", schema::kCompile},
                      {"functions", std::move(functions)},
                      {"status", toString(record.status)},
                      {"message", record.message},
                      {"artifact", record.artifact},
                      {"artifact_hash", record.artifactHash},
                      {"cached", record.cached},
                      {"key", record.key},
                      {"seconds", record.seconds},
                      {"started_at", record.startedAt}};
}

Expected<CompileRecord> compileRecordFromJson(const json::Value &v) {
  FieldReader reader(v, "compile record");
  CompileRecord record;
  record.status = reader.status();
  record.message = reader.str("message", false);
  record.artifact = reader.str("artifact", false);
  record.artifactHash = reader.str("artifact_hash", false);
  record.cached = reader.boolean("cached");
  record.key = reader.str("key", false);
  record.seconds = reader.num("seconds", false);
  record.startedAt = reader.num("started_at", false);
  // An ok compile names what it produced.
  if (record.status == Status::Ok &&
      (record.artifact.empty() || record.artifactHash.empty()))
    reader.fail("status ok without 'artifact' and 'artifact_hash'");
  if (Error err = reader.take())
    return std::move(err);
  if (const json::Array *functions = reader.object->getArray("functions")) {
    for (const json::Value &f : *functions) {
      Expected<FuncSignature> signature = funcSignatureFromJson(f);
      if (!signature)
        return signature.takeError();
      record.functions.push_back(std::move(*signature));
    }
  }
  return record;
}

std::optional<SlurmPlacement> slurmPlacementFromEnv() {
  auto env = [](const char *name) -> std::string {
    const char *value = std::getenv(name);
    return value ? value : "";
  };
  std::string job = env("SLURM_JOB_ID");
  if (job.empty())
    return std::nullopt;
  std::string gpus = env("SLURM_STEP_GPUS");
  return SlurmPlacement{job, env("SLURM_STEP_ID"), env("SLURMD_NODENAME"),
                        gpus.empty() ? env("SLURM_JOB_GPUS") : gpus,
                        env("CUDA_VISIBLE_DEVICES")};
}

static json::Value toJson(const SlurmPlacement &p) {
  return json::Object{{"job_id", p.jobId},
                      {"step_id", p.stepId},
                      {"node", p.node},
                      {"gpus", p.gpus},
                      {"cuda_visible_devices", p.visibleDevices}};
}

static std::optional<SlurmPlacement> slurmPlacementFromJson(const json::Value *v) {
  const json::Object *object = v ? v->getAsObject() : nullptr;
  if (!object)
    return std::nullopt;
  auto field = [&](StringRef key) {
    return object->getString(key).value_or("").str();
  };
  return SlurmPlacement{field("job_id"), field("step_id"), field("node"),
                        field("gpus"), field("cuda_visible_devices")};
}

static json::Value toJsonWithoutPlacement(const BenchRecord &record) {
  return json::Object{{"schema", schema::kBench},
                      {"status", toString(record.status)},
                      {"message", record.message},
                      {"median_s", record.median},
                      {"baseline_median_s", record.baselineMedian},
                      {"ratio", record.ratio},
                      {"noise", record.noise},
                      {"max_error", record.maxError},
                      {"seconds", record.seconds},
                      {"started_at", record.startedAt},
                      {"cached", record.cached},
                      {"key", record.key},
                      {"cpu_share", record.cpuShare},
                      {"load_average", record.loadAverage},
                      {"disturbed", record.disturbed},
                      {"samples_s", toArray(record.samples)},
                      {"baseline_samples_s", toArray(record.baselineSamples)}};
}

json::Value toJson(const BenchRecord &record) {
  json::Value value = toJsonWithoutPlacement(record);
  // Only Slurm steps carry it: local records keep their bytes.
  if (record.slurm)
    value.getAsObject()->try_emplace("slurm", toJson(*record.slurm));
  return value;
}

Error checkMeasuredComparison(const BenchRecord &record) {
  auto outside = [](double v, double lo, double hi) { return !(v >= lo && v <= hi); };
  if (outside(record.ratio, 1e-6, 1e6))
    return makeError(formatv("bench record: 'ratio' {0} is out of range "
                             "[1e-6, 1e6]", record.ratio).str());
  if (outside(record.noise, 0, 1e6))
    return makeError(formatv("bench record: 'noise' {0} is out of range "
                             "[0, 1e6]", record.noise).str());
  for (auto [key, v] : {std::pair{"median_s", record.median},
                        {"baseline_median_s", record.baselineMedian}})
    if (outside(v, 1e-12, 1e9))
      return makeError(formatv("bench record: '{0}' {1} is out of range "
                               "(1e-12 s, 1e9 s)", key, v).str());
  return Error::success();
}

Expected<BenchRecord> benchRecordFromJson(const json::Value &v) {
  FieldReader reader(v, "bench record");
  BenchRecord record;
  record.status = reader.status();
  record.message = reader.str("message", false);
  // A measurement's numbers are all required: a missing ratio must not
  // read as 0 (the best possible one), nor a missing noise as none.
  bool measured = record.status == Status::Ok;
  record.median = reader.num("median_s", measured);
  record.baselineMedian = reader.num("baseline_median_s", measured);
  record.ratio = reader.num("ratio");
  record.noise = reader.num("noise", measured);
  record.maxError = reader.num("max_error", false);
  record.seconds = reader.num("seconds", false);
  record.startedAt = reader.num("started_at", false);
  record.samples = reader.nums("samples_s");
  record.cached = reader.boolean("cached");
  record.key = reader.str("key", false);
  record.cpuShare = reader.num("cpu_share", false);
  record.loadAverage = reader.num("load_average", false);
  record.disturbed = reader.boolean("disturbed");
  record.baselineSamples = reader.nums("baseline_samples_s");
  if (reader.object)
    record.slurm = slurmPlacementFromJson(reader.object->get("slurm"));
  if (Error err = reader.take())
    return std::move(err);
  return record;
}

json::Value toJson(const SelectRecord &record) {
  json::Object counts;
  for (const auto &[status, n] : record.statusCounts)
    counts[status] = n;
  json::Object object{{"schema", schema::kSelect},
                      {"dispatch", record.dispatch},
                      {"ratio", record.ratio},
                      {"required_margin", record.requiredMargin},
                      {"reason", record.reason},
                      {"status_counts", std::move(counts)},
                      {"spec", record.spec}};
  object["winner"] = record.winner ? json::Value(*record.winner) : nullptr;
  return object;
}

Expected<SelectRecord> selectRecordFromJson(const json::Value &v) {
  FieldReader reader(v, "select record");
  SelectRecord record;
  record.dispatch = reader.str("dispatch");
  record.spec = reader.str("spec");
  record.ratio = reader.num("ratio", false);
  record.requiredMargin = reader.num("required_margin", false);
  record.reason = reader.str("reason", false);
  if (reader.object) {
    if (const json::Value *winner = reader.object->get("winner");
        winner && winner->kind() != json::Value::Null)
      record.winner = reader.integer("winner");
    if (const json::Object *counts = reader.object->getObject("status_counts"))
      for (const auto &[status, n] : *counts)
        if (std::optional<int64_t> count = n.getAsInteger(); count && *count >= 0)
          record.statusCounts[status.str()] = static_cast<unsigned>(*count);
  }
  if (Error err = reader.take())
    return std::move(err);
  if (record.dispatch.empty())
    return makeError("select record: 'dispatch' must not be empty");
  if (record.winner.has_value() == record.spec.empty())
    return makeError("select record: a winner needs its spec, and a spec its "
                     "winner");
  return record;
}

json::Value toJson(const ModelRecord &record) {
  json::Array kept;
  for (const std::string &id : record.winnersKept)
    kept.push_back(id);
  json::Object object{{"schema", schema::kModel},
                      {"model", record.model},
                      {"status", toString(record.status)},
                      {"message", record.message},
                      {"decision", record.decision},
                      {"baseline_median_s", record.baselineMedian},
                      {"tuned_median_s", record.tunedMedian},
                      {"speedup", record.speedup},
                      {"ratio", record.ratio},
                      {"noise", record.noise},
                      {"max_error", record.maxError},
                      {"winners_kept", std::move(kept)},
                      {"winners_dropped", json::Array(record.winnersDropped)},
                      {"results_checked", record.resultsChecked},
                      {"baseline_samples_s", toArray(record.baselineSamples)},
                      {"tuned_samples_s", toArray(record.tunedSamples)},
                      {"seconds", record.seconds},
                      {"started_at", record.startedAt}};
  if (!record.device.empty())
    object["device"] = record.device;
  if (!record.inModelTrials.empty())
    object["in_model_trials"] = json::Array(record.inModelTrials);
  if (!record.inModelProfile.empty())
    object["in_model_profile"] = json::Array(record.inModelProfile);
  if (!record.profileNote.empty())
    object["profile_note"] = record.profileNote;
  if (!record.executables.empty())
    object["executables"] = json::Array(record.executables);
  if (!record.specReach.empty())
    object["spec_reach"] = record.specReach;
  if (record.budgetLimited)
    object["budget_limited"] = true;
  return object;
}

Expected<ModelRecord> modelRecordFromJson(const json::Value &v) {
  FieldReader reader(v, "model record");
  ModelRecord record;
  record.model = reader.str("model");
  record.device = reader.str("device", false);
  record.status = reader.status();
  record.message = reader.str("message", false);
  record.decision = reader.str("decision", false);
  record.baselineMedian = reader.num("baseline_median_s", false);
  record.tunedMedian = reader.num("tuned_median_s", false);
  record.speedup = reader.num("speedup", false);
  record.ratio = reader.num("ratio", false);
  record.noise = reader.num("noise", false);
  record.maxError = reader.num("max_error", false);
  record.resultsChecked = reader.str("results_checked", false);
  record.profileNote = reader.str("profile_note", false);
  record.specReach = reader.str("spec_reach", false);
  if (reader.object)
    record.budgetLimited =
        reader.object->getBoolean("budget_limited").value_or(false);
  record.baselineSamples = reader.nums("baseline_samples_s");
  record.tunedSamples = reader.nums("tuned_samples_s");
  record.seconds = reader.num("seconds", false);
  record.startedAt = reader.num("started_at", false);
  if (reader.object) {
    if (const json::Array *kept = reader.object->getArray("winners_kept"))
      for (const json::Value &id : *kept)
        if (std::optional<StringRef> s = id.getAsString())
          record.winnersKept.push_back(s->str());
    if (const json::Array *dropped = reader.object->getArray("winners_dropped"))
      record.winnersDropped = *dropped;
    if (const json::Array *trials = reader.object->getArray("in_model_trials"))
      record.inModelTrials = *trials;
    if (const json::Array *profile = reader.object->getArray("in_model_profile"))
      record.inModelProfile = *profile;
    if (const json::Array *executables = reader.object->getArray("executables"))
      record.executables = *executables;
  }
  if (Error err = reader.take())
    return std::move(err);
  return record;
}

Expected<CompileRecord> readCompileRecord(StringRef path) {
  return readRecord<CompileRecord>(path, schema::kCompile,
                                   compileRecordFromJson);
}

Expected<BenchRecord> readBenchRecord(StringRef path) {
  return readRecord<BenchRecord>(path, schema::kBench, benchRecordFromJson);
}

Expected<DispatchEntry> readDispatchProblem(StringRef path) {
  Expected<DispatchIndex> index =
      readRecord<DispatchIndex>(path, schema::kDispatches, dispatchIndexFromJson);
  if (!index)
    return index.takeError();
  if (index->dispatches.size() != 1)
    return damagedRecord(path, "expected exactly one dispatch");
  return std::move(index->dispatches.front());
}

Error damagedRecord(StringRef path, const Twine &problem) {
  std::string message = (path + ": " + problem).str();
  if (std::error_code ec = sys::fs::remove(path))
    return makeError(message + "; remove this damaged record (" +
                     ec.message() + ") and run `ninja tune` again");
  return makeError(message + "; removed this damaged record: run `ninja tune` "
                             "again to redo the step that writes it");
}

Expected<json::Value> readJsonFile(StringRef path, StringRef expectedSchema) {
  Expected<std::string> text = readFile(path);
  if (!text)
    return text.takeError();
  Expected<json::Value> value = parseStrictJson(*text);
  if (!value)
    return damagedRecord(path,
                         "invalid JSON: " + toString(value.takeError()));
  const json::Object *object = value->getAsObject();
  std::optional<StringRef> found =
      object ? object->getString("schema") : std::nullopt;
  if (!found)
    return damagedRecord(path, "not a retune record (no \"schema\" field)");
  if (*found != expectedSchema)
    return damagedRecord(path, "schema is '" + *found + "', expected '" +
                                   expectedSchema + "'");
  return value;
}

/// The JSON path of the first non-finite number in `value` ("" if none).
static std::optional<std::string> findNonFinite(const json::Value &value,
                                                const std::string &at) {
  if (std::optional<double> d = value.getAsNumber())
    return std::isfinite(*d) ? std::nullopt : std::optional(at);
  if (const json::Object *object = value.getAsObject()) {
    for (const auto &[key, item] : *object)
      if (auto found = findNonFinite(item, at + "." + key.str()))
        return found;
  } else if (const json::Array *array = value.getAsArray()) {
    for (auto [i, item] : llvm::enumerate(*array))
      if (auto found = findNonFinite(item, at + "[" + std::to_string(i) + "]"))
        return found;
  }
  return std::nullopt;
}

/// The text of a record: pretty-printed, never with a non-finite number.
static Expected<std::string> recordText(StringRef path,
                                        const json::Value &value) {
  // JSON has no nan or inf (llvm::json would print them anyway): a
  // non-finite number is a bug upstream and must not reach a record.
  if (std::optional<std::string> at = findNonFinite(value, ""))
    return makeError(path + ": refusing to write a non-finite number at " +
                     (at->empty() ? std::string(".") : *at));
  std::string text;
  raw_string_ostream os(text);
  os << formatv("{0:2}", value) << "\n";
  return text;
}

Error writeJsonFile(StringRef path, const json::Value &value) {
  Expected<std::string> text = recordText(path, value);
  if (!text)
    return text.takeError();
  return writeFileIfChanged(path, *text);
}

Error writeHashedJsonFile(StringRef path, const json::Value &value) {
  Expected<std::string> text = recordText(path, value);
  if (!text)
    return text.takeError();
  return writeHashedFile(path, *text);
}

Error writeSkippedRecord(StringRef path, StringRef message, bool isBench) {
  json::Value record = nullptr;
  if (isBench) {
    BenchRecord skipped;
    skipped.status = Status::Skipped;
    skipped.message = message.str();
    skipped.startedAt = unixSeconds();
    record = toJson(skipped);
  } else {
    CompileRecord skipped;
    skipped.status = Status::Skipped;
    skipped.message = message.str();
    record = toJson(skipped);
  }
  if (Error err = writeJsonFile(path, record))
    return err;
  return noteSkipped(path);
}

} // namespace retune
