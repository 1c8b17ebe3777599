// Fixes shared by the launch and compute rules' specs.
#pragma once

#include "diagnose/finding.h"

namespace gpuwhy {

inline const Fix kCompileFix = {"Fuse kernels and cut launch cost with torch.compile",
                                "model = torch.compile(model, mode=\"reduce-overhead\")"};
inline const Fix kCudaGraphFix = {"Capture the static part of the step in a CUDA graph",
                                  "g = torch.cuda.CUDAGraph(); with torch.cuda.graph(g): out = "
                                  "model(static_x)  # then g.replay()"};

}  // namespace gpuwhy
