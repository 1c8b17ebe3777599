// Every metric an analysis emits is declared (metric_registry.h), with the declared unit and
// one of the declared scopes, and every declaration has its row in docs/metrics/*.md:
// checked over every synthetic scenario and every real trace of ../shared/data/kineto.
#include "analyze/metric_registry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "analyze/signals.h"
#include "ingest/importer.h"
#include "ingest/kineto/kineto_importer.h"
#include "synth/synth.h"

namespace gpuwhy {
namespace metric_registry_test {

namespace fs = std::filesystem;

const fs::path kDocs = fs::path(GPUWHY_TEST_DATA) / ".." / ".." / "docs";

// "idle.<cause>_ms" and "idle.{cause}_ms" are the same family: "idle.{}_ms".
std::string Normalized(std::string_view id) {
  std::string out;
  for (size_t i = 0; i < id.size(); ++i) {
    char c = id[i];
    if (c != '<' && c != '{') {
      out += c;
      continue;
    }
    size_t close = id.find(c == '<' ? '>' : '}', i);
    if (close == std::string_view::npos) return std::string(id);
    out += "{}";
    i = close;
  }
  return out;
}

// One row of a metric table: the ids of its first cell (several for "`a`, `b`"), the units
// of its second ("count, ms") and the text of its third (the scope).
struct DocRow {
  std::string file;
  std::vector<std::string> ids;  // normalized
  std::vector<std::string> units;
  std::string scope;
};

// Table cells split on '|' that is not escaped as "\|".
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

std::string Trim(std::string s) {
  s.erase(0, s.find_first_not_of(' '));
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

bool IsMetricId(const std::string& token) {
  if (token.find('.') == std::string::npos) return false;
  return std::all_of(token.begin(), token.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '<' ||
           c == '>' || c == '{' || c == '}';
  });
}

std::vector<DocRow> ReadDocRows() {
  std::vector<fs::path> files{kDocs / "metrics.md"};
  for (const auto& entry : fs::directory_iterator(kDocs / "metrics")) {
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<DocRow> rows;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    EXPECT_TRUE(in) << file;
    std::string line;
    while (std::getline(in, line)) {
      if (!line.starts_with('|')) continue;
      std::vector<std::string> cells = Cells(line);
      if (cells.size() < 3) continue;
      DocRow row{file.filename().string(), {}, {}, cells[2]};
      for (size_t at = cells[0].find('`'); at != std::string::npos; at = cells[0].find('`', at)) {
        size_t end = cells[0].find('`', at + 1);
        if (end == std::string::npos) break;
        std::string token = cells[0].substr(at + 1, end - at - 1);
        if (IsMetricId(token)) row.ids.push_back(Normalized(token));
        at = end + 1;
      }
      std::string units = cells[1];
      for (size_t start = 0; start <= units.size();) {
        size_t comma = std::min(units.find(',', start), units.size());
        row.units.push_back(Trim(units.substr(start, comma - start)));
        start = comma + 1;
      }
      if (!row.ids.empty()) rows.push_back(std::move(row));
    }
  }
  return rows;
}

// Whether a documented id (exact or family) names `metric_id`.
bool DocMatches(const std::string& doc_id, std::string_view metric_id) {
  return MetricDecl{doc_id, "", metric::kRank, ""}.Matches(metric_id);
}

const char* ScopeWord(MetricScopeKinds kind) {
  switch (kind) {
    case metric::kRank: return "rank";
    case metric::kDevice: return "device";
    case metric::kStream: return "stream";
    default: return "step";
  }
}

// Every emitted metric: declared, with the declaration's unit, at a declared scope, and
// documented. `ids` collects what was seen, for the coverage check below.
void ExpectDeclared(const MetricSet& metrics, const std::vector<DocRow>& docs,
                    const std::string& where, std::set<const MetricDecl*>& seen) {
  for (const Metric& m : metrics.all()) {
    const MetricDecl* decl = FindMetricDecl(m.id);
    if (decl == nullptr) {
      ADD_FAILURE() << where << ": " << m.id << " is emitted but not declared";
      continue;
    }
    seen.insert(decl);
    EXPECT_EQ(m.unit, decl->unit) << where << ": " << m.id;
    EXPECT_NE(ScopeKindOf(m.scope) & decl->scopes, 0)
        << where << ": " << m.id << " emitted at " << ScopeWord(ScopeKindOf(m.scope))
        << " scope, not declared";
    bool documented = std::any_of(docs.begin(), docs.end(), [&](const DocRow& row) {
      return std::any_of(row.ids.begin(), row.ids.end(),
                         [&](const std::string& id) { return DocMatches(id, m.id); });
    });
    EXPECT_TRUE(documented) << where << ": " << m.id << " has no row in docs/metrics/*.md";
  }
}

TEST(MetricRegistryTest, DeclarationsAreWellFormedAndUnique) {
  std::set<std::string> ids;
  for (const MetricDecl* d : AllMetricDecls()) {
    EXPECT_TRUE(ids.insert(Normalized(d->id)).second) << d->id << " is declared twice";
    EXPECT_FALSE(d->unit.empty()) << d->id;
    EXPECT_FALSE(d->definition.empty()) << d->id;
    EXPECT_NE(d->scopes, 0) << d->id;
    EXPECT_LE(std::count(d->id.begin(), d->id.end(), '{'), 1)
        << d->id << ": one placeholder at most";
    if (d->IsFamily()) {
      EXPECT_TRUE(d->Matches(d->Id("some_word"))) << d->id;
      EXPECT_FALSE(d->Matches(d->Id(""))) << d->id;
      EXPECT_EQ(d->Part(d->Id("some_word")), "some_word") << d->id;
      EXPECT_EQ(d->Part(d->Id("Not A Word")), std::nullopt) << d->id;
    } else {
      EXPECT_EQ(FindMetricDecl(d->id), d) << d->id << ": a family shadows it";
      EXPECT_EQ(d->Part(d->id), std::nullopt) << d->id;
    }
  }
  EXPECT_EQ(FindMetricDecl("util.no_such_metric"), nullptr);
  EXPECT_EQ(FindMetricDecl("idle.total_ms"), &metric::kIdleTotalMs);
  EXPECT_EQ(FindMetricDecl("idle.input_wait_ms"), &metric::kIdleCauseMs);
}

// Each declaration has a row in the docs (the family's own pattern, or at least one of its
// members listed by name), with the declared unit and every declared scope named.
TEST(MetricRegistryTest, EveryDeclarationIsDocumented) {
  std::vector<DocRow> docs = ReadDocRows();
  ASSERT_FALSE(docs.empty()) << kDocs;
  for (const MetricDecl* d : AllMetricDecls()) {
    std::string id = Normalized(d->id);
    std::vector<const DocRow*> rows;
    for (const DocRow& row : docs) {
      if (std::find(row.ids.begin(), row.ids.end(), id) != row.ids.end()) rows.push_back(&row);
    }
    if (rows.empty() && d->IsFamily()) {
      for (const DocRow& row : docs) {
        if (std::any_of(row.ids.begin(), row.ids.end(),
                        [&](const std::string& doc_id) { return d->Matches(doc_id); })) {
          rows.push_back(&row);
        }
      }
    }
    if (rows.empty()) {
      ADD_FAILURE() << d->id << " is declared but has no row in docs/metrics/*.md";
      continue;
    }
    for (const DocRow* row : rows) {
      EXPECT_NE(std::find(row->units.begin(), row->units.end(), d->unit), row->units.end())
          << d->id << ": unit " << d->unit << " is not in its row of " << row->file;
      for (MetricScopeKinds kind :
           {metric::kRank, metric::kDevice, metric::kStream, metric::kStep}) {
        if ((d->scopes & kind) == 0) continue;
        EXPECT_NE(row->scope.find(ScopeWord(kind)), std::string::npos)
            << d->id << ": scope " << ScopeWord(kind) << " is not in its row of " << row->file;
      }
    }
  }
}

TEST(MetricRegistryTest, SyntheticScenariosEmitOnlyDeclaredMetrics) {
  std::vector<DocRow> docs = ReadDocRows();
  std::set<const MetricDecl*> seen;
  fs::path dir =
      fs::path(::testing::TempDir()) / ("gpuwhy_metric_registry_" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (const std::string& scenario : ScenarioNames()) {
    std::string out = (dir / (scenario + ".json")).string();
    SynthOptions options;
    options.scenario = scenario;
    options.steps = 6;
    ASSERT_TRUE(WriteSyntheticTrace(options, out).ok()) << scenario;
    auto trace = ImportKinetoFile(out);
    ASSERT_TRUE(trace.ok()) << scenario << ": " << trace.status().message();
    ExpectDeclared(AnalyzeTrace(*trace).metrics, docs, scenario, seen);
  }
  fs::remove_all(dir);
  EXPECT_GT(seen.size(), 60u) << "the scenarios should reach most declarations";
}

TEST(MetricRegistryTest, RealTracesEmitOnlyDeclaredMetrics) {
  fs::path root = fs::path(GPUWHY_SHARED_DATA) / "kineto";
  if (!fs::exists(root))
    GTEST_SKIP() << root << " is absent: real-trace metric declaration test skipped";
  std::vector<DocRow> docs = ReadDocRows();
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  std::set<const MetricDecl*> seen;
  size_t analysed = 0;
  for (const std::string& path : files) {
    auto trace = ImportTraceFile(path);
    if (!trace.ok()) continue;  // not a trace (the importer's own tests cover these)
    ++analysed;
    ExpectDeclared(AnalyzeTrace(*trace).metrics, docs, path, seen);
    AnalysisOptions hta;
    hta.drop_last_step = true;
    ExpectDeclared(AnalyzeTrace(*trace, hta).metrics, docs, path + " (drop_last_step)", seen);
  }
  EXPECT_GT(analysed, 0u) << root;
}

// A metric series set with every input the signal analysis reads, so that every signal
// metric is emitted.
MetricSeriesSet EverySignal() {
  MetricSeriesSet set;
  constexpr TimeNs kTick = 100'000'000;
  for (int i = 0; i < 120; ++i) {
    TimeNs t = i * kTick;
    bool low = i % 12 >= 9;
    set.Add({"gpu.util_pct", 0, ""}, "%", t, low ? 5 : 90);
    set.Add({"gpu.sm_active_pct", 0, ""}, "%", t, low ? 3 : 70);
    set.Add({"gpu.tensor_active_pct", 0, ""}, "%", t, 20);
    set.Add({"gpu.sm_clock_mhz", 0, ""}, "MHz", t, 1200);
    set.Add({"gpu.sm_clock_max_mhz", 0, ""}, "MHz", t, 1980);
    set.Add({"gpu.pcie_gen", 0, ""}, "gen", t, 3);
    set.Add({"gpu.pcie_gen_max", 0, ""}, "gen", t, 4);
    set.Add({"gpu.pcie_width", 0, ""}, "lanes", t, 16);
    set.Add({"gpu.pcie_width_max", 0, ""}, "lanes", t, 16);
    set.Add({"gpu.mem_used_mib", 0, ""}, "MiB", t, 30000);
    set.Add({"gpu.mem_total_mib", 0, ""}, "MiB", t, 40000);
    set.Add({"gpu.process_seen", 0, "pid 42"}, "bool", t, 1);
    set.Add({"gpu.process_sm_pct", 0, "pid 42"}, "%", t, 60);
    set.Add({"gpu.enc_pct", 0, ""}, "%", t, 12);
    set.Add({"gpu.gr_engine_active_pct", 0, "gi 1"}, "%", t, 0);
    set.Add({"host.cpu_count", -1, ""}, "count", t, 8);
    set.Add({"host.cpu_busy_pct", -1, ""}, "%", t, low ? 99 : 40);
    set.Add({"host.cpu_iowait_pct", -1, ""}, "%", t, low ? 30 : 1);
    set.Add({"host.disk_util_pct", -1, "sda"}, "%", t, low ? 95 : 5);
    set.Add({"thread.cpu_pct", -1, "tid 43"}, "%", t, low ? 99 : 50);
    set.Add({"job.cpu_pct", -1, ""}, "%", t, 99);
  }
  return set;
}

TEST(MetricRegistryTest, SignalsEmitEveryDeclaredSignalMetric) {
  std::vector<DocRow> docs = ReadDocRows();
  std::set<const MetricDecl*> seen;
  ExpectDeclared(AnalyzeSignals(EverySignal()).metrics, docs, "signals", seen);
  for (const MetricDecl* d : metric::kSignalMetrics)
    EXPECT_TRUE(seen.contains(d)) << d->id << " was not emitted";
}

}  // namespace metric_registry_test
}  // namespace gpuwhy
