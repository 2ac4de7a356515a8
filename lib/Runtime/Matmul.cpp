// The C++ API's Matmul: operand validation, planning through the kernel cache, execution.
#include "mepi/Matmul.h"
#include "mepi/EpilogBuilder.h"

#include "Runtime/ApiErrors.h"
#include "Runtime/KernelCache.h"
#include "Runtime/Launch.h"
#include "Runtime/StagedOperand.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <exception>
#include <system_error>
#include <thread>
#include <tuple>

using namespace mepi;
using namespace mepi::runtime;

namespace {
[[noreturn]] void fail(const std::string &message) { throw Error(message); }

void check(llvm::Error error, const std::string &context) {
  if (error)
    throwAsApiError(std::move(error), context);
}

template <typename T> T check(llvm::Expected<T> value, const std::string &context) {
  if (!value)
    throwAsApiError(value.takeError(), context);
  return std::move(*value);
}

std::string dims(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

ElementType elementType(DType dtype) {
  switch (dtype) {
  case DType::Float16: return ElementType::F16;
  case DType::BFloat16: return ElementType::BF16;
  case DType::Float32: return ElementType::F32;
  case DType::UInt8: return ElementType::U8;
  }
  return ElementType::F32;
}

DType dtypeOf(ElementType type) {
  switch (type) {
  case ElementType::F16: return DType::Float16;
  case ElementType::BF16: return DType::BFloat16;
  case ElementType::U8: return DType::UInt8;
  default: return DType::Float32;
  }
}

const char *epilogName(Epilog epilog) {
  switch (epilog) {
  case Epilog::Default: return "DEFAULT";
  case Epilog::Relu: return "RELU";
  case Epilog::ReluAux: return "RELU_AUX";
  case Epilog::Bias: return "BIAS";
  case Epilog::ReluBias: return "RELU_BIAS";
  case Epilog::ReluAuxBias: return "RELU_AUX_BIAS";
  case Epilog::DRelu: return "DRELU";
  case Epilog::DReluBGrad: return "DRELU_BGRAD";
  case Epilog::Gelu: return "GELU";
  case Epilog::GeluAux: return "GELU_AUX";
  case Epilog::GeluBias: return "GELU_BIAS";
  case Epilog::GeluAuxBias: return "GELU_AUX_BIAS";
  case Epilog::DGelu: return "DGELU";
  case Epilog::DGeluBGrad: return "DGELU_BGRAD";
  case Epilog::Sigmoid: return "SIGMOID";
  case Epilog::Tanh: return "TANH";
  case Epilog::Silu: return "SILU";
  case Epilog::BGradA: return "BGRADA";
  case Epilog::BGradB: return "BGRADB";
  }
  return "?";
}

/// The given epilog inputs by key, in the order the built-in epilogs read them.
std::vector<std::pair<const char *, const Tensor *>> namedInputs(const EpilogInputs &inputs) {
  std::vector<std::pair<const char *, const Tensor *>> named;
  if (inputs.bias)
    named.push_back({"bias", &*inputs.bias});
  if (inputs.reluAux)
    named.push_back({"relu_aux", &*inputs.reluAux});
  if (inputs.geluAux)
    named.push_back({"gelu_aux", &*inputs.geluAux});
  return named;
}

/// The layout of `t`, after checks that need no device: rank, strides, pointer.
OperandLayout validated(const Tensor &t, const std::string &name, size_t minRank) {
  if (t.shape.size() < minRank)
    fail(llvm::formatv("operand {0}: expected rank >= {1}, got {2}", name, minRank,
                       t.shape.size()));
  for (int64_t d : t.shape)
    if (d < 1)
      fail(llvm::formatv("operand {0}: expected every dimension >= 1, got shape {1}", name,
                         dims(t.shape)));
  OperandLayout layout{elementType(t.dtype), t.shape,
                       t.strides.empty() ? rowMajorStrides(t.shape) : t.strides};
  if (layout.strides.size() != t.shape.size())
    fail(llvm::formatv("operand {0}: expected {1} strides (one per dimension), got {2}", name,
                       t.shape.size(), layout.strides.size()));
  for (size_t i = 0; i < t.shape.size(); ++i)
    if (layout.strides[i] < 0 || (layout.strides[i] == 0 && t.shape[i] > 1))
      fail(llvm::formatv("operand {0}: expected positive strides, got {1} for shape {2}", name,
                         dims(layout.strides), dims(t.shape)));
  if (!t.data)
    fail(llvm::formatv("operand {0}: null device pointer", name));
  unsigned bytes = elementTypeBytes(layout.type);
  if (reinterpret_cast<uintptr_t>(t.data) % bytes != 0)
    fail(llvm::formatv("operand {0}: pointer {1} is not aligned to its {2}-byte elements", name,
                       t.data, bytes));
  return layout;
}

/// numpy.matmul's result batch shape of A and B.
std::vector<int64_t> broadcastBatch(const std::vector<int64_t> &a,
                                    const std::vector<int64_t> &b) {
  size_t ra = a.size() - 2, rb = b.size() - 2, r = std::max(ra, rb);
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i + ra >= r ? a[i + ra - r] : 1;
    int64_t db = i + rb >= r ? b[i + rb - r] : 1;
    if (da != db && da != 1 && db != 1)
      fail(llvm::formatv("operands a and b: batch dimensions {0} and {1} do not broadcast "
                         "(shapes {2} and {3})",
                         da, db, dims(a), dims(b)));
    out[i] = std::max(da, db);
  }
  return out;
}

void expectSameLayout(const Tensor &now, const OperandLayout &planned, const std::string &name) {
  OperandLayout got = validated(now, name, planned.shape.size());
  if (got.type != planned.type)
    fail(llvm::formatv("resetOperands: operand {0}: expected dtype {1}, got {2}", name,
                       elementTypeName(planned.type), elementTypeName(got.type)));
  if (got.shape != planned.shape)
    fail(llvm::formatv("resetOperands: operand {0}: expected shape {1}, got {2}", name,
                       dims(planned.shape), dims(got.shape)));
  if (got.strides != planned.strides)
    fail(llvm::formatv("resetOperands: operand {0}: expected strides {1}, got {2}", name,
                       dims(planned.strides), dims(got.strides)));
}

/// Device memory of the Matmul's device, a's (checked once per set of operands: a few driver
/// calls): a kernel reads every operand in a's context.
void checkDevicePointer(const CudaDriver &driver, const Tensor &t, const std::string &name,
                        int device) {
  if (t.device != device)
    fail(llvm::formatv("operand {0}: expected memory on device {1} (operand a's), got device {2}",
                       name, device, t.device));
  int ordinal = -1;
  CUresult r = driver.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                            reinterpret_cast<CUdeviceptr>(t.data));
  if (r != CUDA_SUCCESS) {
    const char *code = "?";
    driver.cuGetErrorName(r, &code);
    fail(llvm::formatv("operand {0}: pointer {1} is not memory CUDA knows ({2})", name, t.data,
                       code));
  }
  if (ordinal != t.device)
    fail(llvm::formatv("operand {0}: expected memory on device {1}, got device {2}", name,
                       t.device, ordinal));
}

