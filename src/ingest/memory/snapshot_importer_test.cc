// The snapshot importer on a hand-built pickle and on the real snapshots of ../shared/data
// (counts also checked against Python's own unpickler by tests/memory_snapshot_counts.py).
#include "ingest/memory/snapshot_importer.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "base/file_input.h"
#include "ingest/memory/snapshot_fuzz_body.h"
#include "ingest/memory/snapshot_stream_reader.h"

namespace gpuwhy {
namespace snapshot_importer_test {

namespace fs = std::filesystem;
using namespace std::string_literals;

const fs::path kSnapshots = fs::path(GPUWHY_SHARED_DATA) / "memory" / "snapshots";

// pickle.dumps({'segments': [{'device': 0, 'address': 4096, 'total_size': 2097152,
//   'allocated_size': 512, 'segment_type': 'small', 'blocks': [{'size': 512, 'state':
//   'active_allocated', 'frames': [{'name': 'f', 'filename': 'a.py', 'line': 3}]}, {'size':
//   2096640, 'state': 'inactive'}]}], 'device_traces': [[{'action': 'alloc', 'addr': 4096,
//   'size': 512, 'time_us': 10}, {'action': 'resize', 'size': 1}]], 'allocator_settings':
//   {'expandable_segments': True, 'PYTORCH_CUDA_ALLOC_CONF': 'expandable_segments:True'}},
//   protocol=2)
std::string SmallSnapshot() {
  return "\x80\x02\x7d\x71\x00\x28\x58\x08\x00\x00\x00\x73\x65\x67\x6d\x65\x6e\x74\x73\x71\x01\x5d"
         "\x71\x02\x7d\x71\x03\x28\x58\x06\x00\x00\x00\x64\x65\x76\x69\x63\x65\x71\x04\x4b\x00\x58"
         "\x07\x00\x00\x00\x61\x64\x64\x72\x65\x73\x73\x71\x05\x4d\x00\x10\x58\x0a\x00\x00\x00\x74"
         "\x6f\x74\x61\x6c\x5f\x73\x69\x7a\x65\x71\x06\x4a\x00\x00\x20\x00\x58\x0e\x00\x00\x00\x61"
         "\x6c\x6c\x6f\x63\x61\x74\x65\x64\x5f\x73\x69\x7a\x65\x71\x07\x4d\x00\x02\x58\x0c\x00\x00"
         "\x00\x73\x65\x67\x6d\x65\x6e\x74\x5f\x74\x79\x70\x65\x71\x08\x58\x05\x00\x00\x00\x73\x6d"
         "\x61\x6c\x6c\x71\x09\x58\x06\x00\x00\x00\x62\x6c\x6f\x63\x6b\x73\x71\x0a\x5d\x71\x0b\x28"
         "\x7d\x71\x0c\x28\x58\x04\x00\x00\x00\x73\x69\x7a\x65\x71\x0d\x4d\x00\x02\x58\x05\x00\x00"
         "\x00\x73\x74\x61\x74\x65\x71\x0e\x58\x10\x00\x00\x00\x61\x63\x74\x69\x76\x65\x5f\x61\x6c"
         "\x6c\x6f\x63\x61\x74\x65\x64\x71\x0f\x58\x06\x00\x00\x00\x66\x72\x61\x6d\x65\x73\x71\x10"
         "\x5d\x71\x11\x7d\x71\x12\x28\x58\x04\x00\x00\x00\x6e\x61\x6d\x65\x71\x13\x58\x01\x00\x00"
         "\x00\x66\x71\x14\x58\x08\x00\x00\x00\x66\x69\x6c\x65\x6e\x61\x6d\x65\x71\x15\x58\x04\x00"
         "\x00\x00\x61\x2e\x70\x79\x71\x16\x58\x04\x00\x00\x00\x6c\x69\x6e\x65\x71\x17\x4b\x03\x75"
         "\x61\x75\x7d\x71\x18\x28\x68\x0d\x4a\x00\xfe\x1f\x00\x68\x0e\x58\x08\x00\x00\x00\x69\x6e"
         "\x61\x63\x74\x69\x76\x65\x71\x19\x75\x65\x75\x61\x58\x0d\x00\x00\x00\x64\x65\x76\x69\x63"
         "\x65\x5f\x74\x72\x61\x63\x65\x73\x71\x1a\x5d\x71\x1b\x5d\x71\x1c\x28\x7d\x71\x1d\x28\x58"
         "\x06\x00\x00\x00\x61\x63\x74\x69\x6f\x6e\x71\x1e\x58\x05\x00\x00\x00\x61\x6c\x6c\x6f\x63"
         "\x71\x1f\x58\x04\x00\x00\x00\x61\x64\x64\x72\x71\x20\x4d\x00\x10\x68\x0d\x4d\x00\x02\x58"
         "\x07\x00\x00\x00\x74\x69\x6d\x65\x5f\x75\x73\x71\x21\x4b\x0a\x75\x7d\x71\x22\x28\x68\x1e"
         "\x58\x06\x00\x00\x00\x72\x65\x73\x69\x7a\x65\x71\x23\x68\x0d\x4b\x01\x75\x65\x61\x58\x12"
         "\x00\x00\x00\x61\x6c\x6c\x6f\x63\x61\x74\x6f\x72\x5f\x73\x65\x74\x74\x69\x6e\x67\x73\x71"
         "\x24\x7d\x71\x25\x28\x58\x13\x00\x00\x00\x65\x78\x70\x61\x6e\x64\x61\x62\x6c\x65\x5f\x73"
         "\x65\x67\x6d\x65\x6e\x74\x73\x71\x26\x88\x58\x17\x00\x00\x00\x50\x59\x54\x4f\x52\x43\x48"
         "\x5f\x43\x55\x44\x41\x5f\x41\x4c\x4c\x4f\x43\x5f\x43\x4f\x4e\x46\x71\x27\x58\x18\x00\x00"
         "\x00\x65\x78\x70\x61\x6e\x64\x61\x62\x6c\x65\x5f\x73\x65\x67\x6d\x65\x6e\x74\x73\x3a\x54"
         "\x72\x75\x65\x71\x28\x75\x75\x2e"s;
}

TEST(SnapshotImporterTest, ReadsSegmentsBlocksTraceAndSettings) {
  StatusOr<MemorySnapshot> s = ParseMemorySnapshot(SmallSnapshot(), "small.pickle");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->segments.size(), 1u);
  const MemorySegment& seg = s->segments[0];
  EXPECT_EQ(seg.total_size, 2097152);
  EXPECT_EQ(seg.allocated_size, 512);
  EXPECT_EQ(seg.pool, SegmentPool::kSmall);
  ASSERT_EQ(seg.block_count, 2u);
  EXPECT_EQ(s->blocks[0].state, BlockState::kActiveAllocated);
  EXPECT_EQ(s->blocks[0].address, 4096);
  EXPECT_EQ(s->blocks[1].address, 4096 + 512);  // no address recorded: tiles the segment
  EXPECT_EQ(s->blocks[1].state, BlockState::kInactive);
  std::vector<const MemoryFrame*> stack = s->Stack(s->blocks[0].stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(s->Str(stack[0]->filename), "a.py");
  EXPECT_EQ(stack[0]->line, 3);
  ASSERT_EQ(s->trace.size(), 2u);
  EXPECT_EQ(s->trace[0].action, MemoryAction::kAlloc);
  EXPECT_EQ(s->trace[0].time, 10000);
  EXPECT_EQ(s->trace[1].action, MemoryAction::kUnknown);
  EXPECT_EQ(s->problems.Get(DataProblem::kUnknownCategory), 1);
  EXPECT_TRUE(s->settings.recorded);
  EXPECT_EQ(s->settings.expandable_segments, true);
  EXPECT_EQ(s->settings.alloc_conf, "expandable_segments:True");
}

TEST(SnapshotImporterTest, EveryCutOfASnapshotIsPartialOrRefusedNeverACrash) {
  const std::string bytes = SmallSnapshot();
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    StatusOr<MemorySnapshot> s = ParseMemorySnapshot(bytes.substr(0, cut), "cut.pickle");
    if (!s.ok()) {
      EXPECT_TRUE(s.status().message().starts_with("cut.pickle: ")) << s.status().message();
      continue;
    }
    EXPECT_EQ(s->problems.Get(DataProblem::kTruncated), 1) << cut;
    EXPECT_LE(s->blocks.size(), 2u);
  }
}

TEST(SnapshotImporterTest, OtherPicklesAreNamedNotSnapshots) {
  StatusOr<MemorySnapshot> s = ParseMemorySnapshot("\x80\x04K\x05."s, "int.pickle");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "int.pickle: a pickle of a int, not a torch.cuda.memory._dump_snapshot() (no "
            "'segments' or 'device_traces')");
}

