#include "mcp/answer_text.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/diagnosis_sections.h"
#include "report/text_format.h"

namespace gpuwhy::mcp {
namespace {

constexpr size_t kLeadEvidence = 3;  // per finding in the report answer; `finding` shows all
constexpr size_t kLeadRanges = 2;

std::string RangeCitation(const EvidenceRange& r, TimeNs origin) {
  return fmt::format("range {} {}..{} ns ({})", r.kind, r.start, r.end,
                     report::RangeText(r, origin));
}

std::string EvidenceCitation(const FindingEvidence& e) {
  std::string text = "evidence " + report::EvidenceText(e);
  if (!e.threshold_source.empty()) text += " (" + e.threshold_source + ")";
  return text;
}

std::string RecoverableText(const Finding& f) {
  if (f.recoverable_ns_per_step <= 0) return "recoverable time not estimated";
  const double pct = f.step_ns > 0 ? 100.0 * f.recoverable_ns_per_step / f.step_ns : 0;
  return fmt::format("recoverable {}/step ({}), at most {} faster",
                     report::MsNs(f.recoverable_ns_per_step), report::Pct(pct),
                     report::SpeedupText(f.SpeedupUpperBound()));
}

void FindingHead(std::string& out, size_t number, const Finding& f) {
  out += fmt::format("{}. finding {}: {} (severity {}, confidence {}; {})\n", number, f.id, f.title,
                     SeverityName(f.severity), ConfidenceName(f.confidence), RecoverableText(f));
}

void FixLines(std::string& out, const Finding& f, size_t max) {
  for (size_t i = 0; i < f.fixes.size() && i < max; ++i) {
    out += fmt::format("   fix {}: {}\n", i + 1, f.fixes[i].action);
    if (!f.fixes[i].code.empty()) out += fmt::format("      {}\n", f.fixes[i].code);
  }
}

void ReportFinding(std::string& out, size_t number, const FindingPlace& place) {
  const Finding& f = *place.finding;
  FindingHead(out, number, f);
  for (size_t i = 0; i < f.evidence.size() && i < kLeadEvidence; ++i) {
    out += "   " + EvidenceCitation(f.evidence[i]) + "\n";
  }
  for (size_t i = 0; i < f.ranges.size() && i < kLeadRanges; ++i) {
    out += "   " + RangeCitation(f.ranges[i], place.origin) + "\n";
  }
  const size_t more_evidence = f.evidence.size() - std::min(f.evidence.size(), kLeadEvidence);
  const size_t more_ranges = f.ranges.size() - std::min(f.ranges.size(), kLeadRanges);
  std::string more;
  if (more_evidence > 0) more = fmt::format("+{} evidence", more_evidence);
  if (more_ranges > 0) more += fmt::format("{}+{} ranges", more.empty() ? "" : ", ", more_ranges);
  if (!more.empty()) out += fmt::format("   ({}: the finding tool)\n", more);
  FixLines(out, f, 1);
}

// The checklist items that a capture would complete: not fully assessed, with a command.
bool NeedsCapture(const ChecklistItem& item) {
  return item.status != AssessStatus::kAssessed && !item.command.empty();
}

void CaptureLines(std::string& out, const ChecklistItem& item) {
  out += fmt::format("- [{}] {} / {}: missing {}\n", AssessStatusName(item.status),
                     ChecklistSectionName(item.section), item.title, item.missing);
  out += fmt::format("  capture: {}\n", item.command);
}

void DiagnosisBlock(std::string& out, const Report& report, int rank_index, const Diagnosis& d,
                    size_t& number) {
  out += fmt::format("\n== {}\n", PlaceName(report, rank_index));
  std::string verdict = report::StepAndIdleText(d);
  out += fmt::format("{} finding(s), worst {}{}\n", d.findings.size(),
                     d.findings.empty() ? "none" : SeverityName(d.MaxSeverity()),
                     verdict.empty() ? "" : "; " + verdict);
  if (d.findings.empty()) out += report::NoFindingText(d) + "\n";
  TimeNs origin =
      rank_index >= 0 ? report.ranks[static_cast<size_t>(rank_index)].header.span.start : 0;
  for (const Finding& f : d.findings) ReportFinding(out, number++, {&d, &f, rank_index, origin});
}

}  // namespace

std::string PlaceName(const Report& report, int rank_index) {
  if (rank_index < 0) return "job (cross-rank)";
  const RankHeader& h = report.ranks[static_cast<size_t>(rank_index)].header;
  std::string rank = h.rank != kNoValue ? fmt::format(" (rank {})", h.rank) : "";
  return fmt::format("ranks[{}]{} {}", rank_index, rank, h.path);
}

std::vector<FindingPlace> AllFindings(const Report& report) {
  std::vector<FindingPlace> places;
  if (report.job) {
    for (const Finding& f : report.job->diagnosis.findings)
      places.push_back({&report.job->diagnosis, &f, -1, 0});
  }
  for (size_t i = 0; i < report.ranks.size(); ++i) {
    const RankReport& r = report.ranks[i];
    for (const Finding& f : r.diagnosis.findings)
      places.push_back({&r.diagnosis, &f, static_cast<int>(i), r.header.span.start});
  }
  return places;
}

std::string RenderReportAnswer(const CachedReport& cached) {
  const Report& report = cached.report;
  std::string out = fmt::format(
      "gpuwhy {}: {} input(s), {} report(s); findings in the report's order (most severe, most "
      "recoverable first). Cite them by "
      "finding id, evidence id and range (start..end ns, as in `gpuwhy analyze --format json`).\n",
      cached.kind == ReportKind::kDoctor ? "doctor" : "analyze", cached.paths.size(),
      report.ranks.size());
  for (const ReportFailure& failure : report.failures) out += "error: " + failure.message + "\n";
  for (const ReportFailure& lost : report.data_loss) out += "warning: " + lost.message + "\n";
  size_t number = 1;
  if (report.job) DiagnosisBlock(out, report, -1, report.job->diagnosis, number);
  for (size_t i = 0; i < report.ranks.size(); ++i) {
    DiagnosisBlock(out, report, static_cast<int>(i), report.ranks[i].diagnosis, number);
  }
  std::vector<CaptureItem> captures = CollectCaptures(report, "", "");
  if (!captures.empty()) {
    out += "\nWhat is missing, and the capture that would decide it (capture tool):\n";
    for (const CaptureItem& capture : captures) CaptureLines(out, *capture.item);
  }
  for (const RankReport& r : report.ranks) {
    for (const std::string& note : r.diagnosis.notes) out += "note: " + note + "\n";
  }
  out +=
      "\nNext: the finding tool (paths, finding_id) for one finding's evidence, ranges, "
      "events and fixes; the capture tool for the commands that record what is missing.\n";
  return out;
}

std::string RenderFindingAnswer(const CachedReport& cached, const FindingPlace& place) {
  const Finding& f = *place.finding;
  std::string out = fmt::format("{}\n", PlaceName(cached.report, place.rank_index));
  FindingHead(out, 1, f);
  for (const FindingEvidence& e : f.evidence) out += "   " + EvidenceCitation(e) + "\n";
  for (const EvidenceRange& r : f.ranges) out += "   " + RangeCitation(r, place.origin) + "\n";
  for (const std::string& name : f.top_events) out += "   event " + name + "\n";
  for (const SourceQuote& q : f.quotes) out += "   log " + report::QuoteText(q) + "\n";
  FixLines(out, f, f.fixes.size());
  for (const FixLeftOut& left : f.fixes_left_out) {
    out += fmt::format("   fix left out: {} ({})\n", left.action, left.why);
  }
  if (!f.verify.empty()) out += "   verify: " + f.verify + "\n";
  for (const ChecklistItem& item : place.diagnosis->checklist) {
    if (std::find(item.rule_ids.begin(), item.rule_ids.end(), f.id) == item.rule_ids.end())
      continue;
    out += fmt::format("checklist [{}] {} / {}: {}\n", AssessStatusName(item.status),
                       ChecklistSectionName(item.section), item.title, item.detail);
    if (NeedsCapture(item)) {
      out += fmt::format("  missing {}\n  capture: {}\n", item.missing, item.command);
    }
  }
  return out;
}

std::vector<CaptureItem> CollectCaptures(const Report& report, std::string_view finding_id,
                                         std::string_view section) {
  std::vector<CaptureItem> items;
  auto add = [&](const Diagnosis& d, int rank_index) {
    for (const ChecklistItem& item : d.checklist) {
      if (!NeedsCapture(item)) continue;
      if (!section.empty() && ChecklistSectionName(item.section) != section) continue;
      if (!finding_id.empty() &&
          std::find(item.rule_ids.begin(), item.rule_ids.end(), finding_id) == item.rule_ids.end())
        continue;
      auto same = std::find_if(items.begin(), items.end(), [&](const CaptureItem& c) {
        return c.item->title == item.title && c.item->command == item.command;
      });
      if (same == items.end()) same = items.insert(items.end(), {&item, {}});
      same->rank_indexes.push_back(rank_index);
    }
  };
  if (report.job) add(report.job->diagnosis, -1);
  for (size_t i = 0; i < report.ranks.size(); ++i) {
    add(report.ranks[i].diagnosis, static_cast<int>(i));
  }
  return items;
}

std::string RenderCaptureAnswer(const CachedReport& cached, const std::vector<CaptureItem>& items) {
  if (items.empty()) {
    return "Nothing to capture: every checklist item that matches was assessed with the data "
           "given.\n";
  }
  std::string out = fmt::format(
      "{} capture(s) would complete the report (each names what is missing and the command "
      "that records it):\n",
      items.size());
  for (const CaptureItem& capture : items) {
    CaptureLines(out, *capture.item);
    if (cached.report.ranks.size() > 1) {
      std::string places;
      for (int i : capture.rank_indexes) places += (places.empty() ? "" : ", ") + std::to_string(i);
      out += "  for ranks[" + places + "] (-1: the job)\n";
    }
    if (!capture.item->rule_ids.empty()) {
      std::string rules;
      for (const std::string& id : capture.item->rule_ids)
        rules += (rules.empty() ? "" : ", ") + id;
      out += "  decides: " + rules + "\n";
    }
  }
  return out;
}

}  // namespace gpuwhy::mcp
