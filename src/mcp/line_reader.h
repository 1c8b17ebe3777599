// The MCP stdio transport's framing: one JSON-RPC message per line, read with a bound. A line
// longer than the bound is skipped to its end without being kept, so no client can make the
// server hold more than the bound in memory.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

namespace gpuwhy::mcp {

enum class LineKind {
  kMessage,  // |text| holds the line without its newline (a trailing '\r' removed)
  kTooLong,  // the line was over the bound: skipped, |text| is empty
  kEnd,      // end of input (a last line without a newline is still a message)
};

struct Line {
  LineKind kind = LineKind::kEnd;
  std::string text;
};

class LineReader {
 public:
  LineReader(std::istream& in, size_t max_bytes) : in_(in), max_bytes_(max_bytes) {}
  Line Next();

 private:
  std::istream& in_;
  size_t max_bytes_;
};

}  // namespace gpuwhy::mcp
