// Decode throughput and peak memory of the data-only pickle decoder and the allocator-snapshot
// importer on a synthetic torch.cuda.memory._dump_snapshot() pickle shaped like the real ones
// (memoized keys and frames, a frames list per block and trace entry, LONG1 addresses).
//
//   snapshot_bench [--size-mb 100] [--runs 3] [--snapshot FILE] [--only
//   decode|import-document|import]
//
// Rows: decode (DecodePickle: the document alone), import-document (the document path:
// DecodePickle and the walk into MemorySnapshot), import (ParseMemorySnapshot, what gpuwhy
// analyze/info SNAPSHOT run: the one-pass reader, snapshot_stream_reader.h). Each run reads the
// file and decodes it in a fresh child process, so its peak resident set is that run's alone;
// the ratio is peak RSS over the file size (the file itself is in memory too).
// Targets (issue 17): decode >= 200 MB/s on one core, peak RSS <= 2x the file.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/file_input.h"
#include "child_run.h"
#include "ingest/memory/pickle_decoder.h"
#include "ingest/memory/snapshot_importer.h"
#include "ingest/memory/snapshot_stream_reader.h"

namespace {

// Writes protocol-4 pickle opcodes the way CPython's pickler does for these dicts and lists.
class PickleWriter {
 public:
  std::string out = std::string("\x80\x04", 2);

