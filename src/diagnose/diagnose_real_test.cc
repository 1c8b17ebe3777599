// Real traces: the ResNet-50 DataLoader case and its fix, and every trace under
// shared/data/kineto diagnoses without crash, without comm.* on traces without
// collectives, and without counting idle twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "diagnose/diagnose_test_util.h"

namespace gpuwhy {
namespace diagnose_real_test {

namespace fs = std::filesystem;

const std::string kData = GPUWHY_SHARED_DATA;
const std::string kPlugin = kData + "/kineto/kineto_tb_plugin/";
const std::string kWorkers0 = kPlugin + "2d19c63_resnet50_num_workers_0__worker0.pt.trace.json.gz";
const std::string kWorkers4 = kPlugin + "7bd25bd_resnet50_num_workers_4__worker0.pt.trace.json.gz";

TEST(DiagnoseRealTest, ResNet50NumWorkers0IsInputBound) {
  if (!fs::exists(kWorkers0) || !fs::exists(kWorkers4)) GTEST_SKIP() << "no " << kPlugin;
  auto w0 = DiagnoseFile(kWorkers0);
  auto w4 = DiagnoseFile(kWorkers4);
  ASSERT_NE(w0, nullptr);
  ASSERT_NE(w4, nullptr);
  const Diagnosis& d0 = w0->diagnosis;
  ASSERT_FALSE(d0.findings.empty());
  const Finding& top = d0.findings.front();
  EXPECT_EQ(top.id, "input.dataloader_wait") << top.title;
  std::string fixes;
  for (const Fix& f : top.fixes) fixes += f.action + " " + f.code + "\n";
  for (const char* knob : {"num_workers", "pin_memory", "persistent_workers"}) {
    EXPECT_NE(fixes.find(knob), std::string::npos) << knob;
  }
  const Finding* after = w4->diagnosis.Find("input.dataloader_wait");
  bool no_longer_top = w4->diagnosis.findings.empty() ||
                       w4->diagnosis.findings.front().id != "input.dataloader_wait";
  DurationNs after_ns = after == nullptr ? 0 : after->recoverable_ns_per_step;
  EXPECT_TRUE(no_longer_top);
  EXPECT_GE(top.recoverable_ns_per_step, 3 * after_ns);
  std::printf(
      "[resnet50] workers=0: top %s %.2f ms/step of %.2f ms (%s); workers=4: "
      "dataloader %.2f ms/step, top %s\n",
      top.id.c_str(), NsToMs(top.recoverable_ns_per_step), NsToMs(top.step_ns),
      std::string(SeverityName(top.severity)).c_str(), NsToMs(after_ns),
      w4->diagnosis.findings.empty() ? "none" : w4->diagnosis.findings.front().id.c_str());
  ExpectNoIdleDoubleCount(d0, kWorkers0);
  ExpectNoIdleDoubleCount(w4->diagnosis, kWorkers4);
}

std::vector<std::string> AllTraces() {
  std::vector<std::string> paths;
  std::error_code ec;
  fs::path root = kData + "/kineto";
  if (!fs::exists(root, ec)) return paths;
  for (const auto& entry : fs::recursive_directory_iterator(root, ec)) {
    std::string p = entry.path().string();
    if (entry.is_regular_file() && (p.ends_with(".json") || p.ends_with(".json.gz"))) {
      paths.push_back(p);
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(DiagnoseRealTest, EveryRealTraceDiagnosesSoundly) {
  std::vector<std::string> paths = AllTraces();
  if (paths.empty()) GTEST_SKIP() << "no traces under " << kData << "/kineto";
  int diagnosed = 0;
  for (const std::string& path : paths) {
    auto trace = ImportKinetoFile(path);
    if (!trace.ok()) continue;  // the importer's own tests cover unusable inputs
    TraceAnalysis analysis = AnalyzeTrace(*trace);
    Diagnosis d = Diagnose(*trace, analysis);
    ++diagnosed;
    std::string name = fs::path(path).filename().string();
    ExpectNoIdleDoubleCount(d, name);
    bool has_collectives = analysis.communication.rank.kernel_count > 0;
    bool has_memory = !analysis.memory.devices.empty();
    for (const Finding& f : d.findings) {
      if (!has_collectives) {
        EXPECT_NE(f.id.rfind("comm.", 0), 0u) << name << " " << f.id;
      }
      if (!has_memory) {
        EXPECT_NE(f.id, "memory.near_capacity") << name;
      }
      if (trace->metadata.vendor == GpuVendor::kAmd || trace->metadata.vendor == GpuVendor::kMtia) {
        EXPECT_NE(f.id, "compute.no_tensor_cores") << name;
      }
      EXPECT_FALSE(f.title.empty()) << name << " " << f.id;
      EXPECT_EQ(f.title.find('{'), std::string::npos) << name << " " << f.title;
    }
    EXPECT_EQ(d.outcomes.size(), Catalog::Default().rules().size()) << name;
    std::printf("[real] %-70s step %8.2f ms  top %-28s %s\n", name.c_str(), NsToMs(d.step_ns),
                d.findings.empty() ? "-" : d.findings.front().id.c_str(),
                d.findings.empty() ? "" : d.findings.front().title.c_str());
  }
  EXPECT_GT(diagnosed, 10);
}

}  // namespace diagnose_real_test
}  // namespace gpuwhy
