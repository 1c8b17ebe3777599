// `gpuwhy annotate TRACE -o OUT.json.gz`: the trace with gpuwhy's tracks added, to check each
// claim on a timeline in Perfetto UI or chrome://tracing.
#include <CLI/CLI.hpp>

#include <ostream>

#include "analyze/analysis.h"
#include "annotate/annotate.h"
#include "cli/commands.h"
#include "diagnose/diagnose.h"
#include "ingest/importer.h"

namespace gpuwhy {

void AddAnnotateCommand(CLI::App& app, AnnotateOptions& options) {
  CLI::App* command = app.add_subcommand(
      "annotate", "Write the trace with added tracks for Perfetto: idle gaps by cause, steps, queue length and "
                  "utilization counters, one marker per finding");
  command->add_option("trace", options.input, "A Kineto / Chrome JSON trace (.json or .json.gz)")->required();
  command->add_option("-o,--output", options.output, "The annotated trace (.json or .json.gz)")->required();
}

int RunAnnotateCommand(const AnnotateOptions& options, const CliContext& context) {
  StatusOr<Trace> trace = ImportTraceFile(options.input);
  if (!trace.ok()) {
    PrintError(context, trace.status());
    return kExitUnusable;
  }
  if (trace->metadata.format != "kineto") {
    PrintError(context, options.input + ": annotate writes Kineto / Chrome JSON traces only");
    return kExitUnusable;
  }
  TraceAnalysis analysis = AnalyzeTrace(*trace);
  Diagnosis diagnosis = Diagnose(*trace, analysis);
  AnnotationTracks tracks = BuildAnnotationTracks(analysis, diagnosis);
  Status written = WriteAnnotatedTrace(options.input, tracks, options.output);
  if (!written.ok()) {
    PrintError(context, written);
    return kExitUnusable;
  }
  context.out << options.output << ": " << tracks.events.size() << " events added ("
              << diagnosis.findings.size() << " findings marked)\n";
  return kExitOk;
}

}  // namespace gpuwhy
