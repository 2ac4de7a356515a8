// The C++ API's Matmul: construction, planning through the kernel cache, execution, reset
// (autotune in MatmulAutotune.cpp; the state in MatmulState.h; the checks in ApiSupport.h).
#include "mepi/Matmul.h"
#include "mepi/EpilogBuilder.h"

#include "Runtime/FoldBatch.h"
#include "Runtime/Log.h"
#include "Runtime/MatmulState.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <tuple>

using namespace mepi;
using namespace mepi::runtime;

Matmul::Matmul(const Tensor &a, const Tensor &b, std::optional<Tensor> c, float alpha,
               std::optional<float> beta, Qualifiers qualifiers, Options options)
    : state(std::make_unique<State>()) {
  State &s = *state;
  s.problem.a = validated(a, "a", 2);
  s.problem.b = validated(b, "b", 2);
  if (c.has_value() != beta.has_value())
    fail(c ? "operand c: beta is required with c" : "beta given without operand c");
  const Tensor *cTensor = c ? &*c : nullptr;
  for (auto [t, name] : {std::pair{&b, "b"}, std::pair{cTensor, "c"}})
    if (t && t->device != a.device)
      fail(llvm::formatv("operand {0}: expected memory on device {1} (operand a's), got device "
                         "{2}",
                         name, a.device, t->device));
  s.problem.transposeA = qualifiers.transposeA;
  s.problem.transposeB = qualifiers.transposeB;
  s.problem.allowTF32 = options.allowTF32;
  s.problem.fastAccumulation = options.fastAccumulation;
  s.problem.kernelConfig = options.kernelConfig;
  std::vector<int64_t> dShape = broadcastBatch(a.shape, b.shape);
  if (options.mirrors < 0)
    fail(llvm::formatv("options.mirrors: expected 0 or more, got {0}", options.mirrors));
  if (options.mirrors > 0 && !dShape.empty())
    fail(llvm::formatv("options.mirrors: expected 0 for a batched D (batch dimensions {0}), got "
                       "{1}",
                       dims(dShape), options.mirrors));
  s.problem.mirrors = options.mirrors;
  if (options.auxLeadingDimension < 0 || (options.auxLeadingDimension > 0 && !dShape.empty()))
    fail(llvm::formatv("options.auxLeadingDimension: expected 0, or more for a 2-D D, got {0} "
                       "(batch dimensions {1})",
                       options.auxLeadingDimension, dims(dShape)));
  s.problem.auxLeadingDimension = options.auxLeadingDimension;
  int64_t m = qualifiers.transposeA ? a.shape.back() : a.shape[a.shape.size() - 2];
  int64_t n = qualifiers.transposeB ? b.shape[b.shape.size() - 2] : b.shape.back();
  dShape.push_back(m);
  dShape.push_back(n);
  ElementType dType = elementType(options.resultType.value_or(a.dtype));
  s.problem.d = {dType, dShape, rowMajorStrides(dShape)};
  spanBytes(s.problem.d, "result d"); // [M, N] may overflow where [M, K] and [K, N] do not
  if (c)
    s.problem.c = validated(*c, "c", 2);
  s.problem.addressAlignment = commonAlignment(a.data, b.data);
  s.problem.cAlignment = c ? commonAlignment(c->data, c->data) : 0;
  s.a = a;
  s.b = b;
  s.c = c;
  s.alpha = alpha;
  s.beta = beta.value_or(0.0f);
  // MX block scaling: the pre-passes read A's and B's scales (MxScaling.h), no epilog does.
  if (options.blockScaling) {
    std::tie(s.mxScaleA, s.mxScaleB) =
        validatedMxScales(options.quantizationScales, s.problem, a.device);
    options.quantizationScales.a.reset();
    options.quantizationScales.b.reset();
    s.problem.mxScales = true;
  }
  options.quantizationScales = validatedScales(options.quantizationScales, s.problem, a.device);
  s.options = std::move(options);
  // The verifier checks K, M/N against C, dtype combinations: fail here, before any plan.
  check(planModule(s.problem).takeError(), "invalid matmul");
}

Matmul::Matmul(Matmul &&) noexcept = default;
Matmul &Matmul::operator=(Matmul &&) noexcept = default;
Matmul::~Matmul() {
  if (state)
    state->freeAll();
}

