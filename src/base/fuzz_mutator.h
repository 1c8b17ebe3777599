// Test helpers for the deterministic mutation fuzzers (the *_fuzz_test.cc beside each parser of
// untrusted bytes): reproducible mutants of seed inputs and the budget every fuzzer shares.
// Short in ctest (a fixed number of mutants per parser); a long run sets GPUWHY_FUZZ_SECONDS=N
// (each parser runs N seconds), GPUWHY_FUZZ_ITERATIONS=N changes the fixed number.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_input.h"

namespace gpuwhy::testing {

class FuzzBudget {
 public:
  explicit FuzzBudget(int64_t default_iterations) {
    const char* seconds = std::getenv("GPUWHY_FUZZ_SECONDS");
    const char* iterations = std::getenv("GPUWHY_FUZZ_ITERATIONS");
    seconds_ = seconds ? std::atoll(seconds) : 0;
    iterations_ = iterations ? std::atoll(iterations) : default_iterations;
    deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(seconds_);
  }
  // True while another mutant fits the budget; counts it.
  bool Next() {
    if (seconds_ > 0 ? std::chrono::steady_clock::now() >= deadline_ : runs_ >= iterations_) {
      return false;
    }
    ++runs_;
    return true;
  }
  int64_t runs() const { return runs_; }

 private:
  int64_t seconds_ = 0;
  int64_t iterations_ = 0;
  int64_t runs_ = 0;
  std::chrono::steady_clock::time_point deadline_;
};

inline size_t Pick(std::mt19937_64& rng, size_t n) {
  return n == 0 ? 0 : static_cast<size_t>(rng() % n);
}

// Text and JSON mutants: truncation, byte flips, digit swaps, deleted and duplicated chunks,
// inserted separators and NUL bytes, long runs, and JSON-shaped edits (a number replaced by an
// extreme one, a value by one of another type, deep nesting).
inline std::string MutateText(std::string s, std::mt19937_64& rng) {
  static constexpr std::string_view kValues[] = {"-1",
                                                 "0",
                                                 "1e309",
                                                 "-1e309",
                                                 "NaN",
                                                 "9223372036854775807",
                                                 "-9223372036854775809",
                                                 "18446744073709551616",
                                                 "1.7976931348623157e308",
                                                 "4.9e-324",
                                                 "\"\"",
                                                 "\"x\"",
                                                 "null",
                                                 "true",
                                                 "[]",
                                                 "{}",
                                                 "[[[[[[[[[[[[[[[[",
                                                 "\"\\ud800\"",
                                                 "\"\\u0000\"",
                                                 "\xff\xfe"};
  int rounds = 1 + static_cast<int>(Pick(rng, 4));
  for (int r = 0; r < rounds; ++r) {
    switch (Pick(rng, 11)) {
      case 0: s.resize(Pick(rng, s.size() + 1)); break;
      case 1:
        if (!s.empty()) s[Pick(rng, s.size())] = static_cast<char>(rng());
        break;
      case 2:
        for (char& c : s) {
          if (c >= '0' && c <= '9' && Pick(rng, 8) == 0) c = "x-.e90"[Pick(rng, 6)];
        }
        break;
      case 3: {  // delete a chunk
        size_t at = Pick(rng, s.size() + 1);
        s.erase(at, Pick(rng, 300));
        break;
      }
      case 4: {  // duplicate a chunk
        size_t at = Pick(rng, s.size() + 1);
        s.insert(at, s.substr(at, Pick(rng, 300)));
        break;
      }
      case 5:
        s.insert(Pick(rng, s.size() + 1), std::string(1, "<>:|/\t\n,()[]{}=\"'\\;"[Pick(rng, 20)]));
        break;
      case 6: s.insert(Pick(rng, s.size() + 1), std::string(1 + Pick(rng, 4), '\0')); break;
      case 7:
        s.insert(Pick(rng, s.size() + 1),
                 std::string(1000 + Pick(rng, 30000), "A9 ,["[Pick(rng, 5)]));
        break;
      case 8: {  // a number (or the token at a random place) replaced by an extreme value
        size_t at = Pick(rng, s.size() + 1);
        size_t digit = s.find_first_of("0123456789", at);
        if (digit == std::string::npos) digit = at;
        size_t end = s.find_first_not_of("0123456789.eE+-", digit);
        if (end == std::string::npos) end = s.size();
        s.replace(digit, end - digit, kValues[Pick(rng, std::size(kValues))]);
        break;
      }
      case 9: {  // a value after a ':' replaced by one of another type
        size_t colon = s.find(':', Pick(rng, s.size() + 1));
        if (colon == std::string::npos) break;
        size_t end = s.find_first_of(",}]", colon);
        if (end == std::string::npos) end = s.size();
        s.replace(colon + 1, end - colon - 1, kValues[Pick(rng, std::size(kValues))]);
        break;
      }
      case 10: {  // swap two chunks
        if (s.size() < 4) break;
        size_t a = Pick(rng, s.size() / 2);
        size_t b = s.size() / 2 + Pick(rng, s.size() / 2);
        size_t n = std::min(Pick(rng, 64), s.size() - b);
        std::string first = s.substr(a, n);
        s.replace(a, n, s.substr(b, n));
        s.replace(b, n, first);
        break;
      }
    }
  }
  return s;
}

// Binary mutants for page-structured files (SQLite): flipped bytes, 1-, 2- and 4-byte fields
// overwritten with boundary values (a page number, a cell offset, a varint), truncation at or
// inside a page, a zeroed range and one page copied over another.
inline std::string MutateBinary(std::string s, std::mt19937_64& rng, size_t page_size) {
  static constexpr uint32_t kFields[] = {
      0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 0x10000};
  if (s.empty()) return s;
  int rounds = 1 + static_cast<int>(Pick(rng, 3));
  for (int r = 0; r < rounds && !s.empty(); ++r) {
    const size_t pages = std::max<size_t>(1, s.size() / page_size);
    // Half the edits hit page headers and cell pointers (the first bytes of a page), where
    // most of the structure is; page 1 holds the file header and the schema.
    size_t at = Pick(rng, 2) == 0
                    ? Pick(rng, pages) * page_size + Pick(rng, 64) + (Pick(rng, 2) ? 0 : 100)
                    : Pick(rng, s.size());
    at = std::min(at, s.size() - 1);
    switch (Pick(rng, 6)) {
      case 0: s[at] = static_cast<char>(s[at] ^ (1u << Pick(rng, 8))); break;
      case 1: s[at] = static_cast<char>(rng()); break;
      case 2: {
        uint32_t v = kFields[Pick(rng, std::size(kFields))];
        size_t width = size_t{1} << Pick(rng, 3);
        for (size_t i = 0; i < width && at + i < s.size(); ++i) {
          s[at + i] = static_cast<char>(v >> (8 * (width - 1 - i)));  // big-endian, as SQLite
        }
        break;
      }
      case 3: s.resize(Pick(rng, 2) ? Pick(rng, pages) * page_size : Pick(rng, s.size())); break;
      case 4: {
        size_t n = std::min(s.size() - at, Pick(rng, 512));
        std::fill(s.begin() + static_cast<ptrdiff_t>(at),
                  s.begin() + static_cast<ptrdiff_t>(at + n), '\0');
        break;
      }
      case 5: {
        if (pages < 2) break;
        size_t from = Pick(rng, pages) * page_size;
        size_t to = Pick(rng, pages) * page_size;
        if (from + page_size <= s.size() && to + page_size <= s.size()) {
          s.replace(to, page_size, s.substr(from, page_size));
        }
        break;
      }
    }
  }
  return s;
}

// The files of |dir| (none when it is absent: the inline seeds still run), each cut to
// |max_bytes| so that a mutant stays cheap.
template <typename Read>
std::vector<std::string> SeedFiles(const std::filesystem::path& dir, size_t max_bytes, Read read) {
  std::vector<std::filesystem::path> paths;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());  // deterministic mutants
  std::vector<std::string> seeds;
  for (const auto& p : paths) {
    std::string bytes = read(p.string());
    if (bytes.empty()) continue;
    if (bytes.size() > max_bytes) bytes.resize(max_bytes);
    seeds.push_back(std::move(bytes));
  }
  return seeds;
}

