// Inference engine steps (an LLM server's shape, as vLLM/SGLang/TensorRT-LLM record them under
// the PyTorch profiler): the decode step that replays the whole model as one CUDA graph, the
// start-up that captures those graphs, and the teardown after the last launch.
#pragma once

#include <utility>
#include <vector>

#include "synth/scenarios.h"
#include "synth/timeline.h"

namespace gpuwhy {

class InferenceStep {
 public:
  InferenceStep(const Recipe& recipe, int main_tid);

  // Appends step `number`: a decode step (Workload::kDecodeGraph) or one graph capture
  // (Workload::kGraphCapture). `last`: the capture's last step (the teardown may follow).
  StepStats Run(Timeline& t, int number, bool last);

 private:
  void Decode(Timeline& t, StepStats& stats);
  void Capture(Timeline& t, int number, StepStats& stats);
  // model.forward() issued op by op: executed (eager) or recorded into a graph (captured).
  void EagerForward(Timeline& t, bool captured, int& launches);

  const Recipe& recipe_;
  int main_tid_;
  // The decode model's kernels in replay order, with their durations (one graph: every replay
  // runs the same nodes; durations jitter a little per replay).
  std::vector<std::pair<const KernelSpec*, DurationNs>> graph_;
  bool first_replay_ = true;
};

// The recipe's teardown tail (TeardownTail): driver release calls with the GPU idle. Returns the
// span the generator wrote for it.
DurationNs WriteTeardownTail(Timeline& t, const TeardownTail& tail);

}  // namespace gpuwhy
