#include "mcp/line_reader.h"

#include <istream>

namespace gpuwhy::mcp {

Line LineReader::Next() {
  Line line;
  std::streambuf* buffer = in_.rdbuf();
  bool over = false;
  bool any = false;
  for (;;) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in_.setstate(std::ios::eofbit);
      if (!any) return line;  // kEnd
      break;
    }
    any = true;
    if (c == '\n') break;
    if (over) continue;
    if (line.text.size() == max_bytes_) {
      over = true;
      line.text.clear();
      line.text.shrink_to_fit();
      continue;
    }
    line.text.push_back(static_cast<char>(c));
  }
  if (over) {
    line.kind = LineKind::kTooLong;
    return line;
  }
  if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
  line.kind = LineKind::kMessage;
  return line;
}

}  // namespace gpuwhy::mcp
