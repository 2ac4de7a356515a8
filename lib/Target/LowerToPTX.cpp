// The mepi-lower-to-ptx pipeline: mepi passes, then upstream GPU/NVVM lowering, in-process PTX.
#include "Target/Pipeline.h"
#include "Target/Passes.h"

#include "Conversion/Passes.h"
#include "mepi/Transforms/Passes.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::mepi;

/// Lowers the inside of each gpu.module to the LLVM dialect with NVVM ops. Only the kernels are
/// lowered: the host side is the runtime's business (it launches through the driver API).
static void addKernelLowering(OpPassManager &pm) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createMepiApproximateMath());
  kernels.addPass(createMepiFp8Conversions());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createMepiLowerTensorMapParams());
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createArithToLLVMConversionPass());
  kernels.addPass(createConvertIndexToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
}

std::string mlir::mepi::defaultCudaToolkitPath() {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(var); value && *value)
      return value;
  return "/usr/local/cuda";
}

void mlir::mepi::buildLowerToPTXPipeline(OpPassManager &pm, const LowerToPTXOptions &options) {
  LoweringStage stop = options.stopAfter;
  pm.addPass(createMepiInlineEpilogCalls());
  pm.addPass(createMepiSimplifyEpilog());
  if (stop == LoweringStage::Epilog)
    return;
  MepiSelectKernelConfigOptions select;
  select.chip = options.chip;
  select.multiprocessors = options.multiprocessors;
  pm.addPass(createMepiSelectKernelConfig(select));
  if (stop == LoweringStage::Config)
    return;
  MepiGenerateKernelsOptions generate;
  generate.chip = options.chip;
  generate.multiprocessors = options.multiprocessors;
  pm.addPass(createMepiGenerateKernels(generate));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (stop == LoweringStage::Kernel)
    return;

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  addKernelLowering(pm);
  if (stop == LoweringStage::NVVM)
    return;

  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa"; // PTX text, made in-process by LLVM's NVPTX backend.
  // math.* ops lower to libdevice calls; without the toolkit they would stay unresolved externs.
  binary.toolkitPath =
      options.toolkit.empty() ? defaultCudaToolkitPath() : std::string(options.toolkit);
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (!options.ptxFile.empty()) {
    MepiWritePTXOptions write;
    write.output = options.ptxFile;
    pm.addPass(createMepiWritePTX(write));
  }
}

void mlir::mepi::registerLowerToPTXPipeline() {
  registerMepiTargetPasses();
  PassPipelineRegistration<LowerToPTXOptions>(
      "mepi-lower-to-ptx",
      "Lower mepi.matmul ops to gpu.module kernels and on to PTX (stop-after= for any stage)",
      buildLowerToPTXPipeline);
}
