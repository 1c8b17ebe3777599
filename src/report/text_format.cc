#include "report/text_format.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "base/text_escape.h"
#include "report/report.h"

namespace gpuwhy::report {
namespace {

// Index of the '(' matching the ')' that ends |name|, or npos.
size_t OpeningParen(std::string_view name) {
  if (name.empty() || name.back() != ')') return std::string_view::npos;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// "at::native::(anonymous namespace)::foo" -> "foo": the last top-level "::" part.
std::string DropQualifiers(std::string_view name) {
  int depth = 0;
  size_t cut = 0;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    if (name[i] == '<' || name[i] == '(') ++depth;
    if ((name[i] == '>' || name[i] == ')') && depth > 0) --depth;
    if (depth == 0 && name[i] == ':' && name[i + 1] == ':') cut = i + 2;
  }
  return std::string(name.substr(cut));
}

// Index of the first top-level '< (a template's argument list), or npos.
size_t TemplateOpen(std::string_view name) {
  int parens = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '(') ++parens;
    if (name[i] == ')' && parens > 0) --parens;
    if (name[i] == '<' && parens == 0) return i;
  }
  return std::string_view::npos;
}

bool IsNoiseIdentifier(std::string_view word) {
  static constexpr std::string_view kNoise[] = {
      "at",        "native",  "detail",   "Array",  "anonymous",
      "namespace", "lambda",  "operator", "const",  "unsigned",
      "signed",    "long",    "short",    "c10",    "std",
      "cuda",      "void",    "true",     "false",  "Half",
      "BFloat16",  "cutlass", "cub",      "thrust", "OffsetCalculator",
      "char"};
  for (std::string_view noise : kNoise) {
    if (word == noise) return true;
  }
  for (std::string_view type : {"float", "double", "int", "half", "bool", "uint", "size_t"}) {
    if (word.starts_with(type) &&
        word.find_first_not_of("0123456789_t", type.size()) == std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// The identifier that tells instantiations of one template apart ("FillFunctor",
// "launch_clamp_scalar"): the first template-argument word that is not a namespace, a
// builtin type or a number. Empty when there is none.
std::string TemplateHint(std::string_view args) {
  size_t i = 0;
  while (i < args.size()) {
    if (!std::isalpha(static_cast<unsigned char>(args[i])) && args[i] != '_') {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < args.size() && (std::isalnum(static_cast<unsigned char>(args[i])) || args[i] == '_'))
      ++i;
    std::string_view word = args.substr(start, i - start);
    bool qualifier = args.substr(i, 2) == "::";
    if (!qualifier && !IsNoiseIdentifier(word)) return std::string(word);
  }
  return "";
}

// Cuts the middle of |text| to |width| columns: names often differ at both ends.
std::string FitMiddle(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width || width < 8) return FitWidth(text, width);
  size_t tail = (width - 1) / 3;
  std::string head = FitWidth(text, width - tail);  // ends with "…"
  size_t cut = text.size();
  for (size_t columns = 0; cut > 0 && columns < tail;) {
    --cut;
    if (!IsUtf8ContinuationByte(text[cut])) ++columns;
  }
  return head + std::string(text.substr(cut));
}

std::string FixedMs(double ms) {
  if (std::isnan(ms)) return "n/a";
  if (std::fabs(ms) < 100) return fmt::format("{:.3f} ms", ms);
  // Group the integer part so long spans stay readable.
  double rounded = std::round(ms * 10) / 10;
  int64_t whole = static_cast<int64_t>(rounded);
  int tenth = static_cast<int>(std::llround(std::fabs(rounded - static_cast<double>(whole)) * 10));
  return fmt::format("{}.{} ms", Count(whole), tenth);
}

}  // namespace

std::string ShortenKernelName(std::string_view name, size_t width) {
  std::string s(name);
  if (s.starts_with("void ")) s.erase(0, 5);
  if (DisplayWidth(s) <= width) return s;
  if (size_t paren = OpeningParen(s); paren != std::string::npos && paren > 0) s.resize(paren);
  if (DisplayWidth(s) <= width) return s;
  size_t open = TemplateOpen(s);
  if (open == std::string::npos) return FitMiddle(DropQualifiers(s), width);
  std::string hint = TemplateHint(std::string_view(s).substr(open));
  std::string args = "<" + (hint.empty() ? std::string("…") : hint) + ">";
  std::string base = s.substr(0, open);
  if (DisplayWidth(base) + DisplayWidth(args) <= width) return base + args;
  base = DropQualifiers(base);
  if (DisplayWidth(base) + DisplayWidth(args) <= width) return base + args;
  // Give the hint at most half the column, the template name the rest.
  if (DisplayWidth(args) * 2 > width) {
    if (width < 8) return FitWidth(base, width);
    args = "<" + FitWidth(hint, width / 2 - 2) + ">";
  }
  return FitWidth(base, width - DisplayWidth(args)) + args;
}

std::vector<std::string> ShortenKernelNames(const std::vector<std::string>& names, size_t width) {
  std::vector<std::string> shortened;
  for (const std::string& name : names) shortened.push_back(ShortenKernelName(name, width));
  constexpr size_t kHead = 10;
  if (width < 2 * kHead) return shortened;
  std::vector<std::string> cores;  // "void " and the argument list removed
  for (const std::string& name : names) {
    std::string core = name.starts_with("void ") ? name.substr(5) : name;
    if (size_t paren = OpeningParen(core); paren != std::string::npos && paren > 0)
      core.resize(paren);
    cores.push_back(std::move(core));
  }
  std::vector<std::string> out = shortened;
  for (size_t i = 0; i < names.size(); ++i) {
    size_t common = 0;  // longest common prefix with a name that reads the same
    bool collides = false;
    for (size_t j = 0; j < names.size(); ++j) {
      if (j == i || shortened[j] != shortened[i]) continue;
      collides = true;
      size_t n = 0;
      while (n < cores[i].size() && n < cores[j].size() && cores[i][n] == cores[j][n]) ++n;
      common = std::max(common, n);
    }
    if (!collides || common <= kHead) continue;
    // Start the visible tail at the word where the names part.
    size_t start = common;
    for (size_t back = 0; back < 8 && start > kHead; ++back) {
      char c = cores[i][start - 1];
      if (c == '_' || c == ':' || c == '<' || c == ',' || c == ' ') break;
      --start;
    }
    while (start < cores[i].size() && IsUtf8ContinuationByte(cores[i][start])) ++start;
    std::string head = FitWidth(cores[i], kHead + 1);  // kHead columns and "…"
    out[i] = head + FitWidth(std::string_view(cores[i]).substr(start), width - kHead - 1);
  }
  return out;
}

std::string Ms(double ms) { return FixedMs(ms); }

std::string Duration(double ns) {
  if (std::isnan(ns)) return "n/a";
  double magnitude = std::fabs(ns);
  if (magnitude < 1e3) return fmt::format("{:.0f} ns", ns);
  if (magnitude < 1e6) return fmt::format("{:.1f} µs", ns / 1e3);
  if (magnitude < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

std::string Us(double us) {
  if (std::isnan(us)) return "n/a";
  if (std::fabs(us) >= 1e5) return fmt::format("{:.1f} ms", us / 1e3);
  return fmt::format("{:.1f} µs", us);
}

std::string Pct(double pct) {
  if (std::isnan(pct)) return "n/a";
  return fmt::format("{:.1f} %", pct);
}

std::string Bytes(double bytes) {
  constexpr std::string_view kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (std::isnan(bytes) || bytes < 0) return "n/a";
  if (bytes < 1024) return fmt::format("{:.0f} B", bytes);
  double value = bytes / 1024;
  size_t unit = 0;
  for (; value >= 1024 && unit + 1 < std::size(kUnits); value /= 1024) ++unit;
  if (value < 10) return fmt::format("{:.2f} {}", value, kUnits[unit]);
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string GBps(double gbps) {
  if (std::isnan(gbps)) return "n/a";
  return fmt::format("{:.1f} GB/s", gbps);
}

std::string Offset(TimeNs t, TimeNs origin) { return "+" + FixedMs(NsToMs(t - origin)); }

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  // Escaped before fitting, so a name's control characters count as the columns they print.
  for (size_t i = 0; i < cells.size(); ++i) {
    cells[i] = FitWidth(text::EscapeControl(cells[i]), columns_[i].max_width);
  }
  rows_.push_back(std::move(cells));
}

void TextTable::Render(std::string& out) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    widths[i] = std::min(DisplayWidth(columns_[i].title), columns_[i].max_width);
    for (const auto& row : rows_) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }
  const std::string gap(tight_ ? 1 : 2, ' ');
  auto render_row = [&](const std::vector<std::string>& cells) {
    std::string line(indent_, ' ');
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) line += gap;
      std::string cell = FitWidth(cells[i], widths[i]);
      std::string pad(widths[i] - DisplayWidth(cell), ' ');
      line += columns_[i].align == Align::kLeft ? cell + pad : pad + cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    Line(out, line);
  };
  std::vector<std::string> titles;
  for (const Column& column : columns_) titles.push_back(column.title);
  render_row(titles);
  for (const auto& row : rows_) render_row(row);
}

