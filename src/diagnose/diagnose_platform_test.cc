// gpuwhy doctor's diagnosis on the real node logs the issue names (Xid 13/48/94/119, the RTX
// 4090 riser at 2.5 GT/s, the EFA-failure socket fallback, 8xH100 NV18 and 4xL40S NODE) and on
// small inline inputs for the environment and empty cases.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "diagnose/diagnose_platform.h"
#include "diagnose/node_log_fixtures.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace diagnose_platform_test {

std::string Logs() { return std::string(GPUWHY_SHARED_DATA) + "/logs/"; }

#define SKIP_WITHOUT_DATA() \
  if (!std::filesystem::exists(Logs())) GTEST_SKIP() << "no shared data at " << Logs()

Diagnosis FromFiles(std::initializer_list<std::string> files, SystemFacts* out = nullptr) {
  SystemFacts facts;
  for (const std::string& f : files) {
    Status s = ReadSystemFile(Logs() + f, facts);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  Diagnosis d = DiagnoseSystemFacts(facts);
  if (out != nullptr) *out = facts;
  return d;
}

const ChecklistItem* Item(const Diagnosis& d, std::string_view title_start) {
  for (const ChecklistItem& item : d.checklist) {
    if (item.title.starts_with(title_start)) return &item;
  }
  return nullptr;
}

TEST(DiagnosePlatformTest, Xid119GspTimeouts) {
  SKIP_WITHOUT_DATA();
  Diagnosis d =
      FromFiles({"dmesg/gpud_components_accelerator_nvidia_xid__dmesg-with-xid-119.log.txt"});
  const Finding* f = d.Find("platform.xid_errors");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kHigh);
  EXPECT_NE(f->title.find("5 Xid errors on 1 GPU: Xid 119 GSP RPC timeout"), std::string::npos)
      << f->title;
  ASSERT_EQ(f->top_events.size(), 1u);
  EXPECT_NE(f->top_events[0].find("5 events, first [Sun Feb 23 16:24:18 2025], last [Sun Feb 23 "
                                  "16:30:13 2025], over 5 min 55 s"),
            std::string::npos)
      << f->top_events[0];
  // First and last Xid lines: grep -n 'NVRM: Xid' FILE | sed -n '1p;$p'.
  ASSERT_EQ(f->quotes.size(), 2u);
  EXPECT_EQ(f->quotes[0].line, 3);
  EXPECT_EQ(f->quotes[1].line, 43);
  EXPECT_NE(f->fixes[0].action.find("Xid 119 (driver cause)"), std::string::npos);
  const ChecklistItem* item = Item(d, "driver Xid errors");
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->status, AssessStatus::kAssessed);
}

TEST(DiagnosePlatformTest, DoubleBitEccIsCritical) {
  SKIP_WITHOUT_DATA();
  Diagnosis d = FromFiles({"dmesg/gpud_pkg_dmesg__dmesg-time-format-iso.log.txt"});
  const Finding* f = d.Find("platform.xid_errors");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kCritical);
  EXPECT_NE(f->title.find("11 Xid errors on 1 GPU: Xid 48"), std::string::npos) << f->title;
  EXPECT_NE(f->fixes[0].action.find("Xid 48 (hardware cause)"), std::string::npos);
  ASSERT_EQ(f->evidence.size(), 3u);
  EXPECT_EQ(f->evidence[0].metric.id, "doctor.xid_48_count");
}

TEST(DiagnosePlatformTest, Xid13IsAnApplicationFault) {
  SKIP_WITHOUT_DATA();
  Diagnosis d = FromFiles({"dmesg/gpud_components_memory__dmesg.decode.iso.log.txt"});
  const Finding* f = d.Find("platform.xid_errors");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kMedium);
  EXPECT_NE(f->title.find("17 Xid errors"), std::string::npos) << f->title;
}

TEST(DiagnosePlatformTest, RiserDowngradedTo2_5GTs) {
  SKIP_WITHOUT_DATA();
  Diagnosis d = FromFiles({"lspci/janhq_jan_issue183_rtx4090_riser_lnk_downgraded_excerpt.txt"});
  const Finding* f = d.Find("platform.pcie_downgraded");
  ASSERT_NE(f, nullptr);
  // 2.5 of 16 GT/s: at most a sixth of the bandwidth on a device of unknown kind (an excerpt).
  EXPECT_EQ(f->severity, Severity::kHigh);
  EXPECT_NE(f->title.find("2.5GT/s x16 of 16GT/s x16"), std::string::npos) << f->title;
  ASSERT_EQ(f->quotes.size(), 2u);
  EXPECT_NE(f->quotes[1].text.find("2.5GT/s (downgraded)"), std::string::npos);
}

