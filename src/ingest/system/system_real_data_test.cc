// Every real file in ../shared/data/logs/{dmesg,topo,nccl,lspci,nvidia-smi,nvidia-smi-q,
// nvidia-smi-q-xml,infiniband} is recognised and parses without a problem, and golden values
// on the files the issue names. Expected numbers come from independent tools, named at each
// assertion (grep/awk over the same files).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "base/file_input.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace system_real_data_test {

namespace fs = std::filesystem;

std::string LogsDir() { return std::string(GPUWHY_SHARED_DATA) + "/logs"; }

#define SKIP_WITHOUT_DATA() \
  if (!fs::exists(LogsDir())) GTEST_SKIP() << "no shared data at " << LogsDir()

SystemFacts ReadOne(const std::string& relative) {
  SystemFacts facts;
  Status status = ReadSystemFile(LogsDir() + "/" + relative, facts);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(facts.problems.empty()) << facts.problems.Describe();
  return facts;
}

TEST(SystemRealDataTest, EveryFileParses) {
  SKIP_WITHOUT_DATA();
  const std::map<std::string, SystemFormat> dirs = {
      {"dmesg", SystemFormat::kKernelLog},
      {"topo", SystemFormat::kTopology},
      {"nccl", SystemFormat::kNccl},
      {"lspci", SystemFormat::kLspci},
      {"nvidia-smi-q", SystemFormat::kNvidiaSmiQuery},
      {"nvidia-smi-q-xml", SystemFormat::kNvidiaSmiXml},
      {"infiniband", SystemFormat::kInfiniband},
      {"nvidia-smi", SystemFormat::kUnknown}};
  size_t files = 0;
  for (const auto& [dir, expected] : dirs) {
    for (const fs::directory_entry& entry : fs::directory_iterator(LogsDir() + "/" + dir)) {
      SCOPED_TRACE(entry.path().string());
      StatusOr<std::string> text = ReadWholeFile(entry.path().string());
      ASSERT_TRUE(text.ok());
      SystemFormat format = SniffSystemFormat(*text);
      if (expected != SystemFormat::kUnknown) {
        EXPECT_EQ(SystemFormatName(format), SystemFormatName(expected));
      } else {
        EXPECT_NE(format, SystemFormat::kUnknown);
      }
      SystemFacts facts;
      Status status = ParseSystemText(format, *text, entry.path().string(), facts);
      EXPECT_TRUE(status.ok()) << status.message();
      EXPECT_TRUE(facts.problems.empty()) << facts.problems.Describe();
      ++files;
    }
  }
  EXPECT_GE(files, 80u);
}

// nvidia_gpu_exporter's captures: twenty commands per file, each under "# $ COMMAND". Each
// is read as its command prints: one GPU (the file names its model and driver), not one per
// section, and no help text taken for GPU records.
TEST(SystemRealDataTest, NvidiaSmiCapturesAreReadSectionBySection) {
  SKIP_WITHOUT_DATA();
  size_t files = 0;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(LogsDir() + "/nvidia-smi-captures")) {
    SCOPED_TRACE(entry.path().string());
    StatusOr<std::string> text = ReadWholeFile(entry.path().string());
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(SniffSystemFormat(*text), SystemFormat::kCommandCapture);
    SystemFacts facts = ReadOne("nvidia-smi-captures/" + entry.path().filename().string());
    ASSERT_EQ(facts.gpus.size(), 1u);
    // gpuexp_<os>__<model>__<driver>.txt
    std::string stem = entry.path().stem().string();
    std::string driver = stem.substr(stem.rfind("__") + 2);
    std::string model = stem.substr(stem.find("__") + 2);
    model = model.substr(0, model.find("__"));
    if (model.ends_with("-mig")) model.resize(model.size() - 4);
    std::string name;
    for (char c : facts.gpus[0].name) name += c == ' ' ? '-' : static_cast<char>(std::tolower(c));
    EXPECT_TRUE(name.starts_with(model)) << name << " vs " << model;
    EXPECT_EQ(facts.gpus[0].driver_version, driver);
    EXPECT_TRUE(facts.HasInput("nvidia-smi -q"));
    ++files;
  }
  EXPECT_EQ(files, 10u);
}