namespace {
runtime::InputKind inputKind(mepi::InputKind kind) {
  switch (kind) {
  case mepi::InputKind::Row: return runtime::InputKind::Row;
  case mepi::InputKind::Col: return runtime::InputKind::Col;
  case mepi::InputKind::Scalar: return runtime::InputKind::Scalar;
  case mepi::InputKind::Matrix: return runtime::InputKind::Matrix;
  }
  return runtime::InputKind::Row;
}
runtime::OutputKind outputKind(UserEpilogOutput::Kind kind) {
  using Kind = UserEpilogOutput::Kind;
  switch (kind) {
  case Kind::Matrix: return runtime::OutputKind::Matrix;
  case Kind::Bitmask: return runtime::OutputKind::Bitmask;
  case Kind::RowReduction: return runtime::OutputKind::RowReduction;
  case Kind::ColReduction: return runtime::OutputKind::ColReduction;
  case Kind::ScalarReduction: return runtime::OutputKind::ScalarReduction;
  }
  return runtime::OutputKind::Matrix;
}
/// The options that the epilog reads into `problem`: result_amax and the aux's type and amax.
void withEpilogOptions(MatmulProblem &problem, const Options &options) {
  problem.resultAmax = options.resultAmax;
  if (options.auxType)
    problem.auxType = elementType(*options.auxType);
  problem.auxAmax = options.auxAmax;
}
} // namespace

void Matmul::plan(Epilog epilog, const EpilogInputs &inputs) {
  if (!state)
    fail("plan() after free()");
  MatmulProblem problem = state->problem;
  problem.epilog = epilogName(epilog);
  problem.userEpilog.reset();
  problem.userInputs.clear();
  problem.builtinInputs.clear();
  withEpilogOptions(problem, state->options);
  std::vector<Tensor> tensors;
  for (auto [key, tensor] : namedInputs(inputs, state->options.quantizationScales)) {
    Tensor given = builtinInputTensor(key, *tensor);
    problem.builtinInputs.push_back({key, validated(given, key, 0)});
    tensors.push_back(given);
  }
  planProblem(problem, std::move(tensors), {}, {});
}

void Matmul::plan(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs) {
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i)
    names.push_back("epilog input " + std::to_string(i));
  planUserEpilog(epilog, inputs, names, false);
}

void Matmul::plan(const EpilogBuilder &epilog, const std::map<std::string, Tensor> &inputs) {
  if (!state)
    fail("plan() after free()");
  std::vector<UserEpilogInput> ordered;
  std::vector<std::string> names;
  std::vector<DType> types;
  std::string declared;
  const auto read = epilog.inputs();
  for (const auto &[name, kind] : read) {
    auto given = inputs.find(name);
    if (given == inputs.end())
      fail("plan: epilog input '" + name + "' is read by the epilog builder but not given");
    ordered.push_back({given->second, kind});
    names.push_back("epilog input '" + name + "'");
    types.push_back(given->second.dtype);
    declared += (declared.empty() ? "'" : ", '") + name + "'";
  }
  for (const auto &[name, tensor] : inputs)
    if (llvm::none_of(read, [&name = name](const auto &in) { return in.first == name; }))
      fail("plan: epilog input '" + name + "' is given but the epilog builder does not read it" +
           (declared.empty() ? std::string(" (it reads none)") : " (it reads " + declared + ")"));
  if (epilog.readsC()) {
    if (!state->c)
      fail("plan: the epilog builder reads C, but this Matmul has no operand c");
    ordered.push_back({*state->c, mepi::InputKind::Matrix});
    names.push_back("c");
    types.push_back(state->c->dtype);
  }
  planUserEpilog(epilog.toUserEpilog(dtypeOf(state->problem.d.type), types), ordered, names,
                 epilog.readsC());
}

