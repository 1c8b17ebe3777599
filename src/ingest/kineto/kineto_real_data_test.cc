// Every real trace in ../shared/data/kineto imports with zero error stats, and prefixes
// of them (cut as a dying job would) import too. Skipped when the data is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/file_input.h"
#include "ingest/kineto/kineto_importer.h"

namespace gpuwhy {
namespace kineto_real_data_test {

namespace fs = std::filesystem;

std::vector<std::string> RealTraces() {
  std::vector<std::string> files;
  fs::path root = fs::path(GPUWHY_SHARED_DATA) / "kineto";
  if (!fs::exists(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(KinetoRealDataTest, EveryTraceImportsWithoutErrors) {
  auto files = RealTraces();
  if (files.empty()) GTEST_SKIP() << "../shared/data/kineto is absent: real-trace tests skipped";
  for (const std::string& path : files) {
    auto imported = ImportKinetoFile(path, {.chunk_bytes = 64 * 1024});
    ASSERT_TRUE(imported.ok()) << imported.status().message();
    EXPECT_FALSE(imported->problems.HasErrors()) << path;
    EXPECT_EQ(imported->problems.Get(DataProblem::kTruncated), 0) << path;
    EXPECT_EQ(imported->problems.Get(DataProblem::kMalformedEvent), 0) << path;
    EXPECT_GT(imported->cpu_slices.size() + imported->gpu_ops.size(), 0u) << path;
  }
}

// Each cut re-imports the whole prefix: under the sanitizers (about 10x slower) fewer cuts keep
// the CI pass inside its budget while still cutting every file in several places.
#ifdef __SANITIZE_ADDRESS__
constexpr int kPieces = 4;
#else
constexpr int kPieces = 12;
#endif

TEST(KinetoRealDataTest, PrefixesOfEveryTraceImport) {
  auto files = RealTraces();
  if (files.empty()) GTEST_SKIP() << "../shared/data/kineto is absent: real-trace tests skipped";
  for (const std::string& path : files) {
    auto content = ReadWholeFile(path);
    ASSERT_TRUE(content.ok());
    auto full = ImportKinetoBytes(*content, path);
    ASSERT_TRUE(full.ok());
    // Cut points spread over the whole file, plus the first bytes.
    std::vector<size_t> cuts = {1, 2, 17};
    for (int i = 1; i < kPieces; ++i) cuts.push_back(content->size() * i / kPieces + i * 7);
    for (size_t cut : cuts) {
      if (cut >= content->size()) continue;
      auto prefix = ImportKinetoBytes(std::string_view(*content).substr(0, cut), path);
      if (!prefix.ok()) {
        // Only a prefix too short to hold the opening bracket may fail.
        EXPECT_LT(cut, 4u) << path << " cut at " << cut << ": " << prefix.status().message();
        continue;
      }
      EXPECT_EQ(prefix->problems.Get(DataProblem::kTruncated), 1) << path << " cut at " << cut;
      EXPECT_LE(prefix->gpu_ops.size(), full->gpu_ops.size());
      EXPECT_LE(prefix->cpu_slices.size(), full->cpu_slices.size());
    }
  }
}

// issue 21: a real trace cut at every offset, as is and closed with '}' or ']}' (the shapes of a
// dying writer and of a hand-repaired file), never throws: it imports (truncated) or fails with
// the byte it stopped at.
TEST(KinetoRealDataTest, EveryCutOfASmallTraceImportsOrFailsWithItsByte) {
  const fs::path path =
      fs::path(GPUWHY_SHARED_DATA) / "kineto" / "hta" / "trace_compare_base_base.json.gz";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent: the cut sweep is skipped";
  auto content = ReadWholeFile(path.string());
  ASSERT_TRUE(content.ok()) << content.status().message();
  // Every byte of the head (the top-level members and the first events), then cuts spread
  // over the rest; fewer under the sanitizers (about 10x slower).
#ifdef __SANITIZE_ADDRESS__
  constexpr size_t kSpread = 150;
#else
  constexpr size_t kSpread = 600;
#endif
  std::vector<size_t> cuts;
  for (size_t cut = 0; cut < 256; ++cut) cuts.push_back(cut);
  for (size_t i = 0; i < kSpread; ++i) cuts.push_back(256 + content->size() * i / kSpread);
  for (size_t cut : cuts) {
    if (cut > content->size()) continue;
    const std::string prefix = content->substr(0, cut);
    for (const std::string& bytes : {prefix, prefix + "}", prefix + "]}"}) {
      std::optional<StatusOr<Trace>> imported;
      ASSERT_NO_THROW(imported.emplace(ImportKinetoBytes(bytes, "cut.json"))) << "cut at " << cut;
      if (!imported->ok()) {
        EXPECT_TRUE(imported->status().message().starts_with("cut.json: byte "))
            << "cut at " << cut << ": " << imported->status().message();
      }
    }
  }
}

}  // namespace kineto_real_data_test
}  // namespace gpuwhy
