// Interface between kernel configurations and the code that generates their kernels.
//
// A generator receives one planned mepi.matmul (with its config) and emits (1) the body of a
// gpu.func whose arguments mirror the op's operands and (2) the host-side launch geometry. New
// kernel families (e.g. TMA + wgmma for Hopper) implement this interface; nothing else changes.
#ifndef MEPI_CONVERSION_MEPITOGPU_KERNELGENERATOR_H
#define MEPI_CONVERSION_MEPITOGPU_KERNELGENERATOR_H

#include "mepi/IR/MepiOps.h"
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
  explicit KernelGenerator(KernelConfigAttr config) : config(config) {}
  virtual ~KernelGenerator() = default;

  /// Fails with a diagnostic on `op` when this generator cannot produce its kernel.
  virtual LogicalResult checkSupported(MatmulOp op) const = 0;
  /// Emits the kernel body at `b`'s insertion point; `operands` maps the op's operands to the
  /// kernel's arguments.
  virtual void emitBody(OpBuilder &b, MatmulOp op, const IRMapping &operands) const = 0;
  /// Emits the grid and block sizes at `b`'s insertion point on the host side of `op`.
  virtual LaunchGeometry emitLaunchGeometry(OpBuilder &b, MatmulOp op) const = 0;
  /// Threads per block, when fixed at compile time (becomes the kernel's known block size).
  virtual std::optional<SmallVector<int32_t, 3>> knownBlockSize() const { return std::nullopt; }

protected:
  KernelConfigAttr config;
};

/// The generator for `config`'s strategy.
std::unique_ptr<KernelGenerator> createKernelGenerator(KernelConfigAttr config);
std::unique_ptr<KernelGenerator> createSimtKernelGenerator(KernelConfigAttr config);

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_KERNELGENERATOR_H