/// The largest power of two up to 16 that divides both addresses (TMA needs 16).
unsigned commonAlignment(const void *a, const void *b) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) | 16;
  return static_cast<unsigned>(bits & (~bits + 1));
}

std::string deviceArch(int device) {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver) {
    llvm::consumeError(driver.takeError());
    return "sm_90a"; // no driver: plan for Hopper
  }
  CUdevice dev;
  int major = 0, minor = 0;
  check(checkCuda(driver->cuDeviceGet(&dev, device), "cuDeviceGet"), "plan");
  driver->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  driver->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  // The arch-specific variant unlocks wgmma/setmaxnreg on Hopper.
  return llvm::formatv("sm_{0}{1}{2}", major, minor, major >= 9 ? "a" : "");
}

/// The device's multiprocessors, or 0 without a driver (the chip's reference figure then).
int64_t deviceMultiprocessors(int device) {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver) {
    llvm::consumeError(driver.takeError());
    return 0;
  }
  CUdevice dev;
  int count = 0;
  if (driver->cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
      driver->cuDeviceGetAttribute(&count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) !=
          CUDA_SUCCESS)
    return 0;
  return count;
}
} // namespace

namespace {
/// autotune()'s choices, per problem (the kernel cache key of the problem planned without a
/// forced configuration), for the life of the process.
class TunedConfigs {
public:
  static TunedConfigs &global() {
    static TunedConfigs tuned;
    return tuned;
  }
  std::optional<std::string> find(const std::string &key) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = choices.find(key);
    return it == choices.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  void remember(const std::string &key, const std::string &config) {
    std::lock_guard<std::mutex> lock(mutex);
    choices[key] = config;
  }
  bool empty() {
    std::lock_guard<std::mutex> lock(mutex);
    return choices.empty();
  }

private:
  std::mutex mutex;
  std::map<std::string, std::string> choices;
};

/// The key of `planned` (its staged layouts, no forced configuration) for TunedConfigs.
std::string tunedKey(MatmulProblem planned, const std::string &arch,
                     llvm::ArrayRef<mlir::mepi::DeviceObject> objects) {
  planned.kernelConfig.clear();
  return kernelCacheKey(check(planModule(planned), "plan"), arch, objects,
                        planned.multiprocessors);
}
} // namespace

