// The diagnosis from real metric logs in ../shared/data/logs.
#include <gtest/gtest.h>

#include <filesystem>

#include "diagnose/diagnose_signals.h"
#include "diagnose/node_log_fixtures.h"
#include "ingest/metrics/metric_log.h"

namespace gpuwhy {
namespace diagnose_signals_real_test {

namespace fs = std::filesystem;

StatusOr<Diagnosis> DiagnoseLog(const std::string& rel) {
  fs::path p = fs::path(GPUWHY_SHARED_DATA) / "logs" / rel;
  ASSIGN_OR_RETURN(MetricSeriesSet set, ImportMetricLog(p.string()));
  return DiagnoseSignals(set);
}

#define SKIP_WITHOUT(rel)                                           \
  if (!fs::exists(fs::path(GPUWHY_SHARED_DATA) / "logs" / (rel))) { \
    GTEST_SKIP() << "shared data absent: " << (rel);                \
  }

TEST(DiagnoseSignalsRealTest, DeepSpeechDmonIsOneInstantNotARun) {
  const std::string rel = "dmon/deepspeech_issue178_dmon_pucvmet_excerpt.txt";
  SKIP_WITHOUT(rel);
  StatusOr<Diagnosis> d = DiagnoseLog(rel);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const Finding* low = d->Find("compute.low_gpu_utilization");
  ASSERT_NE(low, nullptr);
  // sm column 25, 18, 24, 18 -> mean 21.25 (python: sum([25,18,24,18])/4)
  EXPECT_NE(low->title.find("21%"), std::string::npos) << low->title;
  // One sample per GPU is one instant: never "most of the time".
  EXPECT_NE(low->title.find("cannot tell"), std::string::npos) << low->title;
  EXPECT_EQ(low->title.find("most of the time"), std::string::npos) << low->title;
  EXPECT_EQ(low->severity, Severity::kLow);
  EXPECT_EQ(low->evidence.size(), 4u);                      // every GPU below 50%
  EXPECT_EQ(low->confidence, Confidence::kLow);             // 1 untimed sample per GPU
  EXPECT_EQ(d->Find("input.starvation_pattern"), nullptr);  // one sample: no rhythm
  // pviol 0 and tviol 0 on every GPU: throttling assessed, not fired.
  EXPECT_EQ(d->Find("platform.throttling"), nullptr);
}

TEST(DiagnoseSignalsRealTest, MemhogsWithoutSmSamplesDoNotContendWithGpuBurn) {
  const std::string rel = "dmon/gpuexp_linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.pmon.txt";
  SKIP_WITHOUT(rel);
  StatusOr<Diagnosis> d = DiagnoseLog(rel);
  ASSERT_TRUE(d.ok()) << d.status().message();
  // gpu_burn at sm 99; the two memhog processes hold memory with "-" for SM in every sample.
  EXPECT_EQ(d->Find("platform.contention"), nullptr);
}

TEST(DiagnoseSignalsRealTest, EncoderBusyCaptureIsAVideoWorkloadNotAnIdleGpu) {
  const std::string rel =
      "dmon/gpuexp_linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05.dmon.txt";
  SKIP_WITHOUT(rel);
  StatusOr<Diagnosis> d = DiagnoseLog(rel);
  ASSERT_TRUE(d.ok()) << d.status().message();
  // sm 7% while enc 68-69%: the encoder works, the GPU is not idle, nor is NVENC saturated.
  EXPECT_EQ(d->Find("compute.low_gpu_utilization"), nullptr);
  EXPECT_EQ(d->Find("platform.video_engine_saturated"), nullptr);
}

TEST(DiagnoseSignalsRealTest, HandWrittenMetricLogFixturesGetTheirExpectedVerdicts) {
  std::vector<node_log_fixtures::Fixture> fixtures = node_log_fixtures::Fixtures("metrics", false);
  ASSERT_GE(fixtures.size(), 4u);
  for (const node_log_fixtures::Fixture& fx : fixtures) {
    StatusOr<MetricSeriesSet> set = ImportMetricLog(fx.path);
    ASSERT_TRUE(set.ok()) << fx.path << ": " << set.status().message();
    Diagnosis d = DiagnoseSignals(*set);
    RankFindings(d.findings);
    node_log_fixtures::ExpectVerdict(fx, d.findings);
  }
}

}  // namespace diagnose_signals_real_test
}  // namespace gpuwhy
