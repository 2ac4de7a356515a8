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
  /// A batched problem's bias as [batch..., M], one per batch element, instead of one [M] for
  /// every element.
  bool biasPerElement = false;
  /// The bias's shape: [M], or [batch..., M] (biasPerElement).
  std::vector<int64_t> biasShape() const {
    if (!biasPerElement)
      return {dShape[dShape.size() - 2]};
    return {dShape.begin(), dShape.end() - 1};
  }
};

/// Every matrix case (fewer and smaller with `quick`), in the order the add...Cases below give.
std::vector<Case> allCases(bool quick);

/// Parts of allCases, each a concept's cases appended to `cases`:
/// Each dtype, epilog and odd shape on the heuristic's kernel (BasicCases.cpp).
void addBasicCases(std::vector<Case> &cases, bool quick);
/// The wgmma heuristic's shapes (KernelFormCases.cpp).
void addWgmmaShapeCases(std::vector<Case> &cases, bool quick);
/// Batched problems on the wgmma family (BatchedCases.cpp).
void addBatchedCases(std::vector<Case> &cases);
/// The promoted accumulator policy, forced (KernelFormCases.cpp).
void addPromotedCases(std::vector<Case> &cases);
/// MN-major A and B (OperandLayoutCases.cpp).
void addMnMajorCases(std::vector<Case> &cases);
/// Rows TMA cannot address (OperandLayoutCases.cpp).
void addStagedRowCases(std::vector<Case> &cases, bool quick);
/// Every wgmma tile the heuristic can choose, forced (KernelFormCases.cpp).
void addTileCases(std::vector<Case> &cases);
/// Split-K, forced (SplitKCases.cpp).
void addSplitKCases(std::vector<Case> &cases, bool quick);
/// Ping-pong, forced (KernelFormCases.cpp).
void addPingpongCases(std::vector<Case> &cases);
/// 256-row tiles, forced (KernelFormCases.cpp).
void addTallTileCases(std::vector<Case> &cases);
/// Clusters of 2 sharing B, forced (ClusterCases.cpp).
void addClusterBCases(std::vector<Case> &cases);
/// Clusters of 2 along N sharing A, forced (ClusterCases.cpp).
void addClusterNCases(std::vector<Case> &cases);
/// Clusters of 4 and 8 sharing both operands, forced (ClusterCases.cpp).
void addClusterABCases(std::vector<Case> &cases);
/// D through TMA stores in every kernel form (KernelFormCases.cpp).
void addStoreFormCases(std::vector<Case> &cases);
/// The partial wave's widths and 128 x 192 (KernelFormCases.cpp).
void addWideTileCases(std::vector<Case> &cases);
/// Split-K with a fitted width (SplitKCases.cpp).
void addSplitWidthCases(std::vector<Case> &cases);
/// Stream-K, forced (SplitKCases.cpp).
void addStreamKCases(std::vector<Case> &cases);
/// The swapped form for short M and B given as [K, N] (SwappedCases.cpp).
void addSwappedCases(std::vector<Case> &cases);
/// The swapped form's fitted heights, TMA stores and k splits (SwappedCases.cpp).
void addSwappedHeightCases(std::vector<Case> &cases);
/// The heuristic's own fitted heights (SwappedCases.cpp).
void addFittedHeightCases(std::vector<Case> &cases);
/// Mirrors of D (MirrorCases.cpp).
void addMirrorCases(std::vector<Case> &cases);
/// The f32 cases on the tensor cores (TF32, and strict f32's split; F32Cases.cpp).
void addF32Cases(std::vector<Case> &cases);
/// The one-tile rules' cases (a D narrow on one side; OneTileCases.cpp).
void addOneTileCases(std::vector<Case> &cases);
/// The paired split-K rule's cases (PairedSplitCases.cpp).
void addPairedSplitCases(std::vector<Case> &cases);

/// `c` with beta * C added (alpha 0.5, beta -1.25) and an f32 D: the reduced epilogs' C path.
Case withCIntoF32(Case c);
/// `c` run on the forced kernel configuration `config` (Options::kernelConfig).
Case forced(Case c, const std::string &config);
/// M x n x k with B given as [n, k] on the forced kernel configuration `config`.
Case kMajorCase(ElementType t, std::array<int64_t, 3> mnk, const char *epilog,
                const std::string &config);
/// The swapped form forced on m x n x k (A [m, k], B given as [n, k]), `tile` the kernel
/// Configuration's text from its tile on.
Case swappedCase(ElementType t, std::array<int64_t, 3> mnk, const char *epilog,
                 const std::string &tile);

} // namespace gputest

#endif // MEPI_TEST_GPU_GPUCASES_H