struct Matmul::State {
  MatmulProblem problem; // without epilog/bias until plan()
  Tensor a, b;
  std::optional<Tensor> c;
  std::vector<Tensor> builtinInputs; // in the order of problem.builtinInputs
  std::vector<Tensor> userInputs;
  bool userInputReadsC = false; // the last user input is C (a builder epilog read it)
  const void *userData = nullptr; // the user epilog's UserEpilog::userData
  std::vector<mlir::mepi::DeviceObject> objects; // a user epilog's device code (re-plans)
  std::string arch;                              // the target the kernel was compiled for
  float alpha = 1.0f, beta = 0.0f;
  Options options;
  bool released = false;
  bool pointersChecked = false; // operands checked against the driver since the last reset
  KernelCache::Entry kernel;
  std::optional<LoadedKernel> loaded;
  const CudaDriver *driver = nullptr;
  Tensor result; // D as execute() returns it
  CUdeviceptr d = 0;
  size_t dBytes = 0;
  std::vector<NamedLayout> outputLayouts; // the epilog's outputs besides D (plan)
  std::vector<CUdeviceptr> outputs;       // allocated by the first execute after plan
  std::map<std::string, Tensor> aux;      // as auxOutputs() returns them
  // The problem the kernel was compiled for: `problem` with staged operands' layouts.
  MatmulProblem planned;
  // Operands the kernel reads from a copy refreshed before each launch: rows TMA cannot read in
  // place (needsTmaStaging), or strict f32 split into TF32 parts (splitProblem). What the plan
  // says; each stream has its own copies (StreamResources).
  std::optional<StagedOperand> stagedA, stagedB;
  /// What one stream's executions use alone: the kernel's workspace (split-K and stream-K
  /// counters and partial sums), the staged copies, and the launch prepared with them. Two
  /// streams never share counters or copies, so a Matmul may run on several streams (D and the
  /// aux outputs are shared: each execute rewrites them).
  struct StreamResources {
    CUdeviceptr workspace = 0;
    size_t workspaceBytes = 0;
    // The kernel the workspace was last zeroed for: each kernel leaves its own counters at
    // zero, but another kernel's counters may lie where this one kept partial sums.
    const void *workspaceZeroedFor = nullptr;
    std::optional<StagedOperand> stagedA, stagedB;
    std::unique_ptr<PreparedLaunch> prepared; // for the current operands
    StreamResources() = default;
    StreamResources(const StreamResources &) = delete; // lives in `streams`, in place
    ~StreamResources() { freeDevice(workspace); }
  };
  std::map<CUstream, StreamResources> streams; // cleared by plan (before the module goes)
  int64_t maxUnitKSteps = 0; // split operands: what candidates may accumulate (StagedPlan)