// grep -o 'NVRM: Xid (PCI:[0-9a-f:]*): [0-9]*' FILE | sort | uniq -c
std::map<int, int> XidCounts(const SystemFacts& facts, std::string_view pci) {
  std::map<int, int> counts;
  for (const XidEvent& x : facts.xids) {
    EXPECT_EQ(x.pci, pci);
    ++counts[x.code];
  }
  return counts;
}

TEST(SystemRealDataTest, Xid119GspTimeouts) {
  SKIP_WITHOUT_DATA();
  SystemFacts f =
      ReadOne("dmesg/gpud_components_accelerator_nvidia_xid__dmesg-with-xid-119.log.txt");
  EXPECT_EQ(XidCounts(f, "0000:9b:00"), (std::map<int, int>{{119, 5}}));
  // First and last: [Sun Feb 23 16:24:18 2025] and [Sun Feb 23 16:30:13 2025].
  EXPECT_EQ(f.xids.front().time_text, "[Sun Feb 23 16:24:18 2025]");
  EXPECT_EQ(*f.xids.back().epoch_ns - *f.xids.front().epoch_ns, (5 * 60 + 55) * 1'000'000'000LL);
  EXPECT_EQ(f.xids.back().process, "gpud");
  EXPECT_EQ(f.kernel_log_lines, 43);  // grep -c '' FILE (no blank lines)
}

TEST(SystemRealDataTest, Xid13And43) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("dmesg/gpud_pkg_dmesg__dmesg.decode.iso.log.0.txt");
  EXPECT_EQ(XidCounts(f, "0000:38:00"), (std::map<int, int>{{13, 629}, {43, 7}}));
  SystemFacts m = ReadOne("dmesg/gpud_components_memory__dmesg.decode.iso.log.txt");
  EXPECT_EQ(XidCounts(m, "0000:38:00"), (std::map<int, int>{{13, 16}, {43, 1}}));
  EXPECT_EQ(m.xids.back().process, "pt_main_thread");
  EXPECT_EQ(m.xids.back().pid, 2924364);
}

TEST(SystemRealDataTest, Xid48And94DoubleBitEcc) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("dmesg/gpud_pkg_dmesg__dmesg-time-format-iso.log.txt");
  EXPECT_EQ(XidCounts(f, "0000:19:00"), (std::map<int, int>{{48, 1}, {63, 1}, {94, 9}}));
  EXPECT_EQ(f.xids.front().code, 48);
  EXPECT_EQ(f.xids.front().time_text, "2024-11-15T12:02:03,470068+00:00");
}

TEST(SystemRealDataTest, EveryDmesgLineHasAKnownStamp) {
  SKIP_WITHOUT_DATA();
  for (const fs::directory_entry& entry : fs::directory_iterator(LogsDir() + "/dmesg")) {
    StatusOr<std::string> text = ReadWholeFile(entry.path().string());
    ASSERT_TRUE(text.ok());
    size_t untimed = 0, headers = 0;
    size_t pos = 0;
    while (pos < text->size()) {
      size_t end = text->find('\n', pos);
      if (end == std::string::npos) end = text->size();
      std::string_view line(text->data() + pos, end - pos);
      if (!line.empty() && !HasKernelLogTimestamp(line)) ++untimed;
      // pstore record headers, and a message's continuation lines (printed indented under
      // its stamp, like NVRM's "nvidia-bug-report.sh" advice).
      headers += line.starts_with("dmesg-erst-") || line.starts_with("Panic#") ||
                 (line.starts_with("  ") && !HasKernelLogTimestamp(line));
      pos = end + 1;
    }
    // Only pstore's record headers ("dmesg-erst-…:", "Panic#1 Part2") and indented
    // continuation lines carry no stamp.
    EXPECT_EQ(untimed, headers) << entry.path();
  }
}

