#include "e2e_fuzz/e2e_fuzz_body.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include <simdjson.h>

#include "base/file_input.h"
#include "cli/input_policies.h"
#include "pipeline/pipeline.h"
#include "report/report.h"
#include "report/report_schema_validator.h"

namespace gpuwhy {

namespace fs = std::filesystem;

struct EndToEndFuzzer::State {
  std::string error;
  std::string schema_text;
  simdjson::dom::parser schema_parser;
  simdjson::dom::element schema;
  simdjson::dom::parser report_parser;
  fs::path dir;
};

EndToEndFuzzer::EndToEndFuzzer(const std::string& schema_path, const std::string& scratch_dir)
    : state_(new State) {
  state_->dir = scratch_dir;
  std::error_code ec;
  fs::create_directories(state_->dir, ec);
  StatusOr<std::string> text = ReadWholeFile(schema_path);
  if (!text.ok()) {
    state_->error = "cannot read the report schema: " + std::string(text.status().message());
    return;
  }
  state_->schema_text = std::move(*text);
  if (state_->schema_parser.parse(state_->schema_text).get(state_->schema) != simdjson::SUCCESS) {
    state_->error = schema_path + ": not JSON";
  }
}

EndToEndFuzzer::~EndToEndFuzzer() { delete state_; }

const std::string& EndToEndFuzzer::setup_error() const { return state_->error; }

namespace {

bool WriteBytes(const fs::path& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(out);
}

}  // namespace

std::string EndToEndFuzzer::Run(std::string_view data) {
  State& s = *state_;
  if (!s.error.empty()) return s.error;
  // The classifier reads content, never names; an odd size gives the input as two ranks of one
  // job (the cross-rank analysis and its renderers), an even size as one.
  const fs::path rank0 = s.dir / "rank0.input";
  const fs::path rank1 = s.dir / "rank1.input";
  std::vector<std::string> inputs = {rank0.string()};
  if (!WriteBytes(rank0, data)) return "cannot write " + rank0.string();
  if (data.size() % 2 == 1) {
    if (!WriteBytes(rank1, data)) return "cannot write " + rank1.string();
    inputs.push_back(rank1.string());
  }

  const auto check_json = [&](const std::string& json, const char* what) -> std::string {
    simdjson::dom::element doc;
    if (s.report_parser.parse(json).get(doc) != simdjson::SUCCESS) {
      return std::string(what) + ": the JSON report does not parse";
    }
    report_schema::SchemaValidator validator(s.schema);
    std::vector<std::string> errors = validator.Validate(doc);
    if (!errors.empty()) return std::string(what) + ": schema: " + errors.front();
    return "";
  };
  const auto render_all = [&](const Report& report, const char* what) -> std::string {
    for (ReportFormat format :
         {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kHtml}) {
      (void)RenderReport(report, format, TextReportOptions{});
    }
    return check_json(RenderReport(report, ReportFormat::kJson, TextReportOptions{}), what);
  };

  // gpuwhy analyze: every kind with a role.
  PipelineOptions analyze;
  analyze.accept = kAnalyzeInputs;
  analyze.jobs = 1;
  Report analyzed = RunPipeline(inputs, analyze);
  if (std::string broken = render_all(analyzed, "analyze"); !broken.empty()) return broken;

  // gpuwhy doctor --from FILE: node and metric logs, the platform rules.
  PipelineOptions doctor;
  doctor.jobs = 1;
  doctor.accept = kDoctorInputs;
  doctor.cross_rank = false;
  doctor.node_source = "doctor: " + rank0.string();
  Report doctored = RunPipeline({rank0.string()}, doctor);
  return render_all(doctored, "doctor");
}

}  // namespace gpuwhy
