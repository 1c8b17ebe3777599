#include "ingest/memory/pickle_decoder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/file_input.h"
#include "ingest/memory/pickle_text.h"

namespace gpuwhy::pickle {
namespace pickle_decoder_test {

using namespace std::string_literals;

PickleDocument Decode(const std::string& bytes) {
  StatusOr<PickleDocument> doc = DecodePickle(bytes);
  EXPECT_TRUE(doc.ok()) << doc.status().message();
  return doc.ok() ? std::move(*doc) : PickleDocument();
}

// pickle.dumps({'a': [1, -2, 3.5, None, True], 'b': b'xy', 'c': (300, 70000)}, protocol=4)
const std::string kProtocol4 =
    "\x80\x04\x95\x36\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x01\x61\x94\x5d\x94\x28\x4b"
    "\x01\x4a\xfe\xff\xff\xff\x47\x40\x0c\x00\x00\x00\x00\x00\x00\x4e\x88\x65\x8c\x01\x62\x94"
    "\x43\x02\x78\x79\x94\x8c\x01\x63\x94\x4d\x2c\x01\x4a\x70\x11\x01\x00\x86\x94\x75\x2e"s;

TEST(PickleDecoderTest, DecodesProtocolFourContainersAndScalars) {
  PickleDocument doc = Decode(kProtocol4);
  ASSERT_TRUE(doc.has_root());
  EXPECT_FALSE(doc.truncated());
  EXPECT_EQ(doc.protocol(), 4);
  PickleRef root = doc.root();
  ASSERT_EQ(root.type(), ValueType::kDict);
  EXPECT_EQ(root.size(), 6u);
  PickleRef a = root.Find("a");
  ASSERT_EQ(a.type(), ValueType::kList);
  ASSERT_EQ(a.size(), 5u);
  std::vector<PickleRef> items;
  a.ForEach([&](PickleRef item) {
    items.push_back(item);
    return true;
  });
  EXPECT_EQ(items[0].AsInt(), 1);
  EXPECT_EQ(items[1].AsInt(), -2);
  EXPECT_DOUBLE_EQ(items[2].AsFloat(), 3.5);
  EXPECT_EQ(items[3].type(), ValueType::kNone);
  EXPECT_EQ(items[4].type(), ValueType::kBool);
  EXPECT_TRUE(items[4].AsBool());
  EXPECT_EQ(root.Find("b").type(), ValueType::kBytes);
  EXPECT_EQ(root.Find("b").AsString(), "xy");
  PickleRef c = root.Find("c");
  ASSERT_EQ(c.type(), ValueType::kTuple);
  int64_t sum = 0;
  c.ForEach([&](PickleRef item) {
    sum += item.AsInt();
    return true;
  });
  EXPECT_EQ(sum, 70300);
  EXPECT_FALSE(root.Find("missing").valid());
}

// pickle.dumps({'k': [u'\xe9', 'it''s', 12, 3.25, 10**20]}, protocol=0)
TEST(PickleDecoderTest, DecodesProtocolZeroText) {
  const std::string bytes =
      "(dp0\nVk\np1\n(lp2\nV\xe9\np3\naS'it\\'s'\np4\naI12\naF3.25\naL100000000000000000000L\na"
      "s."s;
  // 10**20 does not fit an int64: protocol 0 writes it as text, read as the bytes LONG1 carries.
  PickleDocument wide = Decode(bytes);
  PickleRef big = wide.root().Find("k").Last();
  ASSERT_EQ(big.type(), ValueType::kBigInt);
  EXPECT_EQ(big.AsString(), "\x00\x00\x10\x63\x2d\x5e\xc7\x6b\x05"s);  // pickle.encode_long(10**20)
  const std::string fits =
      "(dp0\nVk\np1\n(lp2\nV\xe9\np3\naS'it\\'s'\np4\naI12\naF3.25\naI01\nag3\nas."s;
  PickleDocument ok = Decode(fits);
  PickleRef list = ok.root().Find("k");
  ASSERT_EQ(list.size(), 6u);
  std::vector<PickleRef> items;
  list.ForEach([&](PickleRef item) {
    items.push_back(item);
    return true;
  });
  EXPECT_EQ(items[0].AsString(), "\xc3\xa9");  // Latin-1 é as UTF-8
  EXPECT_EQ(items[1].AsString(), "it's");
  EXPECT_EQ(items[2].AsInt(), 12);
  EXPECT_DOUBLE_EQ(items[3].AsFloat(), 3.25);
  EXPECT_EQ(items[4].type(), ValueType::kBool);
  EXPECT_EQ(items[5].id(), items[0].id());  // a memo GET is the same value, not a copy
}

TEST(PickleDecoderTest, LongOneAndFourKeepSixtyFourBitValuesAndFlagWiderOnes) {
  // LONG1 of 2**63 - 1 as 8 bytes, of 2**64 as 9 bytes, of -1 as 1 byte; LONG4 of 2**63.
  const std::string bytes =
      "\x80\x02(\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f"
      "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01"
      "\x8a\x01\xff"
      "\x8b\x09\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00l."s;
  PickleDocument doc = Decode(bytes);
  std::vector<PickleRef> items;
  doc.root().ForEach([&](PickleRef item) {
    items.push_back(item);
    return true;
  });
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].AsInt(), INT64_MAX);
  EXPECT_EQ(items[1].type(), ValueType::kBigInt);
  EXPECT_EQ(items[2].AsInt(), -1);
  EXPECT_EQ(items[3].type(), ValueType::kBigInt);
}

