//===- RankerTool.cpp - What retune-ranker does ---------------------------===//
#include "stages/search/ranker/RankerTool.h"

#include "stages/search/ranker/Corpus.h"
#include "stages/support/FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace retune::ranker {

static Expected<std::vector<MeasuredDispatch>>
readCorpus(const RankerToolOptions &options) {
  if (options.buildDirs.empty())
    return makeError("name one or more build directories of finished tunes");
  std::vector<MeasuredDispatch> corpus;
  for (const std::string &dir : options.buildDirs)
    if (Error err = readTuneBuild(dir, corpus))
      return std::move(err);
  return corpus;
}

Error runTrain(const RankerToolOptions &options, raw_ostream &os) {
  Expected<std::vector<MeasuredDispatch>> corpus = readCorpus(options);
  if (!corpus)
    return corpus.takeError();
  Expected<RankerModel> model = trainRanker(*corpus, cpu::detectHost());
  if (!model)
    return model.takeError();
  if (Error err = writeRankerModel(*model, options.output))
    return err;
  os << formatv("{0}: learned from {1} dispatches (", options.output,
                model->dispatches);
  ListSeparator sep;
  for (const auto &[kind, count] : model->dispatchesPerKind)
    os << sep << count << " " << kind;
  os << formatv(
      "); candidates of a kind with fewer than {0} keep the "
      "heuristic order{1}\n",
      kMinSameKind,
      model->dispatches < kMinDispatches
          ? formatv(", and all do below {0} dispatches", kMinDispatches).str()
          : "");
  return Error::success();
}

Error runEvaluate(const RankerToolOptions &options, raw_ostream &os) {
  Expected<std::vector<MeasuredDispatch>> corpus = readCorpus(options);
  if (!corpus)
    return corpus.takeError();
  Expected<std::vector<DispatchTrials>> rows =
      evaluateLeaveOneOut(*corpus, cpu::detectHost());
  if (!rows)
    return rows.takeError();
  if (rows->empty())
    return makeError("no dispatch with a measured candidate");
  printTrials(*rows, os);
  return Error::success();
}

} // namespace retune::ranker