TEST(SystemRealDataTest, Rtx4090RiserDowngraded) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("lspci/janhq_jan_issue183_rtx4090_riser_lnk_downgraded_excerpt.txt");
  ASSERT_EQ(f.pcie_links.size(), 1u);
  const PcieLink& l = f.pcie_links[0];
  EXPECT_EQ(*l.max_speed_gts, 16.0);
  EXPECT_EQ(*l.speed_gts, 2.5);
  EXPECT_EQ(*l.width, 16);
  EXPECT_TRUE(l.speed_downgraded);
  EXPECT_FALSE(l.width_downgraded);
  EXPECT_EQ(l.sta_quote.line, 2);
}

TEST(SystemRealDataTest, H100LspciLinks) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("lspci/gpud_lspci-vvv.txt");
  size_t gpus = 0, downgraded = 0;
  for (const PcieLink& l : f.pcie_links) {
    downgraded += l.speed_downgraded || l.width_downgraded;
    if (l.kind != PcieDeviceKind::kGpu) continue;
    ++gpus;
    EXPECT_EQ(*l.speed_gts, 32.0) << l.address;
    EXPECT_EQ(*l.width, 16) << l.address;
  }
  EXPECT_EQ(gpus, 8u);  // MANIFEST: NVIDIA_GPU_devices=8
  // grep -c 'LnkSta:.*downgraded' FILE: 16 links (all bridges and other devices).
  EXPECT_EQ(downgraded, 16u);
}

TEST(SystemRealDataTest, EfaFailureFallsBackToSockets) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("nccl/gnosia93_c7-nccl_g6e_4node_efa_fail_socket_fallback.txt");
  ASSERT_EQ(f.nccl_logs.size(), 1u);
  const NcclLog& log = f.nccl_logs[0];
  EXPECT_EQ(log.version, "2.27.3+cuda12.9");
  // grep -c 'via NET/Socket' FILE
  EXPECT_EQ(log.connections.size(), 14u);
  for (const NcclConnection& c : log.connections) EXPECT_EQ(c.transport, NcclTransport::kNetSocket);
  // grep -c 'NCCL WARN' FILE
  EXPECT_EQ(log.warnings.size(), 3u);
  ASSERT_FALSE(log.networks_used.empty());
  EXPECT_EQ(log.networks_used[0].name, "Socket");
  EXPECT_EQ(log.gdr, false);
  bool ib_missing = false, ofi_missing = false;
  for (const NcclNetLine& n : log.nets) {
    ib_missing |= n.net == "IB" && n.no_device;
    ofi_missing |= n.net == "OFI" && n.no_device;
  }
  EXPECT_TRUE(ib_missing);
  EXPECT_TRUE(ofi_missing);
  EXPECT_EQ(log.max_nnodes, 4);
}

TEST(SystemRealDataTest, NcclTestsBusBandwidth) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("nccl/aws_awsome_nccl-tests_slurm-104.out.txt");
  const NcclLog& log = f.nccl_logs.at(0);
  EXPECT_EQ(log.version, "2.18.3+cuda12.2");
  EXPECT_DOUBLE_EQ(*log.avg_busbw_gbs, 20.2635);
  // grep -cE '^ ?[0-9]+: +[0-9]+ +[0-9]+ +(float|half|int)' FILE
  EXPECT_EQ(log.test_rows.size(), 29u);
  EXPECT_EQ(log.test_rows.back().size_bytes, 2147483648LL);
  EXPECT_FALSE(log.gdr.has_value());  // NCCL 2.18 prints no "GDR" flag on its ring line
  for (const NcclConnection& c : log.connections) {
    if (c.transport == NcclTransport::kNetPlugin) {
      EXPECT_TRUE(c.gdr) << c.quote.text;
    }
  }
  size_t p2p = 0, net = 0;
  for (const NcclConnection& c : log.connections) {
    p2p += c.transport == NcclTransport::kP2p;
    net += c.transport == NcclTransport::kNetPlugin;
  }
  EXPECT_EQ(p2p, 270u);  // grep -c 'via P2P' FILE
  EXPECT_EQ(net, 96u);   // grep -c 'via NET/AWS Libfabric' FILE
}