struct RealCounts {
  const char* file;
  size_t segments;
  size_t trace;
};

// From ../shared/data/MANIFEST.tsv (counted there with a restricted unpickler).
const RealCounts kReal[] = {
    {"bcrafton_memory_snapshot.pickle", 96, 6486},
    {"magma27_memory_snapshot.pickle", 216, 5163},
    {"silmont2000_mem_snapshot.pickle", 9, 97},
    {"silmont2000_memory_forward_fp32_128.pickle", 29, 2043},
    {"kkaitlyn111_memory_2.7b_forward.pickle", 961, 8694},
    {"kkaitlyn111_memory_ctx128_fullstep.pickle", 1010, 19052},
    {"kkaitlyn111_memory_files_memory_ctx512_fullstep_.pickle", 820, 19936},
    {"kkaitlyn111_memory_files_memory_ctx128_forward_mixed.pickle", 688, 5992},
    {"kkaitlyn111_memory_small_forward.pickle", 30, 8507},
    {"kkaitlyn111_memory_snapshot.pickle", 1457, 0},
};

TEST(SnapshotImporterTest, EveryRealSnapshotImportsCleanWithTheManifestCounts) {
  if (!fs::exists(kSnapshots)) GTEST_SKIP() << "no " << kSnapshots << " (shared data absent)";
  for (const RealCounts& real : kReal) {
    StatusOr<MemorySnapshot> s = ImportMemorySnapshot((kSnapshots / real.file).string());
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_TRUE(s->problems.empty()) << real.file << ": " << s->problems.Describe();
    EXPECT_EQ(s->segments.size(), real.segments) << real.file;
    EXPECT_EQ(s->trace.size(), real.trace) << real.file;
    EXPECT_TRUE(s->settings.recorded) << real.file;
    EXPECT_EQ(s->settings.expandable_segments, false) << real.file;
  }
}