// max_ratio says how far below capability a link must run: the riser at 2.5 of 16 GT/s keeps
// a sixth of its bandwidth, so a bar of 0.1 lets it pass and one of 0.2 does not.
TEST(DiagnosePlatformTest, PcieMaxRatioSetsHowFarBelowCapabilityFires) {
  SKIP_WITHOUT_DATA();
  SystemFacts facts;
  ASSERT_TRUE(
      ReadSystemFile(Logs() + "lspci/janhq_jan_issue183_rtx4090_riser_lnk_downgraded_excerpt.txt",
                     facts)
          .ok());
  for (const auto& [bar, fires] : {std::pair{"0.1", false}, std::pair{"0.2", true}}) {
    DiagnoseOptions options;
    ASSERT_TRUE(
        options.catalog.ApplyOverride(std::string("platform.pcie_downgraded.max_ratio=") + bar)
            .ok());
    Diagnosis d = DiagnoseSystemFacts(facts, options);
    EXPECT_EQ(d.Find("platform.pcie_downgraded") != nullptr, fires) << bar;
  }
}

TEST(DiagnosePlatformTest, H100LinksAtFullSpeed) {
  SKIP_WITHOUT_DATA();
  Diagnosis d = FromFiles({"lspci/gpud_lspci-vvv.txt"});
  EXPECT_EQ(d.Find("platform.pcie_downgraded"), nullptr);
  for (const RuleOutcome& o : d.outcomes) {
    if (o.rule_id == "platform.pcie_downgraded") {
      EXPECT_EQ(o.status, AssessStatus::kAssessed);
      EXPECT_NE(o.note.find("bridge/other links below capability ignored"), std::string::npos);
    }
  }
}

TEST(DiagnosePlatformTest, EfaFailureSocketFallback) {
  SKIP_WITHOUT_DATA();
  Diagnosis d = FromFiles({"nccl/gnosia93_c7-nccl_g6e_4node_efa_fail_socket_fallback.txt"});
  const Finding* f = d.Find("platform.nccl_socket_fallback");
  ASSERT_NE(f, nullptr);
  // Communication class with no measured time per step: medium at most (ApplyEvidencePolicy,
  // docs/findings.md "Evidence that reads true, severity that fits").
  EXPECT_EQ(f->severity, Severity::kMedium);
  EXPECT_NE(f->title.find("14 connections, 4 nodes) although a faster fabric exists: the "
                          "EFA/libfabric plugin (NET/OFI) was tried and failed to initialise"),
            std::string::npos)
      << f->title;
  bool quotes_using_socket = false;
  for (const SourceQuote& q : f->quotes)
    quotes_using_socket |= q.text.find("Using network Socket") != std::string::npos;
  EXPECT_TRUE(quotes_using_socket);
  const Finding* w = d.Find("platform.nccl_warnings");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity, Severity::kMedium);           // "Failing initialization"; no time measured
  EXPECT_EQ(d.Find("platform.nccl_no_gdr"), nullptr);  // sockets never use GDR: not twice
  const ChecklistItem* item = Item(d, "NCCL transport");
  ASSERT_NE(item, nullptr);
  EXPECT_NE(item->detail.find("NCCL 2.27.3+cuda12.9, network Socket, connections NET/Socket x14"),
            std::string::npos)
      << item->detail;
}

TEST(DiagnosePlatformTest, NcclTestsBandwidthInChecklist) {
  SKIP_WITHOUT_DATA();
  Diagnosis d = FromFiles({"nccl/aws_awsome_nccl-tests_slurm-104.out.txt"});
  EXPECT_EQ(d.Find("platform.nccl_socket_fallback"), nullptr);
  EXPECT_EQ(d.Find("platform.nccl_no_gdr"), nullptr);
  const ChecklistItem* item = Item(d, "NCCL transport");
  ASSERT_NE(item, nullptr);
  EXPECT_NE(item->detail.find("average bus bandwidth 20.26 GB/s"), std::string::npos)
      << item->detail;
}

