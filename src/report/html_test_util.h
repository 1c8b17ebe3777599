// Shared by the HTML report tests: a Kineto trace whose names try to break out of HTML, and
// running a whole trace through import, analysis, diagnosis and the HTML renderer.
#pragma once

#include <fstream>
#include <string>

#include <fmt/format.h>

#include "analyze/analysis.h"
#include "diagnose/diagnose.h"
#include "ingest/importer.h"
#include "report/report.h"

namespace gpuwhy::html_test {

// Would mark the page if it ever ran: an attribute only script can set.
inline constexpr const char* kScriptName =
    "<script>document.body.setAttribute('data-pwned','1')</script>";
inline constexpr const char* kImgName =
    "\"><img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">";
inline constexpr const char* kAmpName = "void at::native::kernel<float, 'q' & \"r\">(float const*)";

// JSON string literal of |s| (quotes and backslashes escaped).
inline std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Four steps; each launches the three hostile kernels from a hostile CPU op, and a long
// hostile CPU op between launches leaves the GPU idle (a host_busy gap named after it).
inline std::string HostileTrace() {
  const std::string names[] = {kScriptName, kImgName, kAmpName};
  std::string events;
  auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",\n") + e; };
  int64_t correlation = 1;
  for (int step = 0; step < 4; ++step) {
    int64_t t0 = 1000 + step * 10000;
    add(fmt::format(
        R"({{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{}","pid":1,"tid":1,"ts":{},"dur":9000}})",
        step + 1, t0));
    add(fmt::format(R"({{"ph":"X","cat":"cpu_op","name":{},"pid":1,"tid":1,"ts":{},"dur":6000}})",
                    JsonString(kScriptName), t0 + 100));
    for (int k = 0; k < 3; ++k) {
      int64_t launch = t0 + 200 + k * 1500;
      add(fmt::format(
          R"({{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":{},"dur":5,"args":{{"correlation":{}}}}})",
          launch, correlation));
      add(fmt::format(
          R"({{"ph":"X","cat":"kernel","name":{},"pid":0,"tid":7,"ts":{},"dur":{},"args":{{"device":0,"stream":7,"correlation":{}}}}})",
          JsonString(names[k]), launch + 20, k == 0 ? 4 : 800, correlation));
      ++correlation;
    }
  }
  return "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":" + JsonString(kAmpName) +
         ",\"totalGlobalMem\":85899345920}],\n\"traceEvents\":[\n" + events + "\n]}\n";
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Import, analyse, diagnose and render as `gpuwhy analyze --format html` does.
inline std::string HtmlReportOf(const std::string& path) {
  StatusOr<Trace> trace = ImportTraceFile(path);
  if (!trace.ok()) return "import failed: " + trace.status().message();
  RankReport rank{SummarizeTraceHeader(*trace), AnalyzeTrace(*trace), {}};
  rank.diagnosis = Diagnose(*trace, rank.analysis);
  rank.memory_series = ComputeTraceMemorySeries(*trace);  // as the pipeline fills it
  std::vector<RankReport> ranks;
  ranks.push_back(std::move(rank));
  return RenderReportHtml(ranks, {});
}

}  // namespace gpuwhy::html_test
