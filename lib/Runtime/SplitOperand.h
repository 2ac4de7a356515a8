// Strict f32 on the tensor cores (3xTF32): the operands split into TF32 parts, one GEMM over
// them.
//
// A TF32 wgmma keeps 10 of an f32's 23 mantissa bits. Written x = hi + lo with hi = x rounded
// to TF32 and lo = (x - hi) rounded to TF32, |lo| <= 2^-11 |x| and
//   a b = a_lo b_hi + a_hi b_lo + a_hi b_hi + a_lo b_lo,
// where the last term (<= 2^-22 |a b|) and lo's own rounding (<= 2^-22 |x|) are dropped: each
// product is then as exact as an f32 product, and the f32 accumulators sum them as SGEMM
// does. The three products are one GEMM over K' = 3 Kp: a pre-pass writes, K-major,
//   A' = [A_lo | A_hi | A_hi]   and   B' = [B_hi | B_lo | B_hi],
// each part K long and zero-padded to Kp (a multiple of the 32-element TF32 k-step, so that no
// k-step mixes parts; the small products come first, before the sums grow). The pre-pass also
// makes any layout K-major and TMA-aligned, which the TF32 kernels need.
//
// Not exact for non-finite inputs: an infinity in A meets B_lo, which may be 0 (a NaN where f32
// gives an infinity). Bias gradients of A or B (operand sums) are not split: those problems keep
// the f32 kernel.
#ifndef MEPI_RUNTIME_SPLITOPERAND_H
#define MEPI_RUNTIME_SPLITOPERAND_H

#include "Runtime/Problem.h"

#include "llvm/Support/Error.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mepi::runtime {

/// How one operand is rewritten by a pre-pass: read as X[batch, row, k] (rows: M for A, N for
/// B) from its own layout, written K-major as [batch..., rows, parts * paddedK]: three TF32
/// parts (strict f32), or one part, a K-major copy of its elements (8-bit operands given
/// MN-major: wgmma reads 8-bit A and B K-major only).
struct SplitPlan {
  OperandLayout source;  ///< the operand as the caller gives it
  bool kLast = true;     ///< K is the source's last dimension (else the one before it)
  int64_t batch = 1, rows = 0, k = 0, paddedK = 0;
  int64_t batchStride = 0;
  int parts = 3;         ///< 3: the TF32 split; 1: a K-major copy
  int loPart = 0;        ///< which of the three parts holds lo (A: 0, B: 1)
  /// MX block scaling (MxScaling.h): the copy is bf16, each element times 2^(e - 127) of its
  /// row's e8m0 scale e for its 32 elements of K, read from a third argument of this many
  /// bytes (0: no scales).
  int64_t mxScaleBytes = 0;
  OperandLayout split;   ///< what the GEMM reads
  /// One 32 x 32 tile of (row, k) per block of 32 x 8 threads, batch elements along z.
  std::array<unsigned, 3> grid() const;
  static constexpr std::array<unsigned, 3> block = {32, 8, 1};
  /// The pre-pass kernel's name: splitKernelName, copyKernelName or mxKernelName.
  const char *kernelName() const;
};

/// The most k-steps (of 32 products) one wgmma accumulator of the split GEMM sums before its
/// sum joins an f32 sum outside the tensor cores. Their f32 accumulation loses precision with
/// each update (it truncates), and the error follows the a_hi·b_hi products one accumulator
/// sums: on the H200, relative errors against fp64 of 3.8e-5 over 16384 of them (2048 x 2048
/// x 16384 in one accumulator), 1.34e-5 over ~6144, 6.4e-6-7.0e-6 over ~3072 (96 k-steps).
/// So 96 for f32's 1e-5 up to K = 16384, reached by promoting the accumulators every
/// kSplitPromoteKSteps k-steps into a second f32 set (3.9e-7 at K = 16384, one unit; 1.85-2.13x
/// SGEMM), or where a configuration cannot hold the second set, by split-K (0.77-1.46x).
inline constexpr int64_t kSplitMaxUnitKSteps = 96;
/// Promoted accumulators of the split GEMM: k-steps between promotions (4: 1.94x SGEMM in
/// geomean on four large shapes, 8: 1.78x; bench/NOTES.md, The promoted accumulator policy).
inline constexpr int64_t kSplitPromoteKSteps = 4;

/// The problem the GEMM runs on operands rewritten by pre-passes, with how to rewrite A and B
/// (none: the operand as given).
struct SplitProblem {
  MatmulProblem planned; ///< A', B' K-major; D, C and the epilog unchanged
  std::optional<SplitPlan> a, b;
};

/// The split form of an f32 problem without allowTF32, or nothing where it does not apply
/// (other types, TF32 allowed, more than one batch dimension, an epilog with operand sums).
std::optional<SplitProblem> splitProblem(const MatmulProblem &problem);

/// Strict f32 with at most this many rows of D is split inside the kernel instead (the
/// wgmma kernels' 64-row tiles, Tf32Split.h): the pre-pass would read and write B four times
/// for products that use each of its elements a few times only.
inline constexpr int64_t kSplitInKernelMaxRows = 128;
/// A k-step of the kernel that splits its stages sums three products an element (a_lo b_hi,
/// a_hi b_lo, a_hi b_hi) in one accumulator: a third of the pre-pass form's k-steps.
inline constexpr int64_t kSplitInKernelMaxUnitKSteps = kSplitMaxUnitKSteps / 3;

/// Whether strict f32 `problem` (A at `a`, B at `b`) is split inside the kernel: at most
/// kSplitInKernelMaxRows rows, 2-D, no operand sums, A [M, K] and B [N, K] with contiguous K,
/// rows and addresses on 16 bytes (TMA reads them in place).
bool splitsInKernel(const MatmulProblem &problem, const void *a, const void *b);

/// The form of an FP8 problem whose A or B is MN-major (K not its contiguous dimension: A
/// given as [K, M] or column-major, B as [K, N]) with that operand copied K-major first;
/// nothing where both are K-major already, for other types, more than one batch dimension,
/// or operand sums (taken over A and B as given).
std::optional<SplitProblem> kMajorProblem(const MatmulProblem &problem);

/// The form of an MX-scaled FP8 problem (problem.mxScales): both operands copied K-major as
/// exactly scaled bf16 (MxScaling.h), the GEMM a bf16 one with D and the epilog unchanged;
/// nothing for more than one batch dimension.
std::optional<SplitProblem> mxProblem(const MatmulProblem &problem);

/// The pre-pass kernel of `plan` as MLIR (gpu, scf, arith, memref and math ops), one function
/// named plan.kernelName().
std::string splitKernelIR(const SplitPlan &plan);
inline constexpr const char *splitKernelName = "mepi_split_tf32";
inline constexpr const char *copyKernelName = "mepi_kmajor_copy";
inline constexpr const char *mxKernelName = "mepi_mx_dequantize";

/// The cubin of `plan`'s pre-pass for `arch`, compiled once per process for each layout.
llvm::Expected<std::shared_ptr<const std::vector<char>>> splitKernelCubin(const SplitPlan &plan,
                                                                           llvm::StringRef arch);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_SPLITOPERAND_H