  void Str(const std::string& s) {
    if (auto it = memo_strings_.find(s); it != memo_strings_.end()) return Get(it->second);
    if (s.size() < 256) {
      out += '\x8c';
      out += static_cast<char>(s.size());
    } else {
      out += 'X';
      Le(s.size(), 4);
    }
    out += s;
    memo_strings_[s] = Memoize();
  }
  void Int(int64_t v) {
    if (v >= 0 && v < 256) {
      out += 'K';
      Le(static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v < 65536) {
      out += 'M';
      Le(static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out += 'J';
      Le(static_cast<uint32_t>(v), 4);
    } else {
      out += "\x8a\x08";
      Le(static_cast<uint64_t>(v), 8);
    }
  }
  uint32_t BeginDict() {
    out += '}';
    const uint32_t id = Memoize();
    out += '(';
    return id;
  }
  void EndDict() { out += 'u'; }
  void BeginList() {
    out += ']';
    Memoize();
    out += '(';
  }
  void EndList() { out += 'e'; }
  void Get(uint32_t id) {
    if (id < 256) {
      out += 'h';
      Le(id, 1);
    } else {
      out += 'j';
      Le(id, 4);
    }
  }
  void Stop() { out += '.'; }

 private:
  uint32_t Memoize() {
    out += '\x94';
    return next_memo_++;
  }
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  std::map<std::string, uint32_t> memo_strings_;
  uint32_t next_memo_ = 0;
};

class SnapshotWriter {
 public:
  explicit SnapshotWriter(uint64_t target_bytes) : target_(target_bytes) {}

  std::string Write() {
    w_.BeginDict();
    w_.Str("segments");
    w_.BeginList();
    int64_t address = 0x7f0000000000;
    // Half the bytes in segments, half in the trace, as in the kkaitlyn111 full-step files.
    while (w_.out.size() < target_ / 2) address = Segment(address);
    w_.EndList();
    w_.Str("device_traces");
    w_.BeginList();
    w_.BeginList();
    while (w_.out.size() < target_) TraceEntry();
    w_.EndList();
    w_.EndList();
    w_.EndDict();
    w_.Stop();
    return std::move(w_.out);
  }

 private:
  // One of 2,000 call stacks (real snapshots repeat a few hundred), written out as its own list of
  // memo GETs the way PyTorch's pickler does.
  void Frames() {
    w_.BeginList();
    std::mt19937_64 stack_rng(rng_() % 2000);
    const size_t depth = 20 + stack_rng() % 30;
    for (size_t i = 0; i < depth; ++i) {
      const size_t f = stack_rng() % 4000;
      if (frame_memo_.size() <= f) frame_memo_.resize(f + 1, UINT32_MAX);
      if (frame_memo_[f] != UINT32_MAX) {
        w_.Get(frame_memo_[f]);
        continue;
      }
      frame_memo_[f] = w_.BeginDict();
      w_.Str("name");
      w_.Str(
          fmt::format("at::native::kernel_{}(c10::ArrayRef<long>, c10::TensorOptions const&)", f));
      w_.Str("filename");
      w_.Str(fmt::format("/src/model/layer_{}.py", f % 97));
      w_.Str("line");
      w_.Int(static_cast<int64_t>(f % 900));
      w_.EndDict();
    }
    w_.EndList();
  }

  int64_t Segment(int64_t address) {
    const int64_t total = int64_t{2} << 20;
    w_.BeginDict();
    for (const char* key : {"device", "address", "total_size", "allocated_size", "active_size",
                            "requested_size", "stream"}) {
      w_.Str(key);
      w_.Int(std::string_view(key) == "address" ? address
                                                : (std::string_view(key) == "device" ? 0 : total));
    }
    w_.Str("segment_type");
    w_.Str("large");
    w_.Str("blocks");
    w_.BeginList();
    for (int b = 0; b < 8; ++b) {
      w_.BeginDict();
      w_.Str("address");
      w_.Int(address + b * (total / 8));
      w_.Str("size");
      w_.Int(total / 8);
      w_.Str("requested_size");
      w_.Int(total / 8 - 16);
      w_.Str("state");
      w_.Str(b % 3 ? "active_allocated" : "inactive");
      w_.Str("frames");
      Frames();
      w_.EndDict();
    }
    w_.EndList();
    w_.EndDict();
    return address + total;
  }

  void TraceEntry() {
    static const char* kActions[] = {"alloc", "free_requested", "free_completed"};
    w_.BeginDict();
    w_.Str("action");
    w_.Str(kActions[entries_ % 3]);
    w_.Str("addr");
    w_.Int(0x7f0000000000 + static_cast<int64_t>(rng_() % (1u << 30)));
    w_.Str("size");
    w_.Int(static_cast<int64_t>(512 + rng_() % (1u << 24)));
    w_.Str("stream");
    w_.Int(0);
    w_.Str("time_us");
    w_.Int(1772688692031317 + entries_ * 10);
    w_.Str("frames");
    Frames();
    w_.EndDict();
    ++entries_;
  }

  uint64_t target_;
  PickleWriter w_;
  std::mt19937_64 rng_{17};
  std::vector<uint32_t> frame_memo_;
  int64_t entries_ = 0;
};

// CPU time of this (single-threaded) process: one core's throughput, robust on a loaded machine.
double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

struct Decoded {
  uint64_t bytes = 0;
  uint64_t values = 0;
  uint64_t segments = 0;
  uint64_t trace = 0;
  double work_seconds = 0;  // CPU seconds of the decode (or import) alone, not reading the file
};
struct RunResult : Decoded, gpuwhy::bench::ChildUsage {};

// What each row measures.
enum class Mode {
  kDecode,          // DecodePickle alone: the document
  kImportDocument,  // the document path: DecodePickle, then the walk into MemorySnapshot
  kImport,          // ParseMemorySnapshot, what gpuwhy analyze/info run: the one-pass reader
};

bool RunOnce(const std::string& path, Mode mode, RunResult& out) {
  Decoded decoded;
  bool ok = gpuwhy::bench::RunInChild(
      [&](Decoded& r) {
        gpuwhy::StatusOr<std::string> bytes = gpuwhy::ReadWholeFile(path);
        if (!bytes.ok()) return false;
        r.bytes = bytes->size();
        const double start = CpuSeconds();
        if (mode != Mode::kDecode) {
          auto s = mode == Mode::kImport ? gpuwhy::ParseMemorySnapshot(*bytes, path)
                                         : gpuwhy::ParseMemorySnapshotViaDocument(*bytes, path);
          if (!s.ok()) {
            fmt::print(stderr, "{}\n", s.status().message());
            return false;
          }
          r.segments = s->segments.size();
          r.trace = s->trace.size();
        } else {
          auto doc = gpuwhy::pickle::DecodePickle(*bytes);
          if (!doc.ok()) {
            fmt::print(stderr, "{}\n", doc.status().message());
            return false;
          }
          r.values = doc->value_count();
        }
        r.work_seconds = CpuSeconds() - start;
        return true;
      },
      decoded, out);
  static_cast<Decoded&>(out) = decoded;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t size_mb = 100;
  int runs = 3;
  std::string path;
  std::string only;  // decode, import-document or import: that row alone (for a profiler)
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--size-mb") size_mb = std::atoll(argv[i + 1]);
    if (flag == "--runs") runs = std::atoi(argv[i + 1]);
    if (flag == "--snapshot") path = argv[i + 1];
    if (flag == "--only") only = argv[i + 1];
  }
  if (path.empty()) {
    path = (std::filesystem::temp_directory_path() /
            fmt::format("gpuwhy_snapshot_{}mb.pickle", size_mb))
               .string();
    if (!std::filesystem::exists(path)) {
      std::string bytes = SnapshotWriter(static_cast<uint64_t>(size_mb) << 20).Write();
      if (gpuwhy::Status st = gpuwhy::WriteWholeFile(path, bytes); !st.ok()) {
        fmt::print(stderr, "{}\n", st.message());
        return 1;
      }
    }
  }
  {
    // The one-pass reader must take the file, or the import row measures the fallback.
    gpuwhy::StatusOr<std::string> bytes = gpuwhy::ReadWholeFile(path);
    if (!bytes.ok()) return 1;
    gpuwhy::StreamReadResult fast = gpuwhy::ReadSnapshotStreaming(*bytes);
    if (!fast.snapshot)
      fmt::print("note: the one-pass reader declines {}: {}\n", path, fast.declined);
  }
  for (Mode mode : {Mode::kDecode, Mode::kImportDocument, Mode::kImport}) {
    const bool import = mode != Mode::kDecode;
    const char* row =
        mode == Mode::kDecode ? "decode" : (mode == Mode::kImport ? "import" : "import-document");
    if (!only.empty() && only != row) continue;
    std::vector<double> rate, cpu_rate, ratio;
    RunResult last;
    for (int r = 0; r < runs; ++r) {
      RunResult result;
      if (!RunOnce(path, mode, result)) return 1;
      const double mb = static_cast<double>(result.bytes) / (1 << 20);
      rate.push_back(mb / result.work_seconds);
      ratio.push_back(static_cast<double>(result.max_rss_kb) * 1024 /
                      static_cast<double>(result.bytes));
      last = result;
    }
    fmt::print(
        "{:<15} {}: {:.1f} MiB, median {:.0f} MiB/s of CPU time ({}), peak RSS {:.2f}x the file\n",
        row, path, static_cast<double>(last.bytes) / (1 << 20), gpuwhy::bench::Median(rate),
        import ? fmt::format("{} segments, {} trace entries", last.segments, last.trace)
               : fmt::format("{} values", last.values),
        gpuwhy::bench::Median(ratio));
  }
  return 0;
}
