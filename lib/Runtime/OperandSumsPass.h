// The bias gradients of 8-bit operands (BGRADA, BGRADB beside fp8 A and B): a pass of their
// own after the GEMM, on the same stream.
//
// BGRADA's gradient is sum_k op(A)[m, k] and BGRADB's sum_k op(B)[k, n], each over the
// dequantized operand: a_scale (or b_scale) times the 8-bit values, one value, one per row
// of D (column for B), or one per block of 128 elements of K (B: per 128 x 128 block). The
// wgmma kernels sum 16-bit and f32 operands in their main loop; an 8-bit operand's promoted
// main loop has no registers left for it, and block scales would need the sums promoted per
// k-step too. So the GEMM runs without the sums and this pass reads the operand again, K-major
// (as the GEMM reads it: the staged copy where there is one): a block per row, its warps
// taking turns along K (so that few rows still spread over the GPU), 16 bytes a lane (the rows
// are 16-byte aligned, as TMA reads them), f32 sums of each block of 128 elements times the
// block's scale, then the row's total, rounded to the gradient's type. Its cost is one more
// read of the operand.
#ifndef MEPI_RUNTIME_OPERANDSUMSPASS_H
#define MEPI_RUNTIME_OPERANDSUMSPASS_H

#include "Runtime/CudaDriver.h"
#include "Runtime/Problem.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mepi::runtime {

inline constexpr const char *operandSumsKernelName = "mepi_operand_sums";

/// What the pass's kernel text depends on.
struct OperandSumsKernel {
  /// Which scale multiplies row r's block b of 128 elements of K: none, scales[0, 0] (one
  /// value), scales[r, 0] (one per row), scales[r, b] (A's 1 x 128 blocks) or scales[r / 128,
  /// b] (B's 128 x 128 blocks).
  enum class Scale { None, Tensor, Row, BlockRow, Block128 };
  ElementType operand = ElementType::F8E4M3FN;
  Scale scale = Scale::None;
  ElementType out = ElementType::BF16;
  static constexpr unsigned block = 256;      ///< threads: a block per row
  static constexpr unsigned warps = block / 32; ///< each with a share of the row's K
};

/// The kernel's module (gpu dialect): (x [B, R, K] K-major, rows 16-byte aligned, (scales
/// [.., ..] f32, indexed by a row's place in its batch element,) out [B R]); a block per row
/// of all B elements (B = 1 unbatched; x's batch stride 0 where it is broadcast).
std::string operandSumsKernelIR(const OperandSumsKernel &kernel);

/// One operand's pass: its kernel and the layouts it reads and writes.
struct OperandSumsPlan {
  OperandSumsKernel kernel;
  bool ofA = true;                    ///< a_sums (BGRADA) or b_sums (BGRADB)
  std::string outputKey;              ///< "bgrada" or "bgradb"
  size_t output = 0;                  ///< its index among epilogOutputLayouts
  OperandLayout operand;              ///< what the GEMM reads, as [batch, rows, K], K contiguous
  std::optional<size_t> scaleInput;   ///< index of the scale among problem.builtinInputs
  OperandLayout scales;               ///< the scale as the kernel indexes it ([rows?, blocks?])
  OperandLayout out;                  ///< [batch x rows]
  unsigned grid() const;
  /// The kernel's parameters (expanded memref descriptors).
  std::vector<int64_t> parameters(CUdeviceptr x, CUdeviceptr scale, CUdeviceptr sums) const;
};

/// The pass `problem` needs, planned on `planned` (the problem the GEMM runs: its 8-bit A
/// and B K-major), or nothing where the epilog sums no operand or the operands are not 8-bit.
/// Fails where it cannot run: grouped problems (which take no operand sums), more than one
/// batch dimension, rows not 16-byte aligned.
llvm::Expected<std::optional<OperandSumsPlan>> planOperandSums(const MatmulProblem &problem,
                                                               const MatmulProblem &planned);

/// Whether the GEMM leaves `problem`'s operand sums to this pass (8-bit A and B).
bool sumsOperandsApart(const MatmulProblem &problem);
/// Where those sums are among the epilog's outputs (epilogOutputLayouts): the output the
/// kernel does not take.
std::optional<size_t> sumsOutputApart(const MatmulProblem &problem);

/// A planned pass with its kernel loaded in the current context. Unloads on destruction.
class OperandSumsPass {
public:
  static llvm::Expected<OperandSumsPass> load(const OperandSumsPlan &plan,
                                              const CudaDriver &driver, llvm::StringRef arch);
  OperandSumsPass(OperandSumsPass &&other) noexcept;
  OperandSumsPass &operator=(OperandSumsPass &&other) noexcept;
  OperandSumsPass(const OperandSumsPass &) = delete;
  ~OperandSumsPass();

  const OperandSumsPlan &plan() const { return planned; }
  /// Sums the operand at `x` (with its scale at `scale`) into `sums`, in `stream` order.
  CUresult launch(const CudaDriver &driver, CUdeviceptr x, CUdeviceptr scale, CUdeviceptr sums,
                  CUstream stream) const;

private:
  OperandSumsPass() = default;
  OperandSumsPlan planned;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_OPERANDSUMSPASS_H
