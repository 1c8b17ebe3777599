// `gpuwhy annotate`: the original trace, event for event (each event's bytes copied as they
// were read, never re-serialised), plus tracks that Perfetto and chrome://tracing show:
// per device the idle pieces named by cause, the analysed steps with their breakdown, queue
// length and utilization counters, and one marker per finding over its time ranges.
// Complete events on one added track never overlap: events that would are spread over
// extra lanes (tracks) of the same process.
// Several ranks of one job merge into one trace: one process per rank, every rank's events
// moved onto the reference rank's clock (offsets estimated from the collectives), plus a
// track of the matched collectives and of each rank's wait for the last one.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "annotate/rank_rewrite.h"
#include "base/status.h"
#include "diagnose/diagnose.h"
#include "ranks/cross_rank.h"

namespace gpuwhy {

// A Chrome-trace event gpuwhy adds: "X" (complete) or "C" (counter).
struct AddedEvent {
  char phase = 'X';
  int64_t pid = 0;
  int64_t tid = 0;
  TimeNs ts = 0;
  DurationNs dur = 0;  // X only
  std::string name;
  std::string category;
  std::vector<std::pair<std::string, std::string>> string_args;
  std::vector<std::pair<std::string, double>> number_args;  // C: the counter's series
};

// Process ids of the added tracks: far above real pids, one per kind.
inline constexpr int64_t kAnnotatePidBase = 1'000'000'000;

struct AnnotationTracks {
  std::vector<AddedEvent> events;  // metadata ("M") names are written from |names|
  std::vector<std::pair<int64_t, std::string>> process_names;
  std::vector<std::pair<std::pair<int64_t, int64_t>, std::string>> thread_names;
};

// Builds the added tracks from the analyses and the diagnosis. |max_counter_points| caps
// each counter (queue-length series are thinned by time buckets, keeping each bucket's max).
AnnotationTracks BuildAnnotationTracks(const TraceAnalysis& analysis, const Diagnosis& diagnosis,
                                       size_t max_counter_points = 20000);

// Lays out complete events so that none overlaps another on its (pid, tid): the first lane
// whose last event ended gets it; |lane_tid| gives the tid of lane N of a track.
void AssignLanes(std::vector<AddedEvent>& events);

// Copies |input| (Kineto / Chrome JSON, plain or gzip) into |output| (gzip when it ends in
// .gz) with |tracks| appended to its traceEvents; the other top-level members are kept.
Status WriteAnnotatedTrace(const std::string& input, const AnnotationTracks& tracks,
                           const std::string& output);

// The job-wide tracks of a merged trace (aligned time): every matched collective from its
// first arrival to the end of its transfer, and per rank the time it waited for the last one.
AnnotationTracks BuildCrossRankTracks(const CrossRankResult& result);

// |tracks| alone as a Chrome trace ({"traceEvents": [...]}, gzip when |output| ends in .gz):
// a rank's tracks wait on disk for the merge, so memory does not grow with the ranks.
Status WriteTracksFragment(const AnnotationTracks& tracks, const std::string& output);

// One rank of a merged trace.
struct MergedRankInput {
  std::string path;  // its Kineto / Chrome JSON trace
  int64_t rank = 0;
  RankClock clock;          // offset onto the reference rank's clock (0 when not aligned)
  std::string tracks_path;  // its WriteTracksFragment file (own clock); "" for none
};

struct MergedRankOutcome {
  int64_t rank = 0;
  std::string path;
  int64_t pid = 0;
  RankRewriteStats stats;
  size_t added_events = 0;  // from its tracks fragment
  bool truncated = false;
  uint64_t truncated_at = 0;  // decompressed byte where the trace stops
};

struct MergedTraceResult {
  std::vector<MergedRankOutcome> ranks;  // input order
  size_t job_events = 0;                 // events of the job-wide tracks
};

// Streams every rank's trace, in order, into one trace at |output| (gzip when it ends in .gz):
// process per rank (named "rank R", sorted by rank, labelled with its clock offset), each
// original (pid, tid) a thread of it named "<process> / <thread>", timestamps aligned; then
// |job_tracks| as they are. Fails when a trace cannot be opened or written; a truncated
// trace contributes what it holds and is flagged in its outcome.
StatusOr<MergedTraceResult> WriteMergedTrace(const std::vector<MergedRankInput>& ranks,
                                             const AnnotationTracks& job_tracks,
                                             const std::string& output);

}  // namespace gpuwhy
