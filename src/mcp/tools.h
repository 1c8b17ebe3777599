// The tools, each defined in its own file and listed once in tools.cc.
#pragma once

#include "mcp/tool.h"

namespace gpuwhy::mcp {

extern const ToolSpec kAnalyzeTool;
extern const ToolSpec kNextPageTool;
extern const ToolSpec kFindingTool;
extern const ToolSpec kDiffTool;
extern const ToolSpec kDoctorTool;
extern const ToolSpec kCaptureTool;

}  // namespace gpuwhy::mcp
