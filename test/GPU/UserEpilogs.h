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
/// User epilogs through the C++ API: MLIR text (SiLU; a row and a matrix input), a call to
/// external LTO-IR timed against the same epilog inlined, and user data read by external code
/// (UserEpilogApiCases.cpp); one PASS/FAIL line each, counted into `passed` and `failed`.
void runUserEpilogApiCases(const Device &dev, std::mt19937 &rng, int &passed, int &failed);
} // namespace gputest

#endif // MEPI_TEST_GPU_USEREPILOGS_H
