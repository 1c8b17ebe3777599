// `gpuwhy annotate TRACE -o OUT.json.gz`: the trace with gpuwhy's tracks added, to check each
// claim on a timeline in Perfetto UI or chrome://tracing. Several traces (or a folder) of one
// job: one merged trace, a process per rank, every rank on the reference rank's clock. The
// traces run through the same pipeline as `gpuwhy analyze` (--set, --config, --step-range).
#include <CLI/CLI.hpp>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>

#include "annotate/annotate.h"
#include "base/text_escape.h"
#include "cli/commands.h"
#include "cli/input_policies.h"
#include "cli/pipeline_flags.h"
#include "cli/report_output.h"
#include "pipeline/pipeline.h"

namespace gpuwhy {
namespace {

int AnnotateOneTrace(const std::string& input, const AnnotateOptions& options,
                     PipelineOptions pipeline, const CliContext& context) {
  // The tracks are built while the trace's analyses are alive; the trace is written from its file.
  std::optional<AnnotationTracks> tracks;
  size_t findings = 0;
  bool kineto = true;
  pipeline.max_reports = 0;
  pipeline.on_trace = [&](const std::string&, const Trace& trace, const TraceAnalysis& analysis,
                          const Diagnosis& diagnosis) {
    kineto = trace.metadata.format == "kineto";
    if (!kineto) return;
    tracks = BuildAnnotationTracks(analysis, diagnosis);
    findings = diagnosis.findings.size();
  };
  Report report = RunPipeline({input}, pipeline);
  if (!report.failures.empty()) {
    PrintError(context, report.failures.front().message);
    return kExitUnusable;
  }
  if (PrintDataLoss(report.data_loss, options.pipeline.strict, context) &&
      options.pipeline.strict) {
    return kExitUnusable;
  }
  if (!kineto || !tracks) {
    PrintError(context, input + ": annotate writes Kineto / Chrome JSON traces only");
    return kExitUnusable;
  }
  Status written = WriteAnnotatedTrace(input, *tracks, options.output);
  // A cut input is annotated up to the cut; its loss was the warning above.
  if (!written.ok() && written.code() != StatusCode::kDataLoss) {
    PrintError(context, written);
    return kExitUnusable;
  }
  context.out << options.output << ": " << tracks->events.size() << " events added (" << findings
              << " findings marked)\n";
  return kExitOk;
}

// Each rank's own tracks, built while its analyses are alive (analysis runs on a pool) and
// kept on disk until the merge.
struct RankTracks {
  std::string dir;  // removed with its files when the command ends
  std::mutex mutex;
  std::map<std::string, std::string> fragment_by_path;
  std::vector<std::string> refused;  // not Kineto / Chrome JSON
  std::vector<std::string> errors;
  ~RankTracks() {
    std::error_code ignored;
    if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
  }
};

std::vector<MergedRankInput> PlaceRanks(const CrossRankResult& job, const RankTracks& tracks) {
  std::vector<MergedRankInput> ranks;
  for (const CrossRankRow& row : job.ranks) {
    MergedRankInput rank;
    rank.path = row.path;
    rank.rank = row.rank;
    auto clock = std::find_if(job.clocks.begin(), job.clocks.end(),
                              [&](const RankClock& c) { return c.rank == row.rank; });
    if (clock != job.clocks.end()) rank.clock = *clock;
    auto own = tracks.fragment_by_path.find(row.path);
    if (own != tracks.fragment_by_path.end()) rank.tracks_path = own->second;
    ranks.push_back(std::move(rank));
  }
  return ranks;
}

int AnnotateRanks(const AnnotateOptions& options, PipelineOptions pipeline,
                  const CliContext& context) {
  RankTracks tracks;
  std::string pattern =
      (std::filesystem::temp_directory_path() / "gpuwhy_annotate_XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    PrintError(context, pattern + ": cannot create a temporary folder for the ranks' tracks");
    return kExitUnusable;
  }
  tracks.dir = pattern;
  pipeline.jobs = options.jobs;
  pipeline.max_reports = 0;  // only summaries stay in memory: bounded by --jobs
  pipeline.on_trace = [&tracks](const std::string& path, const Trace& trace,
                                const TraceAnalysis& analysis, const Diagnosis& diagnosis) {
    if (trace.metadata.format != "kineto") {
      std::lock_guard<std::mutex> lock(tracks.mutex);
      tracks.refused.push_back(path);
      return;
    }
    std::string fragment;
    {
      std::lock_guard<std::mutex> lock(tracks.mutex);
      fragment =
          fmt::format("{}/rank{}.tracks.json.gz", tracks.dir, tracks.fragment_by_path.size());
      tracks.fragment_by_path[path] = fragment;
    }
    Status written = WriteTracksFragment(BuildAnnotationTracks(analysis, diagnosis), fragment);
    if (!written.ok()) {
      std::lock_guard<std::mutex> lock(tracks.mutex);
      tracks.errors.push_back(written.message());
    }
  };
  Report inputs = RunPipeline(options.inputs, pipeline);
  PrintFailures(inputs, context, options.pipeline.strict);
  for (const std::string& error : tracks.errors) PrintError(context, error);
  if (!tracks.errors.empty()) return kExitUnusable;
  if (options.pipeline.strict && !inputs.data_loss.empty()) return kExitUnusable;
  bool partial = !inputs.failures.empty();
  // Every summary came from a trace (with tracks, or refused) or from a --summary file; a trace
  // that failed is a failure above, merged without.
  const bool summary_files =
      inputs.summaries.size() > tracks.fragment_by_path.size() + tracks.refused.size();
  if (summary_files || !tracks.refused.empty()) {
    for (const std::string& path : tracks.refused) {
      PrintError(context, path + ": annotate merges Kineto / Chrome JSON traces only");
    }
    if (summary_files && tracks.refused.empty()) {
      PrintError(
          context,
          "annotate needs the ranks' traces: summary files (--summary) hold no events to merge");
    }
    return kExitUnusable;
  }
  if (inputs.summaries.size() < 2) {
    PrintError(context,
               fmt::format("annotate: {} readable trace(s): merging needs at least two ranks",
                           inputs.summaries.size()));
    return kExitUnusable;
  }
  CrossRankResult job = AnalyzeCrossRank(std::move(inputs.summaries), CrossRankOptions{});
  for (const std::string& warning : job.warnings) {
    context.err << "warning: " << text::EscapeControl(warning) << "\n";  // it quotes trace names
  }
  AnnotationTracks job_tracks = BuildCrossRankTracks(job);
  StatusOr<MergedTraceResult> merged =
      WriteMergedTrace(PlaceRanks(job, tracks), job_tracks, options.output);
  if (!merged.ok()) {
    PrintError(context, merged.status());
    return kExitUnusable;
  }
  size_t added = merged->job_events;
  size_t aligned = 0;
  for (const MergedRankOutcome& rank : merged->ranks) {
    added += rank.added_events;
    // A cut rank holds the events read before the cut; its loss was a warning (an error
    // under --strict) when it was read.
    if (rank.truncated && inputs.data_loss.empty()) {
      PrintError(context,
                 fmt::format("warning: {}: byte {}: truncated: rank {} holds the events read "
                             "before it",
                             rank.path, rank.truncated_at, rank.rank));
    }
  }
  for (const RankClock& clock : job.clocks) aligned += clock.aligned;
  context.out << fmt::format(
      "{}: {} ranks merged, one process per rank; {} of them aligned to rank {}'s clock from {} "
      "matched "
      "collectives (largest offset {:.3f} ms, uncertainty up to {:.1f} µs); {} events added\n",
      options.output, merged->ranks.size(), aligned, job.reference_rank, job.collectives.size(),
      NsToMs(job.max_skew_ns), NsToUs(job.max_uncertainty_ns), added);
  return partial ? kExitUnusable : kExitOk;
}

}  // namespace

void AddAnnotateCommand(CLI::App& app, AnnotateOptions& options) {
  CLI::App* command = app.add_subcommand(
      "annotate",
      "Write the trace with added tracks for Perfetto: idle gaps by cause, steps, queue length and "
      "utilization counters, one marker per finding. Several ranks' traces (or a folder): one "
      "merged trace, a process per rank, clocks aligned from the collectives");
  command
      ->add_option("traces", options.inputs,
                   "Kineto / Chrome JSON traces (.json or .json.gz) or a folder")
      ->required();
  command->add_option("-o,--output", options.output, "The annotated trace (.json or .json.gz)")
      ->required();
  command
      ->add_option("--jobs", options.jobs,
                   "Traces analysed at once when merging ranks; default: cores")
      ->check(CLI::Range(0, 1024));
  AddPipelineFlags(*command, options.pipeline);
  AddStrictFlag(*command, options.pipeline.strict);
}

int RunAnnotateCommand(const AnnotateOptions& options, const CliContext& context) {
  PipelineOptions pipeline;
  if (Status status = ApplyPipelineFlags(options.pipeline, pipeline); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  std::vector<std::string> read = options.inputs;
  read.push_back(options.pipeline.config);
  if (Status status = CheckOutputIsNotAnInput(options.output, read); !status.ok()) {
    PrintError(context, status);
    return kExitUnusable;
  }
  // Traces and the rank summaries annotate explains it cannot merge; nothing else.
  pipeline.accept = kAnnotateInputs;
  pipeline.cross_rank = false;
  StatusOr<std::vector<std::string>> files = ExpandInputPaths(options.inputs);
  if (files.ok() && files->size() == 1)
    return AnnotateOneTrace(files->front(), options, pipeline, context);
  return AnnotateRanks(options, pipeline, context);
}

}  // namespace gpuwhy
