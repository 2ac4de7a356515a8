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
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::mepi;
using ::mepi::runtime::CompiledKernel;
using ::mepi::runtime::ElementType;
using ::mepi::runtime::MatmulProblem;
using ::mepi::runtime::EpilogInput;
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
  /// ": <diagnostics>" when any were collected.
  std::string messagesSuffix() const { return messages.empty() ? "" : ": " + messages; }
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

BroadcastKind broadcastKind(::mepi::runtime::InputKind kind) {
  switch (kind) {
  case ::mepi::runtime::InputKind::Row: return BroadcastKind::Row;
  case ::mepi::runtime::InputKind::Col: return BroadcastKind::Col;
  case ::mepi::runtime::InputKind::Scalar: return BroadcastKind::Scalar;
  case ::mepi::runtime::InputKind::Matrix: return BroadcastKind::Matrix;
  }
  return BroadcastKind::Row;
}

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Parses the user's MLIR, checks its function against the problem, copies its functions into
/// `module` (private: inlined, then erased, by mepi-inline-epilog-calls) and fills the epilog of
/// `op` with a call to it.
llvm::Error buildUserEpilogCall(OpBuilder &b, MatmulOp op,
                                const ::mepi::runtime::UserEpilogSource &source,
                                ModuleOp module) {
  MLIRContext *ctx = op.getContext();
  std::string diagnostics;
  OwningOpRef<ModuleOp> user;
  {
    ScopedDiagnosticHandler collect(ctx, [&](Diagnostic &diag) {
      llvm::raw_string_ostream(diagnostics) << "\n" << diag;
      return success();
    });
    user = parseSourceString<ModuleOp>(source.mlir, ParserConfig(ctx), "user-epilog");
  }
  if (!user)
    return llvm::createStringError("user epilog: cannot parse the MLIR text:" + diagnostics);
  auto fn = user->lookupSymbol<func::FuncOp>(source.function);
  if (!fn || fn.isExternal())
    return llvm::createStringError("user epilog: expected a func.func @" + source.function +
                                   " with a body in the MLIR text, got " +
                                   (fn ? "a declaration" : "none"));

  SmallVector<Type> expectedInputs = {b.getF32Type()};
  for (Value input : op.getEpilogInputs())
    expectedInputs.push_back(cast<MemRefType>(input.getType()).getElementType());
  expectedInputs.append({b.getIndexType(), b.getIndexType()});
  auto expected =
      b.getFunctionType(expectedInputs, {op.getD().getType().getElementType()});
  if (fn.getFunctionType() != expected)
    return llvm::createStringError("user epilog @" + source.function + ": expected type " +
                                   typeString(expected) + " for this problem, got " +
                                   typeString(fn.getFunctionType()));
  for (auto userFn : llvm::make_early_inc_range(user->getOps<func::FuncOp>())) {
    if (module.lookupSymbol(userFn.getName()))
      return llvm::createStringError("user epilog: the symbol @" + userFn.getName().str() +
                                     " is reserved");
    userFn->remove();
    userFn.setPrivate();
    module.push_back(userFn);
  }

  OpBuilder::InsertionGuard guard(b);
  Location loc = op.getLoc();
  Block *body = b.createBlock(&op.getEpilog(), {}, expectedInputs,
                              SmallVector<Location>(expectedInputs.size(), loc));
  auto call = func::CallOp::create(b, loc, source.function, expected.getResults(),
                                   body->getArguments());
  YieldOp::create(b, loc, call.getResults());
  return llvm::Error::success();
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
  if (problem.userEpilog) {
    if (problem.bias)
      return llvm::createStringError(
          "a user epilog takes its inputs as user epilog inputs, got a 'bias'");
  } else if (!epilog) {
    return llvm::createStringError(
        "unknown epilog '" + problem.epilog +
        "': expected DEFAULT, BIAS, RELU, RELU_BIAS, GELU, GELU_BIAS, SIGMOID, TANH or SILU");
  } else if (!problem.userInputs.empty()) {
    return llvm::createStringError("epilog " + problem.epilog +
                                   " takes no user epilog inputs, got " +
                                   std::to_string(problem.userInputs.size()));
  } else if (builtinEpilogHasBias(*epilog) != problem.bias.has_value())
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
  for (const EpilogInput &input : problem.userInputs)
    argTypes.push_back(memrefType(ctx, input.layout));
  argTypes.push_back(memrefType(ctx, problem.d));

  b.setInsertionPointToEnd(planned.module->getBody());
  auto fn = func::FuncOp::create(b, loc, "mepi_matmul", b.getFunctionType(argTypes, {}));
  // What the addresses of a and b promise decides whether TMA kernels may read them. D is
  // allocated by the runtime (cuMemAlloc: 256-byte aligned), which allows vector stores.
  if (problem.addressAlignment >= 16)
    for (unsigned arg : {0u, 1u})
      fn.setArgAttr(arg, kAlignmentAttr, b.getI64IntegerAttr(16));
  fn.setArgAttr(argTypes.size() - 1, kAlignmentAttr, b.getI64IntegerAttr(16));
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
  for (const EpilogInput &input : problem.userInputs) {
    inputs.push_back(entry->getArgument(next++));
    kinds.push_back(BroadcastKindAttr::get(ctx, broadcastKind(input.kind)));
  }
  Value d = entry->getArgument(next++);
  KernelConfigAttr config;
  if (!problem.kernelConfig.empty()) {
    config = dyn_cast_or_null<KernelConfigAttr>(parseAttribute(problem.kernelConfig, ctx));
    if (!config)
      return llvm::createStringError("options.kernelConfig: expected a #mepi.kernel_config<...>, "
                                     "got '" + problem.kernelConfig + "'" +
                                     diagnostics.messagesSuffix());
  }
  auto op = MatmulOp::create(b, loc, a, bMat, alpha, c, beta, inputs, b.getArrayAttr(kinds), d,
                             ValueRange{}, problem.transposeA ? b.getUnitAttr() : UnitAttr(),
                             problem.transposeB ? b.getUnitAttr() : UnitAttr(),
                             computeAttr(ctx, problem), config);
  func::ReturnOp::create(b, loc);
  if (problem.userEpilog) {
    if (llvm::Error e = buildUserEpilogCall(b, op, *problem.userEpilog, *planned.module))
      return std::move(e);
  } else {
    buildBuiltinEpilog(b, op, *epilog);
  }

  if (failed(verify(*planned.module)))
    return diagnostics.error("invalid matmul problem");
  return planned;
}

