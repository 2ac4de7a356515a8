// Compiling a planned problem: lowering to PTX, linking into a cubin, reading the launch; and
// the ranked candidate configurations of its planned module.
#include "Runtime/PlannerDetail.h"
#include "Runtime/SplitOperand.h"

#include "Target/JitLink.h"
#include "Target/Pipeline.h"
#include "mepi/IR/MepiOps.h"
#include "mepi/Sm90/Sm90Spec.h"
#include "mepi/Transforms/KernelConfigs.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Regex.h"

#include <map>
#include <mutex>
#include <tuple>

using namespace mlir;
using namespace mlir::mepi;
using namespace ::mepi::runtime::detail;
using ::mepi::runtime::CompiledKernel;
using ::mepi::runtime::CompiledModule;
using ::mepi::runtime::ErrorKind;
using ::mepi::runtime::MatmulProblem;
using ::mepi::runtime::withKind;

namespace {
/// Fills the launch fields of `kernel` from the launch that mepi-generate-kernels left in the
/// host function. False when any of it is not a constant the runtime can use.
bool readLaunch(gpu::LaunchFuncOp launch, ::mepi::runtime::CompiledKernel &kernel) {
  auto config = launch->getAttrOfType<KernelConfigAttr>("mepi.config");
  if (!config)
    return false;
  kernel.tile = {config.getTileM(), config.getTileN()};
  llvm::raw_string_ostream(kernel.config) << config;
  kernel.persistent = config.getStrategy() == KernelStrategy::Wgmma;
  kernel.programmaticLaunch = kernel.persistent; // WgmmaKernelGenerator's first instruction
  kernel.cluster = config.getMainloop().getCluster();
  // Promoted accumulators (two sets) are what needs setmaxnreg's registers: see loadFromPtx.
  kernel.loadFromPtx = config.getMainloop().getPromote() > 0;
  // A persistent kernel's launch grid is its work units' blocks (the generator's Sm90Spec).
  if (kernel.persistent) {
    std::optional<int64_t> blocks = getConstantIntValue(launch.getGridSizeX());
    if (!blocks)
      return false;
    kernel.workUnits = *blocks / kernel.cluster;
  }
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
        {arg.getArgNumber(), {int64_t(map.getBox()[0]), int64_t(map.getBox()[1])},
         int64_t(map.getSwizzle())});
  }
  return true;
}

/// `config` made to sum at most `maxUnitKSteps` k-steps in one wgmma accumulator (unchanged
/// when its units already do): with promoted accumulators (kSplitPromoteKSteps) where the
/// configuration holds them, else split along K until no unit accumulates more; null where
/// neither can run `p`.
KernelConfigAttr boundUnitKSteps(KernelConfigAttr config, const Sm90Problem &p,
                                 const TargetInfo &target, int64_t maxUnitKSteps) {
  if (config.getStrategy() != KernelStrategy::Wgmma)
    return config;
  int64_t kSteps = Sm90Spec(p, config, target).kSteps();
  if (llvm::divideCeil(kSteps, config.getScheduler().getSplits()) <= maxUnitKSteps)
    return config;
  if (KernelConfigAttr promoted = config.withPromote(::mepi::runtime::kSplitPromoteKSteps))
    if (Sm90Spec(p, promoted, target).canImplement())
      return promoted;
  KernelConfigAttr split = config.withSplits(llvm::divideCeil(kSteps, maxUnitKSteps))
                               .withCluster(1)
                               .withPingpong(false)
                               .withStreamk(false);
  return split && Sm90Spec(p, split, target).canImplement() ? split : KernelConfigAttr();
}
} // namespace

auto ::mepi::runtime::rankedKernelConfigs(const MatmulProblem &problem, llvm::StringRef arch,
                                          int64_t maxUnitKSteps)
    -> llvm::Expected<std::vector<std::string>> {
  MatmulProblem unforced = problem;
  unforced.kernelConfig.clear();
  llvm::Expected<PlannedModule> planned = plan(unforced);
  if (!planned)
    return planned.takeError();
  std::vector<std::string> ranked;
  TargetInfo target = TargetInfo::forChip(arch, problem.multiprocessors);
  // Bounded: the promoted configurations first, in the heuristic's order. Promotion keeps a
  // unit's whole K, so it runs at 1.85-2.13x the split ones' speed (bench/NOTES.md, f32).
  std::vector<std::string> split;
  planned->module->walk([&](MatmulOp op) {
    for (KernelConfigAttr config : rankKernelConfigs(op, target)) {
      if (maxUnitKSteps > 0)
        config = boundUnitKSteps(config, Sm90Problem::of(op), target, maxUnitKSteps);
      std::string text;
      llvm::raw_string_ostream(text) << config;
      std::vector<std::string> &list =
          maxUnitKSteps > 0 && config && config.getMainloop().getPromote() == 0 ? split : ranked;
      if (config && llvm::find(list, text) == list.end())
        list.push_back(text);
    }
  });
  llvm::append_range(ranked, split);
  return ranked;
}

