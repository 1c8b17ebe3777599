// A hostile pickle corpus against the decoder and the snapshot importer: pickles that name
// os.system, builtins.eval and subprocess.Popen through GLOBAL or STACK_GLOBAL and REDUCE, objects
// restored with BUILD, every other code opcode, deep nesting, huge lengths, memo abuse and
// self-referencing containers. Each is refused with one line naming the opcode and its offset,
// or read as partial data; none crashes (CI runs this under ASan and UBSan: untrusted_input).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "ingest/memory/pickle_decoder.h"
#include "ingest/memory/snapshot_importer.h"

namespace gpuwhy {
namespace pickle_hostile_test {

using namespace std::string_literals;
using pickle::PickleDocument;

struct Hostile {
  const char* name;
  const char* refusal;  // the start of the one-line error
  std::string bytes;
};

// pickle.dumps({'segments': [obj]}, protocol=P) for objects whose __reduce__ returns
// (os.system, ('echo pwned',)), (builtins.eval, ('1+1',)), (subprocess.Popen, (['id'],)), and a
// plain class instance (restored with BUILD); written by CPython, never loaded by it.
const Hostile kCorpus[] = {
    {"os_system_p0", "byte 23: opcode GLOBAL ",
     "\x28\x64\x70\x30\x0a\x56\x73\x65\x67\x6d\x65\x6e\x74\x73\x0a\x70\x31\x0a\x28\x6c\x70\x32"
     "\x0a\x63\x70\x6f\x73\x69\x78\x0a\x73\x79\x73\x74\x65\x6d\x0a\x70\x33\x0a\x28\x56\x65\x63"
     "\x68\x6f\x20\x70\x77\x6e\x65\x64\x0a\x70\x34\x0a\x74\x70\x35\x0a\x52\x70\x36\x0a\x61\x73"
     "\x2e"s},
    {"os_system_p2", "byte 23: opcode GLOBAL ",
     "\x80\x02\x7d\x71\x00\x58\x08\x00\x00\x00\x73\x65\x67\x6d\x65\x6e\x74\x73\x71\x01\x5d\x71"
     "\x02\x63\x70\x6f\x73\x69\x78\x0a\x73\x79\x73\x74\x65\x6d\x0a\x71\x03\x58\x0a\x00\x00\x00"
     "\x65\x63\x68\x6f\x20\x70\x77\x6e\x65\x64\x71\x04\x85\x71\x05\x52\x71\x06\x61\x73\x2e"s},
    {"os_system_p4", "byte 43: opcode STACK_GLOBAL ",
     "\x80\x04\x95\x36\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x08\x73\x65\x67\x6d\x65\x6e\x74"
     "\x73\x94\x5d\x94\x8c\x05\x70\x6f\x73\x69\x78\x94\x8c\x06\x73\x79\x73\x74\x65\x6d\x94\x93"
     "\x94\x8c\x0a\x65\x63\x68\x6f\x20\x70\x77\x6e\x65\x64\x94\x85\x94\x52\x94\x61\x73\x2e"s},
    {"os_system_p5", "byte 43: opcode STACK_GLOBAL ",
     "\x80\x05\x95\x36\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x08\x73\x65\x67\x6d\x65\x6e\x74"
     "\x73\x94\x5d\x94\x8c\x05\x70\x6f\x73\x69\x78\x94\x8c\x06\x73\x79\x73\x74\x65\x6d\x94\x93"
     "\x94\x8c\x0a\x65\x63\x68\x6f\x20\x70\x77\x6e\x65\x64\x94\x85\x94\x52\x94\x61\x73\x2e"s},
    {"builtins_eval_p0", "byte 23: opcode GLOBAL ",
     "\x28\x64\x70\x30\x0a\x56\x73\x65\x67\x6d\x65\x6e\x74\x73\x0a\x70\x31\x0a\x28\x6c\x70\x32"
     "\x0a\x63\x5f\x5f\x62\x75\x69\x6c\x74\x69\x6e\x5f\x5f\x0a\x65\x76\x61\x6c\x0a\x70\x33\x0a"
     "\x28\x56\x31\x2b\x31\x0a\x70\x34\x0a\x74\x70\x35\x0a\x52\x70\x36\x0a\x61\x73\x2e"s},
    {"builtins_eval_p2", "byte 23: opcode GLOBAL ",
     "\x80\x02\x7d\x71\x00\x58\x08\x00\x00\x00\x73\x65\x67\x6d\x65\x6e\x74\x73\x71\x01\x5d\x71"
     "\x02\x63\x5f\x5f\x62\x75\x69\x6c\x74\x69\x6e\x5f\x5f\x0a\x65\x76\x61\x6c\x0a\x71\x03\x58"
     "\x03\x00\x00\x00\x31\x2b\x31\x71\x04\x85\x71\x05\x52\x71\x06\x61\x73\x2e"s},
    {"builtins_eval_p4", "byte 44: opcode STACK_GLOBAL ",
     "\x80\x04\x95\x30\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x08\x73\x65\x67\x6d\x65\x6e\x74"
     "\x73\x94\x5d\x94\x8c\x08\x62\x75\x69\x6c\x74\x69\x6e\x73\x94\x8c\x04\x65\x76\x61\x6c\x94"
     "\x93\x94\x8c\x03\x31\x2b\x31\x94\x85\x94\x52\x94\x61\x73\x2e"s},
    {"builtins_eval_p5", "byte 44: opcode STACK_GLOBAL ",
     "\x80\x05\x95\x30\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x08\x73\x65\x67\x6d\x65\x6e\x74"
     "\x73\x94\x5d\x94\x8c\x08\x62\x75\x69\x6c\x74\x69\x6e\x73\x94\x8c\x04\x65\x76\x61\x6c\x94"
     "\x93\x94\x8c\x03\x31\x2b\x31\x94\x85\x94\x52\x94\x61\x73\x2e"s},
    {"subprocess_popen_p0", "byte 23: opcode GLOBAL ",
     "\x28\x64\x70\x30\x0a\x56\x73\x65\x67\x6d\x65\x6e\x74\x73\x0a\x70\x31\x0a\x28\x6c\x70\x32"
     "\x0a\x63\x63\x6f\x6d\x6d\x61\x6e\x64\x73\x0a\x50\x6f\x70\x65\x6e\x0a\x70\x33\x0a\x28\x28"
     "\x6c\x70\x34\x0a\x56\x69\x64\x0a\x70\x35\x0a\x61\x74\x70\x36\x0a\x52\x70\x37\x0a\x61\x73"
     "\x2e"s},
    {"subprocess_popen_p2", "byte 23: opcode GLOBAL ",
     "\x80\x02\x7d\x71\x00\x58\x08\x00\x00\x00\x73\x65\x67\x6d\x65\x6e\x74\x73\x71\x01\x5d\x71"
     "\x02\x63\x63\x6f\x6d\x6d\x61\x6e\x64\x73\x0a\x50\x6f\x70\x65\x6e\x0a\x71\x03\x5d\x71\x04"
     "\x58\x02\x00\x00\x00\x69\x64\x71\x05\x61\x85\x71\x06\x52\x71\x07\x61\x73\x2e"s},
    {"subprocess_popen_p4", "byte 47: opcode STACK_GLOBAL ",
     "\x80\x04\x95\x35\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x08\x73\x65\x67\x6d\x65\x6e\x74"
     "\x73\x94\x5d\x94\x8c\x0a\x73\x75\x62\x70\x72\x6f\x63\x65\x73\x73\x94\x8c\x05\x50\x6f\x70"
     "\x65\x6e\x94\x93\x94\x5d\x94\x8c\x02\x69\x64\x94\x61\x85\x94\x52\x94\x61\x73\x2e"s},
    {"subprocess_popen_p5", "byte 47: opcode STACK_GLOBAL ",
     "\x80\x05\x95\x35\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x08\x73\x65\x67\x6d\x65\x6e\x74"
     "\x73\x94\x5d\x94\x8c\x0a\x73\x75\x62\x70\x72\x6f\x63\x65\x73\x73\x94\x8c\x05\x50\x6f\x70"
     "\x65\x6e\x94\x93\x94\x5d\x94\x8c\x02\x69\x64\x94\x61\x85\x94\x52\x94\x61\x73\x2e"s},
    {"object_build_p0", "byte 23: opcode GLOBAL ",
     "\x28\x64\x70\x30\x0a\x56\x73\x65\x67\x6d\x65\x6e\x74\x73\x0a\x70\x31\x0a\x28\x6c\x70\x32"
     "\x0a\x63\x63\x6f\x70\x79\x5f\x72\x65\x67\x0a\x5f\x72\x65\x63\x6f\x6e\x73\x74\x72\x75\x63"
     "\x74\x6f\x72\x0a\x70\x33\x0a\x28\x63\x5f\x5f\x6d\x61\x69\x6e\x5f\x5f\x0a\x53\x74\x0a\x70"
     "\x34\x0a\x63\x5f\x5f\x62\x75\x69\x6c\x74\x69\x6e\x5f\x5f\x0a\x6f\x62\x6a\x65\x63\x74\x0a"
     "\x70\x35\x0a\x4e\x74\x70\x36\x0a\x52\x70\x37\x0a\x28\x64\x70\x38\x0a\x56\x78\x0a\x70\x39"
     "\x0a\x49\x31\x0a\x73\x62\x61\x73\x2e"s},
    {"object_build_p2", "byte 23: opcode GLOBAL ",
     "\x80\x02\x7d\x71\x00\x58\x08\x00\x00\x00\x73\x65\x67\x6d\x65\x6e\x74\x73\x71\x01\x5d\x71"
     "\x02\x63\x5f\x5f\x6d\x61\x69\x6e\x5f\x5f\x0a\x53\x74\x0a\x71\x03\x29\x81\x71\x04\x7d\x71"
     "\x05\x58\x01\x00\x00\x00\x78\x71\x06\x4b\x01\x73\x62\x61\x73\x2e"s},
    {"object_build_p4", "byte 42: opcode STACK_GLOBAL ",
     "\x80\x04\x95\x31\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x08\x73\x65\x67\x6d\x65\x6e\x74"
     "\x73\x94\x5d\x94\x8c\x08\x5f\x5f\x6d\x61\x69\x6e\x5f\x5f\x94\x8c\x02\x53\x74\x94\x93\x94"
     "\x29\x81\x94\x7d\x94\x8c\x01\x78\x94\x4b\x01\x73\x62\x61\x73\x2e"s},
    {"object_build_p5", "byte 42: opcode STACK_GLOBAL ",
     "\x80\x05\x95\x31\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x8c\x08\x73\x65\x67\x6d\x65\x6e\x74"
     "\x73\x94\x5d\x94\x8c\x08\x5f\x5f\x6d\x61\x69\x6e\x5f\x5f\x94\x8c\x02\x53\x74\x94\x93\x94"
     "\x29\x81\x94\x7d\x94\x8c\x01\x78\x94\x4b\x01\x73\x62\x61\x73\x2e"s},
};

TEST(PickleHostileTest, CodeNamingPicklesAreRefusedAtTheirFirstCodeOpcode) {
  for (const Hostile& h : kCorpus) {
    StatusOr<MemorySnapshot> s = ParseMemorySnapshot(h.bytes, "evil.pickle");
    ASSERT_FALSE(s.ok()) << h.name;
    const std::string& message = s.status().message();
    EXPECT_TRUE(message.starts_with("evil.pickle: "s + h.refusal)) << h.name << ": " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << h.name;
    EXPECT_NE(message.find("never imports or runs anything"), std::string::npos) << h.name;
  }
}

TEST(PickleHostileTest, GlobalNamesItsTargetPrintably) {
  StatusOr<PickleDocument> doc = pickle::DecodePickle("csubprocess\nPopen\n\x1b[2J."s);
  ASSERT_FALSE(doc.ok());
  EXPECT_NE(doc.status().message().find("'subprocess Popen'"), std::string::npos)
      << doc.status().message();
  // A name full of terminal escapes is shown without them.
  StatusOr<PickleDocument> escaped = pickle::DecodePickle("c\x1b[31mos\nsystem\n."s);
  ASSERT_FALSE(escaped.ok());
  EXPECT_EQ(escaped.status().message().find('\x1b'), std::string::npos);
}

TEST(PickleHostileTest, DeepNestingIsBoundedOrFlat) {
  // A million MARKs: refused at the bound, not a million frames.
  StatusOr<PickleDocument> marks = pickle::DecodePickle(std::string(1'000'000, '('));
  ASSERT_FALSE(marks.ok());
  EXPECT_NE(marks.status().message().find("nesting deeper than 1000"), std::string::npos);
  // 200,000 lists each appended into the one before: a chain decoded without recursion, and
  // the importer (which never recurses) calls it no snapshot.
  std::string chain = "\x80\x04";
  chain += std::string(200'000, ']') + std::string(199'999, 'a') + ".";
  StatusOr<PickleDocument> doc = pickle::DecodePickle(chain);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->root().size(), 1u);
  StatusOr<MemorySnapshot> s = ParseMemorySnapshot(chain, "chain.pickle");
  ASSERT_FALSE(s.ok());
}

