// Loading a compiled kernel and launching it on the caller's stream with the kernel ABI of
// mepi-generate-kernels (each memref as an expanded descriptor, scalars by value).
#ifndef MEPI_RUNTIME_LAUNCH_H
#define MEPI_RUNTIME_LAUNCH_H

#include "Runtime/CudaDriver.h"
#include "Runtime/Planner.h"

namespace mepi::runtime {

/// Device addresses and launch-time scalars of one execution.
struct LaunchArguments {
  CUdeviceptr a = 0, b = 0, c = 0, bias = 0, d = 0;
  float alpha = 1.0f, beta = 0.0f;
};

/// A cubin loaded into the current context. Unloads on destruction.
class LoadedKernel {
public:
  static llvm::Expected<LoadedKernel> load(const CompiledKernel &kernel);
  LoadedKernel(LoadedKernel &&other) noexcept;
  LoadedKernel &operator=(LoadedKernel &&other) noexcept;
  LoadedKernel(const LoadedKernel &) = delete;
  ~LoadedKernel();

  /// Launches `problem` (which `kernel` was compiled from) on `stream`. Checks nothing about the
  /// pointers: callers validate operands before (see the API layer).
  llvm::Error launch(const CompiledKernel &kernel, const MatmulProblem &problem,
                     const LaunchArguments &args, CUstream stream) const;

private:
  LoadedKernel() = default;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_LAUNCH_H