TEST(PickleDecoderTest, RefusesEveryOpcodeThatNamesOrCallsCode) {
  // pickle.dumps of os.system('id') by hand: GLOBAL 'os system', then REDUCE.
  StatusOr<PickleDocument> global = DecodePickle("cos\nsystem\n(S'id'\ntR."s);
  ASSERT_FALSE(global.ok());
  EXPECT_EQ(global.status().message(),
            "byte 0: opcode GLOBAL (0x63) 'os system' names or calls code; refused (gpuwhy "
            "decodes data-only pickles and never imports or runs anything)");
  for (const char* op : {"R", "b", "i", "o", "\x81", "\x92", "\x93", "\x82", "\x83", "\x84", "P",
                         "Q", "\x97", "\x98"}) {
    StatusOr<PickleDocument> doc = DecodePickle("\x80\x04N"s + op);
    ASSERT_FALSE(doc.ok()) << OpcodeName(static_cast<uint8_t>(*op));
    EXPECT_NE(doc.status().message().find("byte 3: opcode " +
                                          std::string(OpcodeName(static_cast<uint8_t>(*op)))),
              std::string::npos)
        << doc.status().message();
  }
}

TEST(PickleDecoderTest, TruncatedPickleKeepsWhatWasReadInsideOpenContainers) {
  // {'segments': [{'size': 5}, {'size': 7 ...cut
  const std::string bytes =
      "\x80\x04}\x94(\x8c\x08segments\x94]\x94(}\x94\x8c\x04size\x94K\x05s}\x94(h\x04K\x07"s;
  PickleDocument doc = Decode(bytes);
  EXPECT_TRUE(doc.truncated());
  EXPECT_EQ(doc.truncated_at(), bytes.size());
  PickleRef segments = doc.root().Find("segments");
  ASSERT_EQ(segments.size(), 2u);
  int64_t sum = 0;
  segments.ForEach([&](PickleRef segment) {
    sum += segment.Find("size").AsInt();
    return true;
  });
  EXPECT_EQ(sum, 12);
}

TEST(PickleDecoderTest, LengthsPastTheEndAreTruncationNotAllocation) {
  PickleDocument doc = Decode("\x80\x04]\x94(\x8d\xff\xff\xff\xff\xff\xff\xff\x7f"s);
  EXPECT_TRUE(doc.truncated());
  EXPECT_EQ(doc.truncated_at(), 5u);
  EXPECT_EQ(doc.root().type(), ValueType::kList);
  EXPECT_NE(doc.truncation_detail().find("BINUNICODE8"), std::string::npos);
}

TEST(PickleDecoderTest, BoundsNestingAndMemo) {
  StatusOr<PickleDocument> deep = DecodePickle(std::string(kMaxDepth + 1, '('));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nesting deeper than"), std::string::npos);
  StatusOr<PickleDocument> get = DecodePickle("\x80\x04h\x07."s);
  ASSERT_FALSE(get.ok());
  EXPECT_EQ(get.status().message(), "byte 2: memo key 7 read before it was written");
  // A list that holds itself decodes (it is legal pickle); readers never walk it recursively.
  PickleDocument cycle = Decode(
      "\x80\x04]\x94h\x00"
      "a."s);
  ASSERT_EQ(cycle.root().size(), 1u);
  cycle.root().ForEach([&](PickleRef item) {
    EXPECT_EQ(item.id(), cycle.root().id());
    return true;
  });
}

TEST(PickleDecoderTest, MalformedStacksAreErrorsWithOffsets) {
  EXPECT_EQ(DecodePickle("."s).status().message(), "byte 0: empty stack");
  EXPECT_EQ(DecodePickle("Ne"s).status().message(), "byte 1: no MARK to close");
  EXPECT_EQ(DecodePickle("K\x01(K\x02"
                         "e."s)
                .status()
                .message(),
            "byte 5: adds items to a value of type int, not a list");
  EXPECT_EQ(DecodePickle("\x80\x09."s).status().message(),
            "byte 0: pickle protocol 9 is newer than 5");
  EXPECT_EQ(DecodePickle("\xff"s).status().message(),
            "byte 0: unknown opcode 0xff; not a pickle gpuwhy reads");
}

