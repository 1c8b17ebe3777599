// Training steps from NVTX ranges: --step-range REGEX, else ProfilerStep#N, else ranges
// named step / train_step / iteration. Without any, Trace::Finalize() makes one step.
#include <algorithm>
#include <cctype>
#include <regex>
#include <unordered_map>

#include "ingest/nsys/nsys_context.h"

namespace gpuwhy {
namespace {

// Same spelling rules as the Kineto importer's ProfilerStep#N.
constexpr const char* kProfilerStepPattern = R"(ProfilerStep#\d+)";
constexpr const char* kCommonStepPattern =
    R"((train[_ ]?step|training[_ ]step|step|iteration|iter)([ _#:=-]*\d+)?)";

struct Candidate {
  TimeNs start;
  TimeNs end;
  StringId name;
  size_t order;
};

// The number a step's name ends with ("ProfilerStep#12" -> 12), else its position.
int64_t StepNumber(std::string_view name, int64_t ordinal) {
  size_t end = name.size();
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1])) &&
         end - begin < 18) {
    --begin;
  }
  if (begin == end) return ordinal;
  int64_t n = 0;
  for (size_t i = begin; i < end; ++i) n = n * 10 + (name[i] - '0');
  return n;
}

std::vector<Candidate> Match(const Trace& trace, const std::regex& pattern) {
  const CpuSliceTable& s = trace.cpu_slices;
  std::unordered_map<uint32_t, bool> matches;  // per distinct name: regexes are slow
  std::vector<Candidate> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != CpuSliceKind::kUserAnnotation && s.kind[i] != CpuSliceKind::kOp) continue;
    auto [it, inserted] = matches.try_emplace(s.name[i].value);
    if (inserted) {
      std::string_view name = trace.Str(s.name[i]);
      it->second = std::regex_match(name.begin(), name.end(), pattern);
    }
    if (it->second) out.push_back({s.start[i], s.end[i], s.name[i], out.size()});
  }
  return out;
}

}  // namespace

Status SelectSteps(NsysContext& ctx, NsysProcess& process) {
  Trace& trace = process.trace;
  std::vector<Candidate> steps;
  if (!ctx.options.step_range.empty()) {
    std::regex pattern;
    try {
      pattern = std::regex(ctx.options.step_range, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return InvalidArgument("--step-range '{}': not a valid regular expression: {}",
                             ctx.options.step_range, e.what());
    }
    steps = Match(trace, pattern);
  } else {
    steps = Match(trace, std::regex(kProfilerStepPattern));
    if (steps.empty()) {
      steps =
          Match(trace, std::regex(kCommonStepPattern, std::regex::ECMAScript | std::regex::icase));
    }
  }
  std::sort(steps.begin(), steps.end(), [](const Candidate& a, const Candidate& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  // Steps tile time: a range nested in (or overlapping) the previous step is not a new one.
  TimeNs covered_until = std::numeric_limits<TimeNs>::min();
  int64_t ordinal = 0;
  for (const Candidate& c : steps) {
    if (c.start < covered_until) continue;
    covered_until = c.end;
    int64_t number = StepNumber(trace.Str(c.name), ordinal++);
    trace.steps.rows.push_back({number, c.name, c.start, c.end, c.start, c.end, 0});
  }
  return Status::Ok();
}

}  // namespace gpuwhy