  static void freeDevice(CUdeviceptr &ptr) {
    if (!ptr)
      return;
    if (auto driver = cudaDriver())
      driver->cuMemFree(ptr);
    else
      llvm::consumeError(driver.takeError());
    ptr = 0;
  }
  void freeResult() { freeDevice(d); }
  void freeOutputs() {
    for (CUdeviceptr &ptr : outputs)
      freeDevice(ptr);
    outputs.clear();
    aux.clear();
  }
  void freeStaged() {
    streams.clear();
    stagedA.reset();
    stagedB.reset();
  }
  void freeAll() {
    freeResult();
    freeOutputs();
    freeStaged();
  }
  /// Allocates the epilog's outputs besides D (outputLayouts) and describes them in `aux`: all
  /// or, where an allocation fails, none (what it had allocated is freed before the error), so
  /// that a later execute() starts again from nothing.
  void allocateOutputs(const CudaDriver &driver, CUstream stream) {
    std::vector<CUdeviceptr> fresh;
    try {
      for (const NamedLayout &output : outputLayouts) {
        size_t bytes = elementTypeBytes(output.layout.type);
        for (size_t i = 0; i < output.layout.shape.size(); ++i)
          if (output.layout.shape[i] > 1)
            bytes += (output.layout.shape[i] - 1) * output.layout.strides[i] *
                     elementTypeBytes(output.layout.type);
        CUdeviceptr ptr = 0;
        check(checkCuda(driver.cuMemAlloc(&ptr, bytes), "cuMemAlloc(" + output.key + ")"),
              "execute");
        fresh.push_back(ptr);
        // A bitmask's padding bytes are never written: give them a defined value once.
        if (output.layout.type == ElementType::U8)
          check(checkCuda(driver.cuMemsetD8Async(ptr, 0, bytes, stream),
                          "cuMemsetD8Async(" + output.key + ")"),
                "execute");
      }
    } catch (...) {
      for (CUdeviceptr &ptr : fresh)
        freeDevice(ptr);
      throw;
    }
    freeOutputs();
    outputs = std::move(fresh);
    for (auto [output, ptr] : llvm::zip(outputLayouts, outputs))
      aux[output.key] = auxTensor(output.layout, ptr);
  }
  /// An aux output as auxOutputs() returns it (nvmath-python's batched bias gradients are
  /// [batch..., M, 1]).
  Tensor auxTensor(const OperandLayout &layout, CUdeviceptr ptr) const {
    Tensor t;
    t.data = reinterpret_cast<void *>(ptr);
    t.device = a.device;
    t.dtype = dtypeOf(layout.type);
    t.shape = layout.shape;
    t.strides = layout.strides;
    if (t.shape.size() > 1 && layout.type != ElementType::U8 &&
        t.shape.size() + 1 == problem.d.shape.size()) {
      t.shape.push_back(1);
      t.strides.push_back(1);
    }
    return t;
  }
  /// Refreshes the stream's staged operands, then launches: the whole of one execution, in
  /// stream order.
  CUresult launch(const CudaDriver &driver, const StreamResources &res, CUstream stream) const {
    for (auto [staged, tensor] : {std::pair{&res.stagedA, &a}, std::pair{&res.stagedB, &b}})
      if (*staged)
        if (CUresult r = (*staged)->refresh(driver, reinterpret_cast<CUdeviceptr>(tensor->data),
                                            stream);
            r != CUDA_SUCCESS)
          return r;
    return res.prepared->launch(driver, stream);
  }
  /// The stream's workspace, zeroed for the planned kernel, and its staged copies.
  void prepareStream(const CudaDriver &driver, StreamResources &res, CUstream stream) {
    if (kernel->workspaceBytes > static_cast<int64_t>(res.workspaceBytes)) {
      freeDevice(res.workspace);
      res.workspaceBytes = 0;
      res.workspaceZeroedFor = nullptr;
      check(checkCuda(driver.cuMemAlloc(&res.workspace, kernel->workspaceBytes),
                      "cuMemAlloc(workspace)"),
            "execute");
      res.workspaceBytes = kernel->workspaceBytes;
    }
    if (kernel->workspaceBytes > 0 && res.workspaceZeroedFor != kernel.get()) {
      // Zero before the first launch of this kernel that counts in it, in that launch's
      // stream order.
      check(checkCuda(driver.cuMemsetD8Async(res.workspace, 0, kernel->workspaceBytes, stream),
                      "cuMemsetD8Async(workspace)"),
            "execute");
      res.workspaceZeroedFor = kernel.get();
    }
    for (auto [planned, mine, name] : {std::tuple{&stagedA, &res.stagedA, "a"},
                                       std::tuple{&stagedB, &res.stagedB, "b"}}) {
      if (*planned && !*mine)
        *mine = (*planned)->copyForAnotherStream();
      if (*mine)
        check((*mine)->prepare(driver, name), "execute");
    }
  }
};

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
  s.problem.kernelConfig = options.kernelConfig;
  std::vector<int64_t> dShape = broadcastBatch(a.shape, b.shape);
  int64_t m = qualifiers.transposeA ? a.shape.back() : a.shape[a.shape.size() - 2];
  int64_t n = qualifiers.transposeB ? b.shape[b.shape.size() - 2] : b.shape.back();
  dShape.push_back(m);
  dShape.push_back(n);
  ElementType dType = elementType(options.resultType.value_or(a.dtype));
  s.problem.d = {dType, dShape, rowMajorStrides(dShape)};
  if (c)
    s.problem.c = validated(*c, "c", 2);
  s.problem.addressAlignment = commonAlignment(a.data, b.data);
  s.a = a;
  s.b = b;
  s.c = c;
  s.alpha = alpha;
  s.beta = beta.value_or(0.0f);
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
} // namespace

