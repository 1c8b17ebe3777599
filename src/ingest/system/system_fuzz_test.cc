// Deterministic mutation fuzzing of every system-log parser, seeded from the real files in
// ../shared/data/logs (and small inline samples when the data is absent). Each parser is one
// test; the ctest run is short (GPUWHY_FUZZ_ITERATIONS, default 2000 mutants per parser, a
// few seconds). For a long run:
//   GPUWHY_FUZZ_SECONDS=180 ./ingest_system_fuzz_test --gtest_filter='*Kernel*'
// Mutations: truncation, byte flips, digit/letter swaps, deleted and duplicated lines, inserted
// separators, NUL bytes and very long lines; the seed makes every run reproducible.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include "base/file_input.h"
#include "ingest/system/system_fuzz_body.h"

namespace gpuwhy {
namespace system_fuzz_test {

namespace fs = std::filesystem;

struct Target {
  SystemFormat format;
  const char* dir;  // seeds under logs/
  const char* inline_seed;
};

const Target kTargets[] = {
    {SystemFormat::kKernelLog, "dmesg",
     "[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): 119, pid=1, name=a, x\n"
     "kern  :warn  : 2025-01-21T04:41:44,283302+00:00 NVRM: Xid (PCI:0000:38:00): 13, pid=1\n"
     "[ 9.1] nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 11004, Non-fatal, Link 46 ACL\n"
     "[ 9.2] pt_main_thread[25]: segfault at 7f ip 7f sp 7f error 4 in libnccl.so.2[7f+d3]\n"},
    {SystemFormat::kFabricManager, "fabric-manager",
     "[Dec 19 2024 19:17:49] [ERROR] [tid 1374] detected NVSwitch non-fatal error 12028 on fid 0 "
     "on NVSwitch pci bus id 00000000:83:00.0 physical id 0 port 34\n"},
    {SystemFormat::kLspci, "lspci",
     "19:00.0 3D controller: NVIDIA Corporation Device 2330\n\tLnkCap:\tPort #0, Speed 32GT/s, "
     "Width x16\n\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x8 (downgraded)\n"},
    {SystemFormat::kTopology, "topo",
     "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV4\t0-7\t0\nGPU1\tNV4\t X \t0-7\t0\n"},
    {SystemFormat::kNccl, "nccl",
     "h:1:2 [0] NCCL INFO NCCL version 2.18.3\nh:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] "
     "via NET/Socket/0\n#  size count type redop root time algbw busbw\n"
     "[1,0]<stdout>:  1048576  262144  float  sum  -1  123.4  8.50  15.93  0  1  8.5  15.9  0\n"
     "[rank0]: ncclRemoteError: A call failed\n"},
    {SystemFormat::kNvidiaSmiQuery, "nvidia-smi-q",
     "==============NVSMI LOG==============\nDriver Version : 1\nGPU 00000000:01:00.0\n"
     "    Temperature\n        GPU Current Temp : 33 C\n"},
    {SystemFormat::kNvidiaSmiXml, "nvidia-smi-q-xml",
     "<?xml version=\"1.0\" ?>\n<nvidia_smi_log><gpu id=\"1\"><temperature><gpu_temp>3 C"
     "</gpu_temp></temperature></gpu></nvidia_smi_log>\n"},
    {SystemFormat::kInfiniband, "infiniband",
     "CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n\t\tRate: 400\n"},
    {SystemFormat::kNvidiaSmiTable, "nvidia-smi",
     "| NVIDIA-SMI 550.90.07   Driver Version: 550.90.07   CUDA Version: 12.4 |\n"
     "|   0  NVIDIA H100    On  |   00000000:19:00.0 Off |    0 |\n"},
    {SystemFormat::kCommandCapture, "nvidia-smi-captures",
     "########################################\n# $ nvidia-smi -q\n"
     "########################################\nNVSMI LOG\nDriver Version : 1\n"
     "########################################\n# $ nvidia-smi topo -m\n"
     "########################################\n\tGPU0\nGPU0\t X \n"},
};

std::vector<std::string> Seeds(const Target& t) {
  std::vector<std::string> seeds = {t.inline_seed};
  // The real files of the format, and the hand-written fixtures of tests/data/node_logs that
  // sniff as it (nccl-tests over IB, RoCE and EFA with their rate lines among them).
  for (const fs::path& dir :
       {fs::path(GPUWHY_SHARED_DATA) / "logs" / t.dir, fs::path(GPUWHY_TEST_DATA) / "node_logs"}) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) files.push_back(e.path());
    std::sort(files.begin(), files.end());  // deterministic mutants
    for (const fs::path& file : files) {
      StatusOr<std::string> text = ReadWholeFile(file.string());
      if (!text.ok()) continue;
      // The parsers are line based: 32 KiB of each file keeps a mutant cheap.
      if (SniffSystemFormat(*text) == t.format) seeds.push_back(text->substr(0, 32 * 1024));
    }
  }
  return seeds;
}

