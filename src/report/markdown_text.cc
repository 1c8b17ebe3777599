#include "report/markdown_text.h"

#include <algorithm>
#include <cctype>

#include "base/text_escape.h"

namespace gpuwhy::report {
namespace {

bool IsWordByte(char c) {
  // Bytes of multi-byte UTF-8 count as word characters, as letters do.
  return std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80;
}

// A run of '_' between two word characters cannot open or close emphasis (CommonMark's
// intra-word rule), so identifiers like "dataloader_pct" and "x86_64__nvidia" are left as
// they are; "Iter.__next__" is not.
bool UnderscoreIsInert(std::string_view s, size_t i) {
  size_t first = s.find_last_not_of('_', i);
  size_t last = s.find_first_not_of('_', i);
  return first != std::string_view::npos && last != std::string_view::npos &&
         IsWordByte(s[first]) && IsWordByte(s[last]);
}

// "@name" after a non-word character is a mention on GitHub (it notifies that user or team when a
// report is pasted into an issue or PR): the text "@torch" from a trace must not ping anyone.
// An "a@b" inside a word (an e-mail address) is no mention and stays.
bool StartsMention(std::string_view s, size_t i) {
  return s[i] == '@' && i + 1 < s.size() && std::isalnum(static_cast<unsigned char>(s[i + 1])) &&
         (i == 0 || !IsWordByte(s[i - 1]));
}

size_t LongestBacktickRun(std::string_view s) {
  size_t longest = 0;
  size_t run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

}  // namespace

std::string MarkdownText(std::string_view text) {
  std::string safe = text::EscapeControl(text, text::LineBreaks::kEscape);
  std::string out;
  out.reserve(safe.size());
  for (size_t i = 0; i < safe.size(); ++i) {
    char c = safe[i];
    bool special = std::string_view("\\`*[]<|~$").find(c) != std::string_view::npos ||
                   (c == '_' && !UnderscoreIsInert(safe, i));
    if (special) out += '\\';
    out += c;
    // A zero-width space after '@' renders nothing and breaks the mention, as bots that quote
    // user text on GitHub do.
    if (StartsMention(safe, i)) out += "&#8203;";
  }
  return out;
}

std::string MarkdownCode(std::string_view text) {
  std::string safe = text::EscapeControl(text, text::LineBreaks::kEscape);
  std::string fence(LongestBacktickRun(safe) + 1, '`');
  bool pad = !safe.empty() && (safe.front() == '`' || safe.back() == '`');
  return fence + (pad ? " " : "") + safe + (pad ? " " : "") + fence;
}

std::string MarkdownFence(std::string_view content) {
  return std::string(std::max<size_t>(3, LongestBacktickRun(content) + 1), '`');
}

std::string MarkdownCodeBlock(std::string_view language, std::string_view content,
                              std::string_view indent) {
  std::string safe = text::EscapeControl(content, text::LineBreaks::kKeep);
  std::string fence = MarkdownFence(safe);
  std::string out = std::string(indent) + fence + std::string(language) + "\n";
  size_t start = 0;
  while (start < safe.size()) {
    size_t end = safe.find('\n', start);
    if (end == std::string::npos) end = safe.size();
    out += std::string(indent) + safe.substr(start, end - start) + "\n";
    start = end + 1;
  }
  out += std::string(indent) + fence + "\n";
  return out;
}

}  // namespace gpuwhy::report