// Text LONG past int64 as pickle.encode_long writes it (the bytes LONG1 carries): shortest
// two's complement, a sign byte only where the top bit is taken.
TEST(PickleDecoderTest, TextLongsWiderThanInt64AreTheBytesLongOneCarries) {
  EXPECT_EQ(DecimalToTwosComplement("100000000000000000000"),
            "\x00\x00\x10\x63\x2d\x5e\xc7\x6b\x05"s);
  EXPECT_EQ(DecimalToTwosComplement("-1180591620717411303424"),
            "\x00\x00\x00\x00\x00\x00\x00\x00\xc0"s);  // -(2**70)
  EXPECT_EQ(DecimalToTwosComplement("-9223372036854775809"),
            "\xff\xff\xff\xff\xff\xff\xff\x7f\xff"s);  // -2**63 - 1
  EXPECT_EQ(DecimalToTwosComplement("9223372036854775808"),
            "\x00\x00\x00\x00\x00\x00\x00\x80\x00"s);  // 2**63
  EXPECT_EQ(DecimalToTwosComplement("0"), "\x00"s);
  EXPECT_FALSE(DecimalToTwosComplement("12a").has_value());
  EXPECT_FALSE(DecimalToTwosComplement("-").has_value());
  // CPython's own limit on decimal digits bounds the conversion's work.
  EXPECT_TRUE(DecimalToTwosComplement(std::string(kMaxIntDigits, '9')).has_value());
  EXPECT_FALSE(DecimalToTwosComplement(std::string(kMaxIntDigits + 1, '9')).has_value());
  StatusOr<PickleDocument> huge = DecodePickle("L" + std::string(kMaxIntDigits + 1, '9') + "L\n.");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("is not an int of at most 4300 digits"),
            std::string::npos);
}

// Two values are the same data: type, scalar, string bytes, and containers item by item.
std::string FirstDifference(PickleRef a, PickleRef b, const std::string& path, int depth = 0) {
  if (a.type() != b.type()) {
    return path + ": " + std::string(ValueTypeName(a.type())) + " vs " +
           std::string(ValueTypeName(b.type()));
  }
  if (depth > 64) return path + ": too deep";
  switch (a.type()) {
    case ValueType::kInt:
    case ValueType::kBool: return a.AsInt() == b.AsInt() ? "" : path + ": int";
    case ValueType::kFloat: return a.AsFloat() == b.AsFloat() ? "" : path + ": float";
    case ValueType::kString:
    case ValueType::kBytes:
    case ValueType::kBigInt: return a.AsString() == b.AsString() ? "" : path + ": bytes";
    case ValueType::kNone: return "";
    default: break;
  }
  std::vector<PickleRef> x, y;
  a.ForEach([&](PickleRef r) { return x.push_back(r), true; });
  b.ForEach([&](PickleRef r) { return y.push_back(r), true; });
  if (x.size() != y.size()) return path + ": size";
  for (size_t i = 0; i < x.size(); ++i) {
    std::string d = FirstDifference(x[i], y[i], path + "/" + std::to_string(i), depth + 1);
    if (!d.empty()) return d;
  }
  return "";
}

// Issue 38: CPython's protocol-0 and -1 pickles of a snapshot-shaped dict (text INT/LONG/FLOAT,
// UNICODE with escapes, PUT/GET, MARK with DICT/LIST/TUPLE, I01/I00, BININT and BINPUT at
// protocol 1) decode to the same values as its protocol-4 pickle, a memo GET included.
TEST(PickleDecoderTest, ProtocolsZeroAndOneDecodeAsProtocolFour) {
  const std::string dir = std::string(GPUWHY_TEST_DATA) + "/memory_snapshots/";
  std::vector<std::string> bytes;
  std::vector<PickleDocument> docs;
  for (int protocol : {4, 0, 1}) {
    StatusOr<std::string> b =
        ReadWholeFile(dir + "snapshot_protocol" + std::to_string(protocol) + ".pickle");
    ASSERT_TRUE(b.ok()) << b.status().message();
    bytes.push_back(std::move(*b));
  }
  for (const std::string& b : bytes) docs.push_back(Decode(b));
  EXPECT_EQ(docs[0].protocol(), 4);
  EXPECT_EQ(docs[1].protocol(), 0);
  EXPECT_EQ(docs[2].protocol(), 1);
  for (size_t i = 1; i < docs.size(); ++i) {
    EXPECT_EQ(FirstDifference(docs[i].root(), docs[0].root(), "root"), "") << docs[i].protocol();
    PickleRef extra = docs[i].root().Find("extra");
    ASSERT_EQ(extra.size(), 8u);
    // The frames list written once and referenced again is one value, not a copy.
    PickleRef blocks = docs[i].root().Find("segments");
    std::vector<ValueId> frame_lists;
    blocks.ForEach([&](PickleRef seg) {
      seg.Find("blocks").ForEach([&](PickleRef block) {
        if (block.Find("frames").size() > 0) frame_lists.push_back(block.Find("frames").id());
        return true;
      });
      return true;
    });
    ASSERT_EQ(frame_lists.size(), 2u);
    EXPECT_EQ(frame_lists[0], frame_lists[1]);
  }
}

}  // namespace pickle_decoder_test
}  // namespace gpuwhy::pickle
