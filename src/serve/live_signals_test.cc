// The live path end to end: the NVML sampler through the real dlopen path against the fake
// libnvidia-ml, its samples diagnosed as `gpuwhy serve` and `gpuwhy run` do: each platform
// signal of the scripted devices is recognised.
#include <gtest/gtest.h>

#include "collect/fake_nvml/fake_nvml_test_util.h"
#include "diagnose/diagnose_signals.h"

namespace gpuwhy {
namespace live_signals_test {

TEST(LiveSignalsTest, PlatformSignalsFromScriptedDevicesAreRecognised) {
  NvmlSampler sampler(FreshLibrary(FAKE_NVML_PATH, PlatformScript()));
  ASSERT_TRUE(sampler.Probe().ok());
  MetricSeriesSet set = SampleTicks(sampler, 60);
  Diagnosis d = DiagnoseSignals(set);
  const Finding* saw = d.Find("input.starvation_pattern");
  ASSERT_NE(saw, nullptr);
  EXPECT_NE(saw->title.find("period 1.2 s"), std::string::npos) << saw->title;
  const Finding* thr = d.Find("platform.throttling");
  ASSERT_NE(thr, nullptr);
  EXPECT_NE(thr->title.find("hardware thermal slowdown 75%"), std::string::npos) << thr->title;
  const Finding* con = d.Find("platform.contention");
  ASSERT_NE(con, nullptr);
  EXPECT_EQ(con->evidence[0].metric.scope.device, 1);
  const Finding* pcie = d.Find("platform.pcie_downgraded");
  ASSERT_NE(pcie, nullptr);
  EXPECT_NE(pcie->title.find("gen 3 x8"), std::string::npos) << pcie->title;
  EXPECT_EQ(d.Find("platform.pcie_downgraded")->evidence.size(), 1u);  // GPU 0's link is fine
}

}  // namespace live_signals_test
}  // namespace gpuwhy