void Matmul::plan(Epilog epilog, const EpilogInputs &inputs) {
  if (!state)
    fail("plan() after free()");
  MatmulProblem problem = state->problem;
  problem.epilog = epilogName(epilog);
  problem.userEpilog.reset();
  problem.userInputs.clear();
  problem.builtinInputs.clear();
  problem.resultAmax = state->options.resultAmax;
  std::vector<Tensor> tensors;
  for (auto [key, tensor] : namedInputs(inputs)) {
    problem.builtinInputs.push_back({key, validated(*tensor, key, 0)});
    tensors.push_back(*tensor);
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
  problem.resultAmax = state->options.resultAmax;
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
      if (!shape.empty())
        fail(llvm::formatv("plan: {0} (scalar): expected a rank-0 tensor, got shape {1}",
                           inputNames[i], dims(shape)));
      break;
    }
    problem.userInputs.push_back(
        {validated(inputs[i].tensor, inputNames[i], 0), inputKind(inputs[i].kind)});
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

/// On sm_90a, strict f32 is split into TF32 parts for the tensor cores (splitProblem); else
/// 16-bit rows that TMA cannot read in place (needsTmaStaging) get padded copies.
StagedPlan stagedPlan(const MatmulProblem &problem, const std::string &arch, const void *a,
                      const void *b) {
  StagedPlan plan{problem, std::nullopt, std::nullopt, 0};
  std::optional<SplitProblem> split = arch == "sm_90a" ? splitProblem(problem) : std::nullopt;
  if (split) {
    plan.planned = split->planned;
    plan.a = check(StagedOperand::split(split->a, arch), "plan");
    plan.b = check(StagedOperand::split(split->b, arch), "plan");
    plan.maxUnitKSteps = kSplitMaxUnitKSteps;
  }
  if (!split && arch == "sm_90a" && needsTmaStaging(problem.a, a)) {
    plan.planned.a = stagedLayout(problem.a);
    plan.a = StagedOperand::padded(problem.a, plan.planned.a);
  }
  if (!split && arch == "sm_90a" && needsTmaStaging(problem.b, b)) {
    plan.planned.b = stagedLayout(problem.b);
    plan.b = StagedOperand::padded(problem.b, plan.planned.b);
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
  // Tensor-core kernels read A and B through TMA; stage those whose rows it cannot address,
  // unless the planned kernel turns out not to use TMA for them.
  StagedPlan staged = stagedPlan(problem, arch, s.a.data, s.b.data);
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
  KernelCache::Entry kernel =
      check(KernelCache::global().getOrCompile(planned, arch, objects), "plan");
  if ((staged.a || staged.b) && kernel->tensorMaps.empty()) {
    staged = StagedPlan{problem, std::nullopt, std::nullopt, 0};
    planned.multiprocessors = multiprocessors;
    kernel = check(KernelCache::global().getOrCompile(planned, arch, objects), "plan");
  }
  std::vector<NamedLayout> outputLayouts = check(epilogOutputLayouts(problem), "plan");
  s.freeOutputs();
  s.outputLayouts = std::move(outputLayouts);
  s.problem = problem;
  s.planned = std::move(planned);
  s.freeStaged();
  s.stagedA = std::move(staged.a);
  s.stagedB = std::move(staged.b);
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
  CUcontext ctx = nullptr;
  check(checkCuda(driver.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent"), "execute");
  if (!ctx) {
    CUdevice dev;
    check(checkCuda(driver.cuDeviceGet(&dev, s.a.device), "cuDeviceGet"), "execute");
    check(checkCuda(driver.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain"),
          "execute");
    check(checkCuda(driver.cuCtxSetCurrent(ctx), "cuCtxSetCurrent"), "execute");
  }
  if (!s.pointersChecked) {
    checkDevicePointer(driver, s.a, "a", s.a.device);
    checkDevicePointer(driver, s.b, "b", s.a.device);
    if (s.c)
      checkDevicePointer(driver, *s.c, "c", s.a.device);
    for (size_t i = 0; i < s.builtinInputs.size(); ++i)
      checkDevicePointer(driver, s.builtinInputs[i], s.problem.builtinInputs[i].key,
                         s.a.device);
    for (size_t i = 0; i < s.userInputs.size(); ++i)
      checkDevicePointer(driver, s.userInputs[i], "epilog input " + std::to_string(i),
                         s.a.device);
    s.pointersChecked = true;
  }
  if (!s.loaded)
    s.loaded = check(LoadedKernel::load(*s.kernel), "execute");
  if (!s.d) {
    int64_t count = 1;
    for (int64_t dim : s.problem.d.shape)
      count *= dim;
    s.dBytes = count * elementTypeBytes(s.problem.d.type);
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
  d.shape = s.problem.d.shape;
  d.strides = s.problem.d.strides;
  d.dtype = dtypeOf(s.problem.d.type);
  return d;
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
  expectSameLayout(a, s.problem.a, "a");
  expectSameLayout(b, s.problem.b, "b");
  if (c.has_value() != s.problem.c.has_value())
    fail(c ? "resetOperands: operand c given, but the problem has no c"
           : "resetOperands: operand c missing");
  if (c)
    expectSameLayout(*c, *s.problem.c, "c");
  std::vector<std::pair<const char *, const Tensor *>> named = namedInputs(inputs);
  std::vector<Tensor> builtinInputs;
  for (const NamedLayout &planned : s.problem.builtinInputs) {
    auto given = std::find_if(named.begin(), named.end(),
                              [&](auto &n) { return planned.key == n.first; });
    if (given == named.end())
      fail("resetOperands: epilog input '" + planned.key + "' missing for the planned epilog");
    expectSameLayout(*given->second, planned.layout, planned.key);
    builtinInputs.push_back(*given->second);
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
  s.a = a;
  s.b = b;
  s.c = c;
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

std::vector<std::string> Matmul::candidateConfigurations() const {
  if (!state || !state->kernel)
    fail("candidateConfigurations() called before plan()");
  return check(rankedKernelConfigs(state->planned, state->arch, state->maxUnitKSteps),
               "candidateConfigurations");
}

namespace {
/// Compiles `configs` of `planned` into the kernel cache side by side (each compilation has its
/// own MLIR context; the cache compiles a configuration once), reporting each as it completes
/// (from the worker threads, one report at a time). An exception from `progress` stops the
/// workers and is rethrown here once they are joined.
void precompileCandidates(const MatmulProblem &planned, const std::string &arch,
                     const std::vector<mlir::mepi::DeviceObject> &objects,
                     const std::vector<std::string> &configs,
                     const std::function<void(const AutotuneProgress &)> &progress) {
  std::mutex mutex;
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      for (size_t i = next++; i < configs.size(); i = next++) {
        MatmulProblem p = planned;
        p.kernelConfig = configs[i];
        auto kernel = KernelCache::global().getOrCompile(p, arch, objects);
        bool ok = static_cast<bool>(kernel);
        if (!ok)
          llvm::consumeError(kernel.takeError());
        std::lock_guard<std::mutex> lock(mutex);
        if (progress)
          progress({AutotuneProgress::Stage::Compiled, configs[i], ++done, configs.size(),
                     ok ? 0.0 : -1.0});
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure)
        failure = std::current_exception();
      next = configs.size(); // the other workers stop after their current candidate
    }
  };
  unsigned workers = std::min<unsigned>(std::max(1u, std::thread::hardware_concurrency()),
                                        static_cast<unsigned>(configs.size()));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error &) {
      break; // fewer threads: the calling thread works through the rest
    }
  }
  work();
  for (std::thread &t : pool)
    t.join();
  if (failure)
    std::rethrow_exception(failure);
}
} // namespace

std::vector<std::pair<std::string, double>>
Matmul::autotune(int iterations, int prune, CUstream stream,
                 const std::function<void(const AutotuneProgress &)> &progress) {
  if (!state || !state->kernel)
    fail("autotune() called before plan()");
  State &s = *state;
  if (iterations < 1)
    fail(llvm::formatv("autotune: expected iterations >= 1, got {0}", iterations));
  if (!s.problem.kernelConfig.empty())
    fail("autotune: Options::kernelConfig forces the configuration '" + s.problem.kernelConfig +
         "'");
  std::vector<std::string> candidates = candidateConfigurations();
  if (prune > 0 && size_t(prune) < candidates.size())
    candidates.resize(prune);
  // What plan() was given, to plan each candidate the same way.
  MatmulProblem problem = s.problem;
  std::vector<Tensor> builtinInputs = s.builtinInputs, userInputs = s.userInputs;
  std::vector<mlir::mepi::DeviceObject> objects = s.objects;
  bool readsC = s.userInputReadsC;
  const void *userData = s.userData;
  std::string key = tunedKey(s.planned, s.arch, objects);
  precompileCandidates(s.planned, s.arch, objects, candidates, progress);
  auto planWith = [&](const std::string &config) {
    MatmulProblem p = problem;
    p.kernelConfig = config;
    planProblem(p, builtinInputs, userInputs, objects);
    s.problem.kernelConfig.clear(); // the caller forced nothing
    s.userInputReadsC = readsC;
    s.userData = userData;
  };

  execute(stream); // the driver, context and operand checks
  const CudaDriver &driver = *s.driver;
  CUdevice device;
  int l2Bytes = 0;
  check(checkCuda(driver.cuDeviceGet(&device, s.a.device), "cuDeviceGet"), "autotune");
  driver.cuDeviceGetAttribute(&l2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
  // Writing twice the L2's size evicts the operands a previous launch left there.
  size_t flushBytes = std::max<size_t>(2 * size_t(l2Bytes), 1 << 20);
  CUdeviceptr flush = 0;
  CUevent start = nullptr, stop = nullptr;
  auto release = [&] {
    if (flush)
      driver.cuMemFree(flush);
    if (start)
      driver.cuEventDestroy(start);
    if (stop)
      driver.cuEventDestroy(stop);
  };
  std::vector<std::pair<std::string, double>> timed;
  try {
    check(checkCuda(driver.cuMemAlloc(&flush, flushBytes), "cuMemAlloc(L2 flush)"), "autotune");
    check(checkCuda(driver.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate"),
          "autotune");
    check(checkCuda(driver.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate"), "autotune");
    size_t done = 0;
    auto report = [&](const std::string &config, double ms) {
      if (progress)
        progress({AutotuneProgress::Stage::Timed, config, ++done, candidates.size(), ms});
    };
    for (const std::string &config : candidates) {
      try {
        planWith(config); // compiled above: from the kernel cache (unless planned unstaged)
      } catch (const Error &) {
        report(config, -1.0);
        continue; // this configuration cannot run the problem
      }
      execute(stream); // loads the module, allocates what this kernel needs
      std::vector<double> ms;
      for (int i = 0; i < iterations; ++i) {
        check(checkCuda(driver.cuMemsetD8Async(flush, uint8_t(i), flushBytes, stream),
                        "cuMemsetD8Async(L2 flush)"),
              "autotune");
        check(checkCuda(driver.cuEventRecord(start, stream), "cuEventRecord"), "autotune");
        execute(stream);
        check(checkCuda(driver.cuEventRecord(stop, stream), "cuEventRecord"), "autotune");
        check(checkCuda(driver.cuEventSynchronize(stop), "cuEventSynchronize"), "autotune");
        float elapsed = 0;
        check(checkCuda(driver.cuEventElapsedTime(&elapsed, start, stop), "cuEventElapsedTime"),
              "autotune");
        ms.push_back(elapsed);
      }
      std::sort(ms.begin(), ms.end());
      timed.push_back({s.kernel->config, ms[ms.size() / 2]});
      report(config, ms[ms.size() / 2]);
    }
  } catch (...) {
    release();
    throw;
  }
  release();
  if (timed.empty())
    fail("autotune: no candidate configuration could run this problem");
  std::stable_sort(timed.begin(), timed.end(),
                   [](const auto &x, const auto &y) { return x.second < y.second; });
  TunedConfigs::global().remember(key, timed.front().first);
  planWith(""); // takes the remembered choice
  return timed;
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
