// GPU tests of Matmul::autotune(): every candidate timed, the fastest planned and remembered.
#ifndef MEPI_TEST_GPU_AUTOTUNE_H
#define MEPI_TEST_GPU_AUTOTUNE_H

#include "GpuTestSupport.h"

#include <functional>
#include <string>

namespace gputest {
/// Runs the autotune cases whose line `selected` accepts, printing one PASS/FAIL line each and
/// counting them into `passed` and `failed`; returns `failed`.
int runAutotune(const Device &dev, std::mt19937 &rng,
                const std::function<bool(const std::string &)> &selected, int &passed,
                int &failed);
} // namespace gputest

#endif // MEPI_TEST_GPU_AUTOTUNE_H
