#include "ingest/kineto/bracket_scanner.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace gpuwhy {
namespace bracket_scanner_test {

// Byte-by-byte reference: the obviously correct version of FindEnd.
size_t ReferenceEnd(const std::string& s, size_t begin) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = begin; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '{' || c == '[')
      ++depth;
    else if ((c == '}' || c == ']') && --depth == 0)
      return i + 1;
  }
  return BracketScanner::kNotFound;
}

std::string RandomValue(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, 9);
  int kind = depth > 3 ? 0 : pick(rng);
  if (kind <= 3) {
    std::string s = "\"";
    int n = pick(rng) * 9;
    for (int i = 0; i < n; ++i) {
      static const char kChars[] = "ab{}[],: \\\"x";
      char c = kChars[pick(rng) % 12];
      if (c == '\\' || c == '"') s += '\\';
      s += c;
    }
    return s + "\"";
  }
  if (kind <= 5) return std::to_string(pick(rng) * 1234567);
  bool object = kind <= 7;
  std::string s = object ? "{" : "[";
  int n = pick(rng) % 5;
  for (int i = 0; i < n; ++i) {
    if (i > 0) s += ", ";
    if (object) s += "\"k" + std::to_string(i) + "\": ";
    s += RandomValue(rng, depth + 1);
  }
  return s + (object ? "}" : "]");
}

TEST(BracketScannerTest, MatchesReferenceOnRandomEventStreams) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    std::string stream;
    std::vector<size_t> starts;
    int events = 1 + round % 20;
    for (int e = 0; e < events; ++e) {
      starts.push_back(stream.size());
      stream += "{\"ph\": \"X\", \"v\": " + RandomValue(rng, 1) + "}";
      stream += e % 3 == 0 ? ",\n  " : ",";
    }
    std::string padded = stream + std::string(64, ' ');
    BracketScanner scanner;  // reused across events, as the splitter does
    for (size_t start : starts) {
      size_t expected = ReferenceEnd(stream, start);
      ASSERT_EQ(scanner.FindEnd(padded.data(), start, stream.size()), expected)
          << "round " << round << " start " << start;
    }
    // Cut short: nothing past the cut may be reported.
    size_t cut = stream.size() / 2;
    BracketScanner fresh;
    size_t got = fresh.FindEnd(padded.data(), 0, cut);
    size_t want = ReferenceEnd(stream.substr(0, cut), 0);
    EXPECT_EQ(got, want);
  }
}

TEST(BracketScannerTest, EscapesAcrossBlockBoundaries) {
  for (size_t pad = 0; pad < 70; ++pad) {
    std::string s = "{\"a\": \"" + std::string(pad, 'x') + "\\\"}\\\\\", \"b\": [1]}";
    std::string padded = s + std::string(64, ' ');
    BracketScanner scanner;
    EXPECT_EQ(scanner.FindEnd(padded.data(), 0, s.size()), s.size()) << pad;
  }
}

}  // namespace bracket_scanner_test
}  // namespace gpuwhy