// Truncation of a real file: every offset of its first 8 KiB, then every 61st byte, keeps a
// valid partial snapshot or a one-line error, and never more segments than the whole file.
TEST(SnapshotImporterTest, RealSnapshotCutAnywhereIsPartial) {
  const fs::path path = kSnapshots / "silmont2000_mem_snapshot.pickle";
  if (!fs::exists(path)) GTEST_SKIP() << "no " << path << " (shared data absent)";
  StatusOr<std::string> bytes = ReadWholeFile(path.string());
  ASSERT_TRUE(bytes.ok());
  size_t partial = 0;
  for (size_t cut = 0; cut < bytes->size(); cut += cut < 8192 ? 1 : 61) {
    StatusOr<MemorySnapshot> s = ParseMemorySnapshot(std::string_view(*bytes).substr(0, cut), "c");
    if (!s.ok()) continue;
    ++partial;
    EXPECT_EQ(s->problems.Get(DataProblem::kTruncated), 1);
    EXPECT_LE(s->segments.size(), 9u);
    EXPECT_LE(s->trace.size(), 97u);
  }
  EXPECT_GT(partial, 1000u);
}

// The one-pass reader takes every real snapshot (so none pays for the document) and makes of it
// exactly what the document path makes: segments, blocks, trace, frames, stacks, settings.
TEST(SnapshotImporterTest, EveryRealSnapshotIsReadInOnePassAsTheDocumentPathReadsIt) {
  if (!fs::exists(kSnapshots)) GTEST_SKIP() << "no " << kSnapshots << " (shared data absent)";
  size_t files = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(kSnapshots)) {
    StatusOr<std::string> bytes = ReadWholeFile(entry.path().string());
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    StreamReadResult fast = ReadSnapshotStreaming(*bytes);
    ASSERT_TRUE(fast.snapshot.has_value()) << entry.path() << ": declined: " << fast.declined;
    StatusOr<MemorySnapshot> doc = ParseMemorySnapshotViaDocument(*bytes, "doc");
    ASSERT_TRUE(doc.ok()) << doc.status().message();
    EXPECT_EQ(DiffSnapshots(*fast.snapshot, *doc), "") << entry.path();
    EXPECT_GT(fast.snapshot->stack_count(), 0u) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 10u);
}

