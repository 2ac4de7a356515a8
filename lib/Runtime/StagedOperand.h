// An operand the kernel reads from a copy that every launch refreshes first, on the launch
// stream: rows padded to 16 bytes for TMA (RealignRows.h, needsTmaStaging), split into TF32
// parts for strict f32 on the tensor cores, or an 8-bit operand copied K-major (pre-pass
// kernels, SplitOperand.h).
#ifndef MEPI_RUNTIME_STAGEDOPERAND_H
#define MEPI_RUNTIME_STAGEDOPERAND_H

#include "Runtime/CudaDriver.h"
#include "Runtime/RealignRows.h"
#include "Runtime/SplitOperand.h"

#include <memory>
#include <optional>
#include <vector>

namespace mepi::runtime {

class StagedOperand {
public:
  /// A copy of `source` with the layout `staged` (same shape, padded rows), written by the
  /// realigning pre-pass (compiled for `arch` here).
  static llvm::Expected<StagedOperand> padded(const OperandLayout &source,
                                              const OperandLayout &staged, llvm::StringRef arch);
  /// The parts (or K-major copy) of `plan`, written by its pre-pass (compiled for `arch` here).
  static llvm::Expected<StagedOperand> split(const SplitPlan &plan, llvm::StringRef arch);

  /// The same staging with copies of its own (for another stream): nothing allocated or
  /// loaded yet.
  StagedOperand copyForAnotherStream() const;

  StagedOperand(StagedOperand &&other) noexcept;
  StagedOperand &operator=(StagedOperand &&other) noexcept;
  StagedOperand(const StagedOperand &) = delete;
  ~StagedOperand(); ///< frees the copy, unloads the pre-pass

  /// Allocates the copy and loads the pre-pass, once, in the current context.
  llvm::Error prepare(const CudaDriver &driver, llvm::StringRef name);
  /// The copy (0 before prepare()).
  CUdeviceptr buffer() const { return copy; }
  /// Rewrites the copy from the operand at `source` (with its MX scales at `scales`, where
  /// the pre-pass applies them), in `stream` order.
  CUresult refresh(const CudaDriver &driver, CUdeviceptr source, CUdeviceptr scales,
                   CUstream stream) const;

private:
  StagedOperand() = default;
  void release();
  OperandLayout source, staged;
  std::optional<SplitPlan> plan;                   ///< split: the pre-pass
  std::optional<RealignCopy> realign;              ///< padded: the pre-pass
  std::shared_ptr<const std::vector<char>> cubin; ///< the pre-pass's cubin
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUdeviceptr copy = 0;
};

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_STAGEDOPERAND_H
