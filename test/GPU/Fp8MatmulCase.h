// The FP8 GPU suite's matmul case: its operand types, scaling modes and options (Fp8Cases.cpp
// runs it; Fp8MatmulCaseList.cpp lists the cases).
#ifndef MEPI_TEST_GPU_FP8MATMULCASE_H
#define MEPI_TEST_GPU_FP8MATMULCASE_H

#include "GpuTestSupport.h"

#include <optional>
#include <string>
#include <vector>

namespace gputest {
// Vector: A's per row of D, B's per column. Block: A's per row and 128 elements of K
// ([M, ceil(K / 128)], stored M-major as torch passes it to cuBLASLt), B's per 128 x 128 block
// ([ceil(N / 128), ceil(K / 128)], K-major).
enum class Scale { None, Tensor, Vector, Block };
constexpr int64_t kScaleBlock = 128;

struct Fp8Case {
  ElementType a, b, d;
  int64_t m, n, k;
  Scale scaleA = Scale::None, scaleB = Scale::None;
  bool scaleD = false, amax = false, fast = false;
  std::string epilog = "DEFAULT";
  double dScaleRange = 2; // D's scale is drawn from [dScaleRange / 4, dScaleRange]
  std::string config;     // a forced kernel configuration (empty: the heuristic's)
  bool mnMajorA = false, mnMajorB = false; // given MN-major (copied K-major by a pre-pass)
  std::optional<ElementType> c;             // an operand c of this type, with beta = kBeta
  bool scaleC = false;                      // and C's scale
  float alpha = 1.0f;
};
// beta * C about half the product's size (K of ~1000-6000 elements in [-1, 1]), so that a C
// added at the wrong place or scale shows far above the tolerances.
constexpr float kBeta = 8.0f;

/// Every FP8 matmul case, in the suite's order.
std::vector<Fp8Case> fp8Cases();
} // namespace gputest

#endif // MEPI_TEST_GPU_FP8MATMULCASE_H
