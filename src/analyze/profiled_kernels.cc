#include "analyze/profiled_kernels.h"

#include <cctype>
#include <set>
#include <utility>

namespace gpuwhy {
namespace {

using Shape = std::pair<int64_t, int64_t>;  // total blocks, threads per block

int64_t Product(const std::array<int32_t, 3>& dims) {
  int64_t product = 1;
  for (int32_t d : dims) {
    if (d < 0) return -1;
    product *= d;
  }
  return product;
}

// The launch shapes the trace recorded for the kernels named |name|.
std::set<Shape> TraceShapes(const Trace& trace, StringId name) {
  std::set<Shape> shapes;
  const GpuOpTable& ops = trace.gpu_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != GpuOpKind::kKernel || ops.name[i] != name) continue;
    const int64_t grid = Product(ops.launch(i).grid);
    const int64_t block = Product(ops.launch(i).block);
    if (grid > 0 && block > 0) shapes.insert({grid, block});
  }
  return shapes;
}

bool StartsCast(std::string_view s, size_t at, size_t& end) {
  // "(int)4", "(unsigned long)4", "(bool)1", "(char)-1": a parenthesised type before a literal.
  if (s[at] != '(') return false;
  size_t close = s.find(')', at);
  if (close == std::string_view::npos || close + 1 >= s.size()) return false;
  for (size_t i = at + 1; i < close; ++i) {
    const char c = s[i];
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != ' ' && c != '_') return false;
  }
  const char next = s[close + 1];
  if (!std::isdigit(static_cast<unsigned char>(next)) && next != '-') return false;
  end = close + 1;
  return true;
}

struct Candidate {
  const KernelProfile* profile;
  const ProfiledKernel* kernel;
  const KernelRoofline* roofline;
};

}  // namespace

std::string_view ProfileMatchName(ProfileMatch match) {
  switch (match) {
    case ProfileMatch::kNameAndShape: return "name and launch shape";
    case ProfileMatch::kName: return "name";
  }
  return "name";
}

std::string NormalizeKernelName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  constexpr std::string_view kUnnamed = "<unnamed>";
  for (size_t i = 0; i < name.size();) {
    if (name.substr(i, kAnonymous.size()) == kAnonymous) {
      out += "{anon}";
      i += kAnonymous.size();
      continue;
    }
    if (name.substr(i, kUnnamed.size()) == kUnnamed) {
      out += "{anon}";
      i += kUnnamed.size();
      continue;
    }
    size_t end = 0;
    if (StartsCast(name, i, end)) {
      i = end;
      continue;
    }
    if (name[i] != ' ') out.push_back(name[i]);
    ++i;
  }
  return out;
}

ProfiledKernelsResult ComputeProfiledKernels(const AnalysisInput& input,
                                             const KernelStatsResult& kernels) {
  ProfiledKernelsResult r;
  const std::span<const KernelProfile> profiles = input.options.kernel_profiles;
  r.profiles = profiles.size();
  if (profiles.empty()) return r;
  // Classify each profiled launch once.
  std::vector<std::vector<KernelRoofline>> classes(profiles.size());
  for (size_t p = 0; p < profiles.size(); ++p) {
    r.profiled_kernels += profiles[p].kernels.size();
    for (const ProfiledKernel& k : profiles[p].kernels) {
      classes[p].push_back(ClassifyProfiledKernel(k));
    }
  }
  for (const KernelNameStats& top : kernels.top) {
    const std::string key = NormalizeKernelName(top.display_name);
    const std::set<Shape> shapes = TraceShapes(input.trace, top.name);
    std::optional<Candidate> best;
    ProfileMatch best_match = ProfileMatch::kName;
    for (size_t p = 0; p < profiles.size(); ++p) {
      for (size_t k = 0; k < profiles[p].kernels.size(); ++k) {
        const ProfiledKernel& pk = profiles[p].kernels[k];
        // Another template instance of the same function is another kernel: no match.
        if (NormalizeKernelName(pk.name) != key) continue;
        const bool has_shape = pk.grid_blocks > 0 && pk.block_threads > 0 && !shapes.empty();
        if (has_shape && !shapes.contains({pk.grid_blocks, pk.block_threads})) continue;
        const ProfileMatch match = has_shape ? ProfileMatch::kNameAndShape : ProfileMatch::kName;
        if (!best || match < best_match) {
          best = Candidate{&profiles[p], &pk, &classes[p][k]};
          best_match = match;
        }
      }
    }
    if (!best) continue;
    r.top.push_back({top.display_name, top.total_ns, top.time_pct, best->profile->path,
                     best->kernel->id, best_match, *best->roofline});
    if (best->roofline->roofline_class != RooflineClass::kUnclassified) {
      r.classified_time_pct += top.time_pct;
    }
  }
  if (r.top.empty()) {
    r.not_applicable.push_back(
        "profiled kernels: no top kernel of the trace is among the Nsight Compute kernels given");
  }
  return r;
}

}  // namespace gpuwhy
