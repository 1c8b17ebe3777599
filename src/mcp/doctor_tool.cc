// doctor: the platform under a job from collected node logs, as `gpuwhy doctor --from` reads
// them (this machine itself is never probed: an agent names the files).
#include "mcp/report_runs.h"
#include "mcp/tools.h"

namespace gpuwhy::mcp {

const ToolSpec kDoctorTool{
    .name = "doctor",
    .title = "Check the platform from logs",
    .description =
        "Check the platform under a job from collected files (what `gpuwhy doctor --from` "
        "reads): kernel logs with Xid errors, lspci -vvv, nvidia-smi -q / topo -m, NCCL INFO "
        "logs, nccl-tests output, ibstat, env dumps, metric logs, or a support-bundle folder. "
        "Returns platform findings first with their quoted log lines and ids, then the "
        "checklist's captures for what is missing. Files are only read.",
    .input_schema = R"json({
      "type": "object",
      "properties": {
        "paths": {
          "type": "array", "items": {"type": "string"}, "minItems": 1,
          "description": "Log files or bundle folders to read"
        }
      },
      "required": ["paths"],
      "additionalProperties": false
    })json",
    .run =
        [](simdjson::dom::object arguments, ToolContext& context) {
          return AnswerReport(ReportKind::kDoctor, arguments, context);
        },
};

}  // namespace gpuwhy::mcp
