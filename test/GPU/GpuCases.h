// The matrix cases of the GPU correctness suite: every dtype, epilog, transpose, batch and odd
// shape the suite runs against its fp64 reference (GpuCorrectness.cpp runs them).
#ifndef MEPI_TEST_GPU_GPUCASES_H
#define MEPI_TEST_GPU_GPUCASES_H

#include "GpuTestSupport.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace gputest {

struct Case {
  ElementType type;
  std::vector<int64_t> aShape, bShape, dShape; // logical operand shapes (a/b as stored)
  bool transA = false, transB = false;
  std::string epilog = "DEFAULT";
  bool withC = false;
  float alpha = 1.0f, beta = 0.0f;
  bool columnMajorA = false;
  std::optional<ElementType> outType; ///< D's type when not that of A and B
  bool tf32 = false;                   ///< f32 operands at TF32 precision (Options::allowTF32)
  std::string config;                  ///< forced kernel configuration (Options::kernelConfig)
  /// A and B start this many bytes past a 256-byte aligned allocation (2: TMA cannot read them
  /// in place, so they are staged); the operands of resetOperands start aligned.
  int64_t misalignBytes = 0;
  std::optional<ElementType> biasType; ///< the bias's type when not that of A and B
  /// D is also stored to this many mirrors (Options::mirrors), each checked equal to D.
  int mirrors = 0;
};

/// Every matrix case (fewer and smaller with `quick`).
std::vector<Case> allCases(bool quick);

/// The f32 cases on the tensor cores (TF32, and strict f32's split), part of allCases.
void addF32Cases(std::vector<Case> &cases);

/// The one-tile rules' cases (a D narrow on one side), part of allCases.
void addOneTileCases(std::vector<Case> &cases);
void addPairedSplitCases(std::vector<Case> &cases);

/// The swapped form forced on m x n x k (A [m, k], B given as [n, k]), `tile` the kernel
/// configuration's text from its tile on.
Case swappedCase(ElementType t, std::array<int64_t, 3> mnk, const char *epilog,
                 const std::string &tile);

} // namespace gputest

#endif // MEPI_TEST_GPU_GPUCASES_H