void Matmul::planUserEpilog(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs,
                            const std::vector<std::string> &inputNames, bool readsC) {
  if (!state)
    fail("plan() after free()");
  const QuantizationScales &scales = state->options.quantizationScales;
  if (scales.a || scales.b || scales.c || scales.d)
    fail("plan: quantization scales are applied by the built-in epilogs; a user epilog reads "
         "its scales as epilog inputs");
  MatmulProblem problem = state->problem;
  problem.userEpilog =
      UserEpilogSource{epilog.mlir, epilog.function, {}, epilog.userData != nullptr};
  for (const UserEpilogOutput &output : epilog.outputs)
    problem.userEpilog->outputs.push_back(
        {output.key, outputKind(output.kind), elementType(output.dtype),
         output.combiner == UserEpilogOutput::Combiner::Add ? runtime::Combiner::Add
                                                            : runtime::Combiner::Max});
  problem.userInputs.clear();
  problem.builtinInputs.clear();
  withEpilogOptions(problem, state->options); // the planner refuses aux ones here
  std::vector<Tensor> tensors;
  int64_t m = problem.d.shape[problem.d.shape.size() - 2], n = problem.d.shape.back();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<int64_t> &shape = inputs[i].tensor.shape;
    // The verifier checks batch dimensions too; this names the input and the dimension first.
    auto expectLast = [&](int64_t want, const char *kind, const char *dim) {
      if (shape.empty() || shape.back() != want)
        fail(llvm::formatv("plan: {0} ({1}): expected shape [batch..., {2}] ({3} of D), got {4}",
                           inputNames[i], kind, want, dim, dims(shape)));
    };
    switch (inputs[i].kind) {
    case InputKind::Row: expectLast(m, "row", "M"); break;
    case InputKind::Col: expectLast(n, "col", "N"); break;
    case InputKind::Matrix: expectLast(n, "matrix", "N"); break;
    case InputKind::Scalar:
      // Grouped: [S], one value per group (the verifier checks S).
      if (shape.size() > (problem.groups ? 1u : 0u))
        fail(llvm::formatv("plan: {0} (scalar): expected a rank-0 tensor{1}, got shape {2}",
                           inputNames[i], problem.groups ? " or one value per group" : "",
                           dims(shape)));
      break;
    }
    const void *data = inputs[i].tensor.data;
    problem.userInputs.push_back(
        {validated(inputs[i].tensor, inputNames[i], 0), inputKind(inputs[i].kind),
         inputs[i].kind == InputKind::Matrix ? commonAlignment(data, data) : 0u});
    tensors.push_back(inputs[i].tensor);
  }
  std::vector<mlir::mepi::DeviceObject> objects;
  for (const DeviceCode &code : epilog.deviceCode) {
    using Kind = mlir::mepi::DeviceObject::Kind;
    Kind kind = code.kind == DeviceCode::Kind::PTX     ? Kind::PTX
                : code.kind == DeviceCode::Kind::LTOIR ? Kind::LTOIR
                : code.kind == DeviceCode::Kind::Cubin ? Kind::Cubin
                                                       : Kind::Fatbin;
    objects.push_back({kind, code.name, code.bytes});
  }
  planProblem(problem, {}, std::move(tensors), std::move(objects));
  state->userInputReadsC = readsC;
  state->userData = epilog.userData;
}