TEST(PickleHostileTest, HugeLengthsAreTruncationNotAllocation) {
  for (const std::string& op :
       {"X\xff\xff\xff\xff"s, "\x8d\xff\xff\xff\xff\xff\xff\xff\xff"s, "B\xff\xff\xff\xff"s,
        "\x8e\x00\x00\x00\x00\x00\x00\x00\x80"s, "\x96\xff\xff\xff\xff\xff\xff\xff\x7f"s,
        "\x8b\xff\xff\xff\x7f"s, "T\xff\xff\xff\x7f"s, "\x95\xff\xff\xff\xff\xff\xff\xff\xff"s}) {
    std::string bytes = "\x80\x04}\x94(\x8c\x08segments\x94" + op + "abc";
    StatusOr<MemorySnapshot> s = ParseMemorySnapshot(bytes, "huge.pickle");
    if (s.ok()) {
      EXPECT_EQ(s->problems.Get(DataProblem::kTruncated), 1) << s->problems.Describe();
      EXPECT_TRUE(s->segments.empty());
    } else {
      EXPECT_TRUE(s.status().message().starts_with("huge.pickle: byte ")) << s.status().message();
    }
  }
  // Negative lengths are refused outright.
  StatusOr<PickleDocument> negative = pickle::DecodePickle("\x8b\xff\xff\xff\xff"s);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(), "byte 0: LONG4 length < 0");
}