TEST(DiagnosePlatformTest, H100Nv18IsOneGroup) {
  SKIP_WITHOUT_DATA();
  SystemFacts facts;
  Diagnosis d = FromFiles({"topo/gnosia93_c7_topo_p5_8xH100_NV18.txt"}, &facts);
  EXPECT_EQ(d.Find("platform.topology_slow_pairs"), nullptr);
  std::vector<CommunicationGroup> groups = FindCommunicationGroups(facts.topologies.at(0));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].gpus.size(), 8u);
  EXPECT_EQ(groups[0].link, "NV18");
  EXPECT_NE(Item(d, "GPU topology")->detail.find("over NV18"), std::string::npos);
}

TEST(DiagnosePlatformTest, L40sNodePairs) {
  SKIP_WITHOUT_DATA();
  SystemFacts facts;
  Diagnosis d = FromFiles({"topo/gnosia93_c7_topo_g6e_4xL40S_NODE.txt"}, &facts);
  const Finding* f = d.Find("platform.topology_slow_pairs");
  ASSERT_NE(f, nullptr);
  // No NVLink anywhere: every pair's P2P and all-reduce go over PCIe through the host bridges,
  // a platform limit to place the job around (the expert reads it as platform, high confidence).
  EXPECT_EQ(f->severity, Severity::kMedium);
  EXPECT_NE(f->title.find("no NVLink between them"), std::string::npos) << f->title;
  EXPECT_NE(f->title.find("6 of 6 GPU pairs talk over NODE (0 across CPU sockets)"),
            std::string::npos)
      << f->title;
  EXPECT_TRUE(FindCommunicationGroups(facts.topologies.at(0)).empty());
  EXPECT_NE(Item(d, "GPU topology")->detail.find("NUMA 0: GPU0,GPU1,GPU2,GPU3"), std::string::npos);
}

TEST(DiagnosePlatformTest, MissingNvlinkNextToNvlinkIsMedium) {
  TopoMatrix m;
  SystemFacts facts;
  ASSERT_TRUE(ParseTopology("        GPU0    GPU1    GPU2    CPU Affinity\n"
                            "GPU0     X      NV4     SYS     0-7\n"
                            "GPU1    NV4      X      SYS     0-7\n"
                            "GPU2    SYS     SYS      X      8-15\n",
                            "t.txt", facts)
                  .ok());
  Diagnosis d = DiagnoseSystemFacts(facts);
  const Finding* f = d.Find("platform.topology_slow_pairs");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kMedium);
  EXPECT_NE(f->title.find("2 of 3 GPU pairs talk over SYS (2 across CPU sockets)"),
            std::string::npos)
      << f->title;
  std::vector<CommunicationGroup> groups = FindCommunicationGroups(facts.topologies[0]);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].gpus, (std::vector<std::string>{"GPU0", "GPU1"}));
}

// Issue 37's short-row crash, minimised by the end-to-end fuzzer (52 bytes): GPU0's row stops
// before its GPU1 cell, so GPU1 reads NV12 to GPU0 and GPU0 has no cell for GPU1. A link read
// one way only makes no group (the link count read the missing cell: signal 11).
TEST(DiagnosePlatformTest, ShortTopoRowMakesNoGroupAndNoCrash) {
  SystemFacts facts;
  ASSERT_TRUE(ParseTopology("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \nGPU1\tNV12\t X \t0-47\n",
                            "t.txt", facts)
                  .ok());
  ASSERT_EQ(facts.topologies.size(), 1u);
  EXPECT_TRUE(FindCommunicationGroups(facts.topologies[0]).empty());
  Diagnosis d = DiagnoseSystemFacts(facts);
  EXPECT_NE(Item(d, "GPU topology"), nullptr);
}

TEST(DiagnosePlatformTest, PendingRowRemapNeedsReset) {
  SKIP_WITHOUT_DATA();
  Diagnosis d = FromFiles({"nvidia-smi-q/gpud_nvidia-smi-query.535.129.03.out.0.valid.a10.txt"});
  const Finding* f = d.Find("platform.ecc_errors");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kHigh);
  EXPECT_NE(f->title.find("row remap pending (reset needed), 4 rows remapped"), std::string::npos)
      << f->title;
  EXPECT_EQ(d.Find("platform.persistence_off"), nullptr);
  EXPECT_NE(Item(d, "GPU state")->detail.find("driver 535.129.03; CUDA 12.2"), std::string::npos);
}