namespace {
/// What the kernel is planned for: `problem`, with the operands it reads from staged copies.
struct StagedPlan {
  MatmulProblem planned;
  std::optional<StagedOperand> a, b;
  /// Split operands: the most k-steps a work unit may accumulate (kSplitMaxUnitKSteps).
  int64_t maxUnitKSteps = 0;
};

/// On sm_90a, strict f32 is split into TF32 parts for the tensor cores (splitProblem), and
/// 8-bit operands given MN-major are copied K-major (kMajorProblem); else 16-bit rows that TMA
/// cannot read in place (needsTmaStaging) get padded copies.
StagedPlan stagedPlan(const MatmulProblem &problem, const std::string &arch, const void *a,
                      const void *b) {
  StagedPlan plan{problem, std::nullopt, std::nullopt, 0};
  bool sm90 = arch == "sm_90a" && !problem.groups;
  if (problem.mxScales && !sm90)
    fail("plan: block scaling (MXFP8) runs emulated on sm_90a only (bf16 copies scaled by a "
         "pre-pass), got arch " + arch);
  // Strict f32 of few rows: the kernel splits its stages (Tf32Split.h), no pre-pass.
  if (sm90 && !problem.mxScales && splitsInKernel(problem, a, b)) {
    plan.maxUnitKSteps = kSplitInKernelMaxUnitKSteps;
    plan.planned.addressAlignment = commonAlignment(a, b);
    return plan;
  }
  std::optional<SplitProblem> split = !sm90              ? std::nullopt
                                      : problem.mxScales ? mxProblem(problem)
                                                         : splitProblem(problem);
  if (split && !problem.mxScales)
    plan.maxUnitKSteps = kSplitMaxUnitKSteps;
  else if (sm90 && !split)
    split = kMajorProblem(problem);
  if (split) {
    plan.planned = split->planned;
    if (split->a)
      plan.a = check(StagedOperand::split(*split->a, arch), "plan");
    if (split->b)
      plan.b = check(StagedOperand::split(*split->b, arch), "plan");
  }
  if (!plan.a && arch == "sm_90a" && needsTmaStaging(problem.a, a)) {
    plan.planned.a = stagedLayout(problem.a);
    plan.a = check(StagedOperand::padded(problem.a, plan.planned.a, arch), "plan");
  }
  if (!plan.b && arch == "sm_90a" && needsTmaStaging(problem.b, b)) {
    plan.planned.b = stagedLayout(problem.b);
    plan.b = check(StagedOperand::padded(problem.b, plan.planned.b, arch), "plan");
  }
  // Copies are cuMemAlloc'd: aligned.
  plan.planned.addressAlignment = commonAlignment(plan.a ? nullptr : a, plan.b ? nullptr : b);
  return plan;
}
} // namespace

void Matmul::planProblem(const runtime::MatmulProblem &problem,
                         std::vector<Tensor> builtinInputs, std::vector<Tensor> userInputs,
                         std::vector<mlir::mepi::DeviceObject> objects) {
  State &s = *state;
  std::string arch = s.options.arch.empty() ? deviceArch(s.a.device) : s.options.arch;
  // A broadcast B's batch folded into the rows (FoldBatch.h), then: tensor-core kernels read A
  // and B through TMA; stage those whose rows it cannot address, unless the planned kernel
  // turns out not to use TMA for them.
  const MatmulProblem folded = runtime::foldedBatch(problem).value_or(problem);
  StagedPlan staged = stagedPlan(folded, arch, s.a.data, s.b.data);
  MatmulProblem &planned = staged.planned;
  // Sized for this device's multiprocessors (the reference part's when the arch is forced).
  int64_t multiprocessors = s.options.arch.empty() ? deviceMultiprocessors(s.a.device) : 0;
  planned.multiprocessors = multiprocessors;
  // autotune()'s choice for this problem, unless the caller forces one.
  if (planned.kernelConfig.empty() && !TunedConfigs::global().empty())
    if (std::optional<std::string> tuned =
            TunedConfigs::global().find(tunedKey(planned, arch, objects)))
      planned.kernelConfig = *tuned;
  // Split operands: the heuristic's first choice whose units accumulate few enough k-steps.
  if (planned.kernelConfig.empty() && staged.maxUnitKSteps > 0) {
    std::vector<std::string> ranked =
        check(rankedKernelConfigs(planned, arch, staged.maxUnitKSteps), "plan");
    if (!ranked.empty())
      planned.kernelConfig = ranked.front();
  }
  // 8-bit operands' bias gradients: a pass after the GEMM.
  std::optional<runtime::OperandSumsPlan> sums =
      check(runtime::planOperandSums(problem, planned), "plan");
  KernelCache::Entry kernel =
      check(KernelCache::global().getOrCompile(planned, arch, objects), "plan");
  if ((staged.a || staged.b) && kernel->tensorMaps.empty()) {
    staged = StagedPlan{folded, std::nullopt, std::nullopt, 0};
    planned.multiprocessors = multiprocessors;
    kernel = check(KernelCache::global().getOrCompile(planned, arch, objects), "plan");
  }
  logLazily(LogLevel::Info, [&] {
    return "plan: " + problem.epilog + (problem.userEpilog ? " (user epilog)" : "") + ", a " +
           dims(problem.a.shape) + ", b " + dims(problem.b.shape) + ", d " +
           dims(problem.d.shape) + " on " + arch + ": " + kernel->config;
  });
  std::vector<NamedLayout> outputLayouts = check(epilogOutputLayouts(problem), "plan");
  for (const NamedLayout &output : outputLayouts)
    spanBytes(output.layout, "aux output " + output.key);
  s.freeOutputs();
  s.givenOutputs.clear(); // the new outputs may be laid out otherwise
  s.atomicMaxOutputs = State::atomicMaxOutputsOf(problem, outputLayouts);
  s.outputLayouts = std::move(outputLayouts);
  s.problem = problem;
  s.planned = std::move(planned);
  s.freeStaged();
  s.stagedA = std::move(staged.a);
  s.stagedB = std::move(staged.b);
  s.sumsPass.reset();
  s.sumsPlan = std::move(sums);
  s.maxUnitKSteps = staged.maxUnitKSteps;
  s.builtinInputs = std::move(builtinInputs);
  s.userInputs = std::move(userInputs);
  s.userInputReadsC = false;
  s.userData = nullptr;
  s.objects = std::move(objects);
  s.arch = arch;
  s.pointersChecked = false; // the streams' launches went with freeStaged, before the module
  s.kernel = std::move(kernel);
  s.loaded.reset();
}

