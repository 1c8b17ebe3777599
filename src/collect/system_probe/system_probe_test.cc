// The local probe against a fixture /proc and /sys tree and a fake command runner: host
// settings, sysfs PCIe links, no GPU and no kernel-log permission (recorded, not fatal), and
// nvidia-smi / dmesg output parsed when the commands work.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "collect/system_probe/system_probe.h"

namespace gpuwhy {
namespace system_probe_test {

namespace fs = std::filesystem;

class SystemProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "gpuwhy_probe_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& relative, const std::string& text) {
    fs::path p = fs::path(root_) / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text << "\n";
  }
  std::string root_;
};

TEST_F(SystemProbeTest, HostFilesAndSysfsLinks) {
  Write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave");
  Write("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave");
  Write("sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "performance");
  Write("proc/sys/kernel/numa_balancing", "1");
  Write("sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never");
  const std::string gpu = "sys/bus/pci/devices/0000:01:00.0/";
  Write(gpu + "vendor", "0x10de");
  Write(gpu + "class", "0x030200");
  Write(gpu + "current_link_speed", "2.5 GT/s PCIe");
  Write(gpu + "max_link_speed", "16.0 GT/s PCIe");
  Write(gpu + "current_link_width", "16");
  Write(gpu + "max_link_width", "16");
  Write("sys/bus/pci/devices/0000:00:01.0/vendor", "0x8086");
  Write("sys/bus/pci/devices/0000:00:01.0/class", "0x060400");
  SystemFacts facts;
  ProbeOptions options;
  options.root = root_;
  options.run_commands = false;
  options.environment = std::map<std::string, std::string>{
      {"CUDA_LAUNCH_BLOCKING", "1"}, {"HOME", "/root"}, {"OMP_NUM_THREADS", "8"}};
  ProbeLocalSystem(options, facts);
  ASSERT_NE(facts.Setting("cpu.governor"), nullptr);
  EXPECT_EQ(facts.Setting("cpu.governor")->value, "powersave");
  EXPECT_EQ(facts.Setting("cpu.governor_cpus")->value, "2");
  EXPECT_EQ(facts.Setting("kernel.numa_balancing")->value, "1");
  EXPECT_EQ(facts.Setting("mm.transparent_hugepage")->value, "[always] madvise never");
  EXPECT_EQ(facts.Setting("CUDA_LAUNCH_BLOCKING")->value, "1");
  EXPECT_EQ(facts.Setting("HOME"), nullptr);
  ASSERT_EQ(facts.pcie_links.size(), 1u);
  EXPECT_EQ(facts.pcie_links[0].kind, PcieDeviceKind::kGpu);
  EXPECT_EQ(*facts.pcie_links[0].speed_gts, 2.5);
  EXPECT_TRUE(facts.pcie_links[0].speed_downgraded);
  EXPECT_TRUE(facts.unavailable.empty());
}

TEST_F(SystemProbeTest, NoGpuAndNoKernelLogPermission) {
  SystemFacts facts;
  ProbeOptions options;
  options.root = root_;  // empty tree: no cpufreq, no settings
  options.environment = std::map<std::string, std::string>{};
  options.run = [](const std::vector<std::string>& argv) {
    CommandOutput out;
    out.exit_code = argv[0] == "nvidia-smi" ? -1 : 1;  // not installed; EPERM
    return out;
  };
  ProbeLocalSystem(options, facts);
  std::vector<std::string> what;
  for (const Unavailable& u : facts.unavailable) what.push_back(u.what);
  EXPECT_NE(std::find(what.begin(), what.end(), "kernel log"), what.end());
  EXPECT_NE(std::find(what.begin(), what.end(), "GPU state (nvidia-smi)"), what.end());
  EXPECT_NE(std::find(what.begin(), what.end(), "cpu frequency governor"), what.end());
  EXPECT_TRUE(facts.xids.empty());
  EXPECT_TRUE(facts.gpus.empty());
}

TEST_F(SystemProbeTest, ParsesCommandOutputs) {
  SystemFacts facts;
  ProbeOptions options;
  options.root = root_;
  options.environment = std::map<std::string, std::string>{};
  options.run = [](const std::vector<std::string>& argv) {
    CommandOutput out{0, ""};
    if (argv[0] == "nvidia-smi" && argv[1] == "-q") {
      out.output =
          "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n<driver_version>550.1</driver_version>\n"
          "<gpu id=\"00000000:01:00.0\">\n<product_name>Test GPU</product_name>\n"
          "<persistence_mode>Disabled</persistence_mode>\n</gpu>\n</nvidia_smi_log>\n";
    } else if (argv[0] == "nvidia-smi") {
      out.output = "\tGPU0\tCPU Affinity\tNUMA Affinity\nGPU0\t X \t0-7\t0\n";
    } else if (argv[0] == "dmesg") {
      out.output =
          "2025-01-01T00:00:00,000000+00:00 NVRM: Xid (PCI:0000:01:00): 79, pid=1, "
          "name=x, GPU has fallen off the bus.\n";
    }
    return out;
  };
  ProbeLocalSystem(options, facts);
  ASSERT_EQ(facts.gpus.size(), 1u);
  EXPECT_EQ(facts.gpus[0].driver_version, "550.1");
  EXPECT_EQ(facts.gpus[0].persistence_mode, "Disabled");
  ASSERT_EQ(facts.topologies.size(), 1u);
  ASSERT_EQ(facts.xids.size(), 1u);
  EXPECT_EQ(facts.xids[0].quote.file, "dmesg --time-format iso");
  EXPECT_TRUE(facts.problems.empty());
}

}  // namespace system_probe_test
}  // namespace gpuwhy
