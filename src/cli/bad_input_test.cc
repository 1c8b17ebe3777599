// Commands on inputs that are broken or not what they claim to be (issue 21): each bad input
// fails alone with one line naming it, the others are read, and the exit code is the README's.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace {

namespace fs = std::filesystem;

class BadInputTest : public CliFolderTest {
 protected:
  BadInputTest() : CliFolderTest("gpuwhy_bad_input", 3) {}
  // A folder of two ranks of one job and the 17-byte trace that used to abort the run.
  std::string JobWithABrokenRank() const {
    fs::create_directories(Path("job"));
    Result synth = RunGpuwhy({"synth", "--scenario", "comm-exposed", "--ranks", "2", "--steps", "3",
                              "-o", Path("job/j.json")});
    EXPECT_EQ(synth.code, kExitOk) << synth.err;
    for (const char* truth : {"job/j.rank0.json.truth.json", "job/j.rank1.json.truth.json"})
      fs::remove(Path(truth));
    Write("job/z.json", R"({"traceEvents":[})");
    return Path("job");
  }
};

constexpr std::string_view kStrayBrace = ": byte 16: unexpected '}' in the traceEvents array\n";

TEST_F(BadInputTest, TheSeventeenByteTraceIsNamedByInfo) {
  std::string bad = Write("bad.json", R"({"traceEvents":[})");
  Result r = RunGpuwhy({"info", bad});
  EXPECT_EQ(r.code, kExitUnusable);
  EXPECT_EQ(r.err, "gpuwhy: " + bad + std::string(kStrayBrace));
}

TEST_F(BadInputTest, ABrokenRankFailsAloneAndTheOthersAreRead) {
  std::string job = JobWithABrokenRank();
  const std::string error = "gpuwhy: " + Path("job/z.json") + std::string(kStrayBrace);
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"analyze", job}, {"info", job}}) {
    Result r = RunGpuwhy(args);
    EXPECT_EQ(r.code, kExitUnusable) << args[0];
    EXPECT_EQ(r.err, error) << args[0];
    EXPECT_NE(r.out.find(Path("job/j.rank0.json")), std::string::npos) << args[0];
    EXPECT_NE(r.out.find(Path("job/j.rank1.json")), std::string::npos) << args[0];
  }
  Result merged = RunGpuwhy({"annotate", job, "-o", Path("merged.json.gz")});
  EXPECT_EQ(merged.code, kExitUnusable);
  EXPECT_EQ(merged.err, error);
  EXPECT_NE(merged.out.find("2 ranks merged"), std::string::npos) << merged.out;
}

}  // namespace
}  // namespace gpuwhy