Tensor Matmul::execute(CUstream stream) {
  if (!state)
    fail("execute() after free()");
  State &s = *state;
  if (!s.kernel)
    fail("execute() called before plan()");
  if (s.released)
    fail("execute() after releaseOperands(): call resetOperands() first");
  if (s.mirrors.size() != static_cast<size_t>(s.problem.mirrors))
    fail(llvm::formatv("execute: the plan stores d to {0} mirrors (options.mirrors): call "
                       "setMirrors() first",
                       s.problem.mirrors));
  // Fast path: the same operands as last time on this stream; one cuLaunchKernel.
  if (auto it = s.streams.find(stream); it != s.streams.end() && it->second.prepared) {
    CUresult r = s.launch(*s.driver, it->second, stream);
    if (r == CUDA_SUCCESS)
      return s.result;
    if (r != CUDA_ERROR_INVALID_CONTEXT) // else: this thread has no context yet, set it below
      check(checkCuda(r, "cuLaunchKernel(" + s.kernel->kernelName + ")"), "execute");
  }
  const CudaDriver &driver = check(cudaDriver(), "execute");
  s.driver = &driver;
  s.enterContext(driver);
  if (!s.pointersChecked)
    s.checkPointers(driver);
  if (!s.loaded)
    s.loaded = check(LoadedKernel::shared(s.kernel), "execute");
  if (s.sumsPlan && !s.sumsPass)
    s.sumsPass = check(runtime::OperandSumsPass::load(*s.sumsPlan, driver, s.arch), "execute");
  if (!s.d) {
    s.dBytes = spanBytes(s.problem.d, "result d");
    check(checkCuda(driver.cuMemAlloc(&s.d, s.dBytes), "cuMemAlloc(d)"), "execute");
  }
  if (s.outputs.size() != s.outputLayouts.size())
    s.allocateOutputs(driver, stream);
  State::StreamResources &res = s.streams[stream];
  s.prepareStream(driver, res, stream);
  if (!res.prepared) {
    LaunchArguments args;
    args.workspace = res.workspace;
    args.a = res.stagedA ? res.stagedA->buffer() : reinterpret_cast<CUdeviceptr>(s.a.data);
    args.b = res.stagedB ? res.stagedB->buffer() : reinterpret_cast<CUdeviceptr>(s.b.data);
    args.c = s.c ? reinterpret_cast<CUdeviceptr>(s.c->data) : 0;
    for (const Tensor &input : s.builtinInputs)
      args.builtinInputs.push_back(reinterpret_cast<CUdeviceptr>(input.data));
    for (size_t i = 0; i < s.outputs.size(); ++i)
      args.outputs.push_back({s.outputs[i], s.outputLayouts[i].layout});
    args.d = s.d;
    args.alpha = s.alpha;
    args.beta = s.beta;
    for (const Tensor &input : s.userInputs)
      args.userInputs.push_back(reinterpret_cast<CUdeviceptr>(input.data));
    args.userData = reinterpret_cast<uintptr_t>(s.userData);
    if (s.groupBounds)
      args.groupBounds = reinterpret_cast<CUdeviceptr>(s.groupBounds->data);
    if (s.weightIndices)
      args.weightIndices = reinterpret_cast<CUdeviceptr>(s.weightIndices->data);
    args.mirrors = s.mirrors;
    res.prepared = check(
        PreparedLaunch::create(s.loaded->kernelFunction(), *s.kernel, s.planned, args),
        "execute");
  }
  check(checkCuda(s.launch(driver, res, stream),
                  "cuLaunchKernel(" + s.kernel->kernelName + ")"),
        "execute");

  Tensor &d = s.result;
  d.data = reinterpret_cast<void *>(s.d);
  d.device = s.a.device;
  d.shape = s.resultShape.value_or(s.problem.d.shape);
  d.strides = s.resultStrides ? *s.resultStrides
              : s.resultShape ? runtime::rowMajorStrides(*s.resultShape)
                              : s.problem.d.strides;
  d.dtype = dtypeOf(s.problem.d.type);
  return d;
}