void ExpectAllPairs(const TopoMatrix& m, size_t gpus, TopoLinkKind kind, int nvlinks) {
  ASSERT_EQ(m.columns.size(), gpus);
  ASSERT_EQ(m.rows.size(), gpus);
  for (size_t i = 0; i < gpus; ++i) {
    ASSERT_EQ(m.rows[i].cells.size(), gpus);
    for (size_t j = 0; j < gpus; ++j) {
      const TopoCell& c = m.rows[i].cells[j];
      EXPECT_EQ(c.kind, i == j ? TopoLinkKind::kSelf : kind) << i << "," << j;
      if (i != j) {
        EXPECT_EQ(c.nvlinks, nvlinks);
      }
    }
  }
}

TEST(SystemRealDataTest, H100Nv18Topology) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("topo/gnosia93_c7_topo_p5_8xH100_NV18.txt");
  ASSERT_EQ(f.topologies.size(), 1u);
  const TopoMatrix& m = f.topologies[0];
  ExpectAllPairs(m, 8, TopoLinkKind::kNvLink, 18);
  EXPECT_EQ(m.rows[0].cpu_affinity, "0-47,96-143");
  EXPECT_EQ(m.rows[7].numa_affinity, "1");
  EXPECT_EQ(m.rows[7].gpu_numa_id, "N/A");
  EXPECT_EQ(m.legend.size(), 7u);
  SystemFacts g = ReadOne("topo/mle_network_topo_8xH100_NV18.txt");
  ExpectAllPairs(g.topologies.at(0), 8, TopoLinkKind::kNvLink, 18);
  EXPECT_EQ(g.topologies[0].rows[4].cpu_affinity, "52-103");
}

TEST(SystemRealDataTest, L40sNodeTopology) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("topo/gnosia93_c7_topo_g6e_4xL40S_NODE.txt");
  ASSERT_EQ(f.topologies.size(), 1u);
  ExpectAllPairs(f.topologies[0], 4, TopoLinkKind::kNode, 0);
  EXPECT_EQ(f.topologies[0].rows[3].numa_affinity, "0");
}

TEST(SystemRealDataTest, NicRowsAndSeveralMatrices) {
  SKIP_WITHOUT_DATA();
  SystemFacts nics = ReadOne("topo/gnosia93_c7_topo_4gpu_NV18_4NIC.txt");
  const TopoMatrix& m = nics.topologies.at(0);
  EXPECT_EQ(m.columns.size(), 8u);
  ASSERT_EQ(m.rows.size(), 8u);
  EXPECT_EQ(m.rows[0].cells[4].kind, TopoLinkKind::kPix);  // GPU0 - NIC0
  EXPECT_EQ(m.rows[0].cells[6].kind, TopoLinkKind::kSys);  // GPU0 - NIC2
  EXPECT_EQ(m.rows[2].cpu_affinity, "24-47");
  EXPECT_EQ(m.rows[5].cells.size(), 6u);  // NIC1 row stops at its X
  SystemFacts two = ReadOne("topo/mle_network_topo_2gpu_NV2_vs_PHB.txt");
  ASSERT_EQ(two.topologies.size(), 2u);
  EXPECT_EQ(two.topologies[0].rows[0].cells[1].nvlinks, 2);
  EXPECT_EQ(two.topologies[1].rows[0].cells[1].kind, TopoLinkKind::kPhb);
  SystemFacts p2p = ReadOne("topo/mle_network_debug_topo_p2p_r.txt");
  ASSERT_EQ(p2p.topologies.size(), 2u);
  EXPECT_EQ(p2p.topologies[0].kind, "topo -p2p");
  EXPECT_EQ(p2p.topologies[1].rows[0].cells[1].text, "CNS");
  SystemFacts windows =
      ReadOne("topo/gpuexp_windows-x86_64__nvidia-geforce-rtx-2080-super__591.86.topo.txt");
  EXPECT_TRUE(windows.topologies.empty());
  EXPECT_EQ(windows.tool_errors.size(), 1u);
  SystemFacts single = ReadOne("topo/gpuexp_linux-x86_64__nvidia-l40s__595.80.topo.txt");
  ASSERT_EQ(single.topologies.size(), 1u);  // header underlined with ANSI escapes
  EXPECT_EQ(single.topologies[0].rows.at(0).cpu_affinity, "0-7");
}