TEST(SnapshotImporterTest, OnePassReaderTakesTheSmallSnapshotAndDeclinesTheRest) {
  StreamReadResult fast = ReadSnapshotStreaming(SmallSnapshot());
  ASSERT_TRUE(fast.snapshot.has_value()) << fast.declined;
  StatusOr<MemorySnapshot> doc = ParseMemorySnapshotViaDocument(SmallSnapshot(), "small.pickle");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(DiffSnapshots(*fast.snapshot, *doc), "");
  // A cut file, a code opcode and a protocol-0 pickle go to the document decoder, which keeps
  // the partial read or names the refusal.
  const std::string bytes = SmallSnapshot();
  EXPECT_FALSE(ReadSnapshotStreaming(bytes.substr(0, bytes.size() / 2)).snapshot.has_value());
  EXPECT_FALSE(ReadSnapshotStreaming("cos\nsystem\n(S'id'\ntR."s).snapshot.has_value());
  EXPECT_FALSE(ReadSnapshotStreaming("(dp0\nS'segments'\np1\n(lp2\ns."s).snapshot.has_value());
  StatusOr<MemorySnapshot> refused = ParseMemorySnapshot("cos\nsystem\n(S'id'\ntR."s, "e.pickle");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("opcode GLOBAL"), std::string::npos);
  StatusOr<MemorySnapshot> cut = ParseMemorySnapshot(bytes.substr(0, bytes.size() - 40), "c");
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_EQ(cut->problems.Get(DataProblem::kTruncated), 1);
}

