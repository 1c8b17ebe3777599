// torch.cuda.memory_stats() dicts: JSON, Python literal and OrderedDict prints of the same
// numbers (tests/data/memory_stats/make_fixtures.py writes them from PyTorch's documented key
// set), dicts inside logs, and what is not one (too few keys, bad values, other JSON).
#include "ingest/memory/memory_stats_parser.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ingest/memory/memory_summary_parser.h"

namespace gpuwhy {
namespace memory_stats_parser_test {

namespace fs = std::filesystem;
const fs::path kFixtures = fs::path(GPUWHY_TEST_DATA) / "memory_stats";
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
constexpr size_t kAll = 0;
constexpr size_t kLarge = 1;
constexpr size_t kSmall = 2;

MemorySnapshot Import(const std::string& name) {
  StatusOr<MemorySnapshot> s = ImportMemorySummary((kFixtures / name).string());
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(*s) : MemorySnapshot{};
}

// make_fixtures.py's "fragmented" numbers, whichever way they were printed.
void ExpectFragmented(const MemorySnapshot& s) {
  ASSERT_EQ(s.stats.size(), 1u);
  EXPECT_EQ(s.source, "torch.cuda.memory_stats");
  EXPECT_TRUE(s.problems.empty()) << s.problems.Describe();
  const AllocatorStats& st = s.stats[0];
  EXPECT_EQ(st.device, 0);
  EXPECT_EQ(st.reserved_bytes[kAll].current, 20 * kGiB);
  EXPECT_EQ(st.allocated_bytes[kAll].current, 12 * kGiB);
  EXPECT_EQ(st.allocated_bytes[kAll].peak, 12 * kGiB + 12 * kGiB / 8);
  EXPECT_EQ(st.allocated_bytes[kAll].allocated, 12 * kGiB * 50 + 12345);
  EXPECT_EQ(st.allocated_bytes[kAll].freed, 12 * kGiB * 49 + 12345);
  EXPECT_EQ(st.allocated_bytes[kLarge].current, 12 * kGiB * 9 / 10);
  EXPECT_EQ(st.allocated_bytes[kSmall].current, 12 * kGiB - 12 * kGiB * 9 / 10);
  EXPECT_EQ(st.non_releasable_bytes[kAll].current, 6 * kGiB);
  EXPECT_EQ(st.non_releasable_allocations[kAll].current, 1500);
  EXPECT_EQ(st.requested_bytes[kAll].current, 12 * kGiB - 7 * kMiB);
  EXPECT_EQ(st.active_bytes[kAll].current, 12 * kGiB + 6 * kGiB / 4);
  EXPECT_EQ(st.allocations[kAll].current, 4200);
  EXPECT_EQ(st.active_allocations[kAll].current, 4300);
  EXPECT_EQ(st.segments[kAll].current, 310);
  EXPECT_EQ(st.segments[kSmall].peak, 31 + 31 / 8);
  EXPECT_EQ(st.num_alloc_retries, 3);
  EXPECT_EQ(st.num_ooms, 0);
  EXPECT_EQ(st.num_sync_all_streams, 3);
  EXPECT_EQ(st.num_device_alloc, 333);
  EXPECT_EQ(st.num_device_free, 23);
  EXPECT_EQ(st.max_split_size, -1);
  EXPECT_EQ(st.oversize_allocations.peak, 2);
  EXPECT_EQ(st.oversize_segments.freed, 17);
}

TEST(MemoryStatsParserTest, JsonLiteralAndOrderedDictPrintsReadTheSame) {
  if (!fs::exists(kFixtures)) GTEST_SKIP() << "no " << kFixtures;
  ExpectFragmented(Import("stats_fragmented.json"));
  ExpectFragmented(Import("stats_fragmented_literal.txt"));
  ExpectFragmented(Import("stats_fragmented_ordereddict.log"));
  const MemorySnapshot healthy = Import("stats_healthy.json");  // indent=2: a key per line
  ASSERT_EQ(healthy.stats.size(), 1u);
  EXPECT_EQ(healthy.stats[0].reserved_bytes[kAll].current, 5 * kGiB);
  EXPECT_EQ(healthy.stats[0].non_releasable_bytes[kAll].current, 256 * kMiB);
  EXPECT_EQ(healthy.stats[0].num_alloc_retries, 0);
}

// Every field of two prints, pool by pool.
void ExpectSameStats(const AllocatorStats& a, const AllocatorStats& b) {
  const auto pools = [](const AllocatorStats& s) {
    return std::vector<const PoolStats*>{
        &s.allocated_bytes,           &s.active_bytes, &s.requested_bytes,    &s.reserved_bytes,
        &s.non_releasable_bytes,      &s.allocations,  &s.active_allocations, &s.segments,
        &s.non_releasable_allocations};
  };
  const auto same = [](const StatValues& x, const StatValues& y) {
    return x.current == y.current && x.peak == y.peak && x.allocated == y.allocated &&
           x.freed == y.freed;
  };
  const std::vector<const PoolStats*> pa = pools(a), pb = pools(b);
  for (size_t i = 0; i < pa.size(); ++i) {
    for (size_t p = 0; p < kStatPoolCount; ++p)
      EXPECT_TRUE(same((*pa[i])[p], (*pb[i])[p])) << "statistic " << i << " pool " << p;
  }
  EXPECT_TRUE(same(a.oversize_allocations, b.oversize_allocations));
  EXPECT_TRUE(same(a.oversize_segments, b.oversize_segments));
  EXPECT_EQ(a.num_ooms, b.num_ooms);
  EXPECT_EQ(a.num_alloc_retries, b.num_alloc_retries);
  EXPECT_EQ(a.num_sync_all_streams, b.num_sync_all_streams);
  EXPECT_EQ(a.num_device_alloc, b.num_device_alloc);
  EXPECT_EQ(a.num_device_free, b.num_device_free);
  EXPECT_EQ(a.max_split_size, b.max_split_size);
}

// torch.cuda.memory_stats_as_nested_dict() of the same numbers (make_nested_fixtures.py, checked
// there against torch's own memory_stats() flattening), as JSON and as a dict literal in a log
// that names the device: the model of the flat print, but for the device.
TEST(MemoryStatsParserTest, NestedDictsReadAsTheFlatPrintOfTheSameNumbers) {
  if (!fs::exists(kFixtures)) GTEST_SKIP() << "no " << kFixtures;
  const MemorySnapshot flat = Import("stats_fragmented.json");
  ExpectFragmented(Import("stats_nested_fragmented.json"));
  const MemorySnapshot json = Import("stats_nested_fragmented.json");
  const MemorySnapshot literal = Import("stats_nested_fragmented_literal.log");
  ASSERT_EQ(flat.stats.size(), 1u);
  ASSERT_EQ(json.stats.size(), 1u);
  ASSERT_EQ(literal.stats.size(), 1u);
  EXPECT_TRUE(literal.problems.empty()) << literal.problems.Describe();
  ExpectSameStats(json.stats[0], flat.stats[0]);
  ExpectSameStats(literal.stats[0], flat.stats[0]);
  EXPECT_TRUE(flat.stats[0].device_assumed);
  EXPECT_TRUE(json.stats[0].device_assumed);
  EXPECT_EQ(literal.stats[0].device, 1);  // "memory_stats_as_nested_dict(device=1):" above it
  EXPECT_FALSE(literal.stats[0].device_assumed);
}

// max_split_size -1 is PyTorch's "unlimited", distinct from a print without the key.
TEST(MemoryStatsParserTest, MaxSplitSizeUnlimitedIsNotAbsent) {
  DataProblems problems;
  const std::vector<AllocatorStats> dicts = FindMemoryStats(
      "{'num_ooms': 0, 'num_alloc_retries': 0, 'segment.all.current': 1}\n"
      "{'num_ooms': 0, 'num_alloc_retries': 0, 'max_split_size': -1}\n"
      "{'num_ooms': 0, 'num_alloc_retries': 0, 'max_split_size': 536870912}\n",
      problems);
  ASSERT_EQ(dicts.size(), 3u);
  EXPECT_FALSE(dicts[0].max_split_size.has_value());
  EXPECT_EQ(dicts[1].max_split_size, -1);
  EXPECT_EQ(dicts[2].max_split_size, 536870912);
}

// The device a log names just before a dict is its device; a dict without one is device 0,
// flagged as assumed, even right after a dict that had one.
TEST(MemoryStatsParserTest, TheDeviceNamedBeforeADictIsItsDevice) {
  const std::string keys = "'num_ooms': 0, 'num_alloc_retries': 0, 'segment.all.current': 1}";
  DataProblems problems;
  const std::vector<AllocatorStats> dicts =
      FindMemoryStats("stats = torch.cuda.memory_stats(device=2)\n{" + keys + "\n" +  //
                          "print(torch.cuda.memory_stats(3)) {" + keys + "\n" +       //
                          "memory of 'cuda:5': {" + keys + "\n" +                     //
                          "[rank7] device 7 stats {" + keys + "\n" +                  //
                          "num_devices 8 {" + keys + "\n",
                      problems);
  ASSERT_EQ(dicts.size(), 5u);
  EXPECT_EQ(dicts[0].device, 2);
  EXPECT_EQ(dicts[1].device, 3);
  EXPECT_EQ(dicts[2].device, 5);
  EXPECT_EQ(dicts[3].device, 7);
  for (size_t i = 0; i < 4; ++i) EXPECT_FALSE(dicts[i].device_assumed) << i;
  EXPECT_EQ(dicts[4].device, 0);  // "num_devices 8" names no device
  EXPECT_TRUE(dicts[4].device_assumed);
}

// Python 3.12 prints an OrderedDict as OrderedDict({...}); two prints in one log are two dicts,
// and a key that comes again starts the next even without a closing brace between.
TEST(MemoryStatsParserTest, DictsInsideALogOneAfterTheOther) {
  const std::string log =
      "[rank0]: step 10 OrderedDict({'allocated_bytes.all.current': 100, "
      "'reserved_bytes.all.current': 200, 'num_alloc_retries': 0, 'some.new.key': True})\n"
      "step 11 ('allocated_bytes.all.current', 150), ('reserved_bytes.all.current', 300),\n"
      "('num_ooms', 1), ('allocated_bytes.all.current', 170), ('reserved_bytes.all.current', "
      "310), ('num_ooms', 2)\n";
  DataProblems problems;
  std::vector<AllocatorStats> dicts = FindMemoryStats(log, problems);
  ASSERT_EQ(dicts.size(), 3u);
  EXPECT_EQ(dicts[0].allocated_bytes[kAll].current, 100);
  EXPECT_EQ(dicts[0].reserved_bytes[kAll].current, 200);
  EXPECT_EQ(dicts[0].num_alloc_retries, 0);
  EXPECT_EQ(dicts[1].allocated_bytes[kAll].current, 150);
  EXPECT_EQ(dicts[1].num_ooms, 1);
  EXPECT_EQ(dicts[2].reserved_bytes[kAll].current, 310);
  EXPECT_EQ(dicts[2].num_ooms, 2);
  EXPECT_TRUE(problems.empty());
}

// A log printing a dict, a summary table, then a dict again: three prints in file order.
TEST(MemoryStatsParserTest, DictsAndTablesKeepTheLogsOrder) {
  const std::string log =
      "{'reserved_bytes.all.current': 1024, 'num_ooms': 0, 'num_alloc_retries': 0}\n"
      "|                  PyTorch CUDA memory summary, device ID 0                 |\n"
      "| GPU reserved memory   |    2 KiB   |    2 KiB   |    2 KiB   |    0 B     |\n"
      "\n"
      "{'reserved_bytes.all.current': 3072, 'num_ooms': 0, 'num_alloc_retries': 0}\n";
  StatusOr<MemorySnapshot> s = ParseMemorySummaryText(log, "train.log");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->stats.size(), 3u);
  EXPECT_EQ(s->stats[0].reserved_bytes[kAll].current, 1024);
  EXPECT_EQ(s->stats[1].reserved_bytes[kAll].current, 2048);
  EXPECT_EQ(s->stats[2].reserved_bytes[kAll].current, 3072);
  EXPECT_EQ(s->source, "torch.cuda.memory_summary");
}

// Fewer than three known keys is not a memory_stats() dict: other JSON is never claimed.
TEST(MemoryStatsParserTest, TooFewKeysOrOtherJsonIsNoDict) {
  DataProblems problems;
  EXPECT_TRUE(
      FindMemoryStats(R"({"num_ooms": 1, "num_alloc_retries": 2, "ts": 3})", problems).empty());
  EXPECT_FALSE(HoldsMemoryStats(
      R"({"traceEvents": [{"name": "[memory]", "args": {"Total Allocated": 1, "Bytes": 2,)"
      R"( "Device Id": 0, "allocated_bytes": 4, "current": 5}}]})"));
  EXPECT_FALSE(HoldsMemoryStats("it's 'allocated_bytes.all.current' and that's all: 'x'"));
  EXPECT_TRUE(HoldsMemoryStats(
      "don't {'num_ooms': 0, 'segment.all.peak': 3, 'reserved_bytes.all.peak': 9}"));
  StatusOr<MemorySnapshot> s = ParseMemorySummaryText(R"({"num_ooms": 1})", "stats.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("stats.json: no torch.cuda.memory_summary() table"),
            std::string::npos);
}

// A value that is not an integer (a float, a string, None, past int64, negative) is counted as
// bad_value with its byte and leaves the field unread; max_split_size alone may be -1.
TEST(MemoryStatsParserTest, BadValuesAreCountedNotRead) {
  const std::string text =
      "{'allocated_bytes.all.current': 1.5e9, 'allocated_bytes.all.peak': 99999999999999999999, "
      "'reserved_bytes.all.current': -4, 'reserved_bytes.all.peak': 'big', "
      "'num_ooms': None, 'max_split_size': -1, 'segment.all.current': 7}";
  DataProblems problems;
  std::vector<AllocatorStats> dicts = FindMemoryStats(text, problems);
  ASSERT_EQ(dicts.size(), 1u);
  const AllocatorStats& st = dicts[0];
  EXPECT_EQ(st.allocated_bytes[kAll].current, kNoValue);
  EXPECT_EQ(st.allocated_bytes[kAll].peak, kNoValue);
  EXPECT_EQ(st.reserved_bytes[kAll].current, kNoValue);
  EXPECT_EQ(st.reserved_bytes[kAll].peak, kNoValue);
  EXPECT_EQ(st.num_ooms, kNoValue);
  EXPECT_EQ(st.max_split_size, -1);
  EXPECT_EQ(st.segments[kAll].current, 7);
  EXPECT_EQ(problems.Get(DataProblem::kBadValue), 5);
  EXPECT_NE(problems.Detail(DataProblem::kBadValue).find("byte 32: 'allocated_bytes.all.current'"),
            std::string_view::npos)
      << problems.Describe();
}

// Cut texts, unclosed quotes and deep nesting end the scan; nothing is read past the bytes.
TEST(MemoryStatsParserTest, CutAndHostileTextsNeverCrash) {
  const std::string whole =
      "{'allocated_bytes.all.current': 1, 'reserved_bytes.all.current': 2, 'num_ooms': 3}";
  for (size_t cut = 0; cut <= whole.size(); ++cut) {
    DataProblems problems;
    std::vector<AllocatorStats> dicts = FindMemoryStats(whole.substr(0, cut), problems);
    EXPECT_LE(dicts.size(), 1u);
  }
  DataProblems problems;
  EXPECT_TRUE(
      FindMemoryStats(std::string(100000, '[') + std::string(100000, '\''), problems).empty());
  EXPECT_TRUE(FindMemoryStats("'num_ooms':", problems).empty());
}

}  // namespace memory_stats_parser_test
}  // namespace gpuwhy