TEST(SystemRealDataTest, NvidiaSmiQueryA10) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("nvidia-smi-q/gpud_nvidia-smi-query.535.129.03.out.0.valid.a10.txt");
  ASSERT_EQ(f.gpus.size(), 1u);
  const GpuState& g = f.gpus[0];
  EXPECT_EQ(g.name, "NVIDIA A10");
  EXPECT_EQ(g.driver_version, "535.129.03");
  EXPECT_EQ(g.cuda_version, "12.2");
  EXPECT_EQ(g.persistence_mode, "Enabled");
  EXPECT_EQ(*g.temp_c, 33);
  EXPECT_EQ(*g.slowdown_temp_c, 98);
  EXPECT_DOUBLE_EQ(*g.power_w, 43.89);
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 150);
  EXPECT_EQ(*g.remapped_rows_uncorrectable, 4);
  EXPECT_EQ(*g.remapped_rows_pending, true);
  EXPECT_EQ(*g.pcie_gen_max, 4);
  EXPECT_EQ(*g.pcie_width_current, 16);
  EXPECT_EQ(g.active_clock_reasons, std::vector<std::string>{"Idle"});
  EXPECT_EQ(*g.ecc_volatile_uncorrectable, 0);
  EXPECT_TRUE(g.processes.empty());
  EXPECT_EQ(g.Quote("temp_c")->line, 151);  // grep -n 'GPU Current Temp' FILE
}

TEST(SystemRealDataTest, NvidiaSmiQueryProcessesAndMig) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("nvidia-smi-q/gpud_nvidia-smi-query.535.154.05.out.0.valid.txt");
  EXPECT_EQ(f.gpus.size(), 8u);
  ASSERT_FALSE(f.gpus[0].processes.empty());
  EXPECT_EQ(f.gpus[0].processes[0].pid, 58130);
  EXPECT_EQ(*f.gpus[0].processes[0].used_mib, 20322);
  SystemFacts mig = ReadOne("nvidia-smi-q/gpuexp_linux-x86_64__nvidia-h100-mig__590.48.01.q.txt");
  ASSERT_EQ(mig.gpus.size(), 1u);
  EXPECT_EQ(mig.gpus[0].mig_mode, "Enabled");
  EXPECT_GE(mig.gpus[0].processes.size(), 2u);
}

TEST(SystemRealDataTest, NvidiaSmiXml) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("nvidia-smi-q-xml/telegraf_dual_a5000-v13.xml");
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[0].name, "NVIDIA RTX A5000");
  EXPECT_FALSE(f.gpus[0].driver_version.empty());
  EXPECT_TRUE(f.gpus[0].temp_c.has_value());
  EXPECT_TRUE(f.gpus[0].power_limit_w.has_value());
  SystemFacts old = ReadOne("nvidia-smi-q-xml/telegraf_gtx-1070-ti.xml");
  ASSERT_EQ(old.gpus.size(), 1u);
  EXPECT_EQ(*old.gpus[0].pcie_gen_current, 1);
  EXPECT_EQ(*old.gpus[0].temp_c, 39);
}

TEST(SystemRealDataTest, InfinibandPorts) {
  SKIP_WITHOUT_DATA();
  SystemFacts f = ReadOne("infiniband/gpud_ibstat.47.0.h100.some.down.0.txt");
  size_t down = 0;
  for (const IbPort& p : f.ib_ports) down += p.state != "Active";
  EXPECT_GT(f.ib_ports.size(), 4u);
  EXPECT_GT(down, 0u);
}

}  // namespace system_real_data_test
}  // namespace gpuwhy
