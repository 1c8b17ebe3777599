#include "diagnose/diagnose_signals.h"

#include "diagnose/signal_rules/signal_rules.h"

namespace gpuwhy {

SignalOptions SignalOptionsFromCatalog(const Catalog& c) {
  SignalOptions o;
  o.low_util_pct = c.Get(kStarvationLowUtilPct).value;
  o.high_util_pct = c.Get(kStarvationHighUtilPct).value;
  o.pinned_thread_pct = c.Get(kGilBoundPinnedThreadPct).value;
  o.iowait_pct = c.Get(kIoBoundIowaitPct).value;
  o.disk_busy_pct = c.Get(kIoBoundDiskBusyPct).value;
  o.saturated_cpu_pct = c.Get(kCpuSaturatedSaturatedCpuPct).value;
  return o;
}

Diagnosis DiagnoseSignals(const MetricSeriesSet& set, const DiagnoseOptions& options) {
  return DiagnoseSignals(AnalyzeSignals(set, SignalOptionsFromCatalog(options.catalog)), options);
}

namespace {

std::string DeviceSummary(const SignalAnalysis& a) {
  if (a.gpus.empty()) return "no GPU series";
  std::string name = a.gpus[0].name.empty() ? "GPU" : a.gpus[0].name;
  return fmt::format("{} x {}", a.gpus.size(), name);
}

// An item backed by the catalog rules that name it in the metric-series checklist.
ChecklistItem Item(ChecklistSection section, std::string title, const Diagnosis& d,
                   const Catalog& catalog) {
  std::vector<std::string> ids = catalog.ChecklistRules(Checklist::kSignals, title);
  ChecklistItem item{section, std::move(title), AssessStatus::kAssessed, "", "", "", ids};
  int assessed = 0, missing = 0;
  std::string found;
  for (const std::string& id : ids) {
    auto o = std::find_if(d.outcomes.begin(), d.outcomes.end(),
                          [&](const RuleOutcome& x) { return x.rule_id == id; });
    if (o == d.outcomes.end()) continue;
    if (o->fired) found += (found.empty() ? "" : ", ") + id;
    if (o->status == AssessStatus::kNotAssessed) {
      ++missing;
      item.missing += (item.missing.empty() ? "" : "; ") + o->note;
      const RuleSpec* spec = catalog.Find(id);
      if (spec && item.command.find(spec->capture_command) == std::string::npos) {
        item.command += (item.command.empty() ? "" : "; ") + spec->capture_command;
      }
    } else {
      ++assessed;
    }
  }
  if (missing > 0) item.status = assessed > 0 ? AssessStatus::kPartly : AssessStatus::kNotAssessed;
  item.detail = !found.empty()                              ? "from metric series: " + found
                : item.status == AssessStatus::kNotAssessed ? "not assessed from metric series"
                                                            : "metric series: nothing found";
  return item;
}

std::vector<ChecklistItem> SignalChecklist(const SignalAnalysis& a, const Diagnosis& d,
                                           const Catalog& c) {
  std::vector<ChecklistItem> items;
  ChecklistItem base{ChecklistSection::kBaseline,
                     "device, steps and step time",
                     AssessStatus::kPartly,
                     "",
                     "step times and throughput (a profiler trace)",
                     "gpuwhy run --trace-dir ./traces -- python train.py",
                     {}};
  base.detail = fmt::format("{}; {:.1f} s of metric series from {}", DeviceSummary(a),
                            NsToSec(a.span_ns), a.source);
  items.push_back(std::move(base));
  items.push_back(Item(ChecklistSection::kTimeline, "GPU utilization over the run", d, c));
  items.push_back(Item(ChecklistSection::kInputAndCpu, "input rhythm, I/O and host CPU", d, c));
  items.push_back(Item(ChecklistSection::kKernelsAndSync, "SM activity behind utilization", d, c));
  items.push_back(Item(ChecklistSection::kMemoryAndModel, "memory capacity and allocator", d, c));
  items.push_back(Item(ChecklistSection::kPlatform, kPlatformChecklistItem, d, c));
  return items;
}

void AddNotes(const SignalAnalysis& a, Diagnosis& d) {
  d.notes.push_back(fmt::format("metric series from {}{}: {:.1f} s, {} GPU(s)", a.source,
                                a.path.empty() ? "" : " (" + a.path + ")", NsToSec(a.span_ns),
                                a.gpus.size()));
  if (a.times_synthesized) {
    d.notes.push_back(
        "the samples carry no timestamps (e.g. dmon without -o DT): times assume "
        "1 s between samples; periods are in those units");
  }
  if (d.step_ns == 0) {
    d.notes.push_back(
        "no step time from metric series: recoverable time is not estimated; "
        "findings rank by severity");
  }
}

}  // namespace

Diagnosis DiagnoseSignals(const SignalAnalysis& analysis, const DiagnoseOptions& options) {
  Diagnosis d;
  SignalRuleContext r(analysis, options, d);
  EvaluateAll(SignalRuleFamilies(), r);
  // Catalog order; rules series cannot assess say what they need.
  std::vector<RuleOutcome> ordered;
  for (const RuleSpec& spec : options.catalog.rules()) {
    auto it = std::find_if(d.outcomes.begin(), d.outcomes.end(),
                           [&](const RuleOutcome& o) { return o.rule_id == spec.id; });
    if (it != d.outcomes.end()) {
      ordered.push_back(std::move(*it));
    } else {
      ordered.push_back({spec.id, AssessStatus::kNotAssessed, false,
                         "not from metric series; needs " + spec.needs});
    }
  }
  d.outcomes = std::move(ordered);
  RankFindings(d.findings);
  AddNotes(analysis, d);
  d.checklist = SignalChecklist(analysis, d, options.catalog);
  return d;
}

}  // namespace gpuwhy
