// --step-range REGEX, shared by analyze and info: which NVTX ranges of an Nsight Systems
// export are the training steps (ingest/importer.h ImportOptions::step_range).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace gpuwhy {

// Registers the option; a pattern that is not an ECMAScript regex is a usage error (exit 2).
void AddStepRangeOption(CLI::App& command, std::string& step_range);

}  // namespace gpuwhy
