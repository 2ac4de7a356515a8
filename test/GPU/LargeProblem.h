// A problem past 2^31 bytes of D (the fp16 65536 x 16384 x 8192 RELU_BIAS of the benchmark),
// checked on sampled elements against fp64.
#ifndef MEPI_TEST_GPU_LARGEPROBLEM_H
#define MEPI_TEST_GPU_LARGEPROBLEM_H

#include "GpuTestSupport.h"

#include <functional>
#include <string>

namespace gputest {
/// Runs the large-problem case if `selected` accepts its line; returns `failed`.
int runLargeProblem(const Device &dev, const std::function<bool(const std::string &)> &selected,
                    int &passed, int &failed);
} // namespace gputest

#endif // MEPI_TEST_GPU_LARGEPROBLEM_H
