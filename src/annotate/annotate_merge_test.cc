// gpuwhy annotate with several ranks: the event rewriter changes only pid, tid, ts and flow
// ids; a synthetic job whose clocks the generator offset by known amounts comes out with every
// collective ending at the same moment on every rank; the real 8-rank DLRM traces merge with
// every event kept, one process per rank.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "analyze/analysis.h"
#include "annotate/annotate.h"
#include "base/file_input.h"
#include "diagnose/diagnose.h"
#include "ingest/importer.h"
#include "ranks/rank_summary.h"
#include "report/report.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace annotate_merge_test {

namespace fs = std::filesystem;

std::string ScratchDir() {
  std::string pattern = (fs::temp_directory_path() / "gpuwhy_merge_XXXXXX").string();
  return ::mkdtemp(pattern.data());
}

std::string Rewritten(RankEventRewriter& rewriter, std::string_view event) {
  std::string out;
  EXPECT_TRUE(rewriter.Rewrite(event, out)) << event;
  return out;
}

RankPlacement Placement(int64_t rank, DurationNs offset, int64_t index, int64_t count) {
  RankPlacement p;
  p.rank = rank;
  p.pid = 1000 + rank;
  p.offset_ns = offset;
  p.rank_index = index;
  p.rank_count = count;
  return p;
}

TEST(RankRewriteTest, SplitsTopLevelMembersOnly) {
  std::vector<JsonMember> m;
  ASSERT_TRUE(SplitTopLevelMembers(
      R"( {"name": "a}\"b", "args": {"ts": 1, "x": [1, {"pid": 2}]}, "ts" : 12.5 , "pid":"Spans"} )",
      m));
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].key, "name");
  EXPECT_EQ(m[0].value, R"("a}\"b")");
  EXPECT_EQ(m[1].key, "args");
  EXPECT_EQ(m[2].key, "ts");
  EXPECT_EQ(m[2].value, "12.5");
  EXPECT_EQ(m[3].value, "\"Spans\"");
  std::vector<JsonMember> bad;
  EXPECT_FALSE(SplitTopLevelMembers(R"({"a": 1, "b": })", bad));
  EXPECT_FALSE(SplitTopLevelMembers(R"({"a": "unterminated)", bad));
  EXPECT_FALSE(SplitTopLevelMembers(R"({"a": 1} trailing)", bad));
  EXPECT_FALSE(SplitTopLevelMembers("[1]", bad));
}

