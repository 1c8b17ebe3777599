// The HTML verdict: the same findings, evidence, ranges, fixes and checklist as the text
// report, with every item shown (the text report folds all but the top three).
#include <fmt/format.h>

#include "report/diagnosis_sections.h"
#include "report/html_sections.h"
#include "report/html_writer.h"
#include "report/text_format.h"

namespace gpuwhy::report::html {
namespace {

std::string RecoverableText(const Finding& f) {
  if (f.recoverable_ns_per_step <= 0) return "recoverable time not estimated";
  double pct = f.step_ns > 0 ? 100.0 * f.recoverable_ns_per_step / f.step_ns : 0;
  return fmt::format("{}/step ({}), ≤{} faster", MsNs(f.recoverable_ns_per_step), Pct(pct),
                     SpeedupText(f.SpeedupUpperBound()));
}

void Labelled(std::string& out, std::string_view label, const std::string& body_html) {
  out +=
      fmt::format("<div class=\"kv\"><span class=\"k\">{}</span><span class=\"v\">{}</span></div>",
                  Escape(label), body_html);
}

// |scope| makes the card's id unique on the page: the rank number, or "job".
void FindingCard(std::string& out, const RankHeader& header, std::string_view scope, size_t index,
                 const Finding& f) {
  std::string severity(SeverityName(f.severity));
  out += fmt::format("<article class=\"finding sev-{}\" id=\"finding-{}-{}\">", Escape(severity),
                     scope, index + 1);
  out += fmt::format(
      "<h3><span class=\"rankno\">{}.</span> <span class=\"sev\">{}</span> <code "
      "class=\"fid\">{}</code> "
      "<span class=\"rec\">{}, confidence {}</span></h3>",
      index + 1, Escape(severity), Escape(f.id), Escape(RecoverableText(f)),
      Escape(ConfidenceName(f.confidence)));
  Element(out, "p", f.title, "class=\"title\"");
  std::string list = "<ul>";
  for (const FindingEvidence& e : f.evidence) {
    std::string text = EvidenceText(e);
    if (!e.threshold_source.empty()) text += " (" + e.threshold_source + ")";
    list += "<li>" + Escape(text) + "</li>";
  }
  Labelled(out, "evidence", list + "</ul>");
  if (!f.ranges.empty()) {
    list = "<ul>";
    for (const EvidenceRange& r : f.ranges)
      list += "<li>" + Escape(RangeText(r, header.span.start)) + "</li>";
    Labelled(out, "where", list + "</ul>");
  }
  if (!f.top_events.empty()) {
    list = "<ul>";
    for (const std::string& name : f.top_events)
      list += "<li><code>" + Escape(name) + "</code></li>";
    Labelled(out, "events", list + "</ul>");
  }
  for (size_t i = 0; i < f.fixes.size(); ++i) {
    std::string body = Escape(f.fixes[i].action);
    if (!f.fixes[i].code.empty()) body += "<pre><code>" + Escape(f.fixes[i].code) + "</code></pre>";
    Labelled(out, fmt::format("fix {}", i + 1), body);
  }
  if (!f.verify.empty()) Labelled(out, "verify", Escape(f.verify));
  out += "</article>";
}

std::string_view StatusMark(AssessStatus status) {
  switch (status) {
    case AssessStatus::kAssessed: return "✔";
    case AssessStatus::kPartly: return "~";
    case AssessStatus::kNotAssessed: return "✘";
  }
  return "?";
}

std::string RankScope(const RankHeader& header) {
  return fmt::format("{}", header.rank == kNoValue ? 0 : header.rank);
}

}  // namespace

void RenderVerdict(std::string& out, const RankHeader& header, const Diagnosis& d) {
  std::string summary =
      d.findings.empty()
          ? std::string("no finding")
          : fmt::format("{} finding{} (worst: {})", d.findings.size(),
                        d.findings.size() == 1 ? "" : "s", SeverityName(d.MaxSeverity()));
  if (d.step_ns > 0) summary += "; " + StepAndIdleText(d);
  OpenSection(out, fmt::format("verdict-{}", header.rank == kNoValue ? 0 : header.rank),
              "Diagnosis", summary);
  if (d.findings.empty()) {
    Element(out, "p", NoFindingText(d));
  }
  for (size_t i = 0; i < d.findings.size(); ++i)
    FindingCard(out, header, RankScope(header), i, d.findings[i]);
  for (const std::string& note : d.notes) Element(out, "p", "note: " + note, "class=\"note\"");
  CloseSection(out);
}

void RenderJobVerdict(std::string& out, const CrossRankReport& job) {
  const Diagnosis& d = job.diagnosis;
  std::string summary =
      d.findings.empty()
          ? std::string("no job-wide finding")
          : fmt::format("{} job-wide finding{} (worst: {})", d.findings.size(),
                        d.findings.size() == 1 ? "" : "s", SeverityName(d.MaxSeverity()));
  if (d.step_ns > 0) summary += fmt::format("; median step {} across ranks", MsNs(d.step_ns));
  OpenSection(out, "verdict-job",
              fmt::format("Job diagnosis: all ranks ({} ranks)", job.result.rank_count), summary);
  if (d.findings.empty()) {
    Element(out, "p",
            "No job-wide rule fired: no straggler, and no communication exposed on every rank. "
            "Each rank's own findings follow.");
  }
  const RankHeader no_rank;  // job findings' ranges are on the reference rank's clock
  for (size_t i = 0; i < d.findings.size(); ++i) FindingCard(out, no_rank, "job", i, d.findings[i]);
  for (const std::string& w : job.result.warnings)
    Element(out, "p", "warning: " + w, "class=\"note\"");
  for (const std::string& note : d.notes) Element(out, "p", "note: " + note, "class=\"note\"");
  CloseSection(out);
}

void RenderChecklistHtml(std::string& out, const Diagnosis& d) {
  OpenSection(out, "", "Checklist",
              "✔ assessed, ~ partly, ✘ not assessed (with the command that captures it)");
  out += "<ul class=\"checklist\">";
  for (const ChecklistItem& item : d.checklist) {
    std::string status(AssessStatusName(item.status));
    for (char& c : status) c = c == ' ' ? '-' : c;
    out += fmt::format("<li class=\"{}\"><span class=\"mark\">{}</span> <b>{}</b> {}",
                       Escape(status), StatusMark(item.status),
                       Escape(ChecklistSectionName(item.section)), Escape(item.title));
    if (item.status != AssessStatus::kAssessed)
      out += " (" + Escape(AssessStatusName(item.status)) + ")";
    if (!item.detail.empty()) out += ": " + Escape(item.detail);
    if (item.status != AssessStatus::kAssessed) {
      if (!item.missing.empty())
        out += "<div class=\"sub\">missing: " + Escape(item.missing) + "</div>";
      if (!item.command.empty())
        out += "<div class=\"sub\">capture: <code>" + Escape(item.command) + "</code></div>";
    }
    out += "</li>";
  }
  out += "</ul>";
  CloseSection(out);
}

}  // namespace gpuwhy::report::html
