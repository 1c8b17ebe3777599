#include <gtest/gtest.h>
TEST(ImporterPlaceholder, Builds) {}
