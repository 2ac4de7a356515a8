// GPU tests of FP8 matmuls: every type pair (e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3), tensor-wise
// and row-wise scales, D in bf16, f16, f32, e4m3 and e5m2 (saturated), promoted and fast
// accumulation, built-in epilogs with a bias, result_amax, the bias gradients of A and B
// (BGRADA, BGRADB), odd M and N and K not a multiple of 128 (or of 16: staged rows), against
// fp64 on the dequantized inputs.
#ifndef MEPI_TEST_GPU_FP8CASES_H
#define MEPI_TEST_GPU_FP8CASES_H

#include "GpuTestSupport.h"

#include <functional>
#include <string>

namespace gputest {
/// Runs the FP8 cases that `selected` accepts, counting them in `passed` and `failed`.
void runFp8Cases(const Device &dev, std::mt19937 &rng,
                 const std::function<bool(const std::string &)> &selected, int &passed,
                 int &failed);
/// The tolerance of a 16- or 8-bit D, compared rounded (roundedAs): each code the
/// accumulation's error flips costs a code's spacing, twice as wide in e5m2 (2 mantissa bits)
/// as in e4m3.
inline double fp8OutputTolerance(ElementType type) {
  return type == ElementType::F8E5M2 ? 2e-2 : 1e-2;
}
/// The backward epilogs (DRELU, DGELU and their bias gradients) beside 8-bit A and B
/// (Fp8BackwardCases.cpp); runFp8Cases runs them last.
void runFp8BackwardCases(const Device &dev, std::mt19937 &rng,
                         const std::function<bool(const std::string &)> &selected, int &passed,
                         int &failed);
/// BGRADA / BGRADB of batched 8-bit A and B (Fp8BatchedSumsCases.cpp); runFp8Cases runs them
/// after the backward ones.
void runFp8BatchedSumsCases(const Device &dev, std::mt19937 &rng,
                            const std::function<bool(const std::string &)> &selected,
                            int &passed, int &failed);
} // namespace gputest

#endif // MEPI_TEST_GPU_FP8CASES_H
