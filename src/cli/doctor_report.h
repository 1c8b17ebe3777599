// Shared by `gpuwhy doctor` and `gpuwhy analyze` (a support bundle next to traces): the
// platform diagnosis of SystemFacts as a report without a trace, and the render-and-exit tail
// every report command shares.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "diagnose/diagnose.h"
#include "model/system_facts.h"
#include "report/report.h"

namespace gpuwhy {

// A report whose header names |source| and lists the GPUs nvidia-smi described; its diagnosis
// is DiagnoseSystemFacts plus a note naming the inputs read.
RankReport DoctorReport(const SystemFacts& facts, const std::string& source,
                        const DiagnoseOptions& options);

// Renders |ranks| as text, json or md to |output| (or the context's stream) and returns the
// exit code: 2 when |failures| is not empty or the output cannot be written, 1 when a finding
// reaches |fail_on|, else 0.
int RenderAndExit(std::span<const RankReport> ranks, std::span<const ReportFailure> failures,
                  const std::string& format, const std::string& output, const std::string& fail_on,
                  const CliContext& context);

}  // namespace gpuwhy
