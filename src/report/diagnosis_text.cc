// The text report's verdict: ranked findings (the top ones with evidence, where, fixes and how
// to verify; the rest in brief), the caveats, then the field engineer's checklist. Each
// finding is a compact block with its details in a label column, so the top three findings
// fit on one screen of 100 columns.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "report/diagnosis_sections.h"
#include "report/text_format.h"

namespace gpuwhy::report {
namespace {

constexpr size_t kIndent = 4;       // a finding's detail lines
constexpr size_t kLabelWidth = 10;  // "evidence  "
constexpr size_t kMaxEvidence = 3;  // per detailed finding; JSON and Markdown have them all
constexpr size_t kMaxFixes = 2;
constexpr size_t kMaxQuotes = 3;  // quoted log lines per detailed finding     // fixes shown with
                                  // their code; the rest by name

// Splits |text| at spaces into lines of at most |width| columns (long words are cut).
std::vector<std::string> Wrap(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (!line.empty() && DisplayWidth(line) + 1 + DisplayWidth(word) > width) {
      lines.push_back(std::move(line));
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += FitWidth(word, width);
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

// "    LABEL     text…" with continuation lines under the text, at most |max_lines| lines
// (the last one ends with "…" when something was left out).
void Labelled(std::string& out, std::string_view label, std::string_view text, size_t max_lines = 2,
              size_t extra_indent = 0) {
  size_t column = kIndent + kLabelWidth + extra_indent;
  std::vector<std::string> lines = Wrap(text, kReportWidth - column);
  if (lines.empty()) return;
  if (lines.size() > max_lines) {
    lines.resize(max_lines);
    lines.back() = FitWidth(lines.back() + " …", kReportWidth - column);
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string head = std::string(kIndent, ' ') +
                       fmt::format("{:<{}}", i == 0 ? label : "", kLabelWidth) +
                       std::string(extra_indent, ' ');
    Line(out, head + lines[i]);
  }
}

// "FILE:LINE: text" of a quoted log line in two lines (a third when wrapping spills). The place is
// cut to its last kQuotePlaceWidth columns (the file's tail and the line number) and the text gets
// the rest of the two lines: a long file name (a support bundle's) left no room for the line it
// quoted.
constexpr size_t kQuotePlaceWidth = 24;
std::string QuotedLine(const SourceQuote& q) {
  std::string place = QuoteText(SourceQuote{q.file, q.line, ""});  // "FILE:LINE: "
  while (!place.empty() && (place.back() == ' ' || place.back() == ':')) place.pop_back();
  place = FitWidthKeepEnd(place, kQuotePlaceWidth);
  // Two lines less the widest place: the same room for the text whatever the file is called
  // (wrapping at spaces may spill a word onto a third line).
  const size_t budget = 2 * (kReportWidth - kIndent - kLabelWidth) - kQuotePlaceWidth - 2;
  if (DisplayWidth(q.text) <= budget) return place + ": " + q.text;
  // Cut in the middle: a kernel log line starts with its time and ends with what happened
  // ("… error 4 in libnccl.so.2[…]"), and both say more than the addresses between them.
  const size_t tail_width = budget * 2 / 5;
  std::string tail = FitWidthKeepEnd(q.text, tail_width);  // "…END"
  return place + ": " + FitWidth(q.text, budget - tail_width) + tail.substr(tail.find("…") + 3);
}

std::string Upper(std::string_view s) {
  std::string up(s);
  for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return up;
}

// Wraps the first occurrence of |part| in |line| with an ANSI style.
void Colour(std::string& line, std::string_view part, std::string_view code) {
  size_t at = line.find(part);
  if (at == std::string::npos || part.empty()) return;
  line.replace(at, part.size(), fmt::format("\x1b[{}m{}\x1b[0m", code, part));
}

std::string_view SeverityColour(Severity s) {
  switch (s) {
    case Severity::kCritical:
    case Severity::kHigh: return "1;31";
    case Severity::kMedium: return "33";
    case Severity::kLow:
    case Severity::kInfo: return "2";
  }
  return "2";
}

std::string RecoverableText(const Finding& f) {
  if (f.recoverable_ns_per_step <= 0) return "recoverable time not estimated";
  double pct = f.step_ns > 0 ? 100.0 * f.recoverable_ns_per_step / f.step_ns : 0;
  return fmt::format("{}/step ({}), ≤{} faster", MsNs(f.recoverable_ns_per_step), Pct(pct),
                     SpeedupText(f.SpeedupUpperBound()));
}

void FindingHeadLine(std::string& out, const Section& s, size_t index, const Finding& f) {
  std::string severity = Upper(SeverityName(f.severity));
  std::string line = FitWidth(fmt::format("{:>2}. {:<8} {}  {}, confidence {}", index + 1, severity,
                                          f.id, RecoverableText(f), ConfidenceName(f.confidence)),
                              kReportWidth);
  if (s.options.colour == TextColour::kOn) {
    Colour(line, f.id, "1");
    Colour(line, severity, SeverityColour(f.severity));
  }
  out += line + "\n";
}

void FindingDetails(std::string& out, const Section& s, const Finding& f) {
  std::vector<std::string> sources_shown;
  for (size_t i = 0; i < f.evidence.size() && i < kMaxEvidence; ++i) {
    const FindingEvidence& e = f.evidence[i];
    std::string text = EvidenceText(e);
    bool new_source = !e.threshold_source.empty() &&
                      std::find(sources_shown.begin(), sources_shown.end(), e.threshold_source) ==
                          sources_shown.end();
    if (new_source) {
      text += " (" + e.threshold_source + ")";
      sources_shown.push_back(e.threshold_source);
    }
    Labelled(out, i == 0 ? "evidence" : "", text);
  }
  if (f.evidence.size() > kMaxEvidence) {
    Labelled(out, "",
             fmt::format("(+{} more in --format md or json)", f.evidence.size() - kMaxEvidence));
  }
  if (f.replayed_saving_ns_per_step >= 0) {
    Labelled(out, "replay",
             fmt::format("{}/step saved when the fix is replayed on the rank's dependency graph "
                         "(the time above is the idle time it explains)",
                         MsNs(f.replayed_saving_ns_per_step)));
  }
  for (size_t i = 0; i < f.quotes.size() && i < kMaxQuotes; ++i) {
    Labelled(out, i == 0 ? "log" : "", QuotedLine(f.quotes[i]), 3);
  }
  if (f.quotes.size() > kMaxQuotes) {
    Labelled(out, "",
             fmt::format("(+{} more lines in --format md or json)", f.quotes.size() - kMaxQuotes));
  }
  if (!f.ranges.empty()) {
    std::string text = RangeText(f.ranges.front(), s.header.span.start);
    if (f.ranges.size() > 1) text += fmt::format(" (+{} more)", f.ranges.size() - 1);
    Labelled(out, "where", FitWidth(text, kReportWidth - kIndent - kLabelWidth), 1);
  }
  if (!f.top_events.empty()) {
    std::string names;
    for (const std::string& name : f.top_events) {
      if (!names.empty()) names += "; ";
      names += FitWidth(name, 60);
    }
    Labelled(out, "events", FitWidth(names, kReportWidth - kIndent - kLabelWidth), 1);
  }
  for (size_t i = 0; i < f.fixes.size() && i < kMaxFixes; ++i) {
    Labelled(out, fmt::format("fix {}", i + 1), f.fixes[i].action, 2);
    if (!f.fixes[i].code.empty()) Labelled(out, "", f.fixes[i].code, 3, 2);
  }
  if (f.fixes.size() > kMaxFixes) {
    std::string more;
    for (size_t i = kMaxFixes; i < f.fixes.size(); ++i) {
      if (!more.empty()) more += "; ";
      more += fmt::format("{}: {}", i + 1, f.fixes[i].action);
    }
    Labelled(out, "also", more, 1);
  }
  if (!f.verify.empty()) Labelled(out, "verify", f.verify, 2);
}

std::string_view StatusMark(AssessStatus status) {
  switch (status) {
    case AssessStatus::kAssessed: return "[x]";
    case AssessStatus::kPartly: return "[~]";
    case AssessStatus::kNotAssessed: return "[ ]";
  }
  return "[ ]";
}

void RenderChecklist(std::string& out, const Section& s, const Diagnosis& d) {
  Heading(out, s, "Checklist",
          "[x] assessed, [~] partly, [ ] not assessed (with the command that captures it)");
  for (const ChecklistItem& item : d.checklist) {
    std::string text = item.title;
    if (item.status != AssessStatus::kAssessed) {
      text += fmt::format(" ({})", AssessStatusName(item.status));
    }
    if (!item.detail.empty()) text += ": " + item.detail;
    std::string head =
        fmt::format("  {} {:<17}", StatusMark(item.status), ChecklistSectionName(item.section));
    std::vector<std::string> lines = Wrap(text, kReportWidth - DisplayWidth(head));
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string line = (i == 0 ? head : std::string(DisplayWidth(head), ' ')) + lines[i];
      if (i == 0 && s.options.colour == TextColour::kOn) {
        std::string_view code = item.status == AssessStatus::kAssessed ? "32"
                                : item.status == AssessStatus::kPartly ? "33"
                                                                       : "31";
        Colour(line, StatusMark(item.status), code);
      }
      out += line + "\n";
    }
    if (item.status == AssessStatus::kAssessed) continue;
    if (!item.missing.empty()) Wrapped(out, "missing: " + item.missing, 6);
    if (!item.command.empty()) Wrapped(out, "capture: " + item.command, 6);
  }
}

}  // namespace

void RenderDiagnosisText(std::string& out, const Section& s, const Diagnosis& d) {
  std::string summary =
      d.findings.empty()
          ? std::string("no finding")
          : fmt::format("{} finding{} (worst: {})", d.findings.size(),
                        d.findings.size() == 1 ? "" : "s", SeverityName(d.MaxSeverity()));
  if (d.step_ns > 0) summary += "; " + StepAndIdleText(d);
  Heading(out, s, "Diagnosis", summary);
  if (d.findings.empty()) {
    Wrapped(out, NoFindingText(d), 2);
  }
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    if (i > 0 && i <= s.options.detailed_findings) out += '\n';
    FindingHeadLine(out, s, i, f);
    Wrapped(out, f.title, kIndent);
    if (i < s.options.detailed_findings) FindingDetails(out, s, f);
  }
  if (d.findings.size() > s.options.detailed_findings) {
    size_t first = s.options.detailed_findings + 1;
    std::string which = first == d.findings.size()
                            ? fmt::format("finding {}", first)
                            : fmt::format("findings {} to {}", first, d.findings.size());
    Wrapped(out, fmt::format("(evidence and fixes of {}: --format md or json)", which), 4);
  }
  for (const std::string& note : d.notes) Wrapped(out, "note: " + note, 2);
  RenderChecklist(out, s, d);
}

}  // namespace gpuwhy::report
