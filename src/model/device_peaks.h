// Peak dense throughput of the GPUs gpuwhy meets (FLOP/s per precision, HBM/GDDR bandwidth),
// each entry with the vendor datasheet it comes from, matched by the device name the data gives
// (Kineto deviceProperties "NVIDIA A100-SXM4-80GB", nvidia-smi "NVIDIA H100 80GB HBM3", ROCm
// "AMD Instinct MI300X"). Values are dense (without 2:4 sparsity: datasheets that print only
// the sparse figure are halved, as their footnotes say); a precision a datasheet does not state
// is nullopt, never a guess.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace gpuwhy {

enum class Precision : uint8_t { kFp64, kFp32, kTf32, kFp16, kBf16, kFp8 };
std::string_view PrecisionName(Precision p);  // "fp64", "fp32", "tf32", "fp16", "bf16", "fp8"

struct DevicePeak {
  std::string_view name;  // "A100 SXM4 80GB"
  // FLOP/s, dense; fp64 and fp32 are the vector (SIMT) units, tf32/fp16/bf16/fp8 the tensor or
  // matrix cores.
  std::optional<double> fp64;
  std::optional<double> fp32;
  std::optional<double> tf32;
  std::optional<double> fp16;
  std::optional<double> bf16;
  std::optional<double> fp8;
  double memory_bytes_per_s = 0;
  std::string_view source;  // "NVIDIA A100 Tensor Core GPU datasheet (2021)"

  std::optional<double> Flops(Precision p) const;
};

// Every entry, most specific first.
std::span<const DevicePeak> DevicePeakTable();

// The entry for a device name as profilers and nvidia-smi print it; nullptr when gpuwhy has no
// peak for it (the caller says "unknown device").
const DevicePeak* FindDevicePeak(std::string_view device_name);

}  // namespace gpuwhy