void Line(std::string& out, std::string_view text) {
  out += FitWidth(text::EscapeControl(text), kReportWidth);
  out += '\n';
}

namespace {

// "ms", "%", "µs),": a unit that must stay on the line of its number.
bool IsUnitWord(std::string_view word) {
  while (!word.empty() && std::string_view(")],;:.").find(word.back()) != std::string_view::npos) {
    word.remove_suffix(1);
  }
  for (std::string_view unit :
       {"%", "ns", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB", "GB/s", "TFLOP", "TFLOP/s"}) {
    if (word == unit) return true;
  }
  return false;
}

// Words split at spaces, with each unit glued to the number before it.
std::vector<std::string> UnitWords(std::string_view text) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t space = text.find(' ', pos);
    std::string_view word = text.substr(pos, space == std::string_view::npos ? space : space - pos);
    pos = space == std::string_view::npos ? text.size() : space + 1;
    if (word.empty()) continue;
    if (!words.empty() && IsUnitWord(word)) {
      words.back() += " " + std::string(word);
    } else {
      words.emplace_back(word);
    }
  }
  return words;
}

}  // namespace

void Wrapped(std::string& out, std::string_view text, size_t indent) {
  Wrapped(out, text, indent, indent + 2);
}

void Wrapped(std::string& out, std::string_view text, size_t indent, size_t hanging) {
  std::string line(indent, ' ');
  size_t line_width = indent;
  bool line_empty = true;
  // Escaped first, so the wrap measures what is printed.
  for (const std::string& word : UnitWords(text::EscapeControl(text))) {
    size_t word_width = DisplayWidth(word);
    if (!line_empty && line_width + 1 + word_width > kReportWidth) {
      Line(out, line);
      line = std::string(hanging, ' ');
      line_width = hanging;
      line_empty = true;
    }
    if (!line_empty) {
      line += ' ';
      ++line_width;
    }
    line += word;
    line_width += word_width;
    line_empty = false;
  }
  if (!line_empty) Line(out, line);
}

}  // namespace gpuwhy::report
