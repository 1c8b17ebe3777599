// Renderers of a RunDiff: text (100 columns), JSON, Markdown and a self-contained HTML page.
#pragma once

#include <string>

#include "diff/diff.h"

namespace gpuwhy {

std::string RenderDiffText(const RunDiff& d);
// {"tool": "gpuwhy", "kind": "diff", "base", "test", "verdict", "step", "categories", ...}
std::string RenderDiffJson(const RunDiff& d);
std::string RenderDiffMarkdown(const RunDiff& d);
std::string RenderDiffHtml(const RunDiff& d);

}  // namespace gpuwhy
