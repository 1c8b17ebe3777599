// Recordings round-trip through the writer and the reader; the sampler thread keeps its rate
// and measures its own cost; rings drop and count what overflows; the process runner passes
// exit codes through.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <thread>

#include "collect/process_runner.h"
#include "collect/procfs_sampler.h"
#include "collect/recording_test_util.h"
#include "collect/recording_writer.h"
#include "collect/sampler_thread.h"
#include "ingest/metrics/metric_log.h"
#include "ingest/metrics/recording_reader.h"

namespace gpuwhy {
namespace recorder_test {

MetricSeriesSet Example() { return ExampleRecordingSet(); }

TEST(RecordingTest, RoundTripKeepsEverySampleAndTheHeader) {
  MetricSeriesSet in = Example();
  StatusOr<MetricSeriesSet> out = ParseRecording(EncodeRecording(in), "mem");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->sample_count(), in.sample_count());
  for (const auto& [key, s] : in.all()) {
    const MetricSeries* o = out->Find(key.metric, key.device, key.entity);
    ASSERT_NE(o, nullptr) << key.metric;
    EXPECT_EQ(o->time, s.time);
    EXPECT_EQ(o->value, s.value);
    EXPECT_EQ(o->unit, s.unit);
  }
  EXPECT_EQ(out->Find("thread.cpu_pct", -1, "tid 42")->label, "python main");
  EXPECT_EQ(out->devices.size(), 1u);
  EXPECT_EQ(out->devices[0].pci_bus_id, "00000000:17:00.0");
  EXPECT_EQ(out->notes, in.notes);
  EXPECT_EQ(out->problems.Get(DataProblem::kRingOverflow), 3);
  EXPECT_DOUBLE_EQ(out->sampler_cpu_pct, 0.25);
  EXPECT_EQ(out->nominal_interval_ns, 100 * kNsPerMs);
}

TEST(RecordingTest, CompressedFileIsSniffedAndSmallerThanCsv) {
  std::string dir = (std::filesystem::temp_directory_path() / "gpuwhy_rec_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  std::string path = dir + "/run.gpuwhy";
  MetricSeriesSet in = Example();
  ASSERT_TRUE(WriteRecording(in, path).ok());
  EXPECT_EQ(SniffMetricLogFile(path), MetricLogFormat::kRecording);
  StatusOr<MetricSeriesSet> out = ImportMetricLog(path);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->sample_count(), 100u);
  EXPECT_LT(std::filesystem::file_size(path), RenderSeriesCsv(in).size() / 2);
  std::filesystem::remove_all(dir);
}

TEST(RecordingTest, TruncatedRecordingKeepsTheSeriesBeforeTheCut) {
  std::string bytes = EncodeRecording(Example());
  StatusOr<MetricSeriesSet> out = ParseRecording(bytes.substr(0, bytes.size() - 100), "cut");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->problems.Get(DataProblem::kTruncated), 1);
  EXPECT_NE(out->Find("gpu.util_pct", 0), nullptr);
  EXPECT_FALSE(ParseRecording("gpuwhy-recording 1\n", "empty").ok());
}

TEST(RecordingTest, AProblemIdThisVersionDoesNotDeclareIsKeptAsUnknown) {
  std::string bytes = EncodeRecording(Example());
  size_t at = bytes.find("issue ring_overflow");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 19, "issue fan_too_loud");
  StatusOr<MetricSeriesSet> out = ParseRecording(bytes, "newer");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->problems.Get(DataProblem::kRingOverflow), 0);
  EXPECT_EQ(out->problems.Get(DataProblem::kUnknownProblem), 3);
  EXPECT_EQ(out->problems.Detail(DataProblem::kUnknownProblem),
            "fan_too_loud: samples overwritten");
}

TEST(RecordingTest, CsvHasOneRowPerSample) {
  std::string csv = RenderSeriesCsv(Example());
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 101);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "time_s,device,entity,metric,unit,value");
  EXPECT_NE(csv.find("\n0.000,0,,gpu.util_pct,%,0\n"), std::string::npos);
}

TEST(SampleStoreTest, FullRingDropsTheOldestAndCounts) {
  SampleStore store(4);
  for (int i = 0; i < 6; ++i) store.Add({"m", -1, ""}, "%", i, i);
  MetricSeriesSet set;
  store.DrainInto(set);
  EXPECT_EQ(set.Find("m")->value, (std::vector<double>{2, 3, 4, 5}));
  EXPECT_EQ(store.dropped(), 2);
  EXPECT_EQ(store.Latest(2).Find("m")->value, (std::vector<double>{4, 5}));
}

TEST(SamplerThreadTest, HundredHertzOnLiveProcfsMeasuresItsCost) {
  std::vector<std::unique_ptr<Sampler>> samplers;
  samplers.push_back(std::make_unique<ProcfsSampler>("/", getpid()));
  SamplerThread thread(std::move(samplers), 10 * kNsPerMs);
  thread.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  thread.Stop();
  EXPECT_GE(thread.ticks(), 25);  // 50 due; a loaded machine may miss some
  EXPECT_LE(thread.ticks(), 52);
  EXPECT_GT(thread.cpu_pct(), 0);
  MetricSeriesSet set;
  thread.DrainInto(set);
  EXPECT_NE(set.Find("host.cpu_busy_pct"), nullptr);
  EXPECT_GT(set.sampler_cpu_pct, 0);
}

TEST(ProcessRunnerTest, ExitCodesAndSignalsPassThrough) {
  ProcessRunner ok;
  ASSERT_TRUE(ok.Start({"sh", "-c", "exit 7"}).ok());
  while (!ok.Poll()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(ok.exit_code(), 7);
  ProcessRunner killed;
  ASSERT_TRUE(killed.Start({"sh", "-c", "kill -TERM $$"}).ok());
  while (!killed.Poll()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(killed.exit_code(), 128 + 15);
  ProcessRunner missing;
  Status status = missing.Start({"/nonexistent/command"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot run"), std::string::npos);
}

// The command's environment gets the entries given (gpuwhy run --profile's PYTHONPATH),
// replacing same-named ones; gpuwhy's own environment is left as it was.
TEST(ProcessRunnerTest, TheCommandGetsTheGivenEnvironment) {
  ::setenv("GPUWHY_TEST_REPLACED", "old", 1);
  ProcessRunner runner;
  ASSERT_TRUE(runner
                  .Start({"sh", "-c",
                          "test \"$GPUWHY_TEST_REPLACED:$GPUWHY_TEST_ADDED\" = new:1 && "
                          "test -n \"$PATH\""},
                         {"GPUWHY_TEST_REPLACED=new", "GPUWHY_TEST_ADDED=1"})
                  .ok());
  while (!runner.Poll()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(runner.exit_code(), 0);
  EXPECT_STREQ(std::getenv("GPUWHY_TEST_REPLACED"), "old");
  EXPECT_EQ(std::getenv("GPUWHY_TEST_ADDED"), nullptr);
  ::unsetenv("GPUWHY_TEST_REPLACED");
}

TEST(ProcessRunnerTest, ForwardsSigintToTheCommand) {
  ProcessRunner runner;
  ASSERT_TRUE(runner.Start({"sleep", "30"}).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  raise(SIGINT);  // to gpuwhy (this test): forwarded, not fatal here
  for (int i = 0; i < 400 && !runner.Poll(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(runner.exit_code(), 128 + SIGINT);
}

}  // namespace recorder_test
}  // namespace gpuwhy
