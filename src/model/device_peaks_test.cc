#include "model/device_peaks.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace device_peaks_test {

std::string_view Found(std::string_view name) {
  const DevicePeak* peak = FindDevicePeak(name);
  return peak == nullptr ? "unknown" : peak->name;
}

TEST(DevicePeaksTest, NamesAsProfilersAndNvidiaSmiPrintThem) {
  EXPECT_EQ(Found("NVIDIA A100-SXM4-80GB"), "A100 SXM4 80GB");
  EXPECT_EQ(Found("NVIDIA A100-SXM4-40GB"), "A100 40GB");
  EXPECT_EQ(Found("NVIDIA A100-PCIE-40GB"), "A100 40GB");
  EXPECT_EQ(Found("NVIDIA A100 80GB PCIe"), "A100 PCIe 80GB");
  EXPECT_EQ(Found("NVIDIA A10"), "A10");
  EXPECT_EQ(Found("NVIDIA A10G"), "unknown");  // AWS's variant: no public datasheet figures
  EXPECT_EQ(Found("Tesla V100-SXM2-16GB"), "V100 SXM2");
  EXPECT_EQ(Found("Tesla V100-PCIE-32GB"), "V100 PCIe");
  EXPECT_EQ(Found("Tesla T4"), "T4");
  EXPECT_EQ(Found("NVIDIA L4"), "L4");
  EXPECT_EQ(Found("NVIDIA L40S"), "L40S");
  EXPECT_EQ(Found("NVIDIA L40"), "unknown");
  EXPECT_EQ(Found("NVIDIA H100 80GB HBM3"), "H100 SXM5");
  EXPECT_EQ(Found("NVIDIA H100 PCIe"), "H100 PCIe");
  EXPECT_EQ(Found("NVIDIA H100 NVL"), "H100 NVL");
  EXPECT_EQ(Found("NVIDIA H200"), "H200 SXM");
  EXPECT_EQ(Found("NVIDIA GH200 480GB"), "GH200 (96GB HBM3)");
  EXPECT_EQ(Found("NVIDIA B200"), "B200");
  EXPECT_EQ(Found("AMD Instinct MI210"), "MI210");
  EXPECT_EQ(Found("AMD Instinct MI250X / MI250"), "MI250X");
  EXPECT_EQ(Found("AMD Instinct MI250"), "MI250");
  EXPECT_EQ(Found("AMD Instinct MI300X"), "MI300X");
  EXPECT_EQ(Found("AMD Instinct MI325X"), "MI325X");
  EXPECT_EQ(Found("NVIDIA GeForce RTX 4090"), "unknown");
  EXPECT_EQ(Found(""), "unknown");
}

TEST(DevicePeaksTest, EveryEntryHasASourceAndBandwidth) {
  for (const DevicePeak& peak : DevicePeakTable()) {
    EXPECT_FALSE(peak.source.empty()) << peak.name;
    EXPECT_GT(peak.memory_bytes_per_s, 1e11) << peak.name;
    EXPECT_TRUE(peak.fp16) << peak.name;
    // Tensor/matrix fp16 is faster than the vector fp32 on every device listed.
    if (peak.fp32) {
      EXPECT_GT(*peak.fp16, *peak.fp32) << peak.name;
    }
  }
  const DevicePeak* a100 = FindDevicePeak("NVIDIA A100-SXM4-80GB");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->Flops(Precision::kBf16), 312e12);
  EXPECT_EQ(a100->Flops(Precision::kFp8), std::nullopt);  // no FP8 on sm80
  EXPECT_DOUBLE_EQ(a100->memory_bytes_per_s, 2039e9);
}

}  // namespace device_peaks_test
}  // namespace gpuwhy