TEST(PickleHostileTest, MemoAbuseIsBounded) {
  // PUT at the largest key, then GET it: a sparse entry, not a 4-billion-slot table.
  PickleDocument put_far =
      std::move(*pickle::DecodePickle("\x80\x04Nr\xff\xff\xff\xffj\xff\xff\xff\xff\x86."s));
  EXPECT_EQ(put_far.root().size(), 2u);
  // More than a million keys out of sequence is refused.
  std::string many = "\x80\x04N";
  for (uint32_t key = 2; key < (1u << 20) + 4; ++key) {
    many += 'r';
    for (int i = 0; i < 4; ++i) many += static_cast<char>((key >> (8 * i)) & 0xff);
  }
  StatusOr<PickleDocument> refused = pickle::DecodePickle(many);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("memo keys out of sequence"), std::string::npos);
  // MEMOIZE and PUT with nothing to remember, GET of a key never written.
  EXPECT_FALSE(pickle::DecodePickle("\x94"s).ok());
  EXPECT_FALSE(pickle::DecodePickle("q\x00"s).ok());
  EXPECT_FALSE(pickle::DecodePickle("(h\x00"s).ok());
  // A billion laughs: 30 levels of a list holding the previous one ten times. The document
  // grows by 10 items a level (memo GETs share values); nothing ever expands it.
  std::string laughs = "\x80\x04]\x94";
  for (int level = 0; level < 30; ++level) {
    laughs += "](";
    for (int i = 0; i < 10; ++i) laughs += "h" + std::string(1, static_cast<char>(level));
    laughs += "e\x94";
  }
  laughs += ".";
  StatusOr<PickleDocument> doc = pickle::DecodePickle(laughs);
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_LE(doc->item_count(), 300u);
}

