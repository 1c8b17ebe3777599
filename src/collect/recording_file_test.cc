// RecordingFile, the recording of a run as it goes: after every flush PATH.partial-* reads back
// wherever the file is cut (as a gpuwhy killed mid-write leaves it), Finish() renames it whole
// over PATH, and a path that cannot be written fails before anything is recorded.
#include "collect/recording_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "ingest/metrics/metric_log.h"
#include "ingest/metrics/recording_reader.h"

namespace gpuwhy {
namespace recording_file_test {

namespace fs = std::filesystem;

std::string ScratchDir() {
  std::string dir = (fs::temp_directory_path() / "gpuwhy_recfile_XXXXXX").string();
  return ::mkdtemp(dir.data());
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Samples [from, to) of two series, 100 ms apart.
void Grow(MetricSeriesSet& set, int from, int to) {
  for (int i = from; i < to; ++i) {
    TimeNs t = 1700000000 * kNsPerSec + i * 100 * kNsPerMs;
    set.Add({"gpu.util_pct", 0, ""}, "%", t, i % 7 * 13.5);
    set.Add({"host.cpu_busy_pct", -1, ""}, "%", t, 50);
  }
}

TEST(RecordingFileTest, EveryFlushReadsBackWhereverThePartialFileIsCut) {
  const std::string dir = ScratchDir();
  const std::string path = dir + "/run.rec";
  StatusOr<std::unique_ptr<RecordingFile>> file = RecordingFile::Create(path);
  ASSERT_TRUE(file.ok()) << file.status().message();
  const std::string partial = (*file)->partial_path();
  EXPECT_TRUE(partial.starts_with(path + ".partial-")) << partial;
  MetricSeriesSet set;
  set.source = "test";
  set.nominal_interval_ns = 100 * kNsPerMs;
  set.notes = {"NVML: absent"};
  Grow(set, 0, 50);
  ASSERT_TRUE((*file)->Append(set, /*now=*/true).ok());
  const size_t first_flush = fs::file_size(partial);
  Grow(set, 50, 100);
  set.problems.Add(DataProblem::kRingOverflow, "lost", 2);
  ASSERT_TRUE((*file)->Append(set, /*now=*/true).ok());
  Grow(set, 100, 150);
  ASSERT_TRUE((*file)->Append(set).ok());  // within the flush interval: not yet written
  ASSERT_TRUE((*file)->Append(set, /*now=*/true).ok());
  EXPECT_FALSE(fs::exists(path));

  const std::string bytes = ReadBytes(partial);
  const std::string cut_path = dir + "/cut.rec";
  size_t previous = 0;
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    std::ofstream(cut_path, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(cut));
    StatusOr<MetricSeriesSet> got = ImportMetricLog(cut_path);
    if (cut < first_flush) continue;  // before the first flush: maybe nothing yet
    ASSERT_TRUE(got.ok()) << cut << ": " << got.status().message();
    EXPECT_GE(got->sample_count(), std::max<size_t>(previous, 100)) << cut;
    EXPECT_EQ(got->problems.Get(DataProblem::kTruncated), 1) << cut;
    EXPECT_EQ(got->notes, set.notes) << cut;
    previous = got->sample_count();
  }
  EXPECT_EQ(previous, 300u);  // the unfinished file holds every flush

  ASSERT_TRUE((*file)->Finish(set).ok());
  EXPECT_FALSE(fs::exists(partial));
  StatusOr<MetricSeriesSet> done = ImportMetricLog(path);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ(done->sample_count(), 300u);
  EXPECT_EQ(done->Find("gpu.util_pct", 0)->time, set.Find("gpu.util_pct", 0)->time);
  EXPECT_EQ(done->problems.Get(DataProblem::kTruncated), 0);
  EXPECT_EQ(done->problems.Get(DataProblem::kRingOverflow), 2);  // counted once
  EXPECT_EQ(done->notes, set.notes);
  fs::remove_all(dir);
}

TEST(RecordingFileTest, APathThatCannotBeWrittenFailsAtCreate) {
  StatusOr<std::unique_ptr<RecordingFile>> missing =
      RecordingFile::Create("/nonexistent/folder/run.rec");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot write"), std::string::npos);
  const std::string dir = ScratchDir();
  EXPECT_FALSE(RecordingFile::Create(dir).ok());  // a folder
  fs::remove_all(dir);
}

TEST(RecordingFileTest, AFailedWriteSticksAndFinishReportsIt) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  StatusOr<std::unique_ptr<RecordingFile>> file = RecordingFile::Create("/dev/full");
  ASSERT_TRUE(file.ok()) << file.status().message();
  MetricSeriesSet set;
  Grow(set, 0, 10);
  EXPECT_FALSE((*file)->Append(set, /*now=*/true).ok());
  Status finished = (*file)->Finish(set);
  ASSERT_FALSE(finished.ok());
  EXPECT_NE(finished.message().find("write failed"), std::string::npos) << finished.message();
}

}  // namespace recording_file_test
}  // namespace gpuwhy
