#include "mcp/page_store.h"

#include <charconv>

namespace gpuwhy::mcp {
namespace {

// The largest cut <= |limit| that does not split a UTF-8 character of |text|.
size_t CharBoundary(std::string_view text, size_t limit) {
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return cut == 0 ? limit : cut;
}

// "a<answer>p<page>".
std::string Cursor(uint64_t answer, size_t page) {
  return "a" + std::to_string(answer) + "p" + std::to_string(page);
}

bool ParseCursor(std::string_view cursor, uint64_t& answer, size_t& page) {
  if (cursor.size() < 4 || cursor[0] != 'a') return false;
  const size_t p = cursor.find('p');
  if (p == std::string_view::npos) return false;
  const char* end = cursor.data() + cursor.size();
  auto [a_end, a_error] = std::from_chars(cursor.data() + 1, cursor.data() + p, answer);
  auto [p_end, p_error] = std::from_chars(cursor.data() + p + 1, end, page);
  return a_error == std::errc() && a_end == cursor.data() + p && p_error == std::errc() &&
         p_end == end;
}

}  // namespace

std::vector<std::string> SplitPages(std::string_view text, size_t page_bytes) {
  std::vector<std::string> pages;
  if (page_bytes == 0) page_bytes = 1;
  while (text.size() > page_bytes) {
    size_t cut = text.rfind('\n', page_bytes - 1);
    cut = cut == std::string_view::npos ? CharBoundary(text, page_bytes) : cut + 1;
    pages.emplace_back(text.substr(0, cut));
    text.remove_prefix(cut);
  }
  pages.emplace_back(text);
  return pages;
}

Page PageStore::PageOf(const Answer& answer, size_t index) const {
  Page page;
  page.text = answer.pages[index - 1];
  page.index = index;
  page.count = answer.pages.size();
  if (index < page.count) page.next_cursor = Cursor(answer.number, index + 1);
  return page;
}

Page PageStore::First(std::string_view text) {
  Answer answer;
  answer.number = next_number_++;
  answer.pages = SplitPages(text, page_bytes_);
  Page first = PageOf(answer, 1);
  if (answer.pages.size() == 1) return first;
  answer.bytes = text.size();
  stored_bytes_ += answer.bytes;
  answers_.push_back(std::move(answer));
  while (answers_.size() > max_answers_ || (stored_bytes_ > max_bytes_ && answers_.size() > 1)) {
    stored_bytes_ -= answers_.front().bytes;
    answers_.pop_front();
  }
  return first;
}

StatusOr<Page> PageStore::Next(std::string_view cursor) {
  uint64_t number = 0;
  size_t index = 0;
  if (!ParseCursor(cursor, number, index)) {
    return InvalidArgument("cursor '{}' is not one this server gave (they read a<N>p<M>)", cursor);
  }
  for (const Answer& answer : answers_) {
    if (answer.number != number) continue;
    if (index < 1 || index > answer.pages.size()) {
      return InvalidArgument("cursor '{}': answer {} has {} pages", cursor, number,
                             answer.pages.size());
    }
    return PageOf(answer, index);
  }
  return NotFound("cursor '{}' expired or was never given: call the tool again", cursor);
}

}  // namespace gpuwhy::mcp