TEST(PickleHostileTest, SelfReferencingSnapshotsAreReadWithoutRecursion) {
  // CPython's pickle of: L = [L, seg]; seg = {'total_size': 16, 'blocks': [seg, block]}, whose
  // block's frames list holds itself; a trace whose entry's frames is the trace; the trace listed
  // for two devices: {'segments': L, 'device_traces': [trace, trace]}.
  const std::string bytes =
      "\x80\x04\x95\x9c\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x08\x73\x65\x67\x6d\x65\x6e"
      "\x74\x73\x94\x5d\x94\x28\x68\x02\x7d\x94\x28\x8c\x0a\x74\x6f\x74\x61\x6c\x5f\x73\x69\x7a"
      "\x65\x94\x4b\x10\x8c\x06\x62\x6c\x6f\x63\x6b\x73\x94\x5d\x94\x28\x68\x03\x7d\x94\x28\x8c"
      "\x04\x73\x69\x7a\x65\x94\x4b\x10\x8c\x05\x73\x74\x61\x74\x65\x94\x8c\x08\x69\x6e\x61\x63"
      "\x74\x69\x76\x65\x94\x8c\x06\x66\x72\x61\x6d\x65\x73\x94\x5d\x94\x68\x0c\x61\x75\x65\x75"
      "\x65\x8c\x0d\x64\x65\x76\x69\x63\x65\x5f\x74\x72\x61\x63\x65\x73\x94\x5d\x94\x28\x5d\x94"
      "\x7d\x94\x28\x8c\x06\x61\x63\x74\x69\x6f\x6e\x94\x8c\x05\x61\x6c\x6c\x6f\x63\x94\x68\x08"
      "\x4b\x01\x68\x0b\x68\x0f\x75\x61\x68\x0f\x65\x75\x2e"s;
  StatusOr<MemorySnapshot> s = ParseMemorySnapshot(bytes, "cycle.pickle");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->segments.size(), 1u);  // L itself is not a dict: skipped and counted
  EXPECT_EQ(s->problems.Get(DataProblem::kMalformedEvent), 2);  // L, and seg as a block
  EXPECT_EQ(s->blocks.size(), 1u);
  EXPECT_EQ(s->trace.size(), 2u);  // one entry, once per device
}