/// Fills the launch fields of `kernel` from the launch that mepi-generate-kernels left in the
/// host function. False when any of it is not a constant the runtime can use.
bool readLaunch(gpu::LaunchFuncOp launch, ::mepi::runtime::CompiledKernel &kernel) {
  auto config = launch->getAttrOfType<KernelConfigAttr>("mepi.config");
  if (!config)
    return false;
  kernel.tile = {config.getTileM(), config.getTileN()};
  llvm::raw_string_ostream(kernel.config) << config;
  kernel.persistent = config.getStrategy() == KernelStrategy::Wgmma;
  kernel.splits = config.getSplits();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  SmallVector<Value, 3> sizes = {block.x, block.y, block.z};
  for (auto [i, size] : llvm::enumerate(sizes)) {
    std::optional<int64_t> value = getConstantIntValue(size);
    if (!value)
      return false;
    kernel.block[i] = *value;
  }
  if (Value shared = launch.getDynamicSharedMemorySize()) {
    std::optional<int64_t> bytes = getConstantIntValue(shared);
    if (!bytes)
      return false;
    kernel.sharedBytes = *bytes;
  }
  // Tensor maps lead the parameters, then the workspace, then the planned function's arguments.
  for (Value operand : launch.getKernelOperands()) {
    if (auto workspace = operand.getDefiningOp<WorkspaceOp>()) {
      kernel.workspaceBytes = workspace.getBytes();
      break;
    }
    auto map = operand.getDefiningOp<TensorMapOp>();
    if (!map)
      break;
    auto arg = dyn_cast<BlockArgument>(map.getSource());
    if (!arg)
      return false;
    kernel.tensorMaps.push_back(
        {arg.getArgNumber(), {map.getBox()[0], map.getBox()[1]}, map.getSwizzle()});
  }
  return true;
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
  // The kernels became a gpu.binary; the launch left in the host function names the kernel,
  // its configuration, block, shared memory and TMA descriptors.
  bool launchKnown = false;
  module.walk([&](gpu::LaunchFuncOp launch) {
    kernel.kernelName = launch.getKernelName().str();
    launchKnown = readLaunch(launch, kernel);
  });
  FailureOr<std::string> ptx = extractPTX(module);
  if (failed(ptx) || kernel.kernelName.empty())
    return llvm::createStringError("lowering produced no kernel");
  if (!launchKnown)
    return llvm::createStringError("lowering produced a launch of " + kernel.kernelName +
                                   " that the runtime cannot read");
  kernel.ptx = std::move(*ptx);

  llvm::Expected<LinkedCubin> linked = linkCubin(kernel.ptx, objects, arch);
  if (!linked)
    return linked.takeError();
  kernel.cubin = std::move(linked->cubin);
  kernel.linkLog = std::move(linked->infoLog);
  return kernel;
}
