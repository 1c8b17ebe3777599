// Deterministic mutation fuzzing of the recording reader, seeded with recordings this test
// writes (a small set, one written in several flushes, a live procfs recording, and real
// metric logs from ../shared/data re-recorded) and any recording found under ../shared/data.
// The ctest run is short (GPUWHY_FUZZ_ITERATIONS, default 3000 mutants, a few seconds); for a
// long run:
//   GPUWHY_FUZZ_SECONDS=600 ./ingest_recording_fuzz_test
// Mutations: truncation, byte flips, extreme numbers in header fields, NaN and infinite values,
// runs of varint continuation bytes, deleted and duplicated chunks; a tenth of them also go
// through a gzip file cut or corrupted, as a killed recorder or a bad disk leaves it.
#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <thread>

#include "base/file_input.h"
#include "collect/procfs_sampler.h"
#include "collect/recording_test_util.h"
#include "collect/recording_writer.h"
#include "collect/sampler_thread.h"
#include "ingest/metrics/metric_log.h"
#include "ingest/recording_fuzz_body.h"

namespace gpuwhy {
namespace recording_fuzz_test {

namespace fs = std::filesystem;

// The same set written in four flushes, as `gpuwhy run` writes it.
std::string Chunked(const MetricSeriesSet& whole) {
  RecordingEncoder encoder;
  MetricSeriesSet growing;
  growing.source = whole.source;
  std::string out;
  for (int part = 1; part <= 4; ++part) {
    // Header records arrive mid-run too.
    if (part == 2) {
      growing.devices = whole.devices;
      growing.notes = whole.notes;
      growing.sampler_cpu_pct = whole.sampler_cpu_pct;
    }
    if (part == 3) growing.problems = whole.problems;
    for (const auto& [key, s] : whole.all()) {
      size_t have = growing.Find(key.metric, key.device, key.entity)
                        ? growing.Find(key.metric, key.device, key.entity)->size()
                        : 0;
      for (size_t i = have; i < s.size() * part / 4; ++i) {
        growing.Add(key, s.unit, s.time[i], s.value[i]);
      }
    }
    encoder.EncodeNew(growing, out);
  }
  RecordingEncoder::EncodeEnd(out);
  return out;
}

std::string LiveProcfs() {
  std::vector<std::unique_ptr<Sampler>> samplers;
  samplers.push_back(std::make_unique<ProcfsSampler>("/", getpid()));
  SamplerThread thread(std::move(samplers), 20 * kNsPerMs);
  thread.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  thread.Stop();
  MetricSeriesSet set;
  set.source = "gpuwhy record";
  thread.DrainInto(set);
  return EncodeRecording(set);
}

std::vector<std::string> Seeds() {
  std::vector<std::string> seeds = {EncodeRecording(ExampleRecordingSet()),
                                    Chunked(ExampleRecordingSet()), LiveProcfs()};
  std::error_code ec;
  for (fs::recursive_directory_iterator it(GPUWHY_SHARED_DATA, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->file_size(ec) > (8u << 20)) continue;
    const std::string path = it->path().string();
    MetricLogFormat format = SniffMetricLogFile(path);
    if (format == MetricLogFormat::kNone) continue;
    // A recording as it is; any other metric log recorded again (cut to keep mutants cheap).
    StatusOr<std::string> bytes = ReadWholeFile(path);
    if (format != MetricLogFormat::kRecording) {
      StatusOr<MetricSeriesSet> set = ImportMetricLog(path);
      bytes = set.ok() ? StatusOr<std::string>(EncodeRecording(*set)) : set.status();
    }
    if (bytes.ok()) seeds.push_back(bytes->substr(0, 64 * 1024));
  }
  return seeds;
}

std::string Mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  static const char* const kNumbers[] = {"nan",
                                         "inf",
                                         "-inf",
                                         "-1",
                                         "1e18",
                                         "1e9",
                                         "9223372036854775807",
                                         "99999999999999999999",
                                         "-9223372036854775808",
                                         "0x7f",
                                         ""};
  int rounds = 1 + static_cast<int>(pick(4));
  for (int r = 0; r < rounds; ++r) {
    switch (pick(9)) {
      case 0: s.resize(pick(s.size() + 1)); break;  // a cut anywhere
      case 1:
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 2: {  // a header number (a count, an index, an interval) replaced
        size_t at = s.find_first_of("\t ", pick(s.size()));
        if (at == std::string::npos) break;
        size_t end = s.find_first_of("\t\n", at + 1);
        if (end == std::string::npos) end = s.size();
        s.replace(at + 1, end - at - 1, kNumbers[pick(std::size(kNumbers))]);
        break;
      }
      case 3: {  // a value made NaN or infinite
        if (s.size() < 8) break;
        const double v = pick(2) ? std::numeric_limits<double>::quiet_NaN()
                                 : std::numeric_limits<double>::infinity();
        std::memcpy(s.data() + pick(s.size() - 7), &v, 8);
        break;
      }
      case 4: s.insert(pick(s.size() + 1), std::string(1 + pick(12), '\xff')); break;
      case 5: {  // delete a chunk
        size_t at = pick(s.size());
        s.erase(at, pick(200));
        break;
      }
      case 6: {  // duplicate a chunk
        size_t at = pick(s.size());
        s.insert(at, s.substr(at, pick(300)));
        break;
      }
      case 7: s.insert(pick(s.size() + 1), std::string(1, "\t\n \0"[pick(4)])); break;
      case 8: s.insert(pick(s.size() + 1), "series x\t0\t\t%\t\t" + std::to_string(rng()) + "\n");
    }
  }
  return s;
}

std::string Gzip(std::string_view bytes) {
  uLongf size = compressBound(static_cast<uLong>(bytes.size())) + 32;
  std::string out(size, '\0');
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// The file path: a compressed recording cut or corrupted, read as `gpuwhy analyze` reads it.
bool FuzzRecordingFile(const std::string& path, std::string gz, std::mt19937_64& rng) {
  if (rng() % 2 == 0) {
    gz.resize(static_cast<size_t>(rng() % (gz.size() + 1)));
  } else if (!gz.empty()) {
    gz[static_cast<size_t>(rng() % gz.size())] ^= static_cast<char>(1 + rng() % 255);
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(gz.data(), static_cast<std::streamsize>(gz.size()));
  try {
    StatusOr<MetricSeriesSet> set = ImportMetricLog(path);
    return !set.ok() || RecordingSetIsSound(*set, 64u << 20);
  } catch (const std::exception&) {
    return false;
  }
}

TEST(RecordingFuzzTest, MutantsNeverBreakTheContract) {
  std::vector<std::string> seeds = Seeds();
  const char* seconds_env = std::getenv("GPUWHY_FUZZ_SECONDS");
  const char* iterations_env = std::getenv("GPUWHY_FUZZ_ITERATIONS");
  const int64_t seconds = seconds_env ? std::atoll(seconds_env) : 0;
  const int64_t iterations = iterations_env ? std::atoll(iterations_env) : 3000;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::mt19937_64 rng(0x7265636f7264ULL);
  for (const std::string& seed : seeds) ASSERT_TRUE(FuzzRecordingReader(seed));
  std::string dir = (fs::temp_directory_path() / "gpuwhy_recfuzz_XXXXXX").string();
  dir = ::mkdtemp(dir.data());
  const std::string file = dir + "/mutant.rec";
  int64_t runs = 0;
  while (seconds > 0 ? std::chrono::steady_clock::now() < deadline : runs < iterations) {
    const std::string& seed = seeds[static_cast<size_t>(rng() % seeds.size())];
    std::string mutant = Mutate(seed, rng);
    ASSERT_TRUE(FuzzRecordingReader(mutant))
        << "run " << runs << ": contract broken for input of " << mutant.size() << " bytes";
    if (runs % 10 == 0) {
      ASSERT_TRUE(FuzzRecordingFile(file, Gzip(rng() % 2 ? seed : mutant), rng))
          << "run " << runs << ": contract broken for a gzip file";
    }
    ++runs;
  }
  RecordProperty("runs", std::to_string(runs));
  fs::remove_all(dir);
}

}  // namespace recording_fuzz_test
}  // namespace gpuwhy