TEST(DiagnosePlatformTest, EnvironmentSettings) {
  SystemFacts facts;
  ASSERT_TRUE(ParseEnvironment("HOME=/root\nCUDA_LAUNCH_BLOCKING=1\nNCCL_IB_DISABLE=1\n"
                               "OMP_NUM_THREADS=1\nSECRET_TOKEN=x\n",
                               "env.txt", facts)
                  .ok());
  // NCCL_IB_DISABLE=1 matters only where there is InfiniBand to disable: an Active port.
  facts.ib_ports.push_back({"mlx5_0", 1, "Active", "LinkUp", "InfiniBand", 400, {}});
  facts.inputs.push_back({"env.txt", "environment", 5});
  EXPECT_EQ(facts.settings.size(), 3u);  // HOME and the token are never kept
  Diagnosis d = DiagnoseSystemFacts(facts);
  const Finding* blocking = d.Find("platform.launch_blocking");
  ASSERT_NE(blocking, nullptr);
  EXPECT_EQ(blocking->quotes.at(0).line, 2);
  const Finding* nccl = d.Find("platform.nccl_env");
  ASSERT_NE(nccl, nullptr);
  // Communication class, no measured time per step: medium at most (ApplyEvidencePolicy).
  EXPECT_EQ(nccl->severity, Severity::kMedium);
  EXPECT_NE(d.Find("platform.thread_settings"), nullptr);
  EXPECT_EQ(d.findings.front().severity, Severity::kHigh);
}

TEST(DiagnosePlatformTest, NothingReadSaysWhatToCollect) {
  SystemFacts facts;
  facts.unavailable.push_back(
      {"kernel log", "permission denied reading /dev/kmsg", "sudo dmesg -T > dmesg.txt"});
  Diagnosis d = DiagnoseSystemFacts(facts);
  EXPECT_TRUE(d.findings.empty());
  ASSERT_EQ(d.checklist.size(), 7u);
  for (const ChecklistItem& item : d.checklist) {
    EXPECT_EQ(item.status, AssessStatus::kNotAssessed) << item.title;
    EXPECT_FALSE(item.command.empty()) << item.title;
  }
  EXPECT_NE(d.checklist[0].missing.find("permission denied reading /dev/kmsg"), std::string::npos);
}

TEST(DiagnosePlatformTest, SkippedRecordsAreNotesBoundedPerKind) {
  SystemFacts facts;
  const int64_t lines = DataProblems::kMaxDetails + 5;
  for (int64_t i = 1; i <= lines; ++i) {
    facts.problems.Add(DataProblem::kUnparsedLine,
                       "q.csv: line " + std::to_string(i) + ": 2 values for 1 header fields");
  }
  facts.problems.Add(DataProblem::kRowCutShort,
                     "topo.txt: line 3: topology row GPU1 has 1 of 2 GPU link cells");
  Diagnosis d = DiagnoseSystemFacts(facts);
  std::vector<std::string> skipped;
  for (const std::string& note : d.notes) {
    if (note.starts_with("skipped: ")) skipped.push_back(note);
  }
  ASSERT_EQ(skipped.size(), DataProblems::kMaxDetails + 2);
  EXPECT_EQ(skipped[0], "skipped: q.csv: line 1: 2 values for 1 header fields");
  EXPECT_EQ(skipped[DataProblems::kMaxDetails],
            "skipped: 5 more unparsed_line (a line could not be parsed and was skipped)");
  EXPECT_EQ(skipped.back(),
            "skipped: topo.txt: line 3: topology row GPU1 has 1 of 2 GPU link cells");
}

// One hand-written fixture per family of issue 36 (tests/data/node_logs/expected.tsv): the
// class and rule of the first finding at medium or above, or none.
TEST(DiagnosePlatformTest, HandWrittenNodeLogFixturesGetTheirExpectedVerdicts) {
  std::vector<node_log_fixtures::Fixture> fixtures = node_log_fixtures::Fixtures("metrics", true);
  ASSERT_GE(fixtures.size(), 10u);
  for (const node_log_fixtures::Fixture& fx : fixtures) {
    SystemFacts facts;
    Status s = ReadSystemFile(fx.path, facts);
    ASSERT_TRUE(s.ok()) << fx.path << ": " << s.message();
    Diagnosis d = DiagnoseSystemFacts(facts);
    node_log_fixtures::ExpectVerdict(fx, d.findings);
  }
}

