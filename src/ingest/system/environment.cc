// `env` output: NAME=VALUE lines. Only the settings that change how a GPU job runs are kept
// (CUDA_*, NCCL_*, PYTORCH_*, TORCH_*, OMP/MKL thread counts, libfabric FI_*, UCX_*); the
// rest of a process environment (paths, tokens) is never copied into a report.
#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {

bool IsGpuJobSetting(std::string_view name) {
  for (std::string_view prefix :
       {"CUDA_", "NCCL_", "PYTORCH_", "TORCH_", "FI_", "UCX_", "NVIDIA_"}) {
    if (name.starts_with(prefix)) return true;
  }
  return name == "OMP_NUM_THREADS" || name == "MKL_NUM_THREADS" || name == "TF_CPP_MIN_LOG_LEVEL";
}

Status ParseEnvironment(std::string_view text, std::string_view path, SystemFacts& facts) {
  for (const system::TextLine& line : system::SplitLines(text)) {
    std::string_view t = system::Trim(line.text);
    if (t.empty() || t.starts_with("#")) continue;
    if (t.starts_with("export ")) t = system::Trim(t.substr(7));
    size_t eq = t.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      // Multi-line values continue on the next lines; nothing to read there.
      continue;
    }
    std::string_view name = t.substr(0, eq);
    if (!IsGpuJobSetting(name)) continue;
    std::string_view value = t.substr(eq + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    facts.settings.push_back({std::string(name), std::string(value), system::Quote(path, line)});
  }
  return Status::Ok();
}

}  // namespace gpuwhy
