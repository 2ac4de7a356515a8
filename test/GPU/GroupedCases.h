// GPU tests of grouped matmuls (mepi::GroupedMatmul): random ragged group sizes (empty groups,
// one group larger than all others together, rows in no group), the three bound forms in i32
// and i64, weight indices with repeats, transposed B, built-in and user epilogs with per-group
// inputs and the group argument, against fp64.
#ifndef MEPI_TEST_GPU_GROUPEDCASES_H
#define MEPI_TEST_GPU_GROUPEDCASES_H

#include "GpuTestSupport.h"
#include "mepi/GroupedMatmul.h"

#include <functional>
#include <string>

namespace gputest {
/// Random group sizes summing to `total`: every third group empty, the last one larger than
/// all others together.
std::vector<int64_t> randomSizes(int64_t groups, int64_t total, std::mt19937 &rng);
/// A 1-D int64 or int32 tensor of `values`.
HostTensor indexTensor(const std::vector<int64_t> &values, bool int64);

/// Captures one execute() of `mm` in a CUDA graph on a stream of its own (after a first
/// execute, which allocates), rewrites `bounds` on the device with `newBounds`, poisons D and
/// replays the graph; returns D.
mepi::Tensor replayWithNewBounds(const Device &dev, mepi::GroupedMatmul &mm,
                                 const mepi::Tensor &bounds, const HostTensor &newBounds);

/// A user epilog of grouped cases: @scaled(acc, scale, bias, row, col, group) = acc * scale +
/// bias + group, as bf16.
extern const char *const kGroupedUserEpilog;

/// Runs the grouped cases that `selected` accepts, counting them in `passed` and `failed`.
void runGroupedCases(const Device &dev, std::mt19937 &rng,
                     const std::function<bool(const std::string &)> &selected, int &passed,
                     int &failed);
/// The cases of groups along K (GroupedKCases.cpp): torch._grouped_mm's 2-D x 2-D.
void runGroupedKCases(const Device &dev, std::mt19937 &rng,
                      const std::function<bool(const std::string &)> &selected, int &passed,
                      int &failed);
} // namespace gputest

#endif // MEPI_TEST_GPU_GROUPEDCASES_H
