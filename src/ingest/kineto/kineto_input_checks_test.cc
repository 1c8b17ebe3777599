// What the Kineto importer does with inputs that are not what they claim: a gzip file whose
// CRC-32 or length check fails after a complete document, and one event over the size limit.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "base/gzip_test_util.h"
#include "ingest/kineto/json_event_splitter.h"
#include "ingest/kineto/kineto_importer.h"

namespace gpuwhy {
namespace kineto_input_checks_test {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("gpuwhy_kineto_checks_" + name)).string();
}

constexpr std::string_view kTrace = R"json({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 3,
   "args": {"device": 0, "stream": 7, "correlation": 1}}
]})json";

TEST(KinetoInputChecksTest, AGzipTraceFailingItsCrcOrLengthCheckIsDataLoss) {
  const std::string good = testing::Gzip(kTrace);
  const std::string path = TempPath("check.json.gz");
  // The trailer: CRC-32 (4 bytes) then ISIZE (4 bytes).
  for (size_t byte : {good.size() - 8, good.size() - 1}) {
    std::string bad = good;
    bad[byte] = static_cast<char>(bad[byte] ^ 0x10);
    testing::WriteRawFile(path, bad);
    StatusOr<Trace> trace = ImportKinetoFile(path);
    ASSERT_TRUE(trace.ok()) << trace.status().message();
    EXPECT_EQ(trace->cpu_slices.size(), 1u);  // what was read is kept, flagged as suspect
    ASSERT_EQ(trace->problems.Get(DataProblem::kCorruptGzip), 1) << trace->problems.Describe();
    // The detail names the check and the compressed byte of the trailer where it failed.
    const std::string detail(trace->problems.Detail(DataProblem::kCorruptGzip));
    const size_t at = detail.find("at compressed byte ");
    ASSERT_NE(at, std::string::npos) << detail;
    EXPECT_GE(std::stoull(detail.substr(at + 19)), good.size() - 8) << detail;
    EXPECT_NE(detail.find(byte == good.size() - 8 ? "CRC-32" : "ISIZE"), std::string::npos)
        << detail;
    EXPECT_EQ(GetDataProblemInfo(DataProblem::kCorruptGzip).severity, ProblemSeverity::kDataLoss);
  }
  testing::WriteRawFile(path, good);
  StatusOr<Trace> trace = ImportKinetoFile(path);
  ASSERT_TRUE(trace.ok());
  EXPECT_TRUE(trace->problems.empty()) << trace->problems.Describe();
  std::filesystem::remove(path);
}

// A 2 GiB string in a trace of about 2 MB (concatenated gzip members, as a bomb is made):
// refused when the event passes the trace_event limit, not after buffering all of it.
TEST(KinetoInputChecksTest, AnEventOverTheLimitIsRefusedBeforeTheRestIsRead) {
  std::string bomb = testing::Gzip(R"({"traceEvents": [{"ph": "X", "name": ")");
  const std::string member = testing::GzipMember('A', 64u << 20);
  for (int i = 0; i < 32; ++i) bomb += member;
  bomb += testing::Gzip(R"(", "ts": 1, "dur": 1}]})");
  const std::string path = TempPath("long_string.json.gz");
  testing::WriteRawFile(path, bomb);
  const auto start = std::chrono::steady_clock::now();
  StatusOr<Trace> trace = ImportKinetoFile(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().message(),
            path +
                ": byte 17: one trace event is over the 64 MiB limit for a trace event or "
                "top-level value (GPUWHY_INPUT_LIMITS=trace_event=SIZE raises it)");
  // Loose (the machine may be busy): before, it took 24 s and 3.1 GB.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));

  // After good events the trace is kept, cut where the oversized event starts.
  ::setenv("GPUWHY_INPUT_LIMITS", "trace_event=1M", 1);
  std::string text(kTrace.substr(0, kTrace.size() - 3));
  text += R"(, {"ph": "X", "name": ")" + std::string(3u << 20, 'x') + R"("}]})";
  KinetoImportOptions options;
  options.chunk_bytes = 64 << 10;  // the event arrives in pieces, as from a file
  StatusOr<Trace> cut = ImportKinetoBytes(text, "cut.json", options);
  ::unsetenv("GPUWHY_INPUT_LIMITS");
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  EXPECT_EQ(cut->problems.Get(DataProblem::kTruncated), 1);
  EXPECT_NE(cut->problems.Detail(DataProblem::kTruncated).find("over the 1 MiB limit"),
            std::string::npos)
      << cut->problems.Detail(DataProblem::kTruncated);
  std::filesystem::remove(path);
}

// An endless string: the splitter stops reading once the event passes the limit.
class EndlessString : public ByteSource {
 public:
  EndlessString() { file_size_ = 1 << 20; }
  StatusOr<size_t> Read(char* dst, size_t capacity) override {
    static constexpr std::string_view kHead = R"({"traceEvents": [{"name": ")";
    size_t n = 0;
    for (; n < capacity && given_ < kHead.size(); ++n) dst[n] = kHead[given_++];
    std::memset(dst + n, 'A', capacity - n);
    given_ += capacity - n;
    return capacity;
  }
  Compression compression() const override { return Compression::kNone; }
  uint64_t file_offset() const override { return given_; }
  uint64_t given() const { return given_; }

 private:
  uint64_t given_ = 0;
};

TEST(KinetoInputChecksTest, TheSplitterReadsNoMoreThanTheLimitOfOneEvent) {
  struct NoSink : JsonEventSplitter::Sink {
    void OnEvent(std::string_view, uint64_t) override {}
    void OnTopLevelMember(std::string_view, std::string_view, uint64_t) override {}
  } sink;
  EndlessString source;
  JsonEventSplitter splitter(source, 1 << 20);
  StatusOr<JsonEventSplitter::Result> result = splitter.Run(sink);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("over the 64 MiB limit"), std::string::npos)
      << result.status().message();
  EXPECT_GT(source.given(), uint64_t{64} << 20);
  EXPECT_LT(source.given(), uint64_t{66} << 20);
}

// Issue 37: ts + dur past int64 was signed overflow (UB; Release wrapped it to an end before
// the start and "span 0.000 ms"). The event's time is unknown: counted, not kept.
TEST(KinetoInputChecksTest, AnEndPastInt64IsABadTimestampNotAWrappedEnd) {
  constexpr std::string_view kWild = R"json({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 3,
   "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "wild", "pid": 0, "tid": 7, "ts": 9223372036854775,
   "dur": 9223372036854775, "args": {"device": 0, "stream": 7, "correlation": 2}}
]})json";
  StatusOr<Trace> trace = ImportKinetoBytes(kWild, "wild.json");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->gpu_ops.size(), 1u);
  EXPECT_EQ(trace->problems.Get(DataProblem::kBadTimestamp), 1);
  EXPECT_GE(trace->span().length(), 0);
  for (size_t i = 0; i < trace->gpu_ops.size(); ++i) {
    EXPECT_LE(trace->gpu_ops.start[i], trace->gpu_ops.end[i]);
  }
}

}  // namespace kineto_input_checks_test
}  // namespace gpuwhy
