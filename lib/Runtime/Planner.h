// Planning: a MatmulProblem becomes a mepi module, lowered to PTX and linked into a cubin.
#ifndef MEPI_RUNTIME_PLANNER_H
#define MEPI_RUNTIME_PLANNER_H

#include "Runtime/Problem.h"
#include "Target/JitLink.h"

#include "llvm/Support/Error.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace mepi::runtime {

/// A TMA descriptor the launcher encodes (cuTensorMapEncodeTiled) and passes by value.
struct TensorMapSpec {
  unsigned argument = 0;             ///< the planned function's argument it describes (a: 0, b: 1, d)
  std::array<int64_t, 2> box{};      ///< elements per load: inner (contiguous), outer
  int64_t swizzle = 0;               ///< bytes: 0, 32, 64 or 128
};

/// One compiled problem: what the cache stores and the launcher needs.
struct CompiledKernel {
  std::string plannedIR;  ///< the planned mepi module (canonical text; part of the cache key)
  std::string ptx;
  std::vector<char> cubin;
  std::string kernelName;
  std::string config;            ///< the chosen #mepi.kernel_config, as printed
  std::array<int64_t, 2> tile{}; ///< output tile M x N of one block
  std::array<int64_t, 3> block{1, 1, 1}; ///< threads per block
  int64_t sharedBytes = 0;       ///< dynamic shared memory per block
  /// The grid covers the tiles with at most one block per multiprocessor; each block loops.
  bool persistent = false;
  /// The kernel waits for the grid before it in the stream before it touches global memory
  /// (griddepcontrol.wait, the wgmma kernels' first instruction), so it launches with
  /// programmatic stream serialization: its blocks may start while that grid finishes, which
  /// takes the launch off the path between kernels that follow one another.
  bool programmaticLaunch = false;
  /// Persistent kernels: the walkers the grid may use (Sm90Spec::walkers: its work units, or
  /// stream-K's ranges; a cluster's blocks sharing one), which cap the grid.
  int64_t workUnits = 0;
  /// Blocks per cluster (the kernel's own cluster shape, along x): each takes one of the
  /// cluster's vertically adjacent tiles.
  int64_t cluster = 1;
  /// Zero-initialised device memory the kernel needs besides the operands (mepi.workspace);
  /// passed after the tensor maps.
  int64_t workspaceBytes = 0;
  std::vector<TensorMapSpec> tensorMaps; ///< leading kernel parameters, in order
  /// The module loads from the PTX, which the driver compiles as one whole program, rather than
  /// from the cubin. nvJitLink compiles every unit as relocatable and then ignores `setmaxnreg`
  /// (C7504): the consumer warpgroups keep the launch's registers (168 of 232), and a kernel
  /// that needs more spills (promoted 128 x 192 FP8 tiles: 0.18 of cuBLASLt, bench/NOTES.md).
  /// Set where nothing is linked and the kernel promotes its accumulators (two sets: FP8 128 x
  /// 128 promoted ran at 0.851 of cuBLASLt from the PTX, 0.761 from the cubin, without
  /// spilling) or nvJitLink's report shows spills. The driver's compilation costs ~0.25 s a
  /// kernel at its load, one at a time, so the others keep the cubin (in one session's A/B
  /// they ran as fast from it: dense quick 1.180 vs 1.184).
  bool loadFromPtx = false;
  std::string linkLog;
};

/// The outputs besides D that the problem's epilog writes, in kernel argument order (aux
/// outputs, then reductions, then "result_amax"), with the layouts mepi allocates: those
/// nvmath-python documents (aux matrices column-major with padded rows, bias gradients of D's
/// type, the amax one f32).
llvm::Expected<std::vector<NamedLayout>> epilogOutputLayouts(const MatmulProblem &problem);

/// The planned mepi module of `problem` as text (verified), before any lowering.
llvm::Expected<std::string> planModule(const MatmulProblem &problem);

/// The kernel configurations that can run `problem` on `arch`, as #mepi.kernel_config text,
/// best first by the heuristic (its own choice first; see rankKernelConfigs). Ignores
/// problem.kernelConfig. With `maxUnitKSteps` > 0, every wgmma candidate whose work units
/// would each accumulate more k-steps is split along K until they do not (no clusters,
/// ping-pong or stream-K then), or left out where that cannot run.
llvm::Expected<std::vector<std::string>> rankedKernelConfigs(const MatmulProblem &problem,
                                                             llvm::StringRef arch,
                                                             int64_t maxUnitKSteps = 0);

/// Plans, lowers to PTX and links for `arch` (e.g. "sm_90a") with `objects`. Needs no GPU.
llvm::Expected<CompiledKernel> compileProblem(const MatmulProblem &problem, llvm::StringRef arch,
                                              llvm::ArrayRef<mlir::mepi::DeviceObject> objects = {});

/// The launch of the kernel compileProblem would build (name, configuration, tile, block, shared
/// memory, work units, cluster, workspace, tensor maps; no PTX or cubin), from a lowering that
/// stops once the kernels are generated: what a stored entry's manifest must repeat.
llvm::Expected<CompiledKernel> describeLaunch(const MatmulProblem &problem, llvm::StringRef arch);
/// Whether two kernels have the same launch (the fields describeLaunch fills).
bool sameLaunch(const CompiledKernel &x, const CompiledKernel &y);

/// A module of ready-made gpu.module kernels (no mepi.matmul), lowered and linked.
struct CompiledModule {
  std::string ptx;
  std::vector<char> cubin;
};

/// Lowers the MLIR text `mlir` (gpu.module kernels of upstream dialects: a pre-pass such as
/// the strict-f32 split) to PTX through the mepi pipeline and links it for `arch`.
llvm::Expected<CompiledModule> compileKernelModule(llvm::StringRef mlir, llvm::StringRef arch);
/// compileKernelModule's cubin, compiled once per process for each (arch, text): the runtime's
/// pre-pass kernels (the strict-f32 split, the row realignment) are shared by every plan.
llvm::Expected<std::shared_ptr<const std::vector<char>>>
cachedKernelCubin(llvm::StringRef mlir, llvm::StringRef arch);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_PLANNER_H
