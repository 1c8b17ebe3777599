#include "diagnose/merge.h"

#include <gtest/gtest.h>

namespace gpuwhy {
namespace merge_test {

Finding MakeFinding(std::string id, Severity severity, DurationNs recoverable,
                    std::string evidence_id) {
  Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.recoverable_ns_per_step = recoverable;
  f.confidence = Confidence::kMedium;
  if (f.id.starts_with("memory.")) f.bottleneck_class = BottleneckClass::kMemory;
  if (f.id.starts_with("platform.")) f.bottleneck_class = BottleneckClass::kPlatform;
  FindingEvidence e;
  e.metric.id = std::move(evidence_id);
  f.evidence.push_back(e);
  f.fixes.push_back({"fix for " + f.id, ""});
  return f;
}

ChecklistItem Item(ChecklistSection section, std::string title, AssessStatus status,
                   std::string detail) {
  ChecklistItem c;
  c.section = section;
  c.title = std::move(title);
  c.status = status;
  c.detail = std::move(detail);
  return c;
}

TEST(MergeDiagnosis, SameIdKeepsTheMoreSevereHeadlineAndBothEvidence) {
  Diagnosis trace;
  trace.step_ns = 100'000'000;
  trace.findings.push_back(MakeFinding("memory.near_capacity", Severity::kMedium, 0, "trace"));
  trace.findings.push_back(MakeFinding("input.dataloader_wait", Severity::kHigh, 30'000'000, "dl"));
  Diagnosis signals;
  signals.findings.push_back(
      MakeFinding("memory.near_capacity", Severity::kHigh, 0, "nvml_memory_used"));
  trace.findings[0].quotes.push_back({"dmesg.txt", 12, "NVRM: Xid (PCI:0000:17:00): 31"});
  signals.findings[0].quotes.push_back({"dmesg.txt", 12, "NVRM: Xid (PCI:0000:17:00): 31"});
  signals.findings[0].quotes.push_back({"dmesg.txt", 40, "NVRM: Xid (PCI:0000:17:00): 79"});
  signals.findings.push_back(MakeFinding("platform.throttling", Severity::kLow, 0, "clocks"));

  MergeDiagnosis(trace, std::move(signals));

  ASSERT_EQ(trace.findings.size(), 3u);
  const Finding* mem = trace.Find("memory.near_capacity");
  ASSERT_NE(mem, nullptr);
  EXPECT_EQ(mem->severity, Severity::kHigh);
  ASSERT_EQ(mem->evidence.size(), 2u);
  EXPECT_EQ(mem->evidence[0].metric.id, "nvml_memory_used");  // the headline's own first
  EXPECT_EQ(mem->evidence[1].metric.id, "trace");
  EXPECT_EQ(mem->fixes.size(), 1u);   // same action is not repeated
  EXPECT_EQ(mem->quotes.size(), 2u);  // the quoted line both saw, once
  // Ranked: the one with recoverable time first.
  EXPECT_EQ(trace.findings.front().id, "input.dataloader_wait");
  EXPECT_EQ(trace.step_ns, 100'000'000);
}

TEST(MergeDiagnosis, OutcomesTakeTheBetterAssessmentAndKeepFired) {
  Diagnosis into;
  into.outcomes.push_back({"platform.throttling", AssessStatus::kNotAssessed, false, "no metrics"});
  into.outcomes.push_back({"input.dataloader_wait", AssessStatus::kAssessed, true, ""});
  Diagnosis from;
  from.outcomes.push_back({"platform.throttling", AssessStatus::kAssessed, true, ""});
  from.outcomes.push_back({"input.dataloader_wait", AssessStatus::kNotAssessed, false, "x"});
  from.outcomes.push_back({"platform.xid_errors", AssessStatus::kPartly, false, "no dmesg"});

  MergeDiagnosis(into, std::move(from));

  ASSERT_EQ(into.outcomes.size(), 3u);
  EXPECT_EQ(into.outcomes[0].status, AssessStatus::kAssessed);
  EXPECT_TRUE(into.outcomes[0].fired);
  EXPECT_EQ(into.outcomes[1].status, AssessStatus::kAssessed);
  EXPECT_TRUE(into.outcomes[1].fired);
  EXPECT_EQ(into.outcomes[2].rule_id, "platform.xid_errors");
}

TEST(MergeDiagnosis, ChecklistItemsJoinByTitleAndNewOnesGoToTheirSection) {
  Diagnosis into;
  into.checklist.push_back(
      Item(ChecklistSection::kBaseline, "GPU busy", AssessStatus::kAssessed, "kernel util 40%"));
  into.checklist.push_back(
      Item(ChecklistSection::kPlatform, "Clocks and throttling", AssessStatus::kNotAssessed, ""));
  Diagnosis from;
  from.checklist.push_back(Item(ChecklistSection::kPlatform, "Clocks and throttling",
                                AssessStatus::kAssessed, "power cap 12% of time"));
  from.checklist.push_back(Item(ChecklistSection::kBaseline, "Utilization over time",
                                AssessStatus::kAssessed, "sawtooth 1.2 s"));
  from.notes.push_back("from nvidia-smi dmon");
  from.notes.push_back("from nvidia-smi dmon");

  MergeDiagnosis(into, std::move(from));

  ASSERT_EQ(into.checklist.size(), 3u);
  EXPECT_EQ(into.checklist[1].title, "Utilization over time");  // end of the baseline section
  EXPECT_EQ(into.checklist[2].status, AssessStatus::kAssessed);
  EXPECT_EQ(into.checklist[2].detail, "power cap 12% of time");
  EXPECT_EQ(into.notes.size(), 1u);
}

TEST(MergeDiagnosis, StepReferenceComesFromTheSourceThatHasOne) {
  Diagnosis doctor;  // no trace: no step
  Diagnosis trace;
  trace.step_ns = 42;
  trace.step_count = 3;
  trace.rank = 2;
  MergeDiagnosis(doctor, std::move(trace));
  EXPECT_EQ(doctor.step_ns, 42);
  EXPECT_EQ(doctor.step_count, 3);
  EXPECT_EQ(doctor.rank, 2);
}

}  // namespace merge_test
}  // namespace gpuwhy
