// Deterministic mutation fuzzing of every metric-log parser (dmon, pmon, --query-gpu CSV,
// dcgm-exporter text, DCGM field CSV, dcgmi dmon, and the sniffing front door), seeded from the
// real logs in
// ../shared/data/logs and inline samples when the data is absent. Short in ctest; for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ingest_metrics_fuzz_test --gtest_filter='*Dmon*'
// The seed makes every run reproducible (base/fuzz_mutator.h).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <random>

#include "base/file_input.h"
#include "base/fuzz_mutator.h"
#include "ingest/metrics/metric_log_fuzz_body.h"

namespace gpuwhy {
namespace metric_log_fuzz_test {

namespace fs = std::filesystem;

struct Target {
  MetricLogFuzzFormat format;
  const char* name;
  MetricLogFormat sniffed;  // real files that sniff as this are its seeds
  const char* inline_seed;
};

const Target kTargets[] = {
    {MetricLogFuzzFormat::kDmon, "Dmon", MetricLogFormat::kDmon,
     "#Date       Time        gpu    pwr  gtemp     sm    mem   mclk   pclk\n"
     "#YYYYMMDD   HH:MM:SS    Idx      W      C      %      %    MHz    MHz\n"
     " 20230815   10:43:21      0     63     36     90      5    877    345\n"
     " 20230815   10:43:21      1     60     35      -      5    877    345\n"
     " 20230815   10:43:22      0     63     36     10      5    877    345\n"},
    {MetricLogFuzzFormat::kPmon, "Pmon", MetricLogFormat::kPmon,
     "# gpu         pid   type     sm    mem    enc    dec    command\n"
     "# Idx           #    C/G      %      %      %      %    name\n"
     "    0       4242     C     80     10      -      -    python\n"
     "    1          -     -      -      -      -      -    -\n"
     "    0       4242     C     60     10      -      -    python\n"},
    {MetricLogFuzzFormat::kQueryGpuCsv, "QueryGpuCsv", MetricLogFormat::kQueryGpuCsv,
     "timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W], "
     "clocks_event_reasons.active\n"
     "2024/01/02 03:04:05.000, 0, 97 %, 70000 MiB, 300.5 W, 0x0000000000000004\n"
     "2024/01/02 03:04:05.000, 1, [N/A], 100 MiB, 90.0 W, 0x0000000000000000\n"
     "2024/01/02 03:04:06.000, 0, 95 %, 71000 MiB, 301.5 W, 0x0000000000000004\n"},
    {MetricLogFuzzFormat::kDcgmPrometheus, "DcgmPrometheus", MetricLogFormat::kDcgmPrometheus,
     "# HELP DCGM_FI_PROF_SM_ACTIVE The ratio of cycles an SM has at least 1 warp assigned\n"
     "# TYPE DCGM_FI_PROF_SM_ACTIVE gauge\n"
     "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",UUID=\"GPU-x\",modelName=\"NVIDIA A100\"} 0.25\n"
     "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-x\"} 99\n"
     "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"1\",GPU_I_ID=\"3\"} 0.5 1700000000000\n"
     "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",UUID=\"GPU-x\",modelName=\"NVIDIA A100\"} 0.35\n"},
    {MetricLogFuzzFormat::kDcgmCsv, "DcgmCsv", MetricLogFormat::kDcgmCsv,
     "EntityId,GRACT,FBUSD,TimeStamp\n0,0.250,1520,1661756603\n1,0.500,N/A,1661756603\n"
     "0,0.750,1600,1661756604\n"},
    {MetricLogFuzzFormat::kDcgmiDmon, "DcgmiDmon", MetricLogFormat::kDcgmiDmon,
     "#Entity   GRACT   SMACT   SMOCC   TENSO   DRAMA\n"
     "ID\n"
     "GPU 0     0.953   0.812   0.401   0.350   0.200\n"
     "GPU 1     N/A     N/A     N/A     N/A     N/A\n"
     "GPU 0     0.950   0.800   0.400   0.340   0.210\n"},
    {MetricLogFuzzFormat::kSniffed, "Sniffed", MetricLogFormat::kNone,
     "# gpu   pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
     "# Idx     W      C      C      %      %      %      %    MHz    MHz\n"
     "    0    43     30      -      0      0      0      0    405    210\n"},
};

std::vector<std::string> Seeds(const Target& t) {
  std::vector<std::string> seeds = {t.inline_seed};
  for (const char* dir : {"dmon", "dcgm", "nvidia-smi"}) {
    std::vector<std::string> files = testing::SeedFiles(
        fs::path(GPUWHY_SHARED_DATA) / "logs" / dir, 32 << 10, [](const std::string& path) {
          StatusOr<std::string> text = ReadWholeFile(path, InputLimit::kMetricLog);
          return text.ok() ? *text : std::string();
        });
    for (std::string& text : files) {
      MetricLogFormat format = SniffMetricLog(text.substr(0, 16 << 10));
      if (format == MetricLogFormat::kNone || format == MetricLogFormat::kRecording) continue;
      if (t.sniffed == MetricLogFormat::kNone || format == t.sniffed) seeds.push_back(text);
    }
  }
  return seeds;
}

class MetricLogFuzzTest : public ::testing::TestWithParam<Target> {};

TEST_P(MetricLogFuzzTest, MutantsNeverBreakTheContract) {
  const Target& t = GetParam();
  const std::vector<std::string> seeds = Seeds(t);
  for (const std::string& seed : seeds) ASSERT_EQ(FuzzMetricLogParser(t.format, seed), "");
  std::mt19937_64 rng(0x6d6574726963ULL + static_cast<uint64_t>(t.format));
  testing::FuzzBudget budget(1500);
  while (budget.Next()) {
    std::string mutant = testing::MutateText(seeds[rng() % seeds.size()], rng);
    ASSERT_EQ(FuzzMetricLogParser(t.format, mutant), "")
        << "run " << budget.runs() << ": contract broken for input of " << mutant.size()
        << " bytes:\n"
        << mutant.substr(0, 3000);
  }
  RecordProperty("runs", std::to_string(budget.runs()));
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, MetricLogFuzzTest, ::testing::ValuesIn(kTargets),
                         [](const ::testing::TestParamInfo<Target>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace metric_log_fuzz_test
}  // namespace gpuwhy