// Issue 37: a topo -m row cut short (GPU0 with no GPU1 cell while GPU1's row says NV4) was
// dereferenced by FindCommunicationGroups and crashed doctor and analyze.
TEST(DiagnosePlatformTest, ATopologyRowCutShortIsReadNotDereferencedPastItsEnd) {
  SystemFacts facts;
  ASSERT_TRUE(ReadSystemFile(node_log_fixtures::Dir() + "topo_short_row.txt", facts).ok());
  ASSERT_EQ(facts.topologies.size(), 1u);
  std::vector<CommunicationGroup> groups = FindCommunicationGroups(facts.topologies[0]);
  // GPU1 reaches GPU0 over NV4 but GPU0's cell for GPU1 is missing: a link is read from both
  // GPUs' rows, so the cut table shows no fast group (cannot tell), and nothing is read past it.
  EXPECT_TRUE(groups.empty());
  Diagnosis d = DiagnoseSystemFacts(facts);
  EXPECT_EQ(node_log_fixtures::TopFinding(d.findings), nullptr);
}

// A truncated nvidia-smi -q says so (issue 36): its last GPU record never reaches Processes.
TEST(DiagnosePlatformTest, ATruncatedNvidiaSmiQuerySaysItIsTruncated) {
  SystemFacts facts;
  ASSERT_TRUE(ReadSystemFile(node_log_fixtures::Dir() + "nvidia_smi_q_truncated.txt", facts).ok());
  EXPECT_EQ(facts.problems.Get(DataProblem::kTruncated), 1);
  ASSERT_EQ(facts.problems.Details(DataProblem::kTruncated).size(), 1u);
  EXPECT_NE(facts.problems.Details(DataProblem::kTruncated)[0].find("nvidia-smi -q is truncated"),
            std::string::npos);
  SystemFacts whole;
  if (std::filesystem::exists(Logs())) {
    ASSERT_TRUE(ReadSystemFile(
                    Logs() + "nvidia-smi-q/gpud_nvidia-smi-query.535.154.05.out.1.valid.txt", whole)
                    .ok());
    EXPECT_EQ(whole.problems.Get(DataProblem::kTruncated), 0);
  }
}

// Issue 36, family 3: a GPU whose link saves power at idle says nothing about its width.
TEST(DiagnosePlatformTest, AnIdleLinkIsPowerSavingAndAWidthCutAtFullSpeedIsAFault) {
  auto gpu = [](const char* pstate, int gen, int width) {
    GpuState g;
    g.source = "nvidia-smi -q";
    g.pci_bus_id = "00000000:01:00.0";
    g.performance_state = pstate;
    g.pcie_gen_current = gen;
    g.pcie_gen_max = 4;
    g.pcie_width_current = width;
    g.pcie_width_max = 16;
    return g;
  };
  for (auto [pstate, gen, width, fires] :
       {std::tuple{"P8", 1, 8, false}, std::tuple{"P8", 1, 16, false}, std::tuple{"P8", 4, 8, true},
        std::tuple{"P0", 4, 8, true}, std::tuple{"P0", 1, 16, true}}) {
    SystemFacts facts;
    facts.gpus.push_back(gpu(pstate, gen, width));
    Diagnosis d = DiagnoseSystemFacts(facts);
    EXPECT_EQ(d.Find("platform.pcie_downgraded") != nullptr, fires)
        << pstate << " gen " << gen << " x" << width;
  }
}

// The software power cap: normal at full load (low), an artefact at idle (ignored); a
// hardware power brake is a fault even at idle.
TEST(DiagnosePlatformTest, ClockReasonsAreReadAgainstTheLoad) {
  auto gpu = [](double util, double power, std::vector<std::string> reasons) {
    GpuState g;
    g.source = "nvidia-smi -q";
    g.pci_bus_id = "00000000:01:00.0";
    g.performance_state = util > 50 ? "P2" : "P8";
    g.util_pct = util;
    g.power_w = power;
    g.power_limit_w = 450;
    g.active_clock_reasons = std::move(reasons);
    return g;
  };
  struct Case {
    GpuState g;
    std::optional<Severity> severity;
  };
  std::vector<Case> cases = {
      {gpu(99, 446, {"SW Power Cap"}), Severity::kLow},
      {gpu(0, 35, {"SW Power Cap"}), std::nullopt},
      {gpu(0, 70, {"HW Slowdown", "HW Power Brake Slowdown"}), Severity::kHigh},
  };
  for (const Case& c : cases) {
    SystemFacts facts;
    facts.gpus.push_back(c.g);
    Diagnosis d = DiagnoseSystemFacts(facts);
    const Finding* f = d.Find("platform.gpu_clocks_limited");
    ASSERT_EQ(f != nullptr, c.severity.has_value()) << c.g.util_pct.value_or(0);
    if (f == nullptr) continue;
    EXPECT_EQ(f->severity, *c.severity) << f->title;
    for (const FindingEvidence& e : f->evidence) {
      // A reason line satisfies its comparison (or has none: context).
      if (e.comparison == ">=") {
        EXPECT_GE(e.metric.value, e.threshold) << e.metric.id;
      }
    }
  }
}