void Matmul::setResult(const Tensor &d) {
  if (!state)
    fail("setResult() after free()");
  State &s = *state;
  if (s.resultShape)
    fail("setResult: not for a grouped matmul whose D is a view");
  expectSameLayout(d, s.problem.d, "d", "setResult");
  if (d.device != s.a.device)
    fail(llvm::formatv("setResult: operand d: expected memory on device {0}, got device {1}",
                       s.a.device, d.device));
  s.freeResult();
  s.d = reinterpret_cast<CUdeviceptr>(d.data);
  s.dGiven = true;
  for (auto &[stream, res] : s.streams)
    res.prepared.reset(); // their launches wrote the old D
}

void Matmul::setMirrors(const std::vector<Tensor> &mirrors) {
  if (!state)
    fail("setMirrors() after free()");
  State &s = *state;
  if (mirrors.size() != static_cast<size_t>(s.problem.mirrors))
    fail(llvm::formatv("setMirrors: expected {0} mirrors (options.mirrors), got {1}",
                       s.problem.mirrors, mirrors.size()));
  std::vector<CUdeviceptr> pointers;
  for (auto [i, mirror] : llvm::enumerate(mirrors)) {
    std::string name = "mirror " + std::to_string(i);
    expectSameLayout(mirror, s.problem.d, name, "setMirrors");
    auto address = reinterpret_cast<CUdeviceptr>(mirror.data);
    if (address % 16 != 0)
      fail(llvm::formatv("setMirrors: operand {0}: expected a 16-byte aligned address, got {1:x}",
                         name, address));
    pointers.push_back(address);
  }
  s.mirrors = std::move(pointers);
  for (auto &[stream, res] : s.streams)
    res.prepared.reset(); // their launches stored to the old mirrors
}

void Matmul::setAuxOutput(const std::string &key, const Tensor &output) {
  if (!state)
    fail("setAuxOutput() after free()");
  State &s = *state;
  if (!s.kernel)
    fail("setAuxOutput() called before plan()");
  auto it = llvm::find_if(s.outputLayouts,
                          [&](const NamedLayout &o) { return o.key == key; });
  if (it == s.outputLayouts.end()) {
    std::string keys;
    for (const NamedLayout &o : s.outputLayouts)
      keys += (keys.empty() ? "'" : ", '") + o.key + "'";
    fail("setAuxOutput: the planned epilog has no aux output '" + key + "' (it has " +
         (keys.empty() ? std::string("none") : keys) + ")");
  }
  std::string name = "aux output " + key;
  expectSameLayout(output, it->layout, name, "setAuxOutput");
  if (output.device != s.a.device)
    fail(llvm::formatv("setAuxOutput: {0}: expected memory on device {1}, got device {2}", name,
                       s.a.device, output.device));
  s.givenOutputs[key] = reinterpret_cast<CUdeviceptr>(output.data);
  s.freeOutputs(); // the next execute takes the caller's memory
  for (auto &[stream, res] : s.streams)
    res.prepared.reset(); // their launches wrote the old outputs
}

const std::map<std::string, Tensor> &Matmul::auxOutputs() const {
  if (!state || !state->kernel)
    fail("auxOutputs() called before plan()");
  return state->aux;
}