// Shapes the real files do not all have, written by CPython (protocol 4): two devices' traces
// (a trace list right after another), a 2.0 block history, one frames list shared by two blocks
// and a trace entry (memo GETs of a list), a one-block segment (APPEND), segment_pool_id as a
// tuple, settings and annotations; and a bare list of segments (torch.cuda.memory_snapshot()).
TEST(SnapshotImporterTest, OnePassReaderReadsEveryShapeAsTheDocumentPath) {
  // {'segments': [{'device': 0, 'address': 4096, 'total_size': 1024, 'segment_type': 'large',
  //   'segment_pool_id': (0, 0), 'blocks': [{'size': 512, 'state': 'active_allocated',
  //   'history': [{'addr': 4096, 'frames': [G]}, {'addr': 4096, 'frames': S}]}, {'size': 512,
  //   'state': 'inactive', 'frames': S}]}, {'device': 1, 'total_size': 2048, 'blocks': [{'size':
  //   2048, 'state': 'active_allocated', 'frames': [F]}]}], 'device_traces': [[{'action':
  //   'alloc', 'addr': 1, 'size': 8, 'time_us': 5, 'frames': S}], [{'action': 'free_completed',
  //   'addr': 1, 'size': 8, 'time_us': 6, 'frames': [G]}, {'action': 'oom', 'size': 9,
  //   'device_free': 3}]], 'allocator_settings': {'max_split_size': -1},
  //   'external_annotations': [{'x': 1}, {'y': 2}]}
  // with F = {'name': 'f', 'filename': 'a.py', 'line': 3}, G = {... 'g', 'b.py', 4}, S = [F, G].
  const std::string whole =
      "\x80\x04\x95\x4c\x02\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x08\x73\x65\x67\x6d\x65\x6e"
      "\x74\x73\x94\x5d\x94\x28\x7d\x94\x28\x8c\x06\x64\x65\x76\x69\x63\x65\x94\x4b\x00\x8c\x07"
      "\x61\x64\x64\x72\x65\x73\x73\x94\x4d\x00\x10\x8c\x0a\x74\x6f\x74\x61\x6c\x5f\x73\x69\x7a"
      "\x65\x94\x4d\x00\x04\x8c\x0c\x73\x65\x67\x6d\x65\x6e\x74\x5f\x74\x79\x70\x65\x94\x8c\x05"
      "\x6c\x61\x72\x67\x65\x94\x8c\x0f\x73\x65\x67\x6d\x65\x6e\x74\x5f\x70\x6f\x6f\x6c\x5f\x69"
      "\x64\x94\x4b\x00\x4b\x00\x86\x94\x8c\x06\x62\x6c\x6f\x63\x6b\x73\x94\x5d\x94\x28\x7d\x94"
      "\x28\x8c\x04\x73\x69\x7a\x65\x94\x4d\x00\x02\x8c\x05\x73\x74\x61\x74\x65\x94\x8c\x10\x61"
      "\x63\x74\x69\x76\x65\x5f\x61\x6c\x6c\x6f\x63\x61\x74\x65\x64\x94\x8c\x07\x68\x69\x73\x74"
      "\x6f\x72\x79\x94\x5d\x94\x28\x7d\x94\x28\x8c\x04\x61\x64\x64\x72\x94\x4d\x00\x10\x8c\x06"
      "\x66\x72\x61\x6d\x65\x73\x94\x5d\x94\x7d\x94\x28\x8c\x04\x6e\x61\x6d\x65\x94\x8c\x01\x67"
      "\x94\x8c\x08\x66\x69\x6c\x65\x6e\x61\x6d\x65\x94\x8c\x04\x62\x2e\x70\x79\x94\x8c\x04\x6c"
      "\x69\x6e\x65\x94\x4b\x04\x75\x61\x75\x7d\x94\x28\x68\x14\x4d\x00\x10\x68\x15\x5d\x94\x28"
      "\x7d\x94\x28\x68\x18\x8c\x01\x66\x94\x68\x1a\x8c\x04\x61\x2e\x70\x79\x94\x68\x1c\x4b\x03"
      "\x75\x68\x17\x65\x75\x65\x75\x7d\x94\x28\x68\x0e\x4d\x00\x02\x68\x0f\x8c\x08\x69\x6e\x61"
      "\x63\x74\x69\x76\x65\x94\x68\x15\x68\x1e\x75\x65\x75\x7d\x94\x28\x68\x04\x4b\x01\x68\x06"
      "\x4d\x00\x08\x68\x0b\x5d\x94\x7d\x94\x28\x68\x0e\x4d\x00\x08\x68\x0f\x68\x10\x68\x15\x5d"
      "\x94\x68\x1f\x61\x75\x61\x75\x65\x8c\x0d\x64\x65\x76\x69\x63\x65\x5f\x74\x72\x61\x63\x65"
      "\x73\x94\x5d\x94\x28\x5d\x94\x7d\x94\x28\x8c\x06\x61\x63\x74\x69\x6f\x6e\x94\x8c\x05\x61"
      "\x6c\x6c\x6f\x63\x94\x68\x14\x4b\x01\x68\x0e\x4b\x08\x8c\x07\x74\x69\x6d\x65\x5f\x75\x73"
      "\x94\x4b\x05\x68\x15\x68\x1e\x75\x61\x5d\x94\x28\x7d\x94\x28\x68\x2c\x8c\x0e\x66\x72\x65"
      "\x65\x5f\x63\x6f\x6d\x70\x6c\x65\x74\x65\x64\x94\x68\x14\x4b\x01\x68\x0e\x4b\x08\x68\x2e"
      "\x4b\x06\x68\x15\x5d\x94\x68\x17\x61\x75\x7d\x94\x28\x68\x2c\x8c\x03\x6f\x6f\x6d\x94\x68"
      "\x0e\x4b\x09\x8c\x0b\x64\x65\x76\x69\x63\x65\x5f\x66\x72\x65\x65\x94\x4b\x03\x75\x65\x65"
      "\x8c\x12\x61\x6c\x6c\x6f\x63\x61\x74\x6f\x72\x5f\x73\x65\x74\x74\x69\x6e\x67\x73\x94\x7d"
      "\x94\x8c\x0e\x6d\x61\x78\x5f\x73\x70\x6c\x69\x74\x5f\x73\x69\x7a\x65\x94\x4a\xff\xff\xff"
      "\xff\x73\x8c\x14\x65\x78\x74\x65\x72\x6e\x61\x6c\x5f\x61\x6e\x6e\x6f\x74\x61\x74\x69\x6f"
      "\x6e\x73\x94\x5d\x94\x28\x7d\x94\x8c\x01\x78\x94\x4b\x01\x73\x7d\x94\x8c\x01\x79\x94\x4b"
      "\x02\x73\x65\x75\x2e"s;
  // The same 'segments' list alone.
  const std::string bare =
      "\x80\x04\x95\x50\x01\x00\x00\x00\x00\x00\x00\x5d\x94\x28\x7d\x94\x28\x8c\x06\x64\x65\x76"
      "\x69\x63\x65\x94\x4b\x00\x8c\x07\x61\x64\x64\x72\x65\x73\x73\x94\x4d\x00\x10\x8c\x0a\x74"
      "\x6f\x74\x61\x6c\x5f\x73\x69\x7a\x65\x94\x4d\x00\x04\x8c\x0c\x73\x65\x67\x6d\x65\x6e\x74"
      "\x5f\x74\x79\x70\x65\x94\x8c\x05\x6c\x61\x72\x67\x65\x94\x8c\x0f\x73\x65\x67\x6d\x65\x6e"
      "\x74\x5f\x70\x6f\x6f\x6c\x5f\x69\x64\x94\x4b\x00\x4b\x00\x86\x94\x8c\x06\x62\x6c\x6f\x63"
      "\x6b\x73\x94\x5d\x94\x28\x7d\x94\x28\x8c\x04\x73\x69\x7a\x65\x94\x4d\x00\x02\x8c\x05\x73"
      "\x74\x61\x74\x65\x94\x8c\x10\x61\x63\x74\x69\x76\x65\x5f\x61\x6c\x6c\x6f\x63\x61\x74\x65"
      "\x64\x94\x8c\x07\x68\x69\x73\x74\x6f\x72\x79\x94\x5d\x94\x28\x7d\x94\x28\x8c\x04\x61\x64"
      "\x64\x72\x94\x4d\x00\x10\x8c\x06\x66\x72\x61\x6d\x65\x73\x94\x5d\x94\x7d\x94\x28\x8c\x04"
      "\x6e\x61\x6d\x65\x94\x8c\x01\x67\x94\x8c\x08\x66\x69\x6c\x65\x6e\x61\x6d\x65\x94\x8c\x04"
      "\x62\x2e\x70\x79\x94\x8c\x04\x6c\x69\x6e\x65\x94\x4b\x04\x75\x61\x75\x7d\x94\x28\x68\x12"
      "\x4d\x00\x10\x68\x13\x5d\x94\x28\x7d\x94\x28\x68\x16\x8c\x01\x66\x94\x68\x18\x8c\x04\x61"
      "\x2e\x70\x79\x94\x68\x1a\x4b\x03\x75\x68\x15\x65\x75\x65\x75\x7d\x94\x28\x68\x0c\x4d\x00"
      "\x02\x68\x0d\x8c\x08\x69\x6e\x61\x63\x74\x69\x76\x65\x94\x68\x13\x68\x1c\x75\x65\x75\x7d"
      "\x94\x28\x68\x02\x4b\x01\x68\x04\x4d\x00\x08\x68\x09\x5d\x94\x7d\x94\x28\x68\x0c\x4d\x00"
      "\x08\x68\x0d\x68\x0e\x68\x13\x5d\x94\x68\x1d\x61\x75\x61\x75\x65\x2e"s;
  for (const std::string* bytes : {&whole, &bare}) {
    StreamReadResult fast = ReadSnapshotStreaming(*bytes);
    ASSERT_TRUE(fast.snapshot.has_value()) << fast.declined;
    StatusOr<MemorySnapshot> doc = ParseMemorySnapshotViaDocument(*bytes, "shapes.pickle");
    ASSERT_TRUE(doc.ok()) << doc.status().message();
    EXPECT_EQ(DiffSnapshots(*fast.snapshot, *doc), "");
    EXPECT_EQ(fast.snapshot->segments.size(), 2u);
    EXPECT_EQ(fast.snapshot->blocks.size(), 3u);
    EXPECT_EQ(fast.snapshot->blocks[0].stack, fast.snapshot->blocks[1].stack);  // S, from history
  }
  const MemorySnapshot s = std::move(*ReadSnapshotStreaming(whole).snapshot);
  ASSERT_EQ(s.trace.size(), 3u);
  EXPECT_EQ(s.trace[0].device, 0);
  EXPECT_EQ(s.trace[1].device, 1);
  EXPECT_EQ(s.trace[2].device_free, 3);
  EXPECT_EQ(s.trace[0].stack, s.blocks[1].stack);
  EXPECT_EQ(s.frames.size(), 2u);
  EXPECT_EQ(s.settings.max_split_size, -1);
  EXPECT_EQ(s.annotation_count, 2);
  EXPECT_TRUE(s.layout.block_history && s.layout.segment_pool_id);
}

