// `nvidia-smi topo -m` and `topo -p2p r` matrices. A header line names the device columns
// (GPU0…, NIC0…, mlx5_0…) and then the affinity columns ("CPU Affinity", "NUMA Affinity",
// "GPU NUMA ID"); each row is a device name, one cell per device column (NIC rows stop at
// their "X"), then the affinity values. Cells are separated by tabs or spaces and affinity
// headers contain spaces, so rows are read word by word against the header. A file may
// hold several matrices (one per command), legends, a NIC legend and tool errors.
#include <cctype>

#include <fmt/format.h>

#include "ingest/system/system_parsers.h"
#include "ingest/system/text_lines.h"

namespace gpuwhy {
namespace {

using system::TextLine;

bool IsDeviceName(std::string_view w) {
  auto numbered = [&](std::string_view prefix) {
    if (!w.starts_with(prefix) || w.size() == prefix.size()) return false;
    for (char c : w.substr(prefix.size())) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
  };
  return numbered("GPU") || numbered("NIC") || w.starts_with("mlx5_") || w.starts_with("rdmap") ||
         w.starts_with("efa_");
}

std::optional<TopoCell> ReadCell(std::string_view w) {
  TopoCell cell;
  cell.text = std::string(w);
  if (w == "X") {
    cell.kind = TopoLinkKind::kSelf;
  } else if (w.size() > 2 && w.starts_with("NV") &&
             std::isdigit(static_cast<unsigned char>(w[2]))) {
    std::optional<int64_t> n = system::ParseInt(w.substr(2));
    if (!n) return std::nullopt;
    cell.kind = TopoLinkKind::kNvLink;
    cell.nvlinks = static_cast<int>(*n);
  } else if (w == "PIX") {
    cell.kind = TopoLinkKind::kPix;
  } else if (w == "PXB") {
    cell.kind = TopoLinkKind::kPxb;
  } else if (w == "PHB") {
    cell.kind = TopoLinkKind::kPhb;
  } else if (w == "NODE") {
    cell.kind = TopoLinkKind::kNode;
  } else if (w == "SYS") {
    cell.kind = TopoLinkKind::kSys;
  } else if (w == "SOC" || w == "OK" || w == "CNS" || w == "GNS" || w == "TNS" || w == "NS" ||
             w == "U") {
    cell.kind = TopoLinkKind::kOther;  // SOC (older drivers), p2p status codes
  } else {
    return std::nullopt;
  }
  return cell;
}

// Tabs to 8-column stops, so cells line up with their header in tab- and space-aligned output.
std::string ExpandTabs(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '\t') {
      out += c;
      continue;
    }
    do out += ' ';
    while (out.size() % 8 != 0);
  }
  return out;
}

struct Word {
  std::string_view text;
  size_t column = 0;  // position in the tab-expanded line
};

std::vector<Word> WordsWithColumns(std::string_view s) {
  std::vector<Word> words;
  for (std::string_view w : system::SplitWords(s)) {
    words.push_back({w, static_cast<size_t>(w.data() - s.data())});
  }
  return words;
}

bool IsP2pCode(std::string_view w) {
  return w == "OK" || w == "CNS" || w == "GNS" || w == "TNS" || w == "NS" || w == "U";
}

// Header: a device name followed by another device name or by "CPU" (single-GPU matrices).
bool IsHeader(const std::vector<std::string_view>& w) {
  return w.size() >= 2 && IsDeviceName(w[0]) && (IsDeviceName(w[1]) || w[1] == "CPU");
}

struct OpenMatrix {
  TopoMatrix matrix;
  std::vector<size_t> starts;  // where each device column's name starts in the header
};

OpenMatrix ReadHeader(const std::vector<Word>& words, std::string_view path, const TextLine& line,
                      std::string kind) {
  OpenMatrix m;
  m.matrix.kind = std::move(kind);
  m.matrix.header = system::Quote(path, line);
  for (const Word& w : words) {
    if (!IsDeviceName(w.text)) break;
    m.matrix.columns.emplace_back(w.text);
    m.starts.push_back(w.column);
  }
  return m;
}

// The device column a cell at |column| belongs to: the nearest header column at or after
// |next| (NIC rows leave the NIC-to-NIC cells before their "X" blank).
size_t NearestColumn(const std::vector<size_t>& starts, size_t next, size_t column) {
  size_t best = next;
  auto distance = [&](size_t i) {
    return starts[i] > column ? starts[i] - column : column - starts[i];
  };
  for (size_t i = next; i < starts.size(); ++i) {
    if (distance(i) < distance(best)) best = i;
  }
  return best;
}

