#include "model/device_peaks.h"

#include <array>
#include <cctype>
#include <string>

namespace gpuwhy {
namespace {

constexpr double kT = 1e12;   // tera
constexpr double kTB = 1e12;  // bytes per second
constexpr double kGB = 1e9;

// How a name is recognised: the model word (matched as a whole word, so "A10" is not "A100" or
// "A10G"), words that must also appear and words that must not (plain substrings).
struct NameRule {
  std::string_view model;
  std::array<std::string_view, 2> also{};
  std::array<std::string_view, 2> never{};
};

struct Entry {
  NameRule rule;
  DevicePeak peak;
};

constexpr std::optional<double> kNone = std::nullopt;

// clang-format off
const Entry kEntries[] = {
    {{"v100", {"pcie"}}, {"V100 PCIe", 7 * kT, 14 * kT, kNone, 112 * kT, kNone, kNone, 900 * kGB,
                          "NVIDIA Tesla V100 GPU datasheet (2020), PCIe"}},
    {{"v100"}, {"V100 SXM2", 7.8 * kT, 15.7 * kT, kNone, 125 * kT, kNone, kNone, 900 * kGB,
                "NVIDIA Tesla V100 GPU datasheet (2020), SXM2"}},
    {{"t4"}, {"T4", kNone, 8.1 * kT, kNone, 65 * kT, kNone, kNone, 320 * kGB,
              "NVIDIA T4 Tensor Core GPU datasheet (2019)"}},
    {{"a10"}, {"A10", kNone, 31.2 * kT, 62.5 * kT, 125 * kT, 125 * kT, kNone, 600 * kGB,
               "NVIDIA A10 Tensor Core GPU datasheet (2021)"}},
    {{"a100", {"sxm", "80gb"}}, {"A100 SXM4 80GB", 9.7 * kT, 19.5 * kT, 156 * kT, 312 * kT,
                                 312 * kT, kNone, 2039 * kGB,
                                 "NVIDIA A100 Tensor Core GPU datasheet (2021), 80GB SXM"}},
    {{"a100", {"80gb"}}, {"A100 PCIe 80GB", 9.7 * kT, 19.5 * kT, 156 * kT, 312 * kT, 312 * kT,
                          kNone, 1935 * kGB,
                          "NVIDIA A100 Tensor Core GPU datasheet (2021), 80GB PCIe"}},
    {{"a100"}, {"A100 40GB", 9.7 * kT, 19.5 * kT, 156 * kT, 312 * kT, 312 * kT, kNone,
                1555 * kGB, "NVIDIA A100 Tensor Core GPU datasheet (2021), 40GB"}},
    {{"l4"}, {"L4", kNone, 30.3 * kT, 60 * kT, 121 * kT, 121 * kT, 242.5 * kT, 300 * kGB,
              "NVIDIA L4 Tensor Core GPU datasheet (2023), sparse figures halved"}},
    {{"l40s"}, {"L40S", kNone, 91.6 * kT, 183 * kT, 362.05 * kT, 362.05 * kT, 733 * kT,
                864 * kGB, "NVIDIA L40S GPU datasheet (2023), sparse figures halved"}},
    {{"h100", {"pcie"}}, {"H100 PCIe", 26 * kT, 51 * kT, 378 * kT, 756 * kT, 756 * kT,
                          1513 * kT, 2 * kTB,
                          "NVIDIA H100 Tensor Core GPU datasheet (2023), PCIe, sparse halved"}},
    {{"h100", {"nvl"}}, {"H100 NVL", 30 * kT, 60 * kT, 417.5 * kT, 835.5 * kT, 835.5 * kT,
                         1670.5 * kT, 3.9 * kTB,
                         "NVIDIA H100 Tensor Core GPU datasheet (2024), H100 NVL (94 GB, one "
                         "GPU), sparse halved"}},
    {{"h100", {}, {"nvl"}}, {"H100 SXM5", 34 * kT, 67 * kT, 494.5 * kT, 989.5 * kT, 989.5 * kT,
                             1979 * kT, 3.35 * kTB,
                             "NVIDIA H100 Tensor Core GPU datasheet (2023), SXM, sparse halved"}},
    {{"gh200"}, {"GH200 (96GB HBM3)", 34 * kT, 67 * kT, 494.5 * kT, 989.5 * kT, 989.5 * kT,
                 1979 * kT, 4 * kTB,
                 "NVIDIA GH200 Grace Hopper Superchip datasheet (2023), sparse halved"}},
    {{"h200"}, {"H200 SXM", 34 * kT, 67 * kT, 494.5 * kT, 989.5 * kT, 989.5 * kT, 1979 * kT,
                4.8 * kTB, "NVIDIA H200 Tensor Core GPU datasheet (2024), SXM, sparse halved"}},
    {{"b200"}, {"B200", 37 * kT, kNone, 1125 * kT, 2250 * kT, 2250 * kT, 4500 * kT, 8 * kTB,
                "NVIDIA HGX B200 datasheet (2024): 8-GPU totals / 8, sparse halved"}},
    {{"mi210"}, {"MI210", 22.6 * kT, 22.6 * kT, kNone, 181 * kT, 181 * kT, kNone, 1.6 * kTB,
                 "AMD Instinct MI210 accelerator datasheet (2022): vector FP64/FP32"}},
    {{"mi250x"}, {"MI250X", 47.9 * kT, 47.9 * kT, kNone, 383 * kT, 383 * kT, kNone, 3.2 * kTB,
                  "AMD Instinct MI250X accelerator datasheet (2021): vector FP64/FP32"}},
    {{"mi250"}, {"MI250", 45.3 * kT, 45.3 * kT, kNone, 362.1 * kT, 362.1 * kT, kNone, 3.2 * kTB,
                 "AMD Instinct MI250 accelerator datasheet (2021): vector FP64/FP32"}},
    {{"mi300x"}, {"MI300X", 81.7 * kT, 163.4 * kT, 653.7 * kT, 1307.4 * kT, 1307.4 * kT,
                  2614.9 * kT, 5.3 * kTB,
                  "AMD Instinct MI300X accelerator datasheet (2023): dense figures"}},
    {{"mi325x"}, {"MI325X", 81.7 * kT, 163.4 * kT, 653.7 * kT, 1307.4 * kT, 1307.4 * kT,
                  2614.9 * kT, 6 * kTB,
                  "AMD Instinct MI325X accelerator datasheet (2024): dense figures"}},
};
// clang-format on

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool HasWord(const std::string& name, std::string_view word) {
  for (size_t at = name.find(word); at != std::string::npos; at = name.find(word, at + 1)) {
    const size_t end = at + word.size();
    const bool starts = at == 0 || !IsWordChar(name[at - 1]);
    const bool ends = end == name.size() || !IsWordChar(name[end]);
    if (starts && ends) return true;
  }
  return false;
}

bool Matches(const NameRule& rule, const std::string& name) {
  if (!HasWord(name, rule.model)) return false;
  for (std::string_view word : rule.also) {
    if (!word.empty() && name.find(word) == std::string::npos) return false;
  }
  for (std::string_view word : rule.never) {
    if (!word.empty() && name.find(word) != std::string::npos) return false;
  }
  return true;
}

const std::array<DevicePeak, std::size(kEntries)> kPeaks = [] {
  std::array<DevicePeak, std::size(kEntries)> peaks{};
  for (size_t i = 0; i < peaks.size(); ++i) peaks[i] = kEntries[i].peak;
  return peaks;
}();

}  // namespace

std::string_view PrecisionName(Precision p) {
  switch (p) {
    case Precision::kFp64: return "fp64";
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
    case Precision::kFp8: return "fp8";
  }
  return "fp32";
}

std::optional<double> DevicePeak::Flops(Precision p) const {
  switch (p) {
    case Precision::kFp64: return fp64;
    case Precision::kFp32: return fp32;
    case Precision::kTf32: return tf32;
    case Precision::kFp16: return fp16;
    case Precision::kBf16: return bf16;
    case Precision::kFp8: return fp8;
  }
  return std::nullopt;
}

std::span<const DevicePeak> DevicePeakTable() { return kPeaks; }

const DevicePeak* FindDevicePeak(std::string_view device_name) {
  // "NVIDIA A100-SXM4-80GB": dashes and underscores separate words like spaces.
  const std::string name = Lower(device_name);
  for (size_t i = 0; i < std::size(kEntries); ++i) {
    if (Matches(kEntries[i].rule, name)) return &kPeaks[i];
  }
  return nullptr;
}

}  // namespace gpuwhy
