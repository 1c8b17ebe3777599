// The diagnosis from real metric logs in ../shared/data/logs.
#include <gtest/gtest.h>

#include <filesystem>

#include "diagnose/diagnose_signals.h"
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

TEST(DiagnoseSignalsRealTest, DeepSpeechDmonIsLowUtilization) {
  const std::string rel = "dmon/deepspeech_issue178_dmon_pucvmet_excerpt.txt";
  SKIP_WITHOUT(rel);
  StatusOr<Diagnosis> d = DiagnoseLog(rel);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const Finding* low = d->Find("compute.low_gpu_utilization");
  ASSERT_NE(low, nullptr);
  // sm column 25, 18, 24, 18 -> mean 21.25 (python: sum([25,18,24,18])/4)
  EXPECT_NE(low->title.find("21%"), std::string::npos) << low->title;
  EXPECT_EQ(low->evidence.size(), 4u);                      // every GPU below 50%
  EXPECT_EQ(low->confidence, Confidence::kLow);             // 1 untimed sample per GPU
  EXPECT_EQ(d->Find("input.starvation_pattern"), nullptr);  // one sample: no rhythm
  // pviol 0 and tviol 0 on every GPU: throttling assessed, not fired.
  EXPECT_EQ(d->Find("platform.throttling"), nullptr);
}

TEST(DiagnoseSignalsRealTest, PmonWithGpuBurnAndMemhogsIsContention) {
  const std::string rel = "dmon/gpuexp_linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.pmon.txt";
  SKIP_WITHOUT(rel);
  StatusOr<Diagnosis> d = DiagnoseLog(rel);
  ASSERT_TRUE(d.ok()) << d.status().message();
  const Finding* f = d->Find("platform.contention");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence[0].metric.value, 3);  // gpu_burn and two memhog processes
  EXPECT_EQ(f->top_events.size(), 3u);
}

TEST(DiagnoseSignalsRealTest, EncoderBusyCaptureReadsLowSmUtilization) {
  const std::string rel =
      "dmon/gpuexp_linux-x86_64__nvidia-geforce-rtx-4080-super__595.71.05.dmon.txt";
  SKIP_WITHOUT(rel);
  StatusOr<Diagnosis> d = DiagnoseLog(rel);
  ASSERT_TRUE(d.ok()) << d.status().message();
  // This capture's sm column is 6.8% mean: the encoder (enc 100%) is busy, not the SMs.
  EXPECT_NE(d->Find("compute.low_gpu_utilization"), nullptr);
}

}  // namespace diagnose_signals_real_test
}  // namespace gpuwhy
