// mepi-generate-kernels: each mepi.matmul becomes a gpu.func kernel plus a gpu.launch_func.
#include "Conversion/Passes.h"
#include "KernelGenerator.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPIGENERATEKERNELS
#include "Conversion/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;
using namespace mlir::mepi;

std::unique_ptr<KernelGenerator> mlir::mepi::createKernelGenerator(KernelConfigAttr config) {
  switch (config.getStrategy()) {
  case KernelStrategy::Simt:
    return createSimtKernelGenerator(config);
  }
  return nullptr;
}

namespace {
constexpr StringLiteral kKernelModuleName = "mepi_kernels";

/// The module's kernel container, created on first use.
FailureOr<gpu::GPUModuleOp> getOrCreateKernelModule(ModuleOp module) {
  if (Operation *existing = module.lookupSymbol(kKernelModuleName)) {
    if (auto kernels = dyn_cast<gpu::GPUModuleOp>(existing))
      return kernels;
    return existing->emitOpError() << "expected symbol '" << kKernelModuleName
                                   << "' to be the gpu.module of generated kernels, got "
                                   << existing->getName();
  }
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(module.getContext()));
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
}

/// Kernel name: the enclosing function's name and the op's position in it.
std::string kernelName(MatmulOp op, unsigned ordinal) {
  std::string name = "matmul";
  if (auto fn = op->getParentOfType<FunctionOpInterface>())
    name = (fn.getName() + "_matmul").str();
  return name + "_" + std::to_string(ordinal);
}

LogicalResult generateKernel(MatmulOp op, gpu::GPUModuleOp kernels, unsigned ordinal) {
  KernelConfigAttr config = op.getConfigAttr();
  if (!config)
    return op.emitOpError()
           << "expected a kernel configuration (run mepi-select-kernel-config first)";
  std::unique_ptr<KernelGenerator> generator = createKernelGenerator(config);
  if (failed(generator->checkSupported(op)))
    return failure();

  // The kernel takes the op's operands, in order.
  Location loc = op.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(kernels.getBody());
  auto type = FunctionType::get(op.getContext(), op->getOperandTypes(), {});
  auto kernel = gpu::GPUFuncOp::create(b, loc, kernelName(op, ordinal), type);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  if (auto block = generator->knownBlockSize())
    kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(*block));
  SymbolTable(kernels).insert(kernel);

  IRMapping operands;
  for (auto [operand, arg] : llvm::zip(op->getOperands(), kernel.getArguments()))
    if (!operands.contains(operand))
      operands.map(operand, arg);
  b.setInsertionPointToStart(&kernel.front());
  generator->emitBody(b, op, operands);
  gpu::ReturnOp::create(b, loc);

  b.setInsertionPoint(op);
  LaunchGeometry geometry = generator->emitLaunchGeometry(b, op);
  gpu::LaunchFuncOp::create(b, loc, kernel, geometry.grid, geometry.block,
                            /*dynamicSharedMemorySize=*/Value(), op->getOperands());
  op.erase();
  return success();
}

struct GenerateKernelsPass : mepi::impl::MepiGenerateKernelsBase<GenerateKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<MatmulOp> ops;
    module.walk([&](MatmulOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    FailureOr<gpu::GPUModuleOp> kernels = getOrCreateKernelModule(module);
    if (failed(kernels))
      return signalPassFailure();
    llvm::DenseMap<Operation *, unsigned> perFunction;
    for (MatmulOp op : ops) {
      unsigned ordinal = perFunction[op->getParentOfType<FunctionOpInterface>()]++;
      if (failed(generateKernel(op, *kernels, ordinal)))
        return signalPassFailure();
    }
  }
};
} // namespace
