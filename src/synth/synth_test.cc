#include "synth/synth.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/file_input.h"
#include "base/output_sink.h"
#include "synth/kernels.h"
#include "synth/kineto_writer.h"

namespace gpuwhy {
namespace synth_test {

namespace fs = std::filesystem;
using simdjson::dom::element;

// A fresh directory per test, so parallel ctest runs never share files.
std::string TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(::testing::TempDir()) /
                 (std::string("synth_") + info->test_suite_name() + "_" + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string ReadText(const std::string& path) {
  StatusOr<std::string> text = ReadWholeFile(path);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : std::string();
}

// Parses with simdjson's DOM; the parser must outlive the returned element.
element Parse(simdjson::dom::parser& parser, const std::string& text) {
  element doc;
  auto error = parser.parse(text).get(doc);
  EXPECT_EQ(error, simdjson::SUCCESS) << simdjson::error_message(error);
  return doc;
}

int64_t ToNs(double us) { return std::llround(us * 1000.0); }

struct Event {
  std::string cat, name, ph;
  int64_t pid = 0, tid = 0;
  int64_t ts = 0, dur = 0;
  element args;
};

std::vector<Event> Events(element doc) {
  std::vector<Event> events;
  for (element e : doc["traceEvents"].get_array()) {
    Event ev;
    std::string_view s;
    if (e["cat"].get(s) == simdjson::SUCCESS) ev.cat = s;
    if (e["name"].get(s) == simdjson::SUCCESS) ev.name = s;
    if (e["ph"].get(s) == simdjson::SUCCESS) ev.ph = s;
    int64_t i;
    if (e["pid"].get(i) == simdjson::SUCCESS) ev.pid = i;
    if (e["tid"].get(i) == simdjson::SUCCESS) ev.tid = i;
    double d;
    if (e["ts"].get(d) == simdjson::SUCCESS) ev.ts = ToNs(d);
    if (e["dur"].get(d) == simdjson::SUCCESS) ev.dur = ToNs(d);
    if (e["args"].get(ev.args) != simdjson::SUCCESS) ev.args = element();
    events.push_back(std::move(ev));
  }
  return events;
}

bool IsGpuOp(const Event& e) {
  return e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset";
}

struct Written {
  std::string path;
  std::string text;
  std::string truth_text;
};

Written WriteScenario(const std::string& dir, const std::string& scenario, int steps,
                      const std::string& file = "trace.json") {
  SynthOptions options;
  options.scenario = scenario;
  options.steps = steps;
  Written w;
  w.path = dir + "/" + file;
  Status status = WriteSyntheticTrace(options, w.path);
  EXPECT_TRUE(status.ok()) << status.message();
  w.text = ReadText(w.path);
  w.truth_text = ReadText(w.path + ".truth.json");
  return w;
}

int64_t TruthInt(element truth, std::string_view key) {
  int64_t v = -1;
  EXPECT_EQ(truth[key].get(v), simdjson::SUCCESS) << key;
  return v;
}

int64_t InjectedInt(element truth, std::string_view key) {
  int64_t v = -1;
  EXPECT_EQ(truth["injected"][key].get(v), simdjson::SUCCESS) << key;
  return v;
}

TEST(SynthTest, EveryScenarioIsValidJsonWithTheCountsTheTruthStates) {
  std::string dir = TestDir();
  for (const std::string& scenario : ScenarioNames()) {
    SCOPED_TRACE(scenario);
    Written w = WriteScenario(dir, scenario, 3, scenario + ".json");
    simdjson::dom::parser trace_parser, truth_parser;
    element doc = Parse(trace_parser, w.text);
    element truth = Parse(truth_parser, w.truth_text);

    std::map<std::string, int64_t> counted;
    int steps = 0;
    for (const Event& e : Events(doc)) {
      if (!e.cat.empty()) ++counted[e.cat];
      if (e.cat == "user_annotation" && e.name.rfind("ProfilerStep#", 0) == 0) ++steps;
    }
    std::map<std::string, int64_t> stated;
    for (auto field : truth["counts"].get_object()) {
      stated[std::string(field.key)] = field.value.get_int64().value();
    }
    for (const auto& [cat, n] : counted) EXPECT_EQ(stated[cat], n) << cat;
    for (const auto& [cat, n] : stated) EXPECT_EQ(counted[cat], n) << cat;
    // Engine start-ups and captures without a profiler schedule write no ProfilerStep.
    bool annotated = true;
    EXPECT_EQ(truth["profiler_steps"].get(annotated), simdjson::SUCCESS);
    EXPECT_EQ(steps, annotated ? 3 : 0);
    EXPECT_EQ(TruthInt(truth, "steps"), 3);
    std::string_view finding;
    ASSERT_EQ(truth["expected_top_finding"].get(finding), simdjson::SUCCESS);
    EXPECT_EQ(finding, ScenarioExpectedFinding(scenario));
    EXPECT_NE(ScenarioDescription(scenario), nullptr);

    int64_t base = 0;
    EXPECT_EQ(doc["baseTimeNanoseconds"].get(base), simdjson::SUCCESS);
    EXPECT_GT(base, 0);
    std::string_view device_name;
    EXPECT_EQ(doc["deviceProperties"].at(0)["name"].get(device_name), simdjson::SUCCESS);
    EXPECT_EQ(device_name, "NVIDIA H100 80GB HBM3");
  }
}

TEST(SynthTest, TimestampsAreMicrosecondsWithThreeDecimals) {
  Written w = WriteScenario(TestDir(), "healthy", 1);
  size_t checked = 0;
  for (size_t pos = w.text.find("\"ts\":"); pos != std::string::npos && checked < 200;
       pos = w.text.find("\"ts\":", pos + 1), ++checked) {
    size_t end = w.text.find_first_of(",}", pos);
    std::string number = w.text.substr(pos + 5, end - pos - 5);
    size_t dot = number.find('.');
    ASSERT_NE(dot, std::string::npos) << number;
    EXPECT_EQ(number.size() - dot - 1, 3u) << number;
  }
  EXPECT_EQ(checked, 200u);
}

TEST(SynthTest, EveryLaunchHasAFlowToItsGpuOp) {
  Written w = WriteScenario(TestDir(), "comm-exposed", 2);
  simdjson::dom::parser parser;
  element doc = Parse(parser, w.text);
  // Flow ids live at the event's top level, so read them from the DOM directly.
  std::map<int64_t, int64_t> flow_start_ts, flow_end_ts;
  for (element e : doc["traceEvents"].get_array()) {
    std::string_view cat, ph;
    if (e["cat"].get(cat) != simdjson::SUCCESS || cat != "ac2g") continue;
    ASSERT_EQ(e["ph"].get(ph), simdjson::SUCCESS);
    int64_t id = e["id"].get_int64().value();
    (ph == "s" ? flow_start_ts : flow_end_ts)[id] = ToNs(e["ts"].get_double().value());
  }
  EXPECT_EQ(flow_start_ts.size(), flow_end_ts.size());
  std::vector<Event> parsed = Events(doc);
  int gpu_ops = 0;
  for (const Event& e : parsed) {
    if (!IsGpuOp(e)) continue;
    ++gpu_ops;
    int64_t correlation = e.args["correlation"].get_int64().value();
    ASSERT_TRUE(flow_end_ts.count(correlation)) << e.name;
    EXPECT_EQ(flow_end_ts[correlation], e.ts);
    EXPECT_TRUE(flow_start_ts.count(correlation));
    EXPECT_LE(flow_start_ts[correlation], e.ts);
  }
  EXPECT_GT(gpu_ops, 100);
}

TEST(SynthTest, InputBoundWaitIsInsideEveryStepAndTheGpuIdlesThrough) {
  Written w = WriteScenario(TestDir(), "input-bound", 4);
  simdjson::dom::parser parser, truth_parser;
  std::vector<Event> events = Events(Parse(parser, w.text));
  element truth = Parse(truth_parser, w.truth_text);
  int64_t wait = InjectedInt(truth, "dataloader_wait_ns_per_step");
  EXPECT_EQ(wait, 20'000'000);

  std::vector<const Event*> steps, waits, gpu_ops;
  for (const Event& e : events) {
    if (e.name.rfind("ProfilerStep#", 0) == 0 && e.cat == "user_annotation") steps.push_back(&e);
    if (e.name == "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")
      waits.push_back(&e);
    if (IsGpuOp(e)) gpu_ops.push_back(&e);
  }
  ASSERT_EQ(steps.size(), 4u);
  for (const Event* step : steps) {
    int64_t in_step = 0;
    for (const Event* next : waits) {
      if (next->ts >= step->ts && next->ts + next->dur <= step->ts + step->dur) {
        in_step += next->dur;
        for (const Event* op : gpu_ops) {
          EXPECT_FALSE(op->ts < next->ts + next->dur && op->ts + op->dur > next->ts)
              << "GPU busy during the DataLoader wait: " << op->name;
        }
      }
    }
    EXPECT_EQ(in_step, wait) << step->name;
  }
}

TEST(SynthTest, HealthyKeepsTheGpuBusy) {
  Written w = WriteScenario(TestDir(), "healthy", 4);
  simdjson::dom::parser parser, truth_parser;
  std::vector<Event> events = Events(Parse(parser, w.text));
  element truth = Parse(truth_parser, w.truth_text);
  double fraction = truth["gpu_busy_fraction"].get_double().value();
  EXPECT_GE(fraction, 0.9);

  // Recompute busy time from the JSON: union of GPU ops clipped to the host steps.
  int64_t busy = 0, span = 0;
  std::vector<std::pair<int64_t, int64_t>> ops;
  for (const Event& e : events) {
    if (IsGpuOp(e)) ops.emplace_back(e.ts, e.ts + e.dur);
  }
  std::sort(ops.begin(), ops.end());
  for (const Event& step : events) {
    if (step.cat != "user_annotation" || step.name.rfind("ProfilerStep#", 0) != 0) continue;
    span += step.dur;
    int64_t cursor = step.ts;
    for (auto [start, end] : ops) {
      int64_t from = std::max(start, cursor), to = std::min(end, step.ts + step.dur);
      if (to > from) {
        busy += to - from;
        cursor = to;
      }
    }
  }
  EXPECT_NEAR(static_cast<double>(busy) / span, fraction, 0.002);
}

TEST(SynthTest, LaunchBoundHasThousandsOfTinyKernelsBehindSlowLaunches) {
  Written w = WriteScenario(TestDir(), "launch-bound", 2);
  simdjson::dom::parser parser, truth_parser;
  std::vector<Event> events = Events(Parse(parser, w.text));
  element truth = Parse(truth_parser, w.truth_text);
  int64_t tiny_per_step = InjectedInt(truth, "tiny_kernels_per_step");
  EXPECT_GE(tiny_per_step, 2000);
  int64_t tiny = 0;
  for (const Event& e : events) {
    if (e.cat == "kernel" && e.dur >= 2000 && e.dur <= 5000) ++tiny;
    if (e.name == "cudaLaunchKernel") {
      EXPECT_GE(e.dur, 6000);
      EXPECT_LE(e.dur, 8000);
    }
  }
  EXPECT_GE(tiny, 2 * tiny_per_step);
  EXPECT_LT(truth["gpu_busy_fraction"].get_double().value(), 0.8);
}

TEST(SynthTest, SyncHeavyHasItemCopyAndStreamSyncPerCall) {
  Written w = WriteScenario(TestDir(), "sync-heavy", 2);
  simdjson::dom::parser parser, truth_parser;
  std::vector<Event> events = Events(Parse(parser, w.text));
  element truth = Parse(truth_parser, w.truth_text);
  int64_t per_step = InjectedInt(truth, "item_syncs_per_step");
  std::map<std::string, int64_t> n;
  for (const Event& e : events) {
    if (e.name == "Memcpy DtoH (Device -> Pinned)" || e.cat == "cuda_sync") ++n[e.name];
    if (e.cat == "cpu_op" || e.cat == "cuda_runtime") ++n[e.name];
  }
  EXPECT_EQ(n["aten::item"], 2 * per_step);
  EXPECT_EQ(n["aten::_local_scalar_dense"], 2 * per_step);
  EXPECT_EQ(n["cudaStreamSynchronize"], 2 * per_step);
  EXPECT_EQ(n["Stream Sync"], 2 * per_step);
  EXPECT_EQ(n["Memcpy DtoH (Device -> Pinned)"], 2 * per_step);
  EXPECT_GT(InjectedInt(truth, "gpu_idle_after_mid_step_syncs_ns_per_step"),
            InjectedInt(truth, "mid_step_syncs_per_step") *
                InjectedInt(truth, "host_work_after_sync_ns"));
}

TEST(SynthTest, CommExposedWritesOneFilePerRankWithANonOverlappedAllReduce) {
  std::string dir = TestDir();
  SynthOptions options;
  options.scenario = "comm-exposed";
  options.steps = 2;
  options.ranks = 2;
  SynthSummary summary;
  ASSERT_TRUE(WriteSyntheticTrace(options, dir + "/job.json.gz", &summary).ok());
  ASSERT_EQ(summary.trace_paths.size(), 2u);
  EXPECT_EQ(summary.trace_paths[1], dir + "/job.rank1.json.gz");
  simdjson::dom::parser truth_parser;
  element truth = Parse(truth_parser, ReadText(dir + "/job.json.gz.truth.json"));
  int64_t exposed = InjectedInt(truth, "exposed_comm_ns_per_step");
  std::set<int64_t> ranks;
  for (const std::string& path : summary.trace_paths) {
    simdjson::dom::parser parser;
    std::string text = ReadText(path);
    element doc = Parse(parser, text);
    ranks.insert(doc["distributedInfo"]["rank"].get_int64().value());
    EXPECT_EQ(doc["distributedInfo"]["world_size"].get_int64().value(), 2);
    std::vector<Event> events = Events(doc);
    int collectives = 0;
    for (const Event& e : events) {
      if (e.name != "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, ncclDevKernelArgs*)") {
        continue;
      }
      ++collectives;
      EXPECT_EQ(e.dur, exposed);
      EXPECT_EQ(e.tid, 24);
      std::string_view collective;
      EXPECT_EQ(e.args["Collective name"].get(collective), simdjson::SUCCESS);
      EXPECT_EQ(collective, "allreduce");
      for (const Event& op : events) {
        if (op.cat == "kernel" && op.tid == 7) {
          EXPECT_FALSE(op.ts < e.ts + e.dur && op.ts + op.dur > e.ts) << op.name;
        }
      }
    }
    EXPECT_EQ(collectives, 2);
  }
  EXPECT_EQ(ranks, (std::set<int64_t>{0, 1}));
}

TEST(SynthTest, PageableCopyMatchesTheTruthAndBlocksTheHost) {
  Written w = WriteScenario(TestDir(), "pageable-copies", 2);
  simdjson::dom::parser parser, truth_parser;
  std::vector<Event> events = Events(Parse(parser, w.text));
  element truth = Parse(truth_parser, w.truth_text);
  int copies = 0;
  for (const Event& e : events) {
    if (e.name != "Memcpy HtoD (Pageable -> Device)") continue;
    ++copies;
    EXPECT_EQ(e.dur, InjectedInt(truth, "pageable_copy_ns_per_step"));
    EXPECT_EQ(e.args["bytes"].get_int64().value(),
              InjectedInt(truth, "pageable_copy_bytes_per_step"));
    int64_t correlation = e.args["correlation"].get_int64().value();
    for (const Event& call : events) {
      if (call.name == "cudaMemcpyAsync" &&
          call.args["correlation"].get_int64().value() == correlation) {
        EXPECT_GE(call.ts + call.dur, e.ts + e.dur);
      }
    }
  }
  EXPECT_EQ(copies, 2);
}

TEST(SynthTest, GzipHoldsTheSameJsonAsPlain) {
  std::string dir = TestDir();
  fs::create_directories(dir + "/a");
  fs::create_directories(dir + "/b");
  Written plain = WriteScenario(dir + "/a", "sync-heavy", 2, "t.json");
  Written gz = WriteScenario(dir + "/b", "sync-heavy", 2, "t.json.gz");
  EXPECT_EQ(gz.text, plain.text);
  EXPECT_LT(fs::file_size(dir + "/b/t.json.gz"), plain.text.size() / 4);
}

TEST(SynthTest, SameSeedSameBytesOtherSeedOtherBytes) {
  std::string dir = TestDir();
  SynthOptions options;
  options.steps = 1;
  std::vector<std::string> texts;
  for (const char* sub : {"/a", "/b", "/c"}) {
    fs::create_directories(dir + sub);
    if (std::string(sub) == "/c") options.seed = 2;
    ASSERT_TRUE(WriteSyntheticTrace(options, dir + sub + "/t.json").ok());
    texts.push_back(ReadText(dir + sub + "/t.json"));
  }
  EXPECT_TRUE(texts[0] == texts[1]);
  EXPECT_FALSE(texts[0] == texts[2]);
}

TEST(SynthTest, RanksWriteDistinctFilesAndOverlapTheirBuckets) {
  std::string dir = TestDir();
  SynthOptions options;
  options.steps = 2;
  options.ranks = 3;
  ASSERT_TRUE(WriteSyntheticTrace(options, dir + "/h.json").ok());
  for (int r = 0; r < 3; ++r) {
    simdjson::dom::parser parser;
    std::string text = ReadText(dir + "/h.rank" + std::to_string(r) + ".json");
    element doc = Parse(parser, text);
    EXPECT_EQ(doc["distributedInfo"]["rank"].get_int64().value(), r);
    EXPECT_EQ(doc["distributedInfo"]["pg_config"].at(0)["pg_size"].get_int64().value(), 3);
    int nccl = 0;
    for (const Event& e : Events(doc)) nccl += e.cat == "kernel" && e.tid == 24;
    EXPECT_EQ(nccl, 4);  // two DDP buckets per step
  }
  simdjson::dom::parser truth_parser;
  element truth = Parse(truth_parser, ReadText(dir + "/h.json.truth.json"));
  EXPECT_EQ(truth["per_rank"].get_array().size(), 3u);
  EXPECT_GE(truth["gpu_busy_fraction"].get_double().value(), 0.9);
}

TEST(SynthTest, UnknownScenarioListsTheValidNames) {
  SynthOptions options;
  options.scenario = "gpu-on-fire";
  Status status = WriteSyntheticTrace(options, TestDir() + "/x.json");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  for (const std::string& name : ScenarioNames()) {
    EXPECT_NE(status.message().find(name), std::string::npos) << status.message();
  }
  EXPECT_EQ(ScenarioDescription("gpu-on-fire"), nullptr);
}

// Shape parameters: known keys change what is written and are stated in the truth; unknown
// keys and bad values are errors naming the keys.
TEST(SynthTest, ScenarioParamsVaryTheShape) {
  std::string dir = TestDir();
  SynthOptions options;
  options.scenario = "compile-in-op";
  options.steps = 3;
  options.params = {"compile_ms=40", "fusion_groups=3"};
  ASSERT_TRUE(WriteSyntheticTrace(options, dir + "/p.json").ok());
  simdjson::dom::parser parser;
  element truth = Parse(parser, ReadText(dir + "/p.json.truth.json"));
  EXPECT_EQ(InjectedInt(truth, "compile_ns"), 40 * kNsPerMs);
  EXPECT_EQ(InjectedInt(truth, "fusion_groups"), 3);
  EXPECT_EQ(truth["params"].get_array().size(), 2u);
  // Three fused kernels a forward, each launched through the driver API.
  simdjson::dom::parser trace_parser;
  element doc = Parse(trace_parser, ReadText(dir + "/p.json"));
  int64_t driver_launches = 0, fused = 0;
  for (const Event& e : Events(doc)) {
    driver_launches += e.cat == "cuda_driver" && e.name == "cuLaunchKernel";
    fused += e.cat == "kernel" && e.name.rfind("fused__autocast_to__", 0) == 0;
  }
  EXPECT_EQ(driver_launches, 9);
  EXPECT_EQ(fused, 9);
  for (std::vector<std::string> bad : {std::vector<std::string>{"compile_ms"},
                                       {"gpu_on_fire=1"},
                                       {"compile_ms=-3"},
                                       {"upload_ms=x"}}) {
    options.params = bad;
    Status status = WriteSyntheticTrace(options, dir + "/bad.json");
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << bad.front();
    if (bad.front() == "gpu_on_fire=1") {
      EXPECT_NE(status.message().find("teardown_calls"), std::string::npos) << status.message();
    }
  }
}

// A graph capture records launches that never run: each has its flow's start and no GPU op.
TEST(SynthTest, CapturedLaunchesRunNothing) {
  std::string dir = TestDir();
  SynthOptions options;
  options.scenario = "graph-capture";
  options.steps = 2;
  ASSERT_TRUE(WriteSyntheticTrace(options, dir + "/g.json").ok());
  simdjson::dom::parser parser;
  element doc = Parse(parser, ReadText(dir + "/g.json"));
  std::map<std::string, int64_t> calls;
  int64_t kernels = 0;
  for (const Event& e : Events(doc)) {
    if (e.cat == "cuda_runtime") ++calls[e.name];
    kernels += e.cat == "kernel";
  }
  EXPECT_EQ(calls["cudaStreamBeginCapture"], 2);
  EXPECT_EQ(calls["cudaStreamEndCapture"], 2);
  EXPECT_EQ(calls["cudaGraphInstantiateWithFlags"], 2);
  element truth = Parse(parser, ReadText(dir + "/g.json.truth.json"));
  const int64_t captured = InjectedInt(truth, "captured_launches_per_graph");
  EXPECT_GT(captured, 100);
  // Only the eager profile run before the first capture executes its launches.
  EXPECT_EQ(calls["cudaLaunchKernel"] - kernels, 2 * captured);
}

TEST(SynthTest, BadOptionsAndPathsAreErrors) {
  SynthOptions options;
  options.steps = 0;
  EXPECT_EQ(WriteSyntheticTrace(options, TestDir() + "/x.json").code(),
            StatusCode::kInvalidArgument);
  options.steps = 1;
  EXPECT_EQ(WriteSyntheticTrace(options, "/nonexistent-dir/x.json").code(), StatusCode::kIoError);
}

TEST(SynthTest, SizeMbScalesStepsToTheTarget) {
  std::string dir = TestDir();
  SynthOptions options;
  options.scenario = "input-bound";
  options.size_mb = 5;
  SynthSummary summary;
  ASSERT_TRUE(WriteSyntheticTrace(options, dir + "/s.json", &summary).ok());
  double size = static_cast<double>(fs::file_size(dir + "/s.json"));
  EXPECT_NEAR(size / (5.0 * 1024 * 1024), 1.0, 0.2);
  simdjson::dom::parser parser;
  element truth = Parse(parser, ReadText(dir + "/s.json.truth.json"));
  EXPECT_EQ(TruthInt(truth, "steps"), summary.steps);
  EXPECT_EQ(InjectedInt(truth, "dataloader_wait_ns_per_step"), 20'000'000);
}

TEST(SynthTest, WriterBufferStaysBoundedForLargeOutput) {
  std::unique_ptr<OutputSink> sink = CountingSink();
  KinetoWriter writer(sink.get());
  writer.Begin(DocumentInfo{});
  for (int i = 0; i < 60000; ++i) {
    writer.Kernel(Kernels().gelu_bwd, 0, 7, i * 1000, 900, i, i);
  }
  ASSERT_TRUE(writer.Finish(0, 60000 * 1000).ok());
  EXPECT_GT(sink->bytes_written(), 40u << 20);
  EXPECT_LE(writer.peak_buffer_bytes(), 5u << 20);
}

}  // namespace synth_test
}  // namespace gpuwhy
