// Text from a trace or log (names, file names, quoted lines, messages) placed in Markdown so
// that it reads as what it is: never a heading, link, image, emphasis or the end of a code
// block. Every Markdown renderer (report, cross-rank view) writes untrusted text through these.
#pragma once

#include <string>
#include <string_view>

namespace gpuwhy::report {

// |text| as inline Markdown that renders literally, also in a table cell: control characters
// and line breaks escaped as on the terminal ("\n"), and the characters that would start emphasis,
// code, links, HTML, tables, strike-through or math backslash-escaped ("_" only where it can start
// or end emphasis: "dataloader_pct" stays, "__next__" does not).
std::string MarkdownText(std::string_view text);
// |text| as a code span, with a fence of backticks longer than any run inside it.
std::string MarkdownCode(std::string_view text);
// A run of backticks (3 or more) that no line of |content| can close: a fenced block's fence.
std::string MarkdownFence(std::string_view content);
// |content| as a fenced code block (the fence from MarkdownFence; control characters
// escaped, line breaks kept), each line prefixed by |indent|.
std::string MarkdownCodeBlock(std::string_view language, std::string_view content,
                              std::string_view indent = "");

}  // namespace gpuwhy::report
