// GPU tests of grouped matmuls (mepi::GroupedMatmul): random ragged group sizes (empty groups,
// one group larger than all others together, rows in no group), the three bound forms in i32
// and i64, weight indices with repeats, transposed B, built-in and user epilogs with per-group
// inputs and the group argument, against fp64.
#ifndef MEPI_TEST_GPU_GROUPEDCASES_H
#define MEPI_TEST_GPU_GROUPEDCASES_H

#include "GpuTestSupport.h"

#include <functional>
#include <string>

namespace gputest {
/// Runs the grouped cases that `selected` accepts, counting them in `passed` and `failed`.
void runGroupedCases(const Device &dev, std::mt19937 &rng,
                     const std::function<bool(const std::string &)> &selected, int &passed,
                     int &failed);
} // namespace gputest

#endif // MEPI_TEST_GPU_GROUPEDCASES_H
