#include "ingest/system/command_capture.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace command_capture_test {

using system::FormatOfCommand;
using system::SplitCommandCapture;

constexpr const char* kRuler = "########################################\n";

TEST(CommandCaptureTest, SplitsAtEachCommandHeaderAndKeepsTheOutputsLines) {
  std::string text = std::string(kRuler) + "# a capture\n" + kRuler + kRuler +
                     "# $ nvidia-smi --version\n" + kRuler + "NVIDIA-SMI version : 590\n\n" +
                     kRuler + "# idle\n# $ nvidia-smi -q\n" + kRuler + "NVSMI LOG\nGPU 0\n";
  auto sections = SplitCommandCapture(text);
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].command, "nvidia-smi --version");
  EXPECT_EQ(sections[0].text, "NVIDIA-SMI version : 590\n");
  EXPECT_EQ(sections[0].first_line, 7);
  EXPECT_EQ(sections[1].command, "nvidia-smi -q");
  EXPECT_EQ(sections[1].text, "NVSMI LOG\nGPU 0");
  EXPECT_EQ(sections[1].first_line, 13);
}

TEST(CommandCaptureTest, OneHeaderOrNoneIsNoCapture) {
  EXPECT_TRUE(SplitCommandCapture("# $ nvidia-smi -q\nNVSMI LOG\n").empty());
  EXPECT_TRUE(SplitCommandCapture("NVSMI LOG\n").empty());
  EXPECT_TRUE(SplitCommandCapture("").empty());
}

TEST(CommandCaptureTest, EachCommandMapsToWhatItPrints) {
  EXPECT_EQ(FormatOfCommand("nvidia-smi"), SystemFormat::kNvidiaSmiTable);
  EXPECT_EQ(FormatOfCommand("nvidia-smi -q"), SystemFormat::kNvidiaSmiQuery);
  EXPECT_EQ(FormatOfCommand("/usr/bin/nvidia-smi -q -x"), SystemFormat::kNvidiaSmiXml);
  EXPECT_EQ(FormatOfCommand("nvidia-smi --query-gpu=name,pci.bus_id --format=csv"),
            SystemFormat::kNvidiaSmiCsv);
  EXPECT_EQ(FormatOfCommand("nvidia-smi topo -m"), SystemFormat::kTopology);
  EXPECT_EQ(FormatOfCommand("nvidia-smi nvlink -s"), SystemFormat::kNvLinkStatus);
  EXPECT_EQ(FormatOfCommand("sudo lspci -vvv"), SystemFormat::kUnknown);  // sudo: not read
  EXPECT_EQ(FormatOfCommand("lspci -vvv"), SystemFormat::kLspci);
  EXPECT_EQ(FormatOfCommand("dmesg -T"), SystemFormat::kKernelLog);
  for (const char* skipped : {"nvidia-smi -h", "nvidia-smi --help-query-gpu", "nvidia-smi -L",
                              "nvidia-smi dmon -c 5", "nvidia-smi --version", "readelf x", ""}) {
    EXPECT_EQ(FormatOfCommand(skipped), SystemFormat::kUnknown) << skipped;
  }
}

}  // namespace command_capture_test
}  // namespace gpuwhy
