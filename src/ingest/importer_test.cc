#include "ingest/importer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace gpuwhy {
namespace importer_test {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpuwhy_importer_XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string Write(const std::string& relative, std::string_view content) const {
    fs::path p = fs::path(path_) / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary)
        .write(content.data(), static_cast<std::streamsize>(content.size()));
    return p.string();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

constexpr std::string_view kMinimalTrace = R"({
  "schemaVersion": 1,
  "baseTimeNanoseconds": 1700000000000000000,
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 5}
  ]
})";

TEST(ParseRankFromFileNameTest, Patterns) {
  EXPECT_EQ(ParseRankFromFileName("rank-3.json"), 3);
  EXPECT_EQ(ParseRankFromFileName("/x/trace_rank_12.pt.trace.json.gz"), 12);
  EXPECT_EQ(ParseRankFromFileName("RANK7.json"), 7);
  EXPECT_EQ(ParseRankFromFileName("host.Worker0.1700000.pt.trace.json"), 0);
  EXPECT_EQ(ParseRankFromFileName("worker_15.json"), 15);
}

TEST(ParseRankFromFileNameTest, FolderNameWhenFileNameSaysNothing) {
  EXPECT_EQ(ParseRankFromFileName("traces/rank_4/host.123.pt.trace.json"), 4);
  EXPECT_EQ(ParseRankFromFileName("traces/rank_4/rank_1.json"), 1);
}

TEST(ParseRankFromFileNameTest, NoRank) {
  EXPECT_EQ(ParseRankFromFileName("trace.json"), std::nullopt);
  EXPECT_EQ(ParseRankFromFileName("frank3.json"), std::nullopt);  // not at a word start
  EXPECT_EQ(ParseRankFromFileName("rank.json"), std::nullopt);
  EXPECT_EQ(ParseRankFromFileName("rank-x3.json"), std::nullopt);
  EXPECT_EQ(ParseRankFromFileName("workers.json"), std::nullopt);
}

TEST(ExpandInputPathsTest, MissingPathNamesIt) {
  auto result = ExpandInputPaths({"/nonexistent/gpuwhy/trace.json"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(result.status().message(), "/nonexistent/gpuwhy/trace.json: no such file or directory");
}

TEST(ExpandInputPathsTest, WalksDirectoriesForTraceNamesSorted) {
  TempDir dir;
  std::string b = dir.Write("b/rank1.pt.trace.json", "{}");
  std::string a = dir.Write("a.json.gz", "x");
  std::string c = dir.Write("c/d/e.gz", "x");
  dir.Write("notes.txt", "x");
  dir.Write("demo.json.truth.json", "{}");
  dir.Write(".git/objects.json", "{}");
  auto result = ExpandInputPaths({dir.path()});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(*result, (std::vector<std::string>{a, b, c}));
}

TEST(ExpandInputPathsTest, FilesAreKeptWhateverTheirNameAndDeduplicated) {
  TempDir dir;
  std::string odd = dir.Write("capture.trace", "{}");
  std::string json = dir.Write("sub/a.json", "{}");
  auto result = ExpandInputPaths({odd, dir.path() + "/sub", json});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(*result, (std::vector<std::string>{odd, json}));
}

TEST(ExpandInputPathsTest, DirectoryWithoutTracesIsAnError) {
  TempDir dir;
  dir.Write("readme.md", "x");
  auto result = ExpandInputPaths({dir.path()});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("no trace files"), std::string::npos);
}

TEST(ImportTraceFileTest, MissingFile) {
  auto result = ImportTraceFile("/nonexistent/x.json");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "/nonexistent/x.json: no such file or directory");
}

TEST(ImportTraceFileTest, BinaryIsNotATrace) {
  TempDir dir;
  std::string path = dir.Write("x.json", std::string_view("\x7f\x45LF\0\1", 6));
  auto result = ImportTraceFile(path);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), path + ": byte 0: not a trace (expected Kineto JSON)");
}