TEST(RankRewriteTest, ChangesOnlyPidTidTsAndFlowIds) {
  RankEventRewriter r(Placement(3, 2'500, 1, 4));
  // Offset 2.5 µs: ts moves back by 2.5 µs; the nested "ts" in args stays; id 7 -> 7*4+1.
  std::string out =
      Rewritten(r, R"({"ph": "s", "id": 7, "pid": 0, "tid": 7, "ts": 100.000, "args": {"ts": 1}})");
  EXPECT_EQ(
      out,
      R"({"ph": "s", "id": 29, "pid": 1003, "tid": 100300001, "ts": 97.500, "args": {"ts": 1}})");
  // Same (pid, tid): same thread; another tid: the next thread. Nanosecond timestamps stay exact.
  EXPECT_EQ(Rewritten(r, R"({"ph":"X","pid":0,"tid":7,"ts":1694128201545123.456,"dur":3})"),
            R"({"ph":"X","pid":1003,"tid":100300001,"ts":1694128201545120.956,"dur":3})");
  EXPECT_EQ(Rewritten(r, R"({"ph":"X","pid":"Spans","tid":"PyTorch Profiler","ts":5,"dur":1})"),
            R"({"ph":"X","pid":1003,"tid":100300002,"ts":2.500,"dur":1})");
  // A ts that is not a number is kept and counted; so is a string flow id.
  EXPECT_EQ(Rewritten(r, R"({"ph":"i","pid":0,"tid":7,"ts":"soon","id":"0x1f"})"),
            R"({"ph":"i","pid":1003,"tid":100300001,"ts":"soon","id":"0x1f"})");
  EXPECT_EQ(r.stats().unshifted, 1u);
  EXPECT_EQ(r.stats().flow_ids_kept, 1u);
  // Counters belong to the process: tid 0, no thread of their own.
  EXPECT_EQ(Rewritten(r, R"({"ph":"C","pid":0,"tid":12,"ts":5,"name":"q","args":{"v":1}})"),
            R"({"ph":"C","pid":1003,"tid":0,"ts":2.500,"name":"q","args":{"v":1}})");
  // Not one object: copied as read, counted.
  EXPECT_EQ(Rewritten(r, R"({"ph":"X",,})"), R"({"ph":"X",,})");
  EXPECT_EQ(r.stats().malformed, 1u);
}

TEST(RankRewriteTest, NamingMetadataIsAbsorbedAndNamesTheMergedThreads) {
  RankEventRewriter r(Placement(0, 0, 0, 2));
  std::string out;
  EXPECT_FALSE(r.Rewrite(
      R"({"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"GPU 0"}})", out));
  EXPECT_FALSE(r.Rewrite(
      R"({"name":"thread_name","ph":"M","pid":0,"tid":7,"args":{"name":"stream 7"}})", out));
  EXPECT_FALSE(
      r.Rewrite(R"({"name":"process_sort_index","ph":"M","pid":0,"args":{"sort_index":5}})", out));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(r.stats().naming_absorbed, 3u);
  // Another metadata event is an event like any other.
  EXPECT_TRUE(r.Rewrite(R"({"name":"trace_marker","ph":"M","pid":0,"tid":7})", out));
  Rewritten(r, R"({"ph":"X","pid":9,"tid":1,"ts":0,"dur":1})");
  std::vector<MergedThread> threads = r.Threads();
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0].json_name, "GPU 0 / stream 7");
  EXPECT_EQ(threads[1].json_name, "pid 9 / tid 1");
  EXPECT_LT(threads[0].sort_index, threads[1].sort_index);
}

// Event bytes come from any file: mutated and cut events never crash the rewriter, members
// always lie inside the event, and a rewritten event is never lost.
TEST(RankRewriteTest, MutatedEventsNeverBreakIt) {
  const std::string seeds[] = {
      R"({"ph":"X","cat":"kernel","name":"k\"}","pid":0,"tid":7,"ts":1694128201545123.456,"dur":3.5,"args":{"a":[1,{"b":"}"}]}})",
      R"({"ph":"s","id":12,"pid":"Spans","tid":"PyTorch Profiler","ts":5,"cat":"ac2g","name":"ac2g"})",
      R"({"name":"thread_name","ph":"M","pid":0,"tid":7,"args":{"name":"stream 7"}})"};
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const char alphabet[] = "{}[]\":,\\ 0123456789.-eE\tabc";
  RankEventRewriter r(Placement(1, 1'000, 1, 2));
  for (int i = 0; i < 20000; ++i) {
    std::string event = seeds[i % 3];
    int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits && !event.empty(); ++e) {
      size_t at = next() % event.size();
      switch (next() % 3) {
        case 0: event[at] = alphabet[next() % (sizeof(alphabet) - 1)]; break;
        case 1: event.erase(at, 1 + next() % 3); break;
        default: event.resize(at); break;
      }
    }
    std::vector<JsonMember> members;
    if (SplitTopLevelMembers(event, members)) {
      for (const JsonMember& m : members) {
        EXPECT_GE(m.value.data(), event.data());
        EXPECT_LE(m.value.data() + m.value.size(), event.data() + event.size());
      }
    }
    std::string out;
    if (r.Rewrite(event, out)) {
      EXPECT_FALSE(out.empty() && !event.empty()) << event;
    }
  }
  EXPECT_GT(r.stats().malformed, 0u);
  EXPECT_GT(r.stats().events, r.stats().malformed);
}

