// What `gpuwhy run` checks of its outputs before the job starts, so that no mistake in them
// costs a training run or lies about it afterwards (issue 38): -o and --report name two
// different files, neither is an input, and --report can be written.
#pragma once

#include "base/status.h"
#include "cli/commands.h"

namespace gpuwhy {

Status CheckRunOutputs(const RunOptions& options);

}  // namespace gpuwhy