// {'segments': [seg] * n, 'device_traces': [[entry] * n]} with seg = {'total_size': 16,
// 'blocks': [block] * n}: every repeat is a 2-byte memo GET of the one dict. Protocol 4.
std::string SharedReferences(int n) {
  auto gets = [n](char memo) {
    std::string out;
    for (int i = 1; i < n; ++i) out += "h"s + memo;
    return out;
  };
  std::string b = "\x80\x04}\x94(\x8c\x08segments\x94]\x94(";  // memo 0 root, 1, 2 list
  b += "}\x94(\x8c\x0atotal_size\x94K\x10\x8c\x06"
       "blocks\x94]\x94(";                        // 3 seg, 4, 5, 6 list
  b += "}\x94\x8c\x04size\x94K\x10s";             // 7 block, 8
  b += gets('\x07') + "eu" + gets('\x03') + "e";  // blocks, segments
  b += "\x8c\x0d"
       "device_traces\x94](]\x94(";  // 9, 10 entries list
  b += "}\x94\x8c\x06"
       "action\x94\x8c\x05"
       "alloc\x94s";  // 11 entry, 12, 13
  b += gets('\x0b') + "eeu.";
  return b;
}

// Issue 37: a 40 KB pickle referencing one segment and one block 10^4 times each expanded to
// 10^8 blocks (2.2 GB). The snapshot is bounded by the file: refused with the limit named.
TEST(PickleHostileTest, SharedReferencesDoNotExpandPastTheFilesSize) {
  const std::string bytes = SharedReferences(10'000);
  ASSERT_LT(bytes.size(), 64'000u);
  for (auto parse : {&ParseMemorySnapshot, &ParseMemorySnapshotViaDocument}) {
    StatusOr<MemorySnapshot> s = parse(bytes, "amplifier.pickle");
    if (s.ok()) {  // the one-pass reader reads each record once, where it joins
      EXPECT_LE(s->blocks.size() + s->segments.size() + s->trace.size(), bytes.size());
      continue;
    }
    EXPECT_TRUE(s.status().message().starts_with("amplifier.pickle: shared pickle references"))
        << s.status().message();
    EXPECT_NE(s.status().message().find("over the limit"), std::string::npos);
  }
  StatusOr<MemorySnapshot> doc = ParseMemorySnapshotViaDocument(bytes, "amplifier.pickle");
  EXPECT_FALSE(doc.ok());
}

// A small amplifier is read in full once the limits are lifted, so the bound is what refuses.
TEST(PickleHostileTest, SharedReferencesAreReadWhenLimitsAreLifted) {
  const std::string bytes = SharedReferences(100);
  EXPECT_FALSE(ParseMemorySnapshotViaDocument(bytes, "a.pickle").ok());
  ::setenv("GPUWHY_INPUT_LIMITS", "other=0", 1);
  StatusOr<MemorySnapshot> s = ParseMemorySnapshotViaDocument(bytes, "a.pickle");
  ::unsetenv("GPUWHY_INPUT_LIMITS");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->segments.size(), 100u);
  EXPECT_EQ(s->blocks.size(), 100u * 100u);
  EXPECT_EQ(s->trace.size(), 100u);
}

}  // namespace pickle_hostile_test
}  // namespace gpuwhy
