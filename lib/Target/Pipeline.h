// The mepi lowering pipeline (mepi.matmul to PTX), shared by mepi-opt, the JIT and Python.
#ifndef MEPI_TARGET_PIPELINE_H
#define MEPI_TARGET_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir::mepi {

/// Where the pipeline stops; each stage is printable with mepi-opt.
enum class LoweringStage {
  Epilog, ///< epilog calls inlined, epilogs canonicalized, unused inputs dropped
  Config, ///< kernel configurations chosen
  Kernel, ///< gpu.module kernels generated (gpu/scf/arith/memref/math)
  NVVM,   ///< kernels in the LLVM dialect with NVVM ops, target attached
  PTX,    ///< gpu.binary holding PTX
};

struct LowerToPTXOptions : public PassPipelineOptions<LowerToPTXOptions> {
  PassOptions::Option<std::string> chip{*this, "chip", llvm::cl::desc("GPU architecture"),
                                        llvm::cl::init("sm_90a")};
  PassOptions::Option<int64_t> multiprocessors{
      *this, "multiprocessors",
      llvm::cl::desc("Multiprocessors of the target GPU (0: the chip's reference part)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> features{*this, "features",
                                            llvm::cl::desc("PTX ISA features"),
                                            llvm::cl::init("+ptx80")};
  PassOptions::Option<unsigned> optLevel{*this, "opt-level",
                                         llvm::cl::desc("LLVM optimization level"),
                                         llvm::cl::init(3)};
  PassOptions::Option<LoweringStage> stopAfter{
      *this, "stop-after", llvm::cl::desc("Last stage to run"),
      llvm::cl::init(LoweringStage::PTX),
      llvm::cl::values(
          clEnumValN(LoweringStage::Epilog, "epilog", "simplified epilogs"),
          clEnumValN(LoweringStage::Config, "config", "kernel configurations chosen"),
          clEnumValN(LoweringStage::Kernel, "kernel", "gpu.module kernels generated"),
          clEnumValN(LoweringStage::NVVM, "nvvm", "kernels lowered to LLVM + NVVM"),
          clEnumValN(LoweringStage::PTX, "ptx", "gpu.binary with PTX"))};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit whose libdevice is linked for math functions (default: "
                     "$CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> ptxFile{
      *this, "ptx-file", llvm::cl::desc("Also write the PTX to this file ('-': stdout)"),
      llvm::cl::init("")};
};

/// The CUDA toolkit used when the pipeline names none: $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, then
/// /usr/local/cuda.
std::string defaultCudaToolkitPath();

/// Appends the passes of the mepi lowering to `pm` (anchored on builtin.module).
void buildLowerToPTXPipeline(OpPassManager &pm, const LowerToPTXOptions &options);

/// Registers the "mepi-lower-to-ptx" pipeline and the target passes.
void registerLowerToPTXPipeline();

/// The PTX text of the module's gpu.binary objects, after the PTX stage.
FailureOr<std::string> extractPTX(ModuleOp module);

} // namespace mlir::mepi

#endif // MEPI_TARGET_PIPELINE_H