namespace {
/// Plans `problem` and runs the lowering for `arch` up to `stage`, reading the host's launch of
/// the kernel into `kernel` (name, configuration, block, shared memory, work units, workspace,
/// tensor maps); returns the module for the stages after it.
llvm::Expected<PlannedModule> lowerAndReadLaunch(const MatmulProblem &problem,
                                                 llvm::StringRef arch, LoweringStage stage,
                                                 CompiledKernel &kernel) {
  // LLVM only warns about an unknown processor and emits PTX anyway: reject it here.
  if (!llvm::Regex("^sm_[0-9]+[af]?$").match(arch))
    return llvm::createStringError("expected a target arch such as 'sm_90a', got '" + arch +
                                   "'");
  llvm::Expected<PlannedModule> planned = plan(problem);
  if (!planned)
    return planned.takeError();
  kernel.plannedIR = printModule(*planned->module);
  MLIRContext *ctx = planned->context.get();
  DiagnosticCollector diagnostics(ctx);
  PassManager pm(ctx);
  LowerToPTXOptions options;
  options.chip = arch.str();
  options.multiprocessors = problem.multiprocessors;
  options.stopAfter = stage;
  buildLowerToPTXPipeline(pm, options);
  if (failed(pm.run(*planned->module)))
    return withKind(diagnostics.error("lowering to PTX failed"), ErrorKind::CompileFailed);
  // The launch left in the host function names the kernel, its configuration, block, shared
  // memory and TMA descriptors (the kernels themselves become a gpu.binary at the end).
  bool launchKnown = false;
  planned->module->walk([&](gpu::LaunchFuncOp launch) {
    kernel.kernelName = launch.getKernelName().str();
    launchKnown = readLaunch(launch, kernel);
  });
  if (kernel.kernelName.empty())
    return withKind(llvm::createStringError("lowering produced no kernel"),
                    ErrorKind::CompileFailed);
  if (!launchKnown)
    return withKind(llvm::createStringError("lowering produced a launch of " +
                                            kernel.kernelName + " that the runtime cannot read"),
                    ErrorKind::CompileFailed);
  return planned;
}
} // namespace

auto ::mepi::runtime::compileProblem(const MatmulProblem &problem, llvm::StringRef arch,
                                     llvm::ArrayRef<DeviceObject> objects)
    -> llvm::Expected<CompiledKernel> {
  CompiledKernel kernel;
  llvm::Expected<PlannedModule> planned =
      lowerAndReadLaunch(problem, arch, LoweringStage::PTX, kernel);
  if (!planned)
    return planned.takeError();
  FailureOr<std::string> ptx = extractPTX(*planned->module);
  if (failed(ptx))
    return withKind(llvm::createStringError("lowering produced no PTX"),
                    ErrorKind::CompileFailed);
  kernel.ptx = std::move(*ptx);
  llvm::Expected<LinkedCubin> linked = linkCubin(kernel.ptx, objects, arch, /*verbose=*/true);
  if (!linked)
    return withKind(linked.takeError(), ErrorKind::CompileFailed);
  kernel.cubin = std::move(linked->cubin);
  kernel.linkLog = std::move(linked->infoLog);
  kernel.loadFromPtx = objects.empty() && (kernel.loadFromPtx || reportsSpills(kernel.linkLog));
  return kernel;
}

auto ::mepi::runtime::describeLaunch(const MatmulProblem &problem, llvm::StringRef arch)
    -> llvm::Expected<CompiledKernel> {
  CompiledKernel kernel;
  llvm::Expected<PlannedModule> planned =
      lowerAndReadLaunch(problem, arch, LoweringStage::Kernel, kernel);
  if (!planned)
    return planned.takeError();
  return kernel;
}

bool ::mepi::runtime::sameLaunch(const CompiledKernel &x, const CompiledKernel &y) {
  auto maps = [](const CompiledKernel &k) {
    std::vector<std::tuple<unsigned, std::array<int64_t, 2>, int64_t>> v;
    for (const TensorMapSpec &m : k.tensorMaps)
      v.emplace_back(m.argument, m.box, m.swizzle);
    return v;
  };
  return x.kernelName == y.kernelName && x.config == y.config && x.tile == y.tile &&
         x.block == y.block && x.sharedBytes == y.sharedBytes && x.persistent == y.persistent &&
         x.programmaticLaunch == y.programmaticLaunch &&
         x.workUnits == y.workUnits && x.cluster == y.cluster &&
         x.workspaceBytes == y.workspaceBytes && maps(x) == maps(y);
}

auto ::mepi::runtime::compileKernelModule(llvm::StringRef mlir, llvm::StringRef arch)
    -> llvm::Expected<CompiledModule> {
  std::unique_ptr<MLIRContext> ctx = makeContext();
  DiagnosticCollector diagnostics(ctx.get());
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(mlir, ParserConfig(ctx.get()));
  if (!module)
    return diagnostics.error("cannot parse the kernel module");
  PassManager pm(ctx.get());
  LowerToPTXOptions options;
  options.chip = arch.str();
  buildLowerToPTXPipeline(pm, options);
  if (failed(pm.run(*module)))
    return withKind(diagnostics.error("lowering to PTX failed"), ErrorKind::CompileFailed);
  FailureOr<std::string> ptx = extractPTX(*module);
  if (failed(ptx))
    return withKind(llvm::createStringError("lowering produced no PTX"),
                    ErrorKind::CompileFailed);
  CompiledModule compiled;
  compiled.ptx = std::move(*ptx);
  llvm::Expected<LinkedCubin> linked = linkCubin(compiled.ptx, {}, arch);
  if (!linked)
    return withKind(linked.takeError(), ErrorKind::CompileFailed);
  compiled.cubin = std::move(linked->cubin);
  return compiled;
}

auto ::mepi::runtime::cachedKernelCubin(llvm::StringRef mlir, llvm::StringRef arch)
    -> llvm::Expected<std::shared_ptr<const std::vector<char>>> {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const std::vector<char>>> compiled;
  std::string key = arch.str() + "\n" + mlir.str();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = compiled.find(key); it != compiled.end())
    return it->second;
  llvm::Expected<CompiledModule> module = compileKernelModule(mlir, arch);
  if (!module)
    return module.takeError();
  auto cubin = std::make_shared<const std::vector<char>>(std::move(module->cubin));
  compiled[key] = cubin;
  return cubin;
}
