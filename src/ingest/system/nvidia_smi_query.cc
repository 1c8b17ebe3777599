// `nvidia-smi -q`: "Key : Value" lines nested by indentation under one "GPU 00000000:07:00.0"
// line per GPU; "Driver Version" and "CUDA Version" before the first GPU apply to all.
#include <fmt/format.h>

#include "ingest/system/gpu_fields.h"
#include "ingest/system/system_parsers.h"

namespace gpuwhy {
namespace {

using system::KeyedValue;
using system::TextLine;

size_t Indent(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) n += s[n] == '\t' ? 4 : 1;
  return n;
}

struct Section {
  GpuState gpu;
  std::vector<KeyedValue> values;
  bool processes = false;  // reached "Processes", the last section of every GPU's record
  size_t last_line = 0;
};

}  // namespace

Status ParseNvidiaSmiQuery(std::string_view text, std::string_view path, SystemFacts& facts) {
  std::string driver, cuda;
  std::vector<Section> sections;
  std::vector<std::pair<size_t, std::string>> stack;  // (indent, key) of enclosing sections
  bool saw_header = false;
  for (const TextLine& line : system::SplitLines(text)) {
    std::string_view t = system::Trim(line.text);
    if (t.empty()) continue;
    if (system::Contains(t, "NVSMI LOG")) {
      saw_header = true;
      continue;
    }
    size_t indent = Indent(line.text);
    if (indent == 0 && t.starts_with("GPU ") && t.find(" : ") == std::string_view::npos) {
      sections.emplace_back();
      sections.back().gpu.pci_bus_id = std::string(system::Trim(t.substr(4)));
      stack.clear();
      continue;
    }
    size_t colon = t.find(" : ");
    std::string_view key = system::Trim(colon == std::string_view::npos ? t : t.substr(0, colon));
    std::string_view value;
    if (colon != std::string_view::npos) {
      value = system::Trim(t.substr(colon + 3));
    } else if (t.ends_with(":")) {
      key = system::Trim(t.substr(0, t.size() - 1));
    }
    while (!stack.empty() && stack.back().first >= indent) stack.pop_back();
    if (!sections.empty()) {
      sections.back().last_line = line.number;
      if (stack.empty() && key == "Processes") sections.back().processes = true;
    }
    if (sections.empty()) {
      // Driver 610 appends "[Deprecated; ... Use KMD Version instead]": the number is the word.
      if (key == "Driver Version") driver = std::string(value.substr(0, value.find(' ')));
      if (key == "CUDA Version") cuda = std::string(value);
      continue;
    }
    // Keys below the GPU line; the GPU's own indent (4) is the root.
    std::string full;
    for (const auto& [unused, name] : stack) full += name + "/";
    full += std::string(key);
    if (colon != std::string_view::npos) {
      sections.back().values.push_back({full, std::string(value), line});
    }
    // "Process ID : 58130" has children (Type, Name, …) as well as a value.
    stack.emplace_back(indent, std::string(key));
  }
  if (!saw_header && sections.empty()) {
    return InvalidArgument("{}: no 'NVSMI LOG' header and no GPU section", path);
  }
  // Every GPU's record ends with its Processes section: a last record without it was cut
  // short (a paste, a size limit), and the fields after the cut are missing, not healthy.
  if (!sections.empty() && !sections.back().processes) {
    facts.problems.Add(
        DataProblem::kTruncated,
        system::LineError(path, sections.back().last_line,
                          fmt::format("nvidia-smi -q is truncated: GPU {}'s record stops before "
                                      "its Processes section; the fields after the cut are "
                                      "missing",
                                      sections.back().gpu.pci_bus_id)));
  }
  for (Section& section : sections) {
    GpuState& gpu = section.gpu;
    gpu.source = "nvidia-smi -q";
    gpu.file = std::string(path);
    gpu.driver_version = driver;
    gpu.cuda_version = cuda;
    system::FillGpuState(system::GpuDialect::kQueryText, section.values, path, gpu);
    facts.gpus.push_back(std::move(gpu));
  }
  return Status::Ok();
}

}  // namespace gpuwhy
