// `gpuwhy doctor` end to end, in-process: a support bundle built from real node logs, single
// files, JSON and Markdown output, --fail-on, truncated and missing inputs, and this machine
// (whatever it has: no GPU and no kernel-log permission must still exit 0).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "cli/cli_test_util.h"

namespace gpuwhy {
namespace doctor_command_test {

namespace fs = std::filesystem;

std::string Logs() { return std::string(GPUWHY_SHARED_DATA) + "/logs/"; }

#define SKIP_WITHOUT_DATA() \
  if (!fs::exists(Logs())) GTEST_SKIP() << "no shared data at " << Logs()

class DoctorCommandTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeScratchDir("gpuwhy_doctor"); }
  void TearDown() override { fs::remove_all(dir_); }
  void Copy(const std::string& relative, const std::string& as) {
    fs::create_directories((fs::path(dir_) / as).parent_path());
    fs::copy_file(Logs() + relative, fs::path(dir_) / as);
  }
  void Write(const std::string& as, const std::string& text) {
    fs::create_directories((fs::path(dir_) / as).parent_path());
    std::ofstream(fs::path(dir_) / as) << text;
  }
  void MakeBundle() {
    Copy("dmesg/gpud_components_accelerator_nvidia_xid__dmesg-with-xid-119.log.txt", "dmesg.txt");
    Copy("lspci/janhq_jan_issue183_rtx4090_riser_lnk_downgraded_excerpt.txt", "lspci.txt");
    Copy("topo/gnosia93_c7_topo_g6e_4xL40S_NODE.txt", "topo.txt");
    Copy("nccl/gnosia93_c7-nccl_g6e_4node_efa_fail_socket_fallback.txt", "logs/train.log");
    Copy("nvidia-smi-q/gpud_nvidia-smi-query.535.129.03.out.0.valid.a10.txt", "smi-q.txt");
    Write("env.txt", "PATH=/usr/bin\nCUDA_LAUNCH_BLOCKING=1\nOMP_NUM_THREADS=8\n");
    Write("proc/sys/kernel/numa_balancing", "1\n");
    Write("notes.md", "# what I did\nrebooted twice\n");
  }
  std::string dir_;
};

TEST_F(DoctorCommandTest, BundleText) {
  SKIP_WITHOUT_DATA();
  MakeBundle();
  Result r = RunGpuwhy({"doctor", "--from", dir_});
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* expected :
       {"platform.xid_errors", "platform.pcie_downgraded", "platform.nccl_socket_fallback",
        "platform.launch_blocking", "platform.ecc_errors", "platform.topology_slow_pairs",
        "platform.host_memory_settings", "log       smi-q.txt:142: Pending : Yes",
        "notes.md: not a recognised log", "Checklist", "NVIDIA A10"}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find("Utilization"), std::string::npos);  // no trace tables
  EXPECT_EQ(RunGpuwhy({"doctor", "--from", dir_, "--fail-on", "high"}).code, 1);
}