// The output parsed back: per pid, every complete event's (name, ts, end) in µs.
struct ParsedMerge {
  std::map<int64_t, int64_t> events_by_pid;
  std::map<int64_t, std::vector<std::pair<double, double>>>
      nccl_by_pid;  // NCCL kernels (start, end) µs
  std::set<int64_t> tids_of_rank_pids;
  std::map<int64_t, std::set<int64_t>> tids_by_pid;
  std::map<int64_t, int64_t> flow_ids;  // id -> times seen
  std::vector<int64_t> record_ranks;
};

ParsedMerge ParseMerged(const std::string& path) {
  ParsedMerge p;
  StatusOr<std::string> text = ReadWholeFile(path);
  EXPECT_TRUE(text.ok());
  simdjson::dom::parser parser;
  simdjson::padded_string json(*text);
  simdjson::dom::element root;
  EXPECT_EQ(parser.parse(json).get(root), simdjson::SUCCESS);
  for (simdjson::dom::element e : root["traceEvents"].get_array()) {
    int64_t pid = 0, tid = 0;
    if (e["pid"].get_int64().get(pid) != simdjson::SUCCESS) continue;
    std::string_view ph;
    if (e["ph"].get_string().get(ph) != simdjson::SUCCESS) ph = "";
    if (ph == "M") continue;
    ++p.events_by_pid[pid];
    // Counters are per process (tid 0); every other event sits on a thread.
    if (ph != "C" && e["tid"].get_int64().get(tid) == simdjson::SUCCESS)
      p.tids_by_pid[pid].insert(tid);
    int64_t id = 0;
    if ((ph == "s" || ph == "f") && e["id"].get_int64().get(id) == simdjson::SUCCESS)
      ++p.flow_ids[id];
    std::string_view name, cat;
    double ts = 0, dur = 0;
    if (ph == "X" && e["cat"].get_string().get(cat) == simdjson::SUCCESS && cat == "kernel" &&
        e["name"].get_string().get(name) == simdjson::SUCCESS && name.find("nccl") != name.npos &&
        e["ts"].get_double().get(ts) == simdjson::SUCCESS &&
        e["dur"].get_double().get(dur) == simdjson::SUCCESS) {
      p.nccl_by_pid[pid].push_back({ts, ts + dur});
    }
  }
  for (simdjson::dom::element r : root["gpuwhyMergedRanks"].get_array()) {
    p.record_ranks.push_back(r["rank"].get_int64().value());
  }
  for (auto& [pid, kernels] : p.nccl_by_pid) std::sort(kernels.begin(), kernels.end());
  return p;
}

// What `gpuwhy annotate RANK0 RANK1 …` does, through the library.
StatusOr<MergedTraceResult> Merge(const std::vector<std::string>& paths, const std::string& out,
                                  CrossRankResult* job_out = nullptr) {
  std::vector<RankSummary> summaries;
  std::map<std::string, std::string> tracks;
  for (const std::string& path : paths) {
    StatusOr<Trace> trace = ImportTraceFile(path);
    if (!trace.ok()) return trace.status();
    TraceAnalysis analysis = AnalyzeTrace(*trace);
    tracks[path] = out + "." + std::to_string(tracks.size()) + ".tracks.json.gz";
    Status written = WriteTracksFragment(
        BuildAnnotationTracks(analysis, Diagnose(*trace, analysis)), tracks[path]);
    if (!written.ok()) return written;
    summaries.push_back(SummarizeRank(*trace, analysis));
  }
  CrossRankResult job = AnalyzeCrossRank(summaries, CrossRankOptions{});
  std::vector<MergedRankInput> ranks;
  for (const CrossRankRow& row : job.ranks) {
    MergedRankInput r;
    r.path = row.path;
    r.rank = row.rank;
    for (const RankClock& c : job.clocks) {
      if (c.rank == row.rank) r.clock = c;
    }
    r.tracks_path = tracks[row.path];
    ranks.push_back(std::move(r));
  }
  StatusOr<MergedTraceResult> result = WriteMergedTrace(ranks, BuildCrossRankTracks(job), out);
  if (job_out != nullptr) *job_out = std::move(job);
  return result;
}

