// Places one rank's Chrome-trace events in a merged trace of several ranks: every (pid, tid)
// of the rank becomes a thread of the rank's one process, timestamps move onto the
// reference rank's clock, and flow ids are made unique across ranks. Only the values of
// "pid", "tid", "ts" and a flow's "id" change; every other byte of an event is copied as read.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/time.h"

namespace gpuwhy {

// Top-level members of one JSON object, as raw text: |key| without its quotes (escapes kept),
// |value| exactly as written (a string keeps its quotes). Nested members are not visited.
struct JsonMember {
  std::string_view key;
  std::string_view value;
};
// False when |object| is not one well-formed object (the members read so far are kept).
bool SplitTopLevelMembers(std::string_view object, std::vector<JsonMember>& members);

struct RankPlacement {
  int64_t rank = 0;
  int64_t pid = 0;           // the rank's process in the merged trace
  DurationNs offset_ns = 0;  // aligned time = own time - offset
  int64_t rank_index = 0;    // 0 … rank_count-1: flow id i becomes i * rank_count + rank_index
  int64_t rank_count = 1;
};

struct RankRewriteStats {
  uint64_t events = 0;           // events written
  uint64_t naming_absorbed = 0;  // process/thread name and sort-index metadata, re-emitted merged
  uint64_t unshifted = 0;        // events whose "ts" is not a number: copied unshifted
  uint64_t flow_ids_kept = 0;    // flow ids too large or not numbers to remap: kept as read
  uint64_t malformed = 0;        // events that are not one JSON object: copied as read
};

// A thread of the rank's process and the name it is shown with.
struct MergedThread {
  int64_t tid = 0;
  std::string json_name;  // JSON string content (escapes applied)
  int64_t sort_index = 0;
};

class RankEventRewriter {
 public:
  explicit RankEventRewriter(const RankPlacement& placement);

  // Appends the placed event to |out|, or absorbs naming metadata (returns false: nothing
  // appended; the names reach Threads()).
  bool Rewrite(std::string_view event, std::string& out);

  // The merged thread of an original (pid, tid), both as raw JSON values ("0", "\"stream 7\"").
  int64_t ThreadFor(std::string_view pid_json, std::string_view tid_json);
  // |json_name|: JSON string content (escapes applied).
  void NameProcess(std::string_view pid_json, std::string_view json_name);
  void NameThread(std::string_view pid_json, std::string_view tid_json, std::string_view json_name);

  // Aligned nanoseconds of an own-clock time.
  TimeNs Align(TimeNs own) const { return own - placement_.offset_ns; }

  // Every thread seen: "<original process> › <original thread>", ordered by original process
  // (first seen first), then by thread within it.
  std::vector<MergedThread> Threads() const;
  const RankRewriteStats& stats() const { return stats_; }
  const RankPlacement& placement() const { return placement_; }

 private:
  struct Thread {
    int64_t tid = 0;
    int64_t process_order = 0;
    int64_t order = 0;
  };
  int64_t ProcessOrder(const std::string& pid);

  RankPlacement placement_;
  RankRewriteStats stats_;
  std::vector<JsonMember> members_;  // reused per event
  std::map<std::pair<std::string, std::string>, Thread> threads_;
  std::map<std::string, int64_t> process_order_;
  std::map<std::string, std::string> process_names_;
  std::map<std::pair<std::string, std::string>, std::string> thread_names_;
};

}  // namespace gpuwhy
