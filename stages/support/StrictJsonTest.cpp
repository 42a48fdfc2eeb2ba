//===- StrictJsonTest.cpp - Records are JSON exactly ----------------------===//
#include "stages/support/StrictJson.h"

#include <gtest/gtest.h>

using namespace retune;

namespace {

std::string errorOf(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = parseStrictJson(text);
  return value ? "" : llvm::toString(value.takeError());
}

TEST(StrictJson, AcceptsWhatRecordsHold) {
  EXPECT_EQ(errorOf(R"({"schema": "x", "ratio": 0.5, "noise": 1e-3,
    "samples_s": [1, -2.5E+3, 0], "a": {"ratio": 1}, "s": "a, \"b\": 1"})"),
            "");
}

TEST(StrictJson, RefusesDuplicateKeysWithTheirLine) {
  EXPECT_EQ(errorOf("{\"ratio\": 1.2,\n \"ratio\": 0.01}"),
            "line 2: duplicate key \"ratio\"");
  // The same key in two objects is fine.
  EXPECT_EQ(errorOf(R"({"a": {"k": 1}, "b": {"k": 2}})"), "");
}

TEST(StrictJson, RefusesNumbersThatAreNotJson) {
  for (const char *bad : {".5", "+0.5", "01", "1.", "1e", "-", "0x10"})
    EXPECT_NE(errorOf(std::string("{\"ratio\": ") + bad + "}"), "") << bad;
}

TEST(StrictJson, BoundsNestingWithoutRecursing) {
  std::string deep(50000, '[');
  deep += std::string(50000, ']');
  EXPECT_EQ(errorOf(deep), "line 1: nested deeper than 64 levels");
  std::string ok(10, '[');
  EXPECT_EQ(errorOf(ok + std::string(10, ']')), "");
}

} // namespace
