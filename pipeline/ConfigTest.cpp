#include "pipeline/Config.h"
#include "gtest/gtest.h"
using namespace retune;
TEST(ConfigTest, Placeholder) {}