// Issue 36: an nccl-tests plateau is judged against what the transport in the same log carries
// (tests/data/node_logs: IB with speed=, RoCE with the topology dump's NET[...], EFA by instance
// type, NVLink by part), and is "cannot tell" at low where the rate is not stated.
TEST(DiagnosePlatformTest, NcclTestsPlateausAreJudgedAgainstTheTransportsRate) {
  auto diagnose = [](std::vector<std::string> files, SystemFacts& facts) {
    for (const std::string& f : files) {
      Status s = ReadSystemFile(node_log_fixtures::Dir() + f, facts);
      EXPECT_TRUE(s.ok()) << f << ": " << s.message();
    }
    return DiagnoseSystemFacts(facts);
  };
  auto note_of = [](const Diagnosis& d) {
    for (const RuleOutcome& o : d.outcomes) {
      if (o.rule_id == "platform.nccl_tests_bandwidth") return o.note;
    }
    return std::string();
  };
  SystemFacts roce_facts;
  Diagnosis roce = diagnose({"nccl_tests_roce_4x200_healthy.txt"}, roce_facts);
  EXPECT_EQ(roce.Find("platform.nccl_tests_bandwidth"), nullptr);
  EXPECT_NE(note_of(roce).find("over RoCE (NET/IB), 91% of what 4 x 200 Gb/s per node (the NIC "
                               "speed NCCL printed) carry 100.0 GB/s each way"),
            std::string::npos)
      << note_of(roce);
  SystemFacts p4d_facts;
  Diagnosis p4d = diagnose({"nccl_tests_efa_p4d_healthy.txt"}, p4d_facts);
  EXPECT_NE(note_of(p4d).find("over EFA (aws-ofi-nccl), 156% of what 4 x 100 Gb/s per node "
                              "(p4d.24xlarge's published EFA rate) carry 50.0 GB/s each way: a "
                              "ring all-reduce reaches about that, a hierarchical one over 2 "
                              "nodes of 16 ranks up to 93.8 GB/s"),
            std::string::npos)
      << note_of(p4d);
  SystemFacts a100_facts;
  EXPECT_NE(note_of(diagnose({"nccl_tests_nvlink_a100_healthy.txt"}, a100_facts))
                .find("over NVLink 3 (300 GB/s per GPU each way, about 240 expected)"),
            std::string::npos);

  // The rate unstated: low, naming what would decide; the node's ibstat in the same facts
  // (a bundle) states it, and 12 GB/s of 4 x 200 Gb/s is slow.
  SystemFacts unstated_facts;
  Diagnosis unstated = diagnose({"nccl_tests_ib_rate_unstated.txt"}, unstated_facts);
  const Finding* f = unstated.Find("platform.nccl_tests_bandwidth");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kLow);
  EXPECT_NE(f->title.find("cannot be told: the log states no NIC rate: ibstat (Rate)"),
            std::string::npos)
      << f->title;
  std::string ibstat;
  for (int i = 0; i < 4; ++i) {
    ibstat += fmt::format(
        "CA 'mlx5_{}'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: "
        "Active\n\t\tPhysical state: LinkUp\n\t\tRate: 200\n\t\tLink layer: InfiniBand\n",
        i);
  }
  ASSERT_TRUE(ParseInfiniband(ibstat, "ibstat.txt", unstated_facts).ok());
  f = DiagnoseSystemFacts(unstated_facts).Find("platform.nccl_tests_bandwidth");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kMedium);
  EXPECT_NE(f->title.find("4 x 200 Gb/s per node (ibstat's Rate of the ports NCCL uses) carry "
                          "100.0 GB/s"),
            std::string::npos)
      << f->title;

  SystemFacts short_facts;
  f = diagnose({"nccl_tests_short_sweep.txt"}, short_facts).Find("platform.nccl_tests_bandwidth");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kLow);
  EXPECT_NE(f->title.find("the sweep stops at 524288 bytes"), std::string::npos) << f->title;
}

}  // namespace diagnose_platform_test
}  // namespace gpuwhy