// SeedFiles over each of |dirs| read with ReadWholeFile (plain or gzip), in order.
inline std::vector<std::string> ReadSeedFiles(const std::vector<std::filesystem::path>& dirs,
                                              size_t max_bytes) {
  const auto read = [](const std::string& path) {
    StatusOr<std::string> text = ReadWholeFile(path);
    return text.ok() ? *text : std::string();
  };
  std::vector<std::string> seeds;
  for (const std::filesystem::path& dir : dirs) {
    for (std::string& seed : SeedFiles(dir, max_bytes, read)) seeds.push_back(std::move(seed));
  }
  return seeds;
}

// The text fuzzer's loop: |check| (what broke the contract, "" when it holds) on every seed,
// then on FuzzBudget(default_iterations) MutateText mutants of seeds picked by a generator
// seeded with |rng_seed|. Returns the first break with the run and the input's start, or "";
// |runs| gets the mutants tried.
template <typename Check>
std::string FuzzTextMutants(const std::vector<std::string>& seeds, uint64_t rng_seed,
                            int64_t default_iterations, Check check, int64_t& runs) {
  for (size_t i = 0; i < seeds.size(); ++i) {
    if (std::string broken = check(seeds[i]); !broken.empty()) {
      return "seed " + std::to_string(i) + ": " + broken;
    }
  }
  std::mt19937_64 rng(rng_seed);
  FuzzBudget budget(default_iterations);
  while (budget.Next()) {
    std::string mutant = MutateText(seeds[rng() % seeds.size()], rng);
    if (std::string broken = check(mutant); !broken.empty()) {
      return "run " + std::to_string(budget.runs()) + ": " + broken + "; input of " +
             std::to_string(mutant.size()) + " bytes:\n" + mutant.substr(0, 3000);
    }
  }
  runs = budget.runs();
  return "";
}

}  // namespace gpuwhy::testing
