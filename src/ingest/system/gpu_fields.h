// `nvidia-smi -q` and `nvidia-smi -q -x` describe the same fields in two spellings ("Temperature
// / GPU Current Temp" and "temperature/gpu_temp"). Both readers flatten their input into
// (path, value, line) triples; one table maps either spelling onto GpuState.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ingest/system/text_lines.h"
#include "model/system_facts.h"

namespace gpuwhy::system {

struct KeyedValue {
  std::string path;   // "Temperature/GPU Current Temp" or "temperature/gpu_temp", below the GPU
  std::string value;  // "33 C"
  TextLine line;      // text points into the input, which outlives the call
};

enum class GpuDialect { kQueryText, kQueryXml };

// Fills |gpu| from the values of one GPU section, in input order.
void FillGpuState(GpuDialect dialect, const std::vector<KeyedValue>& values, std::string_view path,
                  GpuState& gpu);

}  // namespace gpuwhy::system