void ReadRow(OpenMatrix& open, const std::vector<Word>& w, std::string_view path,
             const TextLine& line, SystemFacts& facts) {
  TopoMatrix& m = open.matrix;
  TopoRow row;
  row.name = std::string(w[0].text);
  row.quote = system::Quote(path, line);
  size_t i = 1;
  size_t next = 0;
  while (i < w.size() && next < m.columns.size()) {
    std::optional<TopoCell> cell = ReadCell(w[i].text);
    if (!cell) break;
    if (IsP2pCode(w[i].text)) m.kind = "topo -p2p";
    size_t column = NearestColumn(open.starts, next, w[i].column);
    row.cells.resize(column);  // blank cells stay kEmpty
    row.cells.push_back(std::move(*cell));
    next = column + 1;
    ++i;
  }
  std::vector<std::string_view> rest;
  for (size_t j = i; j < w.size(); ++j) rest.push_back(w[j].text);
  if (!rest.empty()) row.cpu_affinity = std::string(rest[0]);
  if (rest.size() > 1) row.numa_affinity = std::string(rest[1]);
  if (rest.size() > 2) row.gpu_numa_id = std::string(rest[2]);
  size_t gpu_columns = 0, gpu_cells = 0;
  for (size_t c = 0; c < m.columns.size(); ++c) {
    if (!m.columns[c].starts_with("GPU")) continue;
    ++gpu_columns;
    gpu_cells += c < row.cells.size() && row.cells[c].kind != TopoLinkKind::kEmpty;
  }
  if (row.name.starts_with("GPU") && gpu_cells < gpu_columns) {
    facts.problems.Add(DataProblem::kRowCutShort,
                       system::LineError(path, line.number,
                                         fmt::format("topology row {} has {} of {} GPU link cells",
                                                     row.name, gpu_cells, gpu_columns)));
  }
  m.rows.push_back(std::move(row));
}

}  // namespace

Status ParseTopology(std::string_view text, std::string_view path, SystemFacts& facts) {
  std::optional<OpenMatrix> current;
  std::string next_kind = "topo -m";
  bool in_legend = false;
  size_t found = 0;
  size_t errors = 0;
  auto flush = [&] {
    if (current) {
      facts.topologies.push_back(std::move(current->matrix));
      ++found;
    }
    current.reset();
  };
  for (const TextLine& line : system::SplitLines(text)) {
    std::string clean = ExpandTabs(system::StripAnsi(line.text));
    std::string_view t = system::Trim(clean);
    if (t.empty()) continue;
    if (t.starts_with("$ ") || t.starts_with("# ")) {
      if (system::Contains(t, "nvidia-smi")) {
        flush();
        in_legend = false;
        next_kind = system::Contains(t, "-p2p") ? "topo -p2p" : "topo -m";
      }
      continue;
    }
    if (t.starts_with("ERROR") || t.starts_with("Failed") ||
        t.starts_with("NVIDIA-SMI has failed")) {
      facts.tool_errors.push_back(system::Quote(path, {line.number, t}));
      ++errors;
      continue;
    }
    if (t == "Legend:" || t == "NIC Legend:") {
      in_legend = true;
      continue;
    }
    std::vector<Word> words = WordsWithColumns(clean);
    std::vector<std::string_view> w;
    for (const Word& word : words) w.push_back(word.text);
    if (in_legend && current) {
      size_t eq = t.find(" = ");
      if (eq != std::string_view::npos) {
        current->matrix.legend.emplace_back(system::Trim(t.substr(0, eq)),
                                            system::Trim(t.substr(eq + 3)));
        continue;
      }
      if (w.size() == 2 && w[0].ends_with(":") && w[0].starts_with("NIC")) {
        current->matrix.nic_names.emplace_back(w[0].substr(0, w[0].size() - 1), w[1]);
        continue;
      }
    }
    if (IsHeader(w)) {
      flush();
      in_legend = false;
      current = ReadHeader(words, path, {line.number, t}, next_kind);
      continue;
    }
    if (w.size() >= 2 && IsDeviceName(w[0]) && ReadCell(w[1])) {
      if (!current) {
        facts.problems.Add(
            DataProblem::kUnparsedLine,
            system::LineError(path, line.number, "topology row before any header line"));
        continue;
      }
      ReadRow(*current, words, path, {line.number, t}, facts);
    }
  }
  flush();
  if (found == 0 && errors == 0) {
    return InvalidArgument("{}: no nvidia-smi topo matrix found", path);
  }
  return Status::Ok();
}

}  // namespace gpuwhy
