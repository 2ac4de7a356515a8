// GPU tests of the epilog catalog (aux outputs, aux inputs, bias gradients, result_amax).
#ifndef MEPI_TEST_GPU_EPILOGCATALOG_H
#define MEPI_TEST_GPU_EPILOGCATALOG_H

#include "GpuTestSupport.h"

#include <functional>
#include <string>

namespace gputest {
/// Runs the catalog cases whose line `selected` accepts, printing one PASS/FAIL line each and
/// counting them into `passed` and `failed`; returns `failed`.
int runEpilogCatalog(const Device &dev, std::mt19937 &rng, bool quick,
                     const std::function<bool(const std::string &)> &selected, int &passed,
                     int &failed);
} // namespace gputest

#endif // MEPI_TEST_GPU_EPILOGCATALOG_H