// `gpuwhy synth --scenario comm-exposed --ranks N …` into |dir|; the rank files' paths.
SynthSummary SynthJob(const std::string& dir, int ranks, int steps, int slow_rank,
                      double slow_by_pct) {
  SynthOptions options;
  options.scenario = "comm-exposed";
  options.ranks = ranks;
  options.steps = steps;
  options.slow_rank = slow_rank;
  options.slow_by_pct = slow_by_pct;
  SynthSummary summary;
  Status written = WriteSyntheticTrace(options, dir + "/job.json", &summary);
  EXPECT_TRUE(written.ok()) << written.message();
  return summary;
}

TEST(MergedTraceTest, SyntheticJobsCollectivesEndTogetherOnceAligned) {
  std::string dir = ScratchDir();
  SynthSummary summary = SynthJob(dir, 4, 6, 2, 30);
  ASSERT_EQ(summary.trace_paths.size(), 4u);
  // The inputs, before alignment: the generator offset each rank's clock by a known amount.
  std::map<int64_t, std::vector<std::pair<double, double>>> before;
  for (size_t r = 0; r < summary.trace_paths.size(); ++r) {
    StatusOr<Trace> t = ImportTraceFile(summary.trace_paths[r]);
    ASSERT_TRUE(t.ok());
    for (size_t i = 0; i < t->gpu_ops.size(); ++i) {
      if (t->Str(t->gpu_ops.name[i]).find("nccl") != std::string_view::npos) {
        before[static_cast<int64_t>(r)].push_back(
            {NsToUs(t->gpu_ops.start[i]), NsToUs(t->gpu_ops.end[i])});
      }
    }
    std::sort(before[static_cast<int64_t>(r)].begin(), before[static_cast<int64_t>(r)].end());
  }
  std::string out = dir + "/merged.json";
  CrossRankResult job;
  StatusOr<MergedTraceResult> merged = Merge(summary.trace_paths, out, &job);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  ParsedMerge p = ParseMerged(out);
  EXPECT_EQ(p.record_ranks, (std::vector<int64_t>{0, 1, 2, 3}));
  ASSERT_EQ(p.nccl_by_pid.size(), 4u);
  const auto& reference = p.nccl_by_pid.at(1000);
  ASSERT_FALSE(reference.empty());
  double spread_before = 0, spread_after = 0;
  for (int64_t r = 1; r < 4; ++r) {
    const auto& kernels = p.nccl_by_pid.at(1000 + r);
    ASSERT_EQ(kernels.size(), reference.size()) << "rank " << r;
    for (size_t k = 0; k < kernels.size(); ++k) {
      spread_after = std::max(spread_after, std::abs(kernels[k].second - reference[k].second));
      spread_before = std::max(spread_before, std::abs(before[r][k].second - before[0][k].second));
    }
  }
  // Collective kernels end together in true time: within 2 µs after alignment, while the
  // generator's clock offsets (up to 3.7 ms) separate them in the inputs.
  EXPECT_GT(spread_before, 1000.0);
  EXPECT_LT(spread_after, 2.0);
  // Threads are unique across ranks, flow ids pair up within a rank and never across.
  std::set<int64_t> all_tids;
  size_t tid_count = 0;
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t tid : p.tids_by_pid[1000 + r]) all_tids.insert(tid), ++tid_count;
  }
  EXPECT_EQ(all_tids.size(), tid_count);
  for (const auto& [id, seen] : p.flow_ids) EXPECT_EQ(seen, 2) << "flow id " << id;
  // The job-wide track: one event per matched collective, and the others' waits for rank 2.
  EXPECT_GT(merged->job_events, job.collectives.size());
  for (const MatchedCollective& c : job.collectives) EXPECT_EQ(c.late_rank, 2);
  // gpuwhy reads the merged trace back without an error stat.
  StatusOr<Trace> back = ImportTraceFile(out);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const RankHeader header = SummarizeTraceHeader(*back);
  EXPECT_EQ(header.problems.WorstSeverity(), ProblemSeverity::kInfo) << header.problems.Describe();
  fs::remove_all(dir);
}

