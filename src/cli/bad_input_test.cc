// Commands on inputs that are broken or not what they claim to be (issue 21): each bad input
// fails alone with one line naming it, the others are read, and the exit code is the README's.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/file_input.h"
#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace bad_input_test {

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

// A symlink loop in a support bundle threw filesystem_error out of the folder walk (doctor
// lost the whole bundle; analyze of a folder without traces aborted as "internal error"): the
// entry is skipped and the logs beside it are read.
TEST_F(BadInputTest, ASymlinkLoopInABundleIsSkipped) {
  fs::create_directories(Path("bundle"));
  Write("bundle/dmesg.txt",
        "[    5.123456] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n");
  fs::create_symlink("loop", Path("bundle/loop"));
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"doctor", "--from", Path("bundle")}, {"analyze", Path("bundle")}}) {
    Result r = RunGpuwhy(args);
    EXPECT_EQ(r.code, kExitOk) << args[0] << ": " << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    EXPECT_NE(r.out.find("platform.xid"), std::string::npos) << args[0];
  }
}

// diff against a report it cannot read, or a "trace" of nothing, refuses in one line naming
// the file (it printed "internal error: The JSON field referenced does not exist", read
// schema_version 999 as 1, and compared against nothing with exit 0).
TEST_F(BadInputTest, DiffRefusesWhatItCannotCompare) {
  const std::string trace = Synth("healthy");
  const std::string base = Path("base.json");
  ASSERT_EQ(RunGpuwhy({"analyze", trace, "--format", "json", "-o", base}).code, kExitOk);
  StatusOr<std::string> json = ReadWholeFile(base);
  ASSERT_TRUE(json.ok());
  const auto edited = [&](const std::string& name, std::string_view from, std::string_view to) {
    std::string text = *json;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return Write(name, text);
  };
  const std::string future =
      edited("future.json", "\"schema_version\": 1", "\"schema_version\": 999");
  const std::string cut = edited("cut.json", "\"time_ms\"", "\"t\"");
  const std::string arrays = Write("arrays.json", "[[[1, 2], [3]], [[4]]]\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {future, future + ": report schema_version 999: this gpuwhy reads version 1 (write the "
                        "report again with gpuwhy analyze --format json)"},
      {cut, cut + ": ranks[0].steps[0]: no \"time_ms\""},
      {arrays, arrays + ": no timed trace event could be read (malformed_event: first at byte 1): "
                        "nothing to analyse"},
  };
  for (const auto& [test, error] : cases) {
    Result r = RunGpuwhy({"diff", base, test});
    EXPECT_EQ(r.code, kExitUnusable) << test;
    EXPECT_EQ(r.err, "gpuwhy: " + error + "\n");
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
  }
  EXPECT_EQ(RunGpuwhy({"diff", base, base}).code, kExitOk);
}

// One exit-code policy for every command (README: exit codes): nothing usable exits 2; an
// input read with data loss is analysed, the loss is a warning on stderr and the exit code 0;
// --strict turns that loss into 2. Before, analyze of '{"traceEvents":[' said "no finding" and
// exited 0 while info exited 2, and a cut but usable trace exited 0 from analyze, 2 from info.
TEST_F(BadInputTest, OneExitCodePolicyForNothingUsableAndForDataLoss) {
  const std::string empty = Write("empty.json", R"({"traceEvents":[)");
  const std::string nothing = "gpuwhy: " + empty +
                              ": no timed trace event could be read (truncated: byte 16: input "
                              "stops after 0 complete events): nothing to analyse\n";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"info", empty},
                                             {"analyze", empty},
                                             {"diff", empty, empty},
                                             {"annotate", empty, "-o", Path("e.out.json")}}) {
    Result r = RunGpuwhy(args);
    EXPECT_EQ(r.code, kExitUnusable) << args[0];
    EXPECT_EQ(r.err.substr(0, nothing.size()), nothing) << args[0];
  }

  const std::string whole = Path("whole.json");
  ASSERT_EQ(RunGpuwhy({"synth", "--scenario", "input-bound", "--steps", "6", "-o", whole}).code,
            kExitOk);
  StatusOr<std::string> text = ReadWholeFile(whole);
  ASSERT_TRUE(text.ok());
  const std::string cut = Write("cut.json", text->substr(0, text->size() * 2 / 3));
  const std::vector<std::vector<std::string>> commands = {
      {"info", cut},
      {"analyze", cut},
      {"analyze", cut, "--summary", "-o", Path("cut.summary.json")},
      {"diff", whole, cut},
      {"annotate", cut, "-o", Path("cut.out.json")}};
  for (std::vector<std::string> args : commands) {
    Result r = RunGpuwhy(args);
    // diff exits 1 when the cut run is slower; never 2.
    EXPECT_EQ(r.code, args[0] == "diff" ? r.code : kExitOk) << args[0] << r.err;
    EXPECT_NE(r.code, kExitUnusable) << args[0] << r.err;
    EXPECT_EQ(r.err.rfind("gpuwhy: warning: " + cut + ": byte ", 0), 0u) << args[0] << r.err;
    EXPECT_NE(r.err.find("(truncated; the events before the cut were kept)\n"), std::string::npos)
        << r.err;
    args.push_back("--strict");
    Result strict = RunGpuwhy(args);
    EXPECT_EQ(strict.code, kExitUnusable) << args[0];
    EXPECT_EQ(strict.err.rfind("gpuwhy: " + cut + ": byte ", 0), 0u) << args[0] << strict.err;
  }

  // A node log with a row cut short: doctor reads the rest, warns, and --strict exits 2.
  const std::string topo = Write("topo.txt",
                                 "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
                                 "GPU0\t X \tNV4\t0-7\t0\nGPU1\tNV4\n");
  Result doctor = RunGpuwhy({"doctor", "--from", topo});
  EXPECT_EQ(doctor.code, kExitOk) << doctor.err;
  EXPECT_EQ(doctor.err.rfind("gpuwhy: warning: node logs: row_cut_short x1, first: " + topo, 0), 0u)
      << doctor.err;
  EXPECT_EQ(RunGpuwhy({"doctor", "--strict", "--from", topo}).code, kExitUnusable);
}

}  // namespace bad_input_test
}  // namespace gpuwhy
