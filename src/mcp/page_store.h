// Long answers are cut into pages of a bounded size so an agent's context is never flooded:
// the first page is returned at once, the rest are kept here under a cursor that the
// next_page tool takes. Bounded too: the oldest answers are dropped past a count and a byte
// total, and their cursors then say they expired.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace gpuwhy::mcp {

// |text| cut at line ends into pieces of at most |page_bytes| bytes; a longer line is cut at a
// UTF-8 character boundary. At least one page (empty text: one empty page).
std::vector<std::string> SplitPages(std::string_view text, size_t page_bytes);

struct Page {
  std::string text;
  size_t index = 1;  // 1-based
  size_t count = 1;
  std::string next_cursor;  // empty on the last page
};

class PageStore {
 public:
  PageStore(size_t page_bytes, size_t max_answers = 32, size_t max_bytes = size_t{64} << 20)
      : page_bytes_(page_bytes), max_answers_(max_answers), max_bytes_(max_bytes) {}

  // The first page of |text|; the others are kept when there are any.
  Page First(std::string_view text);
  // The page a cursor of First or Next names.
  StatusOr<Page> Next(std::string_view cursor);

  size_t page_bytes() const { return page_bytes_; }

 private:
  struct Answer {
    uint64_t number = 0;
    std::vector<std::string> pages;
    size_t bytes = 0;
  };
  Page PageOf(const Answer& answer, size_t index) const;

  size_t page_bytes_;
  size_t max_answers_;
  size_t max_bytes_;
  size_t stored_bytes_ = 0;
  uint64_t next_number_ = 1;
  std::deque<Answer> answers_;
};

}  // namespace gpuwhy::mcp
