// Combines diagnoses of one job from different sources: a trace, metric series (`gpuwhy run`,
// nvidia-smi and DCGM logs), system facts (`gpuwhy doctor`). Each source diagnoses on its own;
// this folds one into another so the report shows one ranked list and one checklist.
#pragma once

#include "diagnose/diagnose.h"

namespace gpuwhy {

// Adds |from| to |into|:
// - findings: a finding whose id is new is appended; one whose id |into| already has keeps
//   the more severe of the two as the headline (then the larger recoverable time), and gains
//   the other's evidence, ranges, events and fixes that it does not have yet (two sources
//   seeing the same problem is stronger evidence, never twice the recoverable time);
// - rule outcomes: per rule id the better assessment wins (assessed > partly > not assessed),
//   fired if either fired; catalog order of |into| is kept, new ids are appended;
// - checklist: items with the same section and title keep the better status and join their
//   details and rule ids; new items are inserted at the end of their section;
// - notes: appended unless already present;
// - the step reference (step_ns, step_count, idle) stays |into|'s unless |into| has none.
// Findings are re-ranked afterwards.
void MergeDiagnosis(Diagnosis& into, Diagnosis from);

}  // namespace gpuwhy
