// Loading a compiled kernel and launching it on the caller's stream with the kernel ABI of
// mepi-generate-kernels (each memref as an expanded descriptor, scalars by value).
#ifndef MEPI_RUNTIME_LAUNCH_H
#define MEPI_RUNTIME_LAUNCH_H

#include "Runtime/CudaDriver.h"
#include "Runtime/Planner.h"

#include <memory>

namespace mepi::runtime {

/// Device addresses and launch-time scalars of one execution.
struct LaunchArguments {
  CUdeviceptr a = 0, b = 0, c = 0, d = 0;
  CUdeviceptr workspace = 0; ///< CompiledKernel::workspaceBytes, zero-initialised
  std::vector<CUdeviceptr> builtinInputs; ///< in the order of MatmulProblem::builtinInputs
  std::vector<CUdeviceptr> userInputs; ///< in the order of MatmulProblem::userInputs
  uint64_t userData = 0; ///< the user epilog's user data address, when it takes one
  /// The epilog's outputs besides D, in the order and layouts of epilogOutputLayouts.
  std::vector<std::pair<CUdeviceptr, OperandLayout>> outputs;
  float alpha = 1.0f, beta = 0.0f;
  /// Grouped: the group bounds and weight indices (MatmulProblem::groups), passed last.
  CUdeviceptr groupBounds = 0, weightIndices = 0;
  /// D's mirrors (MatmulProblem::mirrors), stored like D.
  std::vector<CUdeviceptr> mirrors;
};

/// Everything one launch needs, computed once: kernel parameters in the generated kernel's ABI
/// (each memref as an expanded descriptor, scalars by value), their address array, and the grid.
/// Relaunching costs one cuLaunchKernel, so execute() keeps one per set of operands.
class PreparedLaunch {
public:
  /// Fails when a TMA descriptor cannot be encoded for these operands, the kernel needs a
  /// workspace and `args` has none, or the grid would exceed CUDA's limits.
  static llvm::Expected<std::unique_ptr<PreparedLaunch>>
  create(CUfunction function, const CompiledKernel &kernel, const MatmulProblem &problem,
         const LaunchArguments &args);
  PreparedLaunch(const PreparedLaunch &) = delete; // `params` points into this object
  /// Launches on `stream` (nothing when the output is empty).
  CUresult launch(const CudaDriver &driver, CUstream stream) const;

private:
  explicit PreparedLaunch(CUfunction function) : function(function) {}
  llvm::Error addTensorMap(const TensorMapSpec &spec, CUdeviceptr ptr,
                           const OperandLayout &layout);
  void addWord(int64_t value);
  void addMemref(CUdeviceptr ptr, const OperandLayout &layout);
  void addFloat(float value);
  /// The kernel's operands after the tensor maps and workspace, in the op's order: a, b,
  /// alpha, (c, beta), the epilog inputs, d, the outputs, the group operands, block scales,
  /// mirrors.
  void addOperands(const MatmulProblem &problem, const LaunchArguments &args);
  /// Fails where the tile is empty or the grid exceeds CUDA's limits.
  llvm::Error computeGrid(const CompiledKernel &kernel, const MatmulProblem &problem);

  enum class Slot { Word, Float, TensorMap };
  CUfunction function;
  std::vector<int64_t> words;
  std::vector<float> floats;
  std::vector<CUtensorMap> tensorMaps; // passed by value; CUtensorMap is 64-byte aligned
  std::vector<std::pair<Slot, size_t>> slots;
  std::vector<void *> params;
  unsigned grid[3] = {0, 0, 0}, block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  bool programmatic = false; ///< CompiledKernel::programmaticLaunch
};

/// A cubin loaded into the current context. Unloads on destruction.
class LoadedKernel {
public:
  static llvm::Expected<LoadedKernel> load(const CompiledKernel &kernel);
  /// `kernel` loaded into the current context once for every plan that holds it (KernelCache
  /// gives the plans of one problem one CompiledKernel), unloaded with the last of them: a
  /// module apiece costs a load per plan and puts each plan's launches on code of its own,
  /// which µs kernels pay for when plans of one problem take turns (a model's layers;
  /// bench/NOTES.md, The seeded sweep).
  static llvm::Expected<std::shared_ptr<const LoadedKernel>>
  shared(std::shared_ptr<const CompiledKernel> kernel);
  LoadedKernel(LoadedKernel &&other) noexcept;
  LoadedKernel &operator=(LoadedKernel &&other) noexcept;
  LoadedKernel(const LoadedKernel &) = delete;
  ~LoadedKernel();

  /// Launches `problem` (which `kernel` was compiled from) on `stream`. Checks nothing about the
  /// pointers: callers validate operands before (see the API layer).
  llvm::Error launch(const CompiledKernel &kernel, const MatmulProblem &problem,
                     const LaunchArguments &args, CUstream stream) const;

  CUfunction kernelFunction() const { return function; }

private:
  LoadedKernel() = default;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  /// shared(): the kernel the module was loaded from, kept while the module is (its address is
  /// the module's key).
  std::shared_ptr<const CompiledKernel> compiled;
};

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_LAUNCH_H
