// Text report: synchronization and copies, communication, memory, data quality and the
// import stats.
#include <algorithm>

#include <fmt/format.h>

#include "report/text_format.h"
#include "report/text_sections.h"
#include "base/percent.h"

namespace gpuwhy::report {
namespace {

std::string OptionalBytes(int64_t bytes) {
  return bytes == kNoValue ? "n/a" : Bytes(static_cast<double>(bytes));
}

void RenderBlocking(std::string& out, const Section& s) {
  const SyncCopiesResult& r = s.analysis.sync_copies;
  TextTable t({{"blocking kind", 14, Align::kLeft}, {"calls", 10}, {"time", 14}});
  for (size_t k = 0; k < kBlockingKindCount; ++k) {
    if (r.count_by_kind[k] == 0) continue;
    t.AddRow({std::string(BlockingKindName(static_cast<BlockingKind>(k))),
              Count(r.count_by_kind[k]), MsNs(r.time_by_kind[k])});
  }
  if (!t.empty()) t.Render(out);
  std::vector<std::string> issuers;
  for (size_t i = 0; i < r.issuers.size() && i < 5; ++i) {
    const BlockingIssuer& issuer = r.issuers[i];
    issuers.push_back(fmt::format("{} ({} calls, {})",
                                  FitWidth(issuer.name.empty() ? "(no CPU op)" : issuer.name, 40),
                                  Count(issuer.count), MsNs(issuer.total)));
  }
  if (!issuers.empty()) Wrapped(out, fmt::format("issued by: {}", fmt::join(issuers, ", ")), 2);
  for (const GpuWaitStats& wait : r.gpu_waits) {
    Line(out, fmt::format("  GPU {} waits (cuda_sync, not busy): {} waits, {}", wait.device,
                          Count(wait.count), MsNs(wait.total)));
  }
}

void RenderCopies(std::string& out, const Section& s) {
  const SyncCopiesResult& r = s.analysis.sync_copies;
  if (r.copies.empty()) return;
  TextTable t({{"copies", 6, Align::kLeft},
               {"direction", 12, Align::kLeft},
               {"count", 10},
               {"bytes", 11},
               {"time", 12},
               {"pageable", 18},
               {"bandwidth", 11}});
  for (const CopyStats& c : r.copies) {
    t.AddRow({fmt::format("GPU {}", c.device), std::string(CopyDirectionName(c.direction)),
              Count(c.count), Bytes(static_cast<double>(c.bytes)), MsNs(c.duration),
              fmt::format("{} ({})", Count(c.pageable_count),
                          Bytes(static_cast<double>(c.pageable_bytes))),
              c.gbps > 0 ? GBps(c.gbps) : "n/a"});
  }
  t.Render(out);
}

}  // namespace

void RenderSyncCopies(std::string& out, const Section& s) {
  const SyncCopiesResult& r = s.analysis.sync_copies;
  Heading(out, s, "Synchronization & copies",
          fmt::format("{} blocking host calls, {}; {} .item()-style scalar reads",
                      Count(r.blocking_count), MsNs(r.blocking_total), Count(r.scalar_reads)));
  RenderBlocking(out, s);
  RenderCopies(out, s);
  NotApplicableLines(out, r.not_applicable);
}

void RenderCommunication(std::string& out, const Section& s) {
  const CommunicationResult& r = s.analysis.communication;
  if (r.rank.kernel_count == 0) {
    Heading(out, s, "Communication", "");
    NotApplicableLines(out, r.not_applicable);
    return;
  }
  Heading(out, s, "Communication",
          fmt::format("{} collective kernels; overlap with compute as HTA get_comm_comp_overlap",
                      Count(r.rank.kernel_count)));
  TextTable t({{"scope", 8, Align::kLeft},
               {"kernel time", 13},
               {"comm time", 13},
               {"overlapped", 13},
               {"exposed", 13},
               {"overlap", 9}});
  auto row = [&](std::string scope, const CommDeviceStats& d) {
    t.AddRow({std::move(scope), MsNs(d.kernel_time), MsNs(d.comm_time), MsNs(d.overlapped),
              MsNs(d.exposed), Pct(d.overlap_pct)});
  };
  row("rank", r.rank);
  if (r.devices.size() > 1) {
    for (const CommDeviceStats& d : r.devices) row(fmt::format("GPU {}", d.device), d);
  }
  t.Render(out);
  if (!r.per_step.empty()) {
    double exposed = 0;
    double step = 0;
    for (const CommStepStats& st : r.per_step) {
      exposed += static_cast<double>(st.exposed);
      step += static_cast<double>(st.step_time);
    }
    Line(out, fmt::format("  exposed communication per step: mean {} ({} of step time)",
                          Ms(exposed / 1e6 / static_cast<double>(r.per_step.size())),
                          Pct(PercentOf(exposed, step))));
  }
  if (!r.by_collective.empty()) {
    TextTable c({{"collective", 24, Align::kLeft},
                 {"count", 8},
                 {"size", 11},
                 {"time", 12},
                 {"algbw", 12},
                 {"busbw", 12}});
    for (size_t i = 0; i < r.by_collective.size() && i < s.options.top_n; ++i) {
      const CollectiveSummary& x = r.by_collective[i];
      c.AddRow({x.name, Count(x.count), x.bytes > 0 ? Bytes(static_cast<double>(x.bytes)) : "n/a",
                MsNs(x.time), x.algbw_gbps > 0 ? GBps(x.algbw_gbps) : "n/a",
                x.busbw_gbps > 0 ? GBps(x.busbw_gbps) : "n/a"});
    }
    c.Render(out);
  }
  NotApplicableLines(out, r.not_applicable);
}

void RenderMemory(std::string& out, const Section& s) {
  const MemoryUsageResult& r = s.analysis.memory;
  Heading(out, s, "Memory", r.devices.empty() ? "" : "allocator [memory] events");
  if (!r.devices.empty()) {
    TextTable t({{"GPU", 4},
                 {"peak allocated", 22},
                 {"peak reserved", 22},
                 {"capacity", 10},
                 {"reserved/alloc", 14},
                 {"max unused reserved", 19}});
    auto with_pct = [](int64_t bytes, double pct, int64_t capacity) {
      std::string text = Bytes(static_cast<double>(bytes));
      return capacity == kNoValue ? text : fmt::format("{} ({})", text, Pct(pct));
    };
    for (const DeviceMemoryStats& d : r.devices) {
      t.AddRow({fmt::format("{}", d.device),
                with_pct(d.peak_allocated, d.peak_allocated_pct, d.capacity),
                with_pct(d.peak_reserved, d.peak_reserved_pct, d.capacity),
                OptionalBytes(d.capacity), fmt::format("{:.2f}x", d.reserved_to_allocated),
                Bytes(static_cast<double>(d.max_unused_reserved))});
    }
    t.Render(out);
  }
  if (!r.per_step.empty()) {
    Line(out, fmt::format("  allocator churn: {} malloc + {} free calls in {} steady-state steps "
                          "({:.1f} calls per step, {})",
                          Count(r.steady_alloc_calls), Count(r.steady_free_calls),
                          r.per_step.size(), r.alloc_calls_per_step, MsNs(r.steady_alloc_time)));
  }
  NotApplicableLines(out, r.not_applicable);
}

void RenderDataQuality(std::string& out, const Section& s) {
  const DataQualityResult& r = s.analysis.data_quality;
  Heading(out, s, "Data quality",
          r.issues.empty() ? "no issue found"
                           : (r.reliable ? "numbers reliable; notes below"
                                         : "some numbers may be unreliable, see below"));
  for (const DataQualityIssue& issue : r.issues) {
    // The message states the count itself; JSON carries it as a number.
    Wrapped(
        out,
        fmt::format("{:<8} {}: {}", QualitySeverityName(issue.severity), issue.id, issue.message),
        2);
  }
}

void RenderImportStats(std::string& out, const Section& s) {
  const DataProblems& problems = s.header.problems;
  Heading(out, s, "Import stats", problems.empty() ? "clean, no counter above zero" : "");
  if (problems.empty()) return;
  TextTable t({{"id", 24, Align::kLeft},
               {"severity", 10, Align::kLeft},
               {"count", 14},
               {"detail", 44, Align::kLeft}});
  for (DataProblem kind : problems.Kinds()) {
    const DataProblemInfo& info = GetDataProblemInfo(kind);
    t.AddRow({std::string(info.id), std::string(SeverityName(info.severity)),
              Count(problems.Get(kind)), std::string(problems.Detail(kind))});
  }
  t.Render(out);
}

}  // namespace gpuwhy::report
