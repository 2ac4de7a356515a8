// Planning a MatmulProblem into a mepi module and compiling it to a cubin.
#include "Runtime/Planner.h"

#include "Target/Pipeline.h"
#include "Target/Registration.h"
#include "mepi/IR/MepiOps.h"
#include "mepi/Library/EpilogLibrary.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::mepi;
using ::mepi::runtime::CompiledKernel;
using ::mepi::runtime::ElementType;
using ::mepi::runtime::MatmulProblem;
using ::mepi::runtime::OperandLayout;

namespace {
Type mlirElementType(MLIRContext *ctx, ElementType type) {
  switch (type) {
  case ElementType::F16: return Float16Type::get(ctx);
  case ElementType::BF16: return BFloat16Type::get(ctx);
  case ElementType::F32: return Float32Type::get(ctx);
  case ElementType::F8E4M3FN: return Float8E4M3FNType::get(ctx);
  case ElementType::F8E5M2: return Float8E5M2Type::get(ctx);
  }
  return {};
}

/// Static shape and strides: every kernel is specialised to its problem (the cache is per problem).
MemRefType memrefType(MLIRContext *ctx, const OperandLayout &layout) {
  Type elt = mlirElementType(ctx, layout.type);
  if (layout.strides.empty() || layout.strides == ::mepi::runtime::rowMajorStrides(layout.shape))
    return MemRefType::get(layout.shape, elt);
  return MemRefType::get(layout.shape, elt, StridedLayoutAttr::get(ctx, 0, layout.strides));
}

/// Collects the diagnostics emitted while `fn` runs into one error message.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(messages);
          if (!messages.empty())
            os << "\n";
          os << diag;
          for (Diagnostic &note : diag.getNotes())
            if (!StringRef(note.str()).contains("see current operation"))
              os << "\n  note: " << note;
          return success();
        }) {}
  llvm::Error error(llvm::StringRef what) const {
    return llvm::createStringError(what + (messages.empty() ? "" : ": " + messages));
  }

private:
  std::string messages;
  ScopedDiagnosticHandler handler;
};

/// TF32 only matters (and is only allowed) for f32 operands; 16-bit operands ignore the opt-in.
ComputeTypeAttr computeAttr(MLIRContext *ctx, const MatmulProblem &problem) {
  if (problem.allowTF32 && problem.a.type == ElementType::F32 &&
      problem.b.type == ElementType::F32)
    return ComputeTypeAttr::get(ctx, ComputeType::TF32);
  return {};
}

struct PlannedModule {
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
};

std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  registerMepiDialects(registry);
  auto ctx = std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  return ctx;
}

llvm::Expected<PlannedModule> plan(const MatmulProblem &problem) {
  PlannedModule planned;
  planned.context = makeContext();
  MLIRContext *ctx = planned.context.get();
  DiagnosticCollector diagnostics(ctx);

  std::optional<BuiltinEpilog> epilog = parseBuiltinEpilog(problem.epilog);
  if (!epilog)
    return llvm::createStringError(
        "unknown epilog '" + problem.epilog +
        "': expected DEFAULT, BIAS, RELU, RELU_BIAS, GELU or GELU_BIAS");
  if (builtinEpilogHasBias(*epilog) != problem.bias.has_value())
    return llvm::createStringError(
        "epilog " + problem.epilog +
        (problem.bias ? " takes no epilog input, got 'bias'" : " expects epilog input 'bias'"));

  Location loc = UnknownLoc::get(ctx);
  OpBuilder b(ctx);
  planned.module = ModuleOp::create(loc);
  SmallVector<Type> argTypes = {memrefType(ctx, problem.a), memrefType(ctx, problem.b),
                                b.getF32Type()};
  if (problem.c)
    argTypes.append({memrefType(ctx, *problem.c), b.getF32Type()});
  if (problem.bias)
    argTypes.push_back(memrefType(ctx, *problem.bias));
  argTypes.push_back(memrefType(ctx, problem.d));

  b.setInsertionPointToEnd(planned.module->getBody());
  auto fn = func::FuncOp::create(b, loc, "mepi_matmul", b.getFunctionType(argTypes, {}));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  unsigned next = 0;
  Value a = entry->getArgument(next++), bMat = entry->getArgument(next++);
  Value alpha = entry->getArgument(next++);
  Value c, beta;
  if (problem.c) {
    c = entry->getArgument(next++);
    beta = entry->getArgument(next++);
  }
  SmallVector<Value> inputs;
  SmallVector<Attribute> kinds;
  if (problem.bias) {
    inputs.push_back(entry->getArgument(next++));
    kinds.push_back(BroadcastKindAttr::get(ctx, BroadcastKind::Row));
  }
  Value d = entry->getArgument(next++);
  auto op = MatmulOp::create(b, loc, a, bMat, alpha, c, beta, inputs, b.getArrayAttr(kinds), d,
                             ValueRange{}, problem.transposeA ? b.getUnitAttr() : UnitAttr(),
                             problem.transposeB ? b.getUnitAttr() : UnitAttr(),
                             computeAttr(ctx, problem), KernelConfigAttr());
  func::ReturnOp::create(b, loc);
  buildBuiltinEpilog(b, op, *epilog);

  if (failed(verify(*planned.module)))
    return diagnostics.error("invalid matmul problem");
  return planned;
}

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}
} // namespace

auto ::mepi::runtime::planModule(const MatmulProblem &problem)
    -> llvm::Expected<std::string> {
  llvm::Expected<PlannedModule> planned = plan(problem);
  if (!planned)
    return planned.takeError();
  return printModule(*planned->module);
}

auto ::mepi::runtime::compileProblem(const MatmulProblem &problem, llvm::StringRef arch,
                                     llvm::ArrayRef<DeviceObject> objects)
    -> llvm::Expected<CompiledKernel> {
  // LLVM only warns about an unknown processor and emits PTX anyway: reject it here.
  if (!llvm::Regex("^sm_[0-9]+[af]?$").match(arch))
    return llvm::createStringError("expected a target arch such as 'sm_90a', got '" + arch +
                                   "'");
  llvm::Expected<PlannedModule> planned = plan(problem);
  if (!planned)
    return planned.takeError();
  CompiledKernel kernel;
  kernel.plannedIR = printModule(*planned->module);

  MLIRContext *ctx = planned->context.get();
  DiagnosticCollector diagnostics(ctx);
  PassManager pm(ctx);
  LowerToPTXOptions options;
  options.chip = arch.str();
  buildLowerToPTXPipeline(pm, options);
  if (failed(pm.run(*planned->module)))
    return diagnostics.error("lowering to PTX failed");

  ModuleOp module = *planned->module;
  // The kernels became a gpu.binary; the launch left in the host function names the kernel and
  // its block (SIMT: x threads along N, y along M).
  module.walk([&](gpu::LaunchFuncOp launch) {
    kernel.kernelName = launch.getKernelName().str();
    std::optional<int64_t> x = getConstantIntValue(launch.getBlockSizeX());
    std::optional<int64_t> y = getConstantIntValue(launch.getBlockSizeY());
    if (x && y)
      kernel.tile = {*y, *x};
  });
  FailureOr<std::string> ptx = extractPTX(module);
  if (failed(ptx) || kernel.kernelName.empty())
    return llvm::createStringError("lowering produced no kernel");
  kernel.ptx = std::move(*ptx);

  llvm::Expected<LinkedCubin> linked = linkCubin(kernel.ptx, objects, arch);
  if (!linked)
    return linked.takeError();
  kernel.cubin = std::move(linked->cubin);
  kernel.linkLog = std::move(linked->infoLog);
  return kernel;
}