void Matmul::resetOperands(const Tensor &a, const Tensor &b, std::optional<Tensor> c,
                           const EpilogInputs &inputs) {
  if (!state)
    fail("resetOperands() after free()");
  State &s = *state;
  // The kernel, D and the workspaces live on the planned device.
  if (a.device != s.a.device)
    fail(llvm::formatv("resetOperands: operand a: expected memory on device {0} (the planned "
                       "one), got device {1}; plan a new Matmul for it",
                       s.a.device, a.device));
  expectSameLayout(a, s.problem.a, "a");
  expectSameLayout(b, s.problem.b, "b");
  if (c.has_value() != s.problem.c.has_value())
    fail(c ? "resetOperands: operand c given, but the problem has no c"
           : "resetOperands: operand c missing");
  if (c)
    expectSameLayout(*c, *s.problem.c, "c");
  std::vector<std::pair<const char *, const Tensor *>> named =
      namedInputs(inputs, s.options.quantizationScales);
  std::vector<Tensor> builtinInputs;
  for (const NamedLayout &planned : s.problem.builtinInputs) {
    auto given = std::find_if(named.begin(), named.end(),
                              [&](auto &n) { return planned.key == n.first; });
    if (given == named.end())
      fail("resetOperands: epilog input '" + planned.key + "' missing for the planned epilog");
    Tensor tensor = builtinInputTensor(given->first, *given->second);
    expectSameLayout(tensor, planned.layout, planned.key);
    builtinInputs.push_back(tensor);
  }
  if (named.size() != s.problem.builtinInputs.size())
    for (auto [key, tensor] : named)
      if (std::none_of(s.problem.builtinInputs.begin(), s.problem.builtinInputs.end(),
                       [&, key = key](const NamedLayout &p) { return p.key == key; }))
        fail(std::string("resetOperands: epilog input '") + key +
             "' given, but the planned epilog takes none");
  // The planned kernel may read a and b through TMA, which needs what plan() saw.
  // A staged operand is copied, so its address does not matter.
  for (auto [t, staged, name] :
       {std::tuple<const Tensor &, bool, const char *>{a, s.stagedA.has_value(), "a"},
        {b, s.stagedB.has_value(), "b"}})
    if (!staged && commonAlignment(t.data, t.data) < s.planned.addressAlignment)
      fail(llvm::formatv("resetOperands: operand {0}: the planned kernel needs {1}-byte aligned "
                         "addresses, got {2}; plan a new Matmul for these operands",
                         name, s.planned.addressAlignment, t.data));
  if (c && commonAlignment(c->data, c->data) < s.planned.cAlignment)
    fail(llvm::formatv("resetOperands: operand c: the planned kernel needs a {0}-byte aligned "
                       "address, got {1}; plan a new Matmul for this c",
                       s.planned.cAlignment, c->data));
  s.a = a;
  s.b = b;
  s.c = c;
  // A later plan() promises what this C's address allows (a and b are looked at then).
  s.problem.cAlignment = c ? commonAlignment(c->data, c->data) : 0;
  if (s.userInputReadsC)
    s.userInputs.back() = *c;
  s.builtinInputs = std::move(builtinInputs);
  s.released = false;
  s.pointersChecked = false;
  for (auto &[stream, res] : s.streams)
    res.prepared.reset(); // prepared with the previous operands
}

std::string Matmul::kernelConfiguration() const {
  if (!state || !state->kernel)
    fail("kernelConfiguration() called before plan()");
  return state->kernel->config;
}

void Matmul::releaseOperands() {
  if (state)
    state->released = true;
}

void Matmul::free() {
  if (!state)
    return;
  state->freeAll();
  state.reset();
}

Tensor mepi::matmul(const Tensor &a, const Tensor &b, std::optional<Tensor> c, float alpha,
                    std::optional<float> beta, Epilog epilog, const EpilogInputs &inputs,
                    Qualifiers qualifiers, CUstream stream) {
  Matmul mm(a, b, c, alpha, beta, qualifiers);
  mm.plan(epilog, inputs);
  Tensor d = mm.execute(stream);
  mm.state->d = 0; // the caller owns D now
  return d;
}
