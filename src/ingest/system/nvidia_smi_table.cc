// The default `nvidia-smi` box: the header gives the driver and CUDA versions; each GPU is a
// block of box rows "|   0  NVIDIA H100 80GB HBM3   On  |   00000000:19:00.0 Off |   0 |" and
// "| N/A   27C    P0   72W /  700W |   1MiB /  81559MiB |   0%   Default |"; the process box
// lists "GPU GI CI PID Type Process name GPU Memory".
#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {
namespace {

using system::TextLine;

// The cells between '|' of a box row.
std::vector<std::string_view> Cells(std::string_view s) {
  std::vector<std::string_view> cells;
  size_t pos = s.find('|');
  while (pos != std::string_view::npos) {
    size_t next = s.find('|', pos + 1);
    if (next == std::string_view::npos) break;
    cells.push_back(system::Trim(s.substr(pos + 1, next - pos - 1)));
    pos = next;
  }
  return cells;
}

std::string After(std::string_view s, std::string_view key) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return "";
  std::vector<std::string_view> w = system::SplitWords(s.substr(at + key.size()));
  return w.empty() ? "" : std::string(w[0]);
}

void Note(GpuState& gpu, std::string_view field, std::string_view path, const TextLine& line) {
  gpu.quotes.push_back({std::string(field), "", system::Quote(path, line)});
}

// "|   0  NVIDIA H100 80GB HBM3   On  |   00000000:19:00.0 Off |   0 |".
bool ReadFirstRow(const std::vector<std::string_view>& cells, GpuState& gpu) {
  if (cells.size() < 3) return false;
  std::vector<std::string_view> w = system::SplitWords(cells[0]);
  if (w.size() < 3 || !system::ParseInt(w[0])) return false;
  std::string_view persistence = w.back();
  if (persistence != "On" && persistence != "Off") return false;
  std::string name;
  for (size_t i = 1; i + 1 < w.size(); ++i) name += (i > 1 ? " " : "") + std::string(w[i]);
  gpu.name = name;
  gpu.persistence_mode = persistence == "On" ? "Enabled" : "Disabled";
  std::vector<std::string_view> bus = system::SplitWords(cells[1]);
  if (!bus.empty()) gpu.pci_bus_id = std::string(bus[0]);
  if (std::optional<int64_t> ecc = system::ParseInt(cells[2])) gpu.ecc_volatile_uncorrectable = ecc;
  return true;
}

// "| N/A   27C    P0   72W /  700W |   1MiB /  81559MiB |   0%   Default |". nvidia-smi
// prints "ERR!" where a sensor could not be read (the fan, the temperature, the power).
void ReadSecondRow(const std::vector<std::string_view>& cells, GpuState& gpu, std::string_view path,
                   const TextLine& line) {
  if (cells.size() < 3) return;
  static constexpr std::string_view kFields[] = {"fan", "temperature", "performance state",
                                                 "power"};
  std::vector<std::string_view> words = system::SplitWords(cells[0]);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] != "ERR!") continue;
    std::string_view field = i < std::size(kFields) ? kFields[i] : "sensor";
    gpu.quotes.push_back({"sensor_error", std::string(field), system::Quote(path, line)});
  }
  for (std::string_view w : system::SplitWords(cells[0])) {
    if (w.ends_with("C") && system::LeadingNumber(w)) gpu.temp_c = system::LeadingNumber(w);
    if (w.size() >= 2 && w[0] == 'P' && system::ParseInt(w.substr(1))) {
      gpu.performance_state = std::string(w);
    }
  }
  // "72W /  700W" is the last slash of the cell: the fan column may read "N/A".
  size_t slash = cells[0].rfind('/');
  if (slash != std::string_view::npos && slash > 0 &&
      cells[0].substr(0, slash).find('W') != std::string_view::npos) {
    std::vector<std::string_view> before = system::SplitWords(cells[0].substr(0, slash));
    if (!before.empty()) gpu.power_w = system::LeadingNumber(before.back());
    gpu.power_limit_w = system::LeadingNumber(cells[0].substr(slash + 1));
  }
  size_t mem = cells[1].find('/');
  if (mem != std::string_view::npos) {
    gpu.memory_used_mib = system::LeadingNumber(cells[1].substr(0, mem));
    gpu.memory_total_mib = system::LeadingNumber(cells[1].substr(mem + 1));
  }
  std::vector<std::string_view> util = system::SplitWords(cells[2]);
  if (!util.empty()) gpu.util_pct = system::LeadingNumber(util[0]);
  if (util.size() > 1) gpu.compute_mode = std::string(util[1]);
}

}  // namespace

Status ParseNvidiaSmiTable(std::string_view text, std::string_view path, SystemFacts& facts) {
  std::string driver, cuda;
  std::vector<GpuState> gpus;
  int row_in_block = -1;  // 0 after a GPU's first row
  bool in_processes = false;
  bool saw_header = false;
  for (const TextLine& line : system::SplitLines(text)) {
    std::string_view t = system::Trim(line.text);
    if (system::Contains(t, "NVIDIA-SMI ") && system::Contains(t, "Driver Version")) {
      driver = After(t, "Driver Version:");
      cuda = After(t, "CUDA Version:");
      saw_header = true;
      continue;
    }
    if (system::Contains(t, "Processes:")) {
      in_processes = true;
      continue;
    }
    if (!t.starts_with("|")) {
      row_in_block = -1;
      continue;
    }
    std::vector<std::string_view> cells = Cells(t);
    if (in_processes) {
      std::vector<std::string_view> w = system::SplitWords(cells.empty() ? "" : cells[0]);
      // "  0   N/A  N/A   1234   C   python   1234MiB"
      if (w.size() >= 6 && system::ParseInt(w[0]) && system::ParseInt(w[3])) {
        int64_t index = *system::ParseInt(w[0]);
        if (index >= 0 && static_cast<size_t>(index) < gpus.size()) {
          GpuStateProcess p;
          p.pid = *system::ParseInt(w[3]);
          p.type = std::string(w[4]);
          for (size_t i = 5; i + 1 < w.size(); ++i)
            p.name += (i > 5 ? " " : "") + std::string(w[i]);
          p.used_mib = system::LeadingNumber(w.back());
          gpus[static_cast<size_t>(index)].processes.push_back(std::move(p));
        }
      }
      continue;
    }
    GpuState gpu;
    if (ReadFirstRow(cells, gpu)) {
      gpu.source = "nvidia-smi";
      gpu.file = std::string(path);
      gpu.driver_version = driver;
      gpu.cuda_version = cuda;
      Note(gpu, "persistence_mode", path, line);
      gpus.push_back(std::move(gpu));
      row_in_block = 0;
      continue;
    }
    if (row_in_block == 0 && !gpus.empty()) {
      ReadSecondRow(cells, gpus.back(), path, line);
      Note(gpus.back(), "temp_c", path, line);
      Note(gpus.back(), "power_w", path, line);
      row_in_block = 1;
    } else if (row_in_block == 1 && !gpus.empty() && cells.size() >= 3 && !cells[2].empty()) {
      gpus.back().mig_mode = std::string(cells[2]);
      row_in_block = 2;
    }
  }
  if (!saw_header) return InvalidArgument("{}: no 'NVIDIA-SMI … Driver Version' header", path);
  for (GpuState& gpu : gpus) facts.gpus.push_back(std::move(gpu));
  return Status::Ok();
}

}  // namespace gpuwhy