// CPython writes a list of more than 1,000 items as MARK ... APPENDS batches of 1,000 and a last
// lone item as APPEND: 2,001 trace entries so, each dict read as its SETITEMS closes.
TEST(SnapshotImporterTest, OnePassReaderReadsBatchesOfAThousand) {
  std::string bytes =
      "\x80\x04}\x94(\x8c\x0d"
      "device_traces\x94]\x94]\x94("s;
  for (int i = 0; i < 2001; ++i) {
    if (i == 1000) bytes += "e("s;
    if (i == 2000) bytes += "e"s;
    bytes += i == 0 ? "}\x94(\x8c\x06"
                      "action\x94\x8c\x05"
                      "alloc\x94\x8c\x04"
                      "size\x94K\x08u"s
                    : "}\x94(h\x05h\x06h\x07M"s + static_cast<char>(i & 0xff) +
                          static_cast<char>(i >> 8) + "u"s;
  }
  bytes += "aau."s;
  StreamReadResult fast = ReadSnapshotStreaming(bytes);
  ASSERT_TRUE(fast.snapshot.has_value()) << fast.declined;
  StatusOr<MemorySnapshot> doc = ParseMemorySnapshotViaDocument(bytes, "batches.pickle");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(DiffSnapshots(*fast.snapshot, *doc), "");
  ASSERT_EQ(fast.snapshot->trace.size(), 2001u);
  EXPECT_EQ(fast.snapshot->trace[2000].size, 2000);
  EXPECT_TRUE(fast.snapshot->problems.empty()) << fast.snapshot->problems.Describe();
}