TEST_F(DoctorCommandTest, BundleJsonAndMarkdown) {
  SKIP_WITHOUT_DATA();
  MakeBundle();
  Result r = RunGpuwhy({"doctor", "--from", dir_, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array findings = doc["ranks"].at(0)["findings"].get_array();
  bool xid_quoted = false;
  for (simdjson::dom::element f : findings) {
    if (std::string_view(f["id"].get_string()) != "platform.xid_errors") continue;
    simdjson::dom::element q = f["quotes"].at(0);
    xid_quoted = int64_t(q["line"]) == 3 &&
                 std::string_view(q["text"].get_string()).find("Xid (PCI:0000:9b:00): 119") !=
                     std::string_view::npos;
  }
  EXPECT_TRUE(xid_quoted);
  Result md = RunGpuwhy({"doctor", "--from", dir_, "--format", "md"});
  ASSERT_EQ(md.code, 0);
  EXPECT_NE(md.out.find("**Log lines:**"), std::string::npos);
  EXPECT_NE(md.out.find("dmesg.txt:3: [Sun Feb 23 16:24:18 2025] NVRM: Xid"), std::string::npos);
  EXPECT_EQ(md.out.find("<details>"), std::string::npos);
}

TEST_F(DoctorCommandTest, AnalyzeMergesABundleIntoTheTraceDiagnosis) {
  SKIP_WITHOUT_DATA();
  MakeBundle();
  std::string trace = MakeScratchDir("gpuwhy_doctor_trace") + "/rank0.json";
  ASSERT_EQ(RunGpuwhy({"synth", "--scenario", "input-bound", "--steps", "4", "-o", trace}).code, 0);
  Result r = RunGpuwhy({"analyze", trace, dir_, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  std::set<std::string> ids;
  for (simdjson::dom::element f : doc["ranks"].at(0)["findings"].get_array()) {
    ids.insert(std::string(std::string_view(f["id"].get_string())));
  }
  EXPECT_TRUE(ids.contains("input.dataloader_wait"));  // from the trace
  EXPECT_TRUE(ids.contains("platform.xid_errors"));    // from the bundle
  EXPECT_TRUE(ids.contains("platform.nccl_socket_fallback"));
  fs::remove_all(fs::path(trace).parent_path());
}

TEST_F(DoctorCommandTest, TruncatedXmlNamesTheLineAndKeepsTheRest) {
  SKIP_WITHOUT_DATA();
  std::ifstream in(Logs() + "nvidia-smi-q-xml/telegraf_dual_a5000-v13.xml");
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t second_gpu = xml.find("<gpu id", xml.find("<gpu id") + 1);
  ASSERT_NE(second_gpu, std::string::npos);
  Write("smi.xml", xml.substr(0, second_gpu + 400));
  Result r = RunGpuwhy({"doctor", "--from", dir_ + "/smi.xml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("smi.xml: line "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(truncated?)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("NVIDIA RTX A5000"), std::string::npos);  // what was read is reported
}

TEST_F(DoctorCommandTest, MissingInputIsUnusable) {
  Result r = RunGpuwhy({"doctor", "--from", dir_ + "/nope"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nope: no such file or directory"), std::string::npos);
}

TEST_F(DoctorCommandTest, ThisMachineAlwaysExitsZero) {
  Result r = RunGpuwhy({"doctor"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("== doctor: this machine"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Checklist"), std::string::npos);
}

// The quoted log lines keep the same text whatever the file is called: a support bundle's long
// file name left "…" where the line should be. A long line is cut in its middle, keeping its
// time and what happened at its end.
TEST_F(DoctorCommandTest, QuotedLinesDoNotDependOnTheFileNameLength) {
  const std::string line =
      "kern  :warn  : 2025-01-21T04:41:44,285060+00:00 pt_main_thread[2536443]: segfault at "
      "7f797fe00000 ip 00007f7c7ac69996 sp 00007f7c12fd7c30 error 4 in "
      "libnccl.so.2[7f7c7ac00000+d3d3000]\n";
  const std::string long_name =
      "node-gpu-a100-rack17-slot04-kernel-ring-buffer-collected-2024-11-03T12-44-51Z-after-a-"
      "segfault-in-nccl.txt";
  Write("k.txt", line);
  Write(long_name, line);
  // The text after "PATH:LINE: " on the log lines, joined.
  auto quoted = [&](const std::string& name) {
    Result r = RunGpuwhy({"doctor", "--from", dir_ + "/" + name});
    EXPECT_EQ(r.code, 0) << r.err;
    size_t at = r.out.find("    log       ");
    EXPECT_NE(at, std::string::npos) << r.out;
    std::string text;
    for (size_t end; at != std::string::npos && at < r.out.size(); at = end + 1) {
      end = r.out.find('\n', at);
      std::string row = r.out.substr(at + 14, end - at - 14);
      if (r.out.compare(at, 14, std::string(14, ' ')) != 0 && !text.empty()) break;
      text += (text.empty() ? "" : " ") + row;
    }
    return text.substr(text.find(".txt:1: ") + 8);
  };
  std::string short_quote = quoted("k.txt");
  std::string long_quote = quoted(long_name);
  EXPECT_EQ(short_quote, long_quote);
  EXPECT_NE(long_quote.find("2025-01-21T04:41:44"), std::string::npos) << long_quote;
  EXPECT_NE(long_quote.find("segfault at"), std::string::npos) << long_quote;
  EXPECT_NE(long_quote.find("error 4 in libnccl.so.2"), std::string::npos) << long_quote;
}

}  // namespace doctor_command_test
}  // namespace gpuwhy