TEST(ImportTraceFileTest, OffsetSkipsLeadingWhitespace) {
  TempDir dir;
  std::string path = dir.Write("x.json", "  \n hello");
  auto result = ImportTraceFile(path);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), path + ": byte 4: not a trace (expected Kineto JSON)");
}

TEST(ImportTraceFileTest, EmptyAndBlankFiles) {
  TempDir dir;
  std::string empty = dir.Write("empty.json", "");
  std::string blank = dir.Write("blank.json", " \n\t");
  auto result = ImportTraceFile(empty);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), empty + ": byte 0: empty file (expected Kineto JSON)");
  result = ImportTraceFile(blank);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), blank + ": byte 3: only whitespace (expected Kineto JSON)");
}

TEST(ImportTraceFileTest, CutSqliteHeaderIsAOneLineError) {
  TempDir dir;
  std::string path = dir.Write("report.sqlite", std::string_view("SQLite format 3\0\x10\0", 18));
  auto result = ImportTraceFile(path);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message().rfind(path + ": ", 0), 0u) << result.status().message();
  EXPECT_EQ(result.status().message().find('\n'), std::string::npos);
}

TEST(ImportTraceFileTest, NsysReportGivesTheExportCommand) {
  TempDir dir;
  std::string path = dir.Write("profile.nsys-rep", "binary");
  auto result = ImportTraceFile(path);
  ASSERT_FALSE(result.ok());
  std::string stem = dir.path() + "/profile";
  EXPECT_NE(result.status().message().find("nsys export --type sqlite --output " + stem +
                                           ".sqlite " + stem + ".nsys-rep"),
            std::string::npos)
      << result.status().message();
}

// --- The tests below need the Kineto importer (src/ingest/kineto); until it lands they fail
// --- with kUnimplemented.

TEST(ImportTraceFileNeedsKinetoTest, JsonGoesToKinetoAndRankComesFromTheName) {
  TempDir dir;
  std::string path = dir.Write("job_rank-5.pt.trace.json", kMinimalTrace);
  auto result = ImportTraceFile(path);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->rank.rank, 5);
  EXPECT_EQ(result->rank.source, RankSource::kFileName);
}

TEST(ImportTraceFileNeedsKinetoTest, LeadingWhitespaceIsAccepted) {
  TempDir dir;
  std::string path = dir.Write("trace.json", " \n\t" + std::string(kMinimalTrace));
  auto result = ImportTraceFile(path);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->rank.rank, kNoValue);
  EXPECT_EQ(result->rank.source, RankSource::kUnknown);
}

// An importer that names the file in its detail (the text readers do) is not named twice.
TEST(DataLossStatusTest, ADetailThatNamesTheFileIsNotNamedTwice) {
  DataProblems problems;
  problems.Add(DataProblem::kTruncated, "cut.csv: line 14: ends inside a quoted field");
  EXPECT_EQ(DataLossStatus("cut.csv", problems).message(),
            "cut.csv: line 14: ends inside a quoted field (truncated; the events before the cut "
            "were kept)");
}

}  // namespace importer_test
}  // namespace gpuwhy

namespace gpuwhy {
namespace importer_test {

TEST(DataLossStatusTest, TruncatedTraceNamesFileAndByte) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("gpuwhy_partial_cut_" + std::to_string(getpid()) + ".json"))
                         .string();
  {
    std::ofstream out(path);
    out << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2}, {"ph": "X", "ca)";
  }
  auto trace = ImportTraceFile(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->cpu_slices.size(), 1u);
  Status partial = DataLossStatus(path, trace->problems);
  EXPECT_EQ(partial.code(), StatusCode::kDataLoss);
  EXPECT_NE(partial.message().find(path + ": byte 99: "), std::string::npos) << partial.message();

  std::ofstream(path)
      << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})";
  auto whole = ImportTraceFile(path);
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(DataLossStatus(path, whole->problems).ok());
}

}  // namespace importer_test
}  // namespace gpuwhy
