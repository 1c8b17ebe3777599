// Deterministic mutation fuzzing of the pickle decoder and snapshot importer, seeded with the
// first 64 KiB of each real snapshot in ../shared/data/memory/snapshots, the hand-made ones of
// tests/data/memory_snapshots (protocols 0 and 1 among them) and an inline snapshot. Mutants: byte
// flips and boundary-valued length fields (base/fuzz_mutator.h), plus pickle-shaped edits: an
// opcode (code-naming ones too) inserted or overwritten, a run of MARKs, a memo key moved. Short in
// ctest; for a long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ingest_memory_fuzz_test
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "base/file_input.h"
#include "base/fuzz_mutator.h"
#include "ingest/memory/snapshot_fuzz_body.h"

namespace gpuwhy {
namespace snapshot_fuzz_test {

namespace fs = std::filesystem;
using namespace std::string_literals;

// pickle.dumps({'segments': [{'device': 0, 'total_size': 4096, 'segment_type': 'large',
//   'blocks': [{'size': 4096, 'state': 'inactive', 'frames': [{'name': 'f', 'filename': 'a.py',
//   'line': 1}]}]}], 'device_traces': [[{'action': 'alloc', 'size': 8, 'time_us': 1}]]},
//   protocol=4)
const std::string kInlineSeed =
    "\x80\x04\x95\xe7\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x08\x73\x65\x67\x6d\x65\x6e"
    "\x74\x73\x94\x5d\x94\x7d\x94\x28\x8c\x06\x64\x65\x76\x69\x63\x65\x94\x4b\x00\x8c\x0a\x74"
    "\x6f\x74\x61\x6c\x5f\x73\x69\x7a\x65\x94\x4d\x00\x10\x8c\x0c\x73\x65\x67\x6d\x65\x6e\x74"
    "\x5f\x74\x79\x70\x65\x94\x8c\x05\x6c\x61\x72\x67\x65\x94\x8c\x06\x62\x6c\x6f\x63\x6b\x73"
    "\x94\x5d\x94\x7d\x94\x28\x8c\x04\x73\x69\x7a\x65\x94\x4d\x00\x10\x8c\x05\x73\x74\x61\x74"
    "\x65\x94\x8c\x08\x69\x6e\x61\x63\x74\x69\x76\x65\x94\x8c\x06\x66\x72\x61\x6d\x65\x73\x94"
    "\x5d\x94\x7d\x94\x28\x8c\x04\x6e\x61\x6d\x65\x94\x8c\x01\x66\x94\x8c\x08\x66\x69\x6c\x65"
    "\x6e\x61\x6d\x65\x94\x8c\x04\x61\x2e\x70\x79\x94\x8c\x04\x6c\x69\x6e\x65\x94\x4b\x01\x75"
    "\x61\x75\x61\x75\x61\x8c\x0d\x64\x65\x76\x69\x63\x65\x5f\x74\x72\x61\x63\x65\x73\x94\x5d"
    "\x94\x5d\x94\x7d\x94\x28\x8c\x06\x61\x63\x74\x69\x6f\x6e\x94\x8c\x05\x61\x6c\x6c\x6f\x63"
    "\x94\x68\x0b\x4b\x08\x8c\x07\x74\x69\x6d\x65\x5f\x75\x73\x94\x4b\x01\x75\x61\x61\x75\x2e"s;

constexpr char kOpcodes[] =
    "(.012FIJKLMNPQRSTUVXabcdeghijloprstu}])G\x80\x81\x82\x83\x84\x85"
    "\x86\x87\x88\x89\x8a\x8b"
    "BC\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94"
    "\x95\x96\x97\x98";

std::string MutatePickle(std::string s, std::mt19937_64& rng) {
  if (s.empty() || testing::Pick(rng, 2) == 0) return testing::MutateBinary(std::move(s), rng, 64);
  const size_t at = testing::Pick(rng, s.size());
  const char op = kOpcodes[testing::Pick(rng, sizeof kOpcodes - 1)];
  switch (testing::Pick(rng, 4)) {
    case 0: s.insert(s.begin() + static_cast<ptrdiff_t>(at), op); break;
    case 1: s[at] = op; break;
    case 2: s.insert(at, std::string(testing::Pick(rng, 1200), '(')); break;
    default: s.insert(at, "h"s + static_cast<char>(rng())); break;
  }
  return s;
}

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {kInlineSeed};
  for (std::string& bytes :
       testing::SeedFiles(fs::path(GPUWHY_SHARED_DATA) / "memory" / "snapshots", 64 << 10,
                          [](const std::string& path) {
                            StatusOr<std::string> b = ReadWholeFile(path);
                            return b.ok() ? *b : std::string();
                          })) {
    seeds.push_back(std::move(bytes));
  }
  // One whole real file, so that most mutants still end in STOP and the one-pass reader, not
  // only the document path, reads them (the body checks the two agree).
  StatusOr<std::string> whole = ReadWholeFile(
      (fs::path(GPUWHY_SHARED_DATA) / "memory" / "snapshots" / "silmont2000_mem_snapshot.pickle")
          .string());
  if (whole.ok()) seeds.push_back(std::move(*whole));
  // The hand-made snapshots of tests/data (protocols 0 and 1: text opcodes and no PROTO, which
  // only the document decoder reads; the OOM replay fixtures), whole.
  for (std::string& bytes : testing::SeedFiles(fs::path(GPUWHY_TEST_DATA) / "memory_snapshots",
                                               64 << 10, [](const std::string& path) {
                                                 if (!path.ends_with(".pickle"))
                                                   return std::string();
                                                 StatusOr<std::string> b = ReadWholeFile(path);
                                                 return b.ok() ? *b : std::string();
                                               })) {
    seeds.push_back(std::move(bytes));
  }
  return seeds;
}

TEST(SnapshotFuzzTest, MutantsNeverBreakTheContract) {
  const std::vector<std::string> seeds = Seeds();
  for (const std::string& seed : seeds) ASSERT_EQ(FuzzSnapshotImporter(seed), "");
  std::mt19937_64 rng(0x70696b6c65ULL);
  testing::FuzzBudget budget(3000);
  size_t one_pass = 0;
  while (budget.Next()) {
    std::string mutant = MutatePickle(seeds[rng() % seeds.size()], rng);
    ASSERT_EQ(FuzzSnapshotImporter(mutant), "") << "mutant " << budget.runs();
    if (ReadSnapshotStreaming(mutant).snapshot) ++one_pass;
  }
  EXPECT_GT(one_pass, 0u) << "no mutant reached the one-pass reader";
}

}  // namespace snapshot_fuzz_test
}  // namespace gpuwhy
