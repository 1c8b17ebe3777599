#include "mcp/tools.h"

namespace gpuwhy::mcp {

ToolResult ToolError(std::string message) {
  ToolResult result;
  result.text = std::move(message);
  result.is_error = true;
  return result;
}

std::span<const ToolSpec* const> Tools() {
  // The order tools/list shows: the question first, then what follows it.
  static const ToolSpec* const kTools[] = {&kAnalyzeTool,  &kFindingTool, &kCaptureTool,
                                           &kNextPageTool, &kDiffTool,    &kDoctorTool};
  return kTools;
}

const ToolSpec* FindTool(std::string_view name) {
  for (const ToolSpec* tool : Tools()) {
    if (tool->name == name) return tool;
  }
  return nullptr;
}

}  // namespace gpuwhy::mcp
