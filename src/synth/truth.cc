#include "synth/truth.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpuwhy {
namespace {

void AppendCounts(fmt::memory_buffer& out, const std::array<int64_t, kNumEventCats>& counts) {
  fmt::format_to(fmt::appender(out), "{{");
  for (int c = 0; c < kNumEventCats; ++c) {
    fmt::format_to(fmt::appender(out), "{}\"{}\": {}", c == 0 ? "" : ", ",
                   EventCatName(static_cast<EventCat>(c)), counts[c]);
  }
  fmt::format_to(fmt::appender(out), "}}");
}

}  // namespace

std::string RenderTruthJson(const GroundTruth& truth) {
  const RankTruth& first = truth.ranks.front();
  const MeasuredStep& mean = first.mean;
  fmt::memory_buffer out;
  auto it = fmt::appender(out);
  fmt::format_to(it, "{{\n  \"scenario\": \"{}\",\n  \"description\": \"{}\",\n",
                 truth.scenario->name, JsonEscape(truth.scenario->description));
  fmt::format_to(it, "  \"expected_top_finding\": \"{}\",\n  \"seed\": {},\n  \"steps\": {},\n",
                 truth.scenario->expected_finding, truth.seed, truth.steps);
  fmt::format_to(it, "  \"profiler_steps\": {},\n",
                 truth.scenario->recipe.profiler_steps ? "true" : "false");
  fmt::format_to(it, "  \"params\": [");
  for (size_t i = 0; i < truth.params.size(); ++i) {
    fmt::format_to(it, "{}\"{}\"", i == 0 ? "" : ", ", JsonEscape(truth.params[i]));
  }
  fmt::format_to(it, "],\n");
  fmt::format_to(it, "  \"ranks\": {},\n  \"world_size\": {},\n  \"files\": [", truth.ranks.size(),
                 truth.world_size);
  for (size_t r = 0; r < truth.ranks.size(); ++r) {
    fmt::format_to(it, "{}\"{}\"", r == 0 ? "" : ", ", JsonEscape(truth.ranks[r].file));
  }
  DurationNs idle = mean.step_ns - mean.gpu_busy_ns;
  double busy_fraction =
      mean.step_ns > 0 ? static_cast<double>(mean.gpu_busy_ns) / mean.step_ns : 0.0;
  fmt::format_to(it,
                 "],\n  \"step_time_ns\": {},\n  \"gpu_busy_ns_per_step\": {},\n"
                 "  \"gpu_idle_ns_per_step\": {},\n  \"gpu_busy_fraction\": {:.4f},\n"
                 "  \"kernels_per_step\": {},\n  \"injected\": {{",
                 mean.step_ns, mean.gpu_busy_ns, idle, busy_fraction, mean.kernels);
  std::vector<TruthEntry> injected = InjectedTruth(*truth.scenario, mean, truth.world_size);
  for (size_t i = 0; i < injected.size(); ++i) {
    fmt::format_to(it, "{}\n    \"{}\": {}", i == 0 ? "" : ",", injected[i].key, injected[i].value);
  }
  fmt::format_to(it, "{}}},\n  \"counts\": ", injected.empty() ? "" : "\n  ");
  AppendCounts(out, first.counts);
  if (truth.slow_rank >= 0) {
    const LatenessTruth& l = truth.lateness;
    double late = l.late_count > 0 ? l.sum_late_ns / static_cast<double>(l.late_count) : 0;
    fmt::format_to(
        it,
        ",\n  \"straggler\": {{\"rank\": {}, \"slow_by_pct\": {}, \"cause\": \"compute\", "
        "\"collectives\": {}, \"late_count\": {}, \"mean_late_ns\": {:.0f}, "
        "\"others_wait_ns_per_step\": {:.0f}}}",
        truth.slow_rank, truth.slow_by_pct, l.collectives, l.late_count, late,
        l.sum_wait_ns / std::max(1, truth.steps));
  }
  fmt::format_to(it, ",\n  \"per_rank\": [");
  for (size_t r = 0; r < truth.ranks.size(); ++r) {
    const RankTruth& rank = truth.ranks[r];
    fmt::format_to(it, "{}\n    {{\"rank\": {}, \"file\": \"{}\", \"step_time_ns\": {}, ",
                   r == 0 ? "" : ",", rank.rank, JsonEscape(rank.file), rank.mean.step_ns);
    fmt::format_to(it, "\"gpu_busy_ns_per_step\": {}, ", rank.mean.gpu_busy_ns);
    if (r < truth.clock_offsets.size()) {
      fmt::format_to(it, "\"clock_offset_ns\": {}, ",
                     truth.clock_offsets[r] - truth.clock_offsets[0]);
    }
    fmt::format_to(it, "\"counts\": ");
    AppendCounts(out, rank.counts);
    fmt::format_to(it, "}}");
  }
  fmt::format_to(it, "\n  ]\n}}\n");
  return fmt::to_string(out);
}

}  // namespace gpuwhy