TEST(MergedTraceTest, TruncatedRankContributesWhatItHolds) {
  std::string dir = ScratchDir();
  SynthSummary summary = SynthJob(dir, 2, 4, -1, 0);
  ASSERT_EQ(summary.trace_paths.size(), 2u);
  StatusOr<std::string> whole = ReadWholeFile(summary.trace_paths[1]);
  ASSERT_TRUE(whole.ok());
  std::string cut = dir + "/cut.rank1.json";
  ASSERT_TRUE(WriteWholeFile(cut, whole->substr(0, whole->size() * 2 / 3)).ok());
  StatusOr<MergedTraceResult> merged =
      Merge({summary.trace_paths[0], cut}, dir + "/merged.json.gz");
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  ASSERT_EQ(merged->ranks.size(), 2u);
  EXPECT_FALSE(merged->ranks[0].truncated);
  EXPECT_TRUE(merged->ranks[1].truncated);
  EXPECT_GT(merged->ranks[1].stats.events, 0u);
  ParsedMerge p = ParseMerged(dir + "/merged.json.gz");
  EXPECT_GT(p.events_by_pid[1001], 0);
  fs::remove_all(dir);
}

TEST(MergedTraceTest, RealDlrmEightRanksKeepEveryEvent) {
  const fs::path dir = fs::path(GPUWHY_SHARED_DATA) / "kineto/param/dlrm_kineto";
  if (!fs::exists(dir)) GTEST_SKIP() << dir << " absent: real-data test skipped";
  std::vector<std::string> paths;
  for (const auto& f : fs::directory_iterator(dir)) paths.push_back(f.path().string());
  std::sort(paths.begin(), paths.end());
  ASSERT_EQ(paths.size(), 8u);
  // Independent count: every element of each input's traceEvents but the naming metadata.
  int64_t expected = 0;
  simdjson::dom::parser parser;
  for (const std::string& path : paths) {
    simdjson::dom::element root;
    ASSERT_EQ(parser.load(path).get(root), simdjson::SUCCESS);
    for (simdjson::dom::element e : root["traceEvents"].get_array()) {
      std::string_view ph, name;
      if (e["ph"].get_string().get(ph) != simdjson::SUCCESS) ph = "";
      if (e["name"].get_string().get(name) != simdjson::SUCCESS) name = "";
      bool naming = ph == "M" && (name == "process_name" || name == "thread_name" ||
                                  name == "process_sort_index" || name == "thread_sort_index" ||
                                  name == "process_labels");
      expected += !naming;
    }
  }
  std::string scratch = ScratchDir();
  std::string out = scratch + "/dlrm.json.gz";
  CrossRankResult job;
  StatusOr<MergedTraceResult> merged = Merge(paths, out, &job);
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  int64_t written = 0, added = 0;
  for (const MergedRankOutcome& r : merged->ranks) {
    written += static_cast<int64_t>(r.stats.events);
    added += static_cast<int64_t>(r.added_events);
    EXPECT_EQ(r.stats.malformed, 0u);
    EXPECT_FALSE(r.truncated);
  }
  EXPECT_EQ(written, expected);
  ParsedMerge p = ParseMerged(out);
  int64_t in_rank_processes = 0;
  for (int64_t r = 0; r < 8; ++r) in_rank_processes += p.events_by_pid[1000 + r];
  // Events whose pid is a number in the output: every original event, gpuwhy's rank tracks.
  EXPECT_EQ(in_rank_processes, written + added);
  EXPECT_EQ(p.record_ranks, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (const RankClock& c : job.clocks) {
    EXPECT_TRUE(c.aligned) << "rank " << c.rank;
    EXPECT_LE(std::abs(c.offset_ns), 2 * kNsPerUs) << "rank " << c.rank;  // one host: clocks agree
  }
  fs::remove_all(scratch);
}

}  // namespace annotate_merge_test
}  // namespace gpuwhy
