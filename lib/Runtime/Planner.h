// Planning: a MatmulProblem becomes a mepi module, lowered to PTX and linked into a cubin.
#ifndef MEPI_RUNTIME_PLANNER_H
#define MEPI_RUNTIME_PLANNER_H

#include "Runtime/Problem.h"
#include "Target/JitLink.h"

#include "llvm/Support/Error.h"

#include <array>
#include <string>
#include <vector>

namespace mepi::runtime {

/// One compiled problem: what the cache stores and the launcher needs.
struct CompiledKernel {
  std::string plannedIR;  ///< the planned mepi module (canonical text; part of the cache key)
  std::string ptx;
  std::vector<char> cubin;
  std::string kernelName;
  std::array<int64_t, 2> tile{}; ///< tile M x N of the chosen configuration (SIMT: one thread each)
  std::string linkLog;
};

/// The planned mepi module of `problem` as text (verified), before any lowering.
llvm::Expected<std::string> planModule(const MatmulProblem &problem);

/// Plans, lowers to PTX and links for `arch` (e.g. "sm_90a") with `objects`. Needs no GPU.
llvm::Expected<CompiledKernel> compileProblem(const MatmulProblem &problem, llvm::StringRef arch,
                                              llvm::ArrayRef<mlir::mepi::DeviceObject> objects = {});

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_PLANNER_H
