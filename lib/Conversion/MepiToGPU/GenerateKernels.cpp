// mepi-generate-kernels: each mepi.matmul becomes a gpu.func kernel plus a gpu.launch_func.
#include "Conversion/Passes.h"
#include "KernelGenerator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::mepi {
#define GEN_PASS_DEF_MEPIGENERATEKERNELS
#include "Conversion/Passes.h.inc"
} // namespace mlir::mepi

using namespace mlir;
using namespace mlir::mepi;

std::unique_ptr<KernelGenerator> mlir::mepi::createKernelGenerator(KernelConfigAttr config,
                                                                   const TargetInfo &target) {
  switch (config.getStrategy()) {
  case KernelStrategy::Simt:
    return createSimtKernelGenerator(config, target);
  case KernelStrategy::Wgmma:
    return createWgmmaKernelGenerator(config, target);
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

/// Calls left in the epilog go to external device code that nvJitLink links (PTX or LTO-IR of an
/// `extern "C" __device__` function). They become llvm.call to an llvm.func declaration in the
/// kernel module, with C types: index arguments are passed as i64.
LogicalResult lowerExternalCalls(MatmulOp op, gpu::GPUFuncOp kernel, gpu::GPUModuleOp kernels) {
  SmallVector<func::CallOp> calls;
  kernel.walk([&](func::CallOp call) { calls.push_back(call); });
  for (func::CallOp call : calls) {
    auto decl = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(op, call.getCalleeAttr());
    if (!decl || !decl.isExternal())
      return call.emitOpError() << "expected @" << call.getCallee()
                                << " to be inlined or declared as external device code";
    if (call.getNumResults() > 1)
      return call.emitOpError() << "expected external device function @" << call.getCallee()
                                << " to return at most one value, got " << call.getNumResults();
    OpBuilder b(call);
    Type i64 = b.getI64Type();
    auto cType = [&](Type t) { return t.isIndex() ? i64 : t; };
    SmallVector<Type> params;
    SmallVector<Value> args;
    for (Value arg : call.getOperands()) {
      if (!arg.getType().isIntOrIndexOrFloat())
        return call.emitOpError() << "expected scalar arguments for external device function @"
                                  << call.getCallee() << ", got " << arg.getType();
      params.push_back(cType(arg.getType()));
      args.push_back(arg.getType().isIndex()
                         ? arith::IndexCastOp::create(b, call.getLoc(), i64, arg).getResult()
                         : arg);
    }
    Type result = call.getNumResults() ? call.getResult(0).getType() : Type();
    if (result && !result.isIntOrFloat())
      return call.emitOpError() << "expected an integer or float result from external device "
                                   "function @"
                                << call.getCallee() << ", got " << result;
    auto fnType = LLVM::LLVMFunctionType::get(
        result ? result : LLVM::LLVMVoidType::get(b.getContext()), params);
    auto fn = kernels.lookupSymbol<LLVM::LLVMFuncOp>(call.getCallee());
    if (!fn) {
      OpBuilder declBuilder = OpBuilder::atBlockBegin(kernels.getBody());
      fn = LLVM::LLVMFuncOp::create(declBuilder, decl.getLoc(), call.getCallee(), fnType);
    } else if (fn.getFunctionType() != fnType) {
      return call.emitOpError() << "expected one signature for external device function @"
                                << call.getCallee() << ", got " << fn.getFunctionType()
                                << " and " << fnType;
    }
    auto llvmCall = LLVM::CallOp::create(b, call.getLoc(), fn, args);
    call.replaceAllUsesWith(llvmCall.getResults());
    call.erase();
  }
  return success();
}

LogicalResult generateKernel(MatmulOp op, gpu::GPUModuleOp kernels, unsigned ordinal,
                             const TargetInfo &target) {
  KernelConfigAttr config = op.getConfigAttr();
  if (!config)
    return op.emitOpError()
           << "expected a kernel configuration (run mepi-select-kernel-config first)";
  std::unique_ptr<KernelGenerator> generator = createKernelGenerator(config, target);
  if (failed(generator->checkSupported(op)))
    return failure();

  // Host side first: the leading launch operands (TMA descriptors) fix the kernel's signature.
  Location loc = op.getLoc();
  OpBuilder host(op);
  SmallVector<Value> leading = generator->emitLeadingLaunchOperands(host, op);
  SmallVector<Value> launchOperands(leading);
  llvm::append_range(launchOperands, op->getOperands());

  // The kernel takes the leading operands, then the op's operands in order.
  OpBuilder b = OpBuilder::atBlockEnd(kernels.getBody());
  auto type = FunctionType::get(op.getContext(), ValueRange(launchOperands).getTypes(), {});
  auto kernel = gpu::GPUFuncOp::create(b, loc, kernelName(op, ordinal), type);
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  if (auto block = generator->knownBlockSize())
    kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(*block));
  int64_t tensorMaps =
      llvm::count_if(leading, [](Value v) { return v.getDefiningOp<TensorMapOp>(); });
  if (tensorMaps)
    kernel->setAttr(kTensorMapParamsAttr, b.getI32IntegerAttr(tensorMaps));
  generator->decorateKernel(kernel);
  SymbolTable(kernels).insert(kernel);

  IRMapping operands;
  for (auto [operand, arg] :
       llvm::zip(op->getOperands(), kernel.getArguments().drop_front(leading.size())))
    if (!operands.contains(operand))
      operands.map(operand, arg);
  b.setInsertionPointToStart(&kernel.front());
  generator->emitBody(b, op, operands, kernel.getArguments().take_front(leading.size()));
  gpu::ReturnOp::create(b, loc);

  if (failed(lowerExternalCalls(op, kernel, kernels)))
    return failure();

  LaunchGeometry geometry = generator->emitLaunchGeometry(host, op);
  Value sharedBytes;
  if (int64_t bytes = generator->dynamicSharedMemoryBytes(op))
    sharedBytes = arith::ConstantIntOp::create(host, loc, bytes, 32);
  auto launch = gpu::LaunchFuncOp::create(host, loc, kernel, geometry.grid, geometry.block,
                                          sharedBytes, launchOperands);
  // The runtime reads the configuration back (grid policy, tile) from the launch.
  launch->setAttr("mepi.config", config);
  op.erase();
  return success();
}

struct GenerateKernelsPass : mepi::impl::MepiGenerateKernelsBase<GenerateKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    TargetInfo target = TargetInfo::forChip(chip, multiprocessors);
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
      if (failed(generateKernel(op, *kernels, ordinal, target)))
        return signalPassFailure();
    }
  }
};
} // namespace
