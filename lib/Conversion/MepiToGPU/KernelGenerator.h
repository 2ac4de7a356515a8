// Interface between kernel configurations and the code that generates their kernels.
//
// A generator receives one planned mepi.matmul (with its config) and emits (1) the body of a
// gpu.func whose arguments mirror the op's operands and (2) the host-side launch geometry. New
// kernel families (e.g. TMA + wgmma for Hopper) implement this interface; nothing else changes.
#ifndef MEPI_CONVERSION_MEPITOGPU_KERNELGENERATOR_H
#define MEPI_CONVERSION_MEPITOGPU_KERNELGENERATOR_H

#include "mepi/IR/MepiOps.h"
#include "mepi/Sm90/TargetInfo.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"

#include <memory>

namespace mlir::mepi {

struct LaunchGeometry {
  gpu::KernelDim3 grid;
  gpu::KernelDim3 block;
};

class KernelGenerator {
public:
  KernelGenerator(KernelConfigAttr config, TargetInfo target)
      : config(config), target(std::move(target)) {}
  virtual ~KernelGenerator() = default;

  /// Fails with a diagnostic on `op` when this generator cannot produce its kernel.
  virtual LogicalResult checkSupported(MatmulOp op) const = 0;
  /// Emits the kernel body at `b`'s insertion point; `operands` maps the op's operands to the
  /// kernel's arguments, and `leading` are the kernel's leading arguments (see below).
  virtual void emitBody(OpBuilder &b, MatmulOp op, const IRMapping &operands,
                        ValueRange leading) const = 0;
  /// Emits the grid and block sizes at `b`'s insertion point on the host side of `op`.
  virtual LaunchGeometry emitLaunchGeometry(OpBuilder &b, MatmulOp op) const = 0;
  /// Threads per block, when fixed at compile time (becomes the kernel's known block size).
  virtual std::optional<SmallVector<int32_t, 3>> knownBlockSize() const { return std::nullopt; }

  /// Kernel arguments placed before the op's operands, emitted on the host side of `op`: TMA
  /// descriptors (`mepi.tensor_map`), which the kernel takes as by-value grid constants, then at
  /// most one `mepi.workspace` pointer.
  virtual SmallVector<Value> emitLeadingLaunchOperands(OpBuilder &b, MatmulOp op) const {
    return {};
  }
  /// Dynamic shared memory per block in bytes.
  virtual int64_t dynamicSharedMemoryBytes(MatmulOp op) const { return 0; }
  /// Sets target attributes on the kernel function (e.g. blocks per multiprocessor).
  virtual void decorateKernel(gpu::GPUFuncOp kernel) const {}

protected:
  KernelConfigAttr config;
  TargetInfo target; ///< the GPU the kernel is sized for
};

/// The generator for `config`'s strategy on `target`.
std::unique_ptr<KernelGenerator> createKernelGenerator(KernelConfigAttr config,
                                                       const TargetInfo &target);
std::unique_ptr<KernelGenerator> createSimtKernelGenerator(KernelConfigAttr config,
                                                           const TargetInfo &target);
std::unique_ptr<KernelGenerator> createWgmmaKernelGenerator(KernelConfigAttr config,
                                                            const TargetInfo &target);

/// Function attribute of a generated kernel: how many leading arguments are 128-byte TMA
/// descriptors (CUtensorMap) passed by value; mepi-lower-tensor-map-params gives them their
/// by-value ABI once the kernel is an llvm.func.
inline constexpr llvm::StringLiteral kTensorMapParamsAttr = "mepi.tensor_map_params";

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_KERNELGENERATOR_H
