// GPU tests of user epilogs with outputs besides D (the epilog builder and MLIR text).
#ifndef MEPI_TEST_GPU_USEREPILOGS_H
#define MEPI_TEST_GPU_USEREPILOGS_H

#include "GpuTestSupport.h"

#include <functional>
#include <string>

namespace gputest {
/// Runs the user-epilog cases whose line `selected` accepts, printing one PASS/FAIL line each
/// and counting them into `passed` and `failed`; returns `failed`.
int runUserEpilogs(const Device &dev, std::mt19937 &rng, bool quick,
                   const std::function<bool(const std::string &)> &selected, int &passed,
                   int &failed);
} // namespace gputest

#endif // MEPI_TEST_GPU_USEREPILOGS_H
