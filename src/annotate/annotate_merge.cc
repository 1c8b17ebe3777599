// Several ranks' traces streamed one after another into one trace for Perfetto, each placed
// in its own process on the reference rank's clock, followed by its tracks fragment. Only a
// chunk of one input and the output buffer are in memory, whatever the number of ranks.
#include <filesystem>

#include <fmt/format.h>

#include "annotate/annotate.h"
#include "annotate/trace_output.h"
#include "base/file_input.h"
#include "base/json_writer.h"

namespace gpuwhy {
namespace {

constexpr size_t kChunkBytes = 4 << 20;
// Rank R is process kRankPidBase + R: readable in Perfetto's process list.
constexpr int64_t kRankPidBase = 1000;

std::string ClockLabel(const RankClock& clock) {
  if (!clock.aligned) return "clock not aligned: no collective shared with the reference rank";
  return fmt::format("clock offset {:+.3f} ms ± {:.1f} µs ({} collectives)",
                     NsToMs(clock.offset_ns), NsToUs(clock.uncertainty_ns), clock.matched);
}

struct StreamedInput {
  JsonEventSplitter::Result read;
  std::vector<std::pair<std::string, std::string>> members;
};

// One input's events, placed by |rewriter|, into |out|.
StatusOr<StreamedInput> StreamPlaced(const std::string& path, RankEventRewriter& rewriter,
                                     BufferedTraceOutput& out, bool& first) {
  ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path));
  EventCopySink copy(out, first, &rewriter);
  JsonEventSplitter splitter(*source, kChunkBytes);
  StreamedInput streamed;
  ASSIGN_OR_RETURN(streamed.read, splitter.Run(copy));
  streamed.members = copy.members();
  RETURN_IF_ERROR(out.status());
  return streamed;
}

void WriteRankNames(const MergedRankInput& rank, const RankEventRewriter& rewriter, std::string& b,
                    bool& first) {
  int64_t pid = rewriter.placement().pid;
  std::string file = std::filesystem::path(rank.path).filename().string();
  AppendMetadataEvent(b, first, "process_name", pid, 0,
                      NameArgs(fmt::format("rank {} ({})", rank.rank, file)));
  AppendMetadataEvent(b, first, "process_sort_index", pid, 0,
                      fmt::format("{{\"sort_index\":{}}}", rank.rank));
  std::string labels = "{\"labels\":";
  AppendJsonString(labels, ClockLabel(rank.clock));
  AppendMetadataEvent(b, first, "process_labels", pid, 0, labels + "}");
  for (const MergedThread& t : rewriter.Threads()) {
    AppendMetadataEvent(b, first, "thread_name", pid, t.tid, "{\"name\":\"" + t.json_name + "\"}");
    AppendMetadataEvent(b, first, "thread_sort_index", pid, t.tid,
                        fmt::format("{{\"sort_index\":{}}}", t.sort_index));
  }
}

void AppendRankRecord(std::string& b, const MergedRankInput& rank, const MergedRankOutcome& outcome,
                      const std::vector<std::pair<std::string, std::string>>& members) {
  JsonWriter w(0);
  w.BeginObject();
  w.Field("rank", rank.rank);
  w.Field("path", rank.path);
  w.Field("pid", outcome.pid);
  w.Field("clock_aligned", rank.clock.aligned);
  w.Field("clock_offset_ns", rank.clock.offset_ns);
  w.Field("clock_uncertainty_ns", rank.clock.uncertainty_ns);
  w.Field("matched_collectives", rank.clock.matched);
  w.Field("events", outcome.stats.events);
  w.Field("events_unshifted", outcome.stats.unshifted);
  w.Field("truncated", outcome.truncated);
  w.EndObject();
  std::string record = w.str();
  record.pop_back();  // the original top-level members, raw, go inside the record
  record += ",\"members\":{";
  for (size_t i = 0; i < members.size(); ++i) {
    if (i > 0) record += ',';
    AppendJsonString(record, members[i].first);
    record += ':';
    record += members[i].second;
  }
  b += record + "}}";
}

}  // namespace

StatusOr<MergedTraceResult> WriteMergedTrace(const std::vector<MergedRankInput>& ranks,
                                             const AnnotationTracks& job_tracks,
                                             const std::string& output) {
  ASSIGN_OR_RETURN(std::unique_ptr<OutputSink> sink, OpenOutputSink(output));
  BufferedTraceOutput out(*sink);
  out.buffer() = "{\"traceEvents\":[";
  bool first = true;
  MergedTraceResult result;
  std::vector<std::vector<std::pair<std::string, std::string>>> members;
  std::string display_unit;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const MergedRankInput& rank = ranks[i];
    RankPlacement placement;
    placement.rank = rank.rank;
    placement.pid = kRankPidBase + rank.rank;
    placement.offset_ns = rank.clock.aligned ? rank.clock.offset_ns : 0;
    placement.rank_index = static_cast<int64_t>(i);
    placement.rank_count = static_cast<int64_t>(ranks.size());
    RankEventRewriter rewriter(placement);
    ASSIGN_OR_RETURN(StreamedInput trace, StreamPlaced(rank.path, rewriter, out, first));
    MergedRankOutcome outcome;
    outcome.rank = rank.rank;
    outcome.path = rank.path;
    outcome.pid = placement.pid;
    outcome.truncated = trace.read.truncated;
    outcome.truncated_at = trace.read.truncated_at;
    outcome.stats = rewriter.stats();
    // gpuwhy's tracks of the rank go through the same placement: threads of its process.
    if (!rank.tracks_path.empty()) {
      ASSIGN_OR_RETURN(StreamedInput tracks, StreamPlaced(rank.tracks_path, rewriter, out, first));
      (void)tracks;
      outcome.added_events = rewriter.stats().events - outcome.stats.events;
    }
    WriteRankNames(rank, rewriter, out.buffer(), first);
    for (const auto& [key, value] : trace.members) {
      if (key == "displayTimeUnit" && display_unit.empty()) display_unit = value;
    }
    members.push_back(std::move(trace.members));
    result.ranks.push_back(std::move(outcome));
  }
  std::string& b = out.buffer();
  for (const AddedEvent& e : job_tracks.events) {
    AppendAddedEvent(b, first, e);
    out.MaybeFlush();
  }
  result.job_events = job_tracks.events.size();
  for (const auto& [pid, name] : job_tracks.process_names) {
    AppendMetadataEvent(b, first, "process_name", pid, 0, NameArgs(name));
    AppendMetadataEvent(b, first, "process_sort_index", pid, 0, "{\"sort_index\":-1}");
  }
  for (const auto& [key, name] : job_tracks.thread_names) {
    AppendMetadataEvent(b, first, "thread_name", key.first, key.second, NameArgs(name));
  }
  b += "\n]";
  if (!display_unit.empty()) b += ",\n\"displayTimeUnit\":" + display_unit;
  b += ",\n\"gpuwhyMergedRanks\":[";
  for (size_t i = 0; i < ranks.size(); ++i) {
    b += i == 0 ? "\n" : ",\n";
    AppendRankRecord(b, ranks[i], result.ranks[i], members[i]);
  }
  b += "\n]}\n";
  out.Flush();
  RETURN_IF_ERROR(out.status());
  RETURN_IF_ERROR(sink->Close());
  return result;
}

}  // namespace gpuwhy