// Issue 38: protocols 0 and 1 (text opcodes, no PROTO) of one snapshot-shaped dict read as its
// protocol-4 pickle does (tests/data/memory_snapshots/make_fixtures.py writes all three).
TEST(SnapshotImporterTest, ProtocolZeroAndOneReadAsProtocolFour) {
  const fs::path dir = fs::path(GPUWHY_TEST_DATA) / "memory_snapshots";
  auto read = [&](int protocol) {
    StatusOr<std::string> bytes =
        ReadWholeFile((dir / fmt::format("snapshot_protocol{}.pickle", protocol)).string());
    EXPECT_TRUE(bytes.ok()) << bytes.status().message();
    return bytes.ok() ? *bytes : std::string();
  };
  const std::string four = read(4);
  StatusOr<MemorySnapshot> want = ParseMemorySnapshot(four, "p4");
  ASSERT_TRUE(want.ok()) << want.status().message();
  EXPECT_EQ(want->segments.size(), 2u);
  EXPECT_EQ(want->trace.size(), 4u);
  EXPECT_EQ(want->segments[0].address, 0x7F0000000000);
  for (int protocol : {0, 1}) {
    const std::string bytes = read(protocol);
    ASSERT_NE(static_cast<unsigned char>(bytes[0]), 0x80) << "no PROTO opcode below protocol 2";
    // The one-pass reader takes protocols 2 to 5 only; the document decoder reads the rest.
    EXPECT_FALSE(ReadSnapshotStreaming(bytes).snapshot.has_value());
    StatusOr<MemorySnapshot> got = ParseMemorySnapshot(bytes, "p" + std::to_string(protocol));
    ASSERT_TRUE(got.ok()) << protocol << ": " << got.status().message();
    EXPECT_EQ(got->layout.pickle_protocol, protocol);
    got->layout.pickle_protocol = want->layout.pickle_protocol;
    EXPECT_EQ(DiffSnapshots(*got, *want), "") << "protocol " << protocol;
    EXPECT_TRUE(got->problems.empty()) << got->problems.Describe();
  }
}

}  // namespace snapshot_importer_test
}  // namespace gpuwhy
