// analyze: "why is this GPU idle?" on files or folders, as `gpuwhy analyze` answers it.
#include "mcp/report_runs.h"
#include "mcp/tools.h"

namespace gpuwhy::mcp {

const ToolSpec kAnalyzeTool{
    .name = "analyze",
    .title = "Diagnose GPU traces",
    .description =
        "Why the GPUs of a training job sit idle or underused, from its traces and logs (what "
        "`gpuwhy analyze` answers). Give files or folders: PyTorch profiler (Kineto) traces "
        ".pt.trace.json[.gz], Nsight Systems SQLite exports, one trace per rank for a "
        "distributed job, metric logs (nvidia-smi, DCGM), node logs, allocator snapshots, "
        "Nsight Compute CSVs. Returns the findings first, ranked as the report ranks them, each "
        "citing its finding id, evidence ids and time ranges (start..end ns) as the JSON report "
        "names them, then what is missing and the capture that would decide it. Long answers "
        "end with a cursor for next_page. Inputs are only read.",
    .input_schema = R"json({
      "type": "object",
      "properties": {
        "paths": {
          "type": "array", "items": {"type": "string"}, "minItems": 1,
          "description": "Files or folders to read (absolute, or relative to the server's directory)"
        }
      },
      "required": ["paths"],
      "additionalProperties": false
    })json",
    .run =
        [](simdjson::dom::object arguments, ToolContext& context) {
          return AnswerReport(ReportKind::kAnalyze, arguments, context);
        },
};

}  // namespace gpuwhy::mcp