std::string Mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  int rounds = 1 + static_cast<int>(pick(4));
  for (int r = 0; r < rounds; ++r) {
    switch (pick(8)) {
      case 0: s.resize(pick(s.size() + 1)); break;  // truncation
      case 1:
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 2:
        for (char& c : s) {
          if (c >= '0' && c <= '9' && pick(8) == 0) c = 'x';
        }
        break;
      case 3: {  // delete a line
        size_t a = s.find('\n', pick(s.size()));
        size_t b = a == std::string::npos ? a : s.find('\n', a + 1);
        if (b != std::string::npos) s.erase(a, b - a);
        break;
      }
      case 4: {  // duplicate a chunk
        size_t at = pick(s.size());
        s.insert(at, s.substr(at, pick(200)));
        break;
      }
      case 5: s.insert(pick(s.size() + 1), std::string(1, "<>:|/\t\n,()[]=\"'&;"[pick(18)])); break;
      case 6: s.insert(pick(s.size() + 1), std::string(1 + pick(4), '\0')); break;
      case 7:
        s.insert(pick(s.size() + 1), std::string(10000 + pick(60000), "A9 :"[pick(4)]));
        break;
    }
  }
  return s;
}

class SystemFuzzTest : public ::testing::TestWithParam<Target> {};

TEST_P(SystemFuzzTest, MutantsNeverBreakTheContract) {
  const Target& t = GetParam();
  std::vector<std::string> seeds = Seeds(t);
  const char* seconds_env = std::getenv("GPUWHY_FUZZ_SECONDS");
  const char* iterations_env = std::getenv("GPUWHY_FUZZ_ITERATIONS");
  const int64_t seconds = seconds_env ? std::atoll(seconds_env) : 0;
  const int64_t iterations = iterations_env ? std::atoll(iterations_env) : 2000;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::mt19937_64 rng(0x6770757768795ULL + static_cast<uint64_t>(t.format));
  // Every seed as it is, then mutants.
  for (const std::string& seed : seeds) ASSERT_TRUE(FuzzSystemParser(t.format, seed));
  int64_t runs = 0;
  while (seconds > 0 ? std::chrono::steady_clock::now() < deadline : runs < iterations) {
    std::string mutant = Mutate(seeds[static_cast<size_t>(rng() % seeds.size())], rng);
    ASSERT_TRUE(FuzzSystemParser(t.format, mutant))
        << "run " << runs << ": contract broken for input of " << mutant.size() << " bytes";
    ++runs;
  }
  RecordProperty("runs", std::to_string(runs));
}

std::string TargetName(const ::testing::TestParamInfo<Target>& info) {
  std::string name;
  for (char c : SystemFormatName(info.param.format)) {
    if (std::isalnum(static_cast<unsigned char>(c))) name += c;
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(EveryParser, SystemFuzzTest, ::testing::ValuesIn(kTargets), TargetName);

}  // namespace system_fuzz_test
}  // namespace gpuwhy
