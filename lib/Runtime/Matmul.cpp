// The C++ API's Matmul: operand validation, planning through the kernel cache, execution.
#include "mepi/Matmul.h"

#include "Runtime/KernelCache.h"
#include "Runtime/Launch.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mepi;
using namespace mepi::runtime;

namespace {
[[noreturn]] void fail(const std::string &message) { throw Error(message); }

void check(llvm::Error error, const std::string &context) {
  if (error)
    fail(context + ": " + llvm::toString(std::move(error)));
}

template <typename T> T check(llvm::Expected<T> value, const std::string &context) {
  if (!value)
    fail(context + ": " + llvm::toString(value.takeError()));
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
  }
  return ElementType::F32;
}

const char *epilogName(Epilog epilog) {
  switch (epilog) {
  case Epilog::Default: return "DEFAULT";
  case Epilog::Bias: return "BIAS";
  case Epilog::Relu: return "RELU";
  case Epilog::ReluBias: return "RELU_BIAS";
  case Epilog::Gelu: return "GELU";
  case Epilog::GeluBias: return "GELU_BIAS";
  case Epilog::Sigmoid: return "SIGMOID";
  case Epilog::Tanh: return "TANH";
  case Epilog::Silu: return "SILU";
  }
  return "?";
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

/// Device memory of the tensor's device (checked once per set of operands: a few driver calls).
void checkDevicePointer(const CudaDriver &driver, const Tensor &t, const std::string &name) {
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
} // namespace

struct Matmul::State {
  MatmulProblem problem; // without epilog/bias until plan()
  Tensor a, b;
  std::optional<Tensor> c, bias;
  std::vector<Tensor> userInputs;
  float alpha = 1.0f, beta = 0.0f;
  Options options;
  bool released = false;
  bool pointersChecked = false; // operands checked against the driver since the last reset
  KernelCache::Entry kernel;
  std::optional<LoadedKernel> loaded;
  const CudaDriver *driver = nullptr;
  std::unique_ptr<PreparedLaunch> prepared; // for the current operands; reset when they change
  Tensor result;                            // D as execute() returns it
  CUdeviceptr d = 0;
  size_t dBytes = 0;
  CUdeviceptr workspace = 0; // the plan's mepi.workspace, kept across executions and re-plans
  size_t workspaceBytes = 0;

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
  void freeWorkspace() {
    freeDevice(workspace);
    workspaceBytes = 0;
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
  if (state) {
    state->freeResult();
    state->freeWorkspace();
  }
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
} // namespace

void Matmul::plan(Epilog epilog, const EpilogInputs &inputs) {
  if (!state)
    fail("plan() after free()");
  MatmulProblem problem = state->problem;
  problem.epilog = epilogName(epilog);
  problem.userEpilog.reset();
  problem.userInputs.clear();
  problem.bias.reset();
  if (inputs.bias)
    problem.bias = validated(*inputs.bias, "bias", 1);
  planProblem(problem, inputs.bias, {}, {});
}

void Matmul::plan(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs) {
  if (!state)
    fail("plan() after free()");
  MatmulProblem problem = state->problem;
  problem.userEpilog = UserEpilogSource{epilog.mlir, epilog.function};
  problem.userInputs.clear();
  problem.bias.reset();
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    problem.userInputs.push_back(
        {validated(inputs[i].tensor, "epilog input " + std::to_string(i), 0),
         inputKind(inputs[i].kind)});
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
  planProblem(problem, std::nullopt, std::move(tensors), std::move(objects));
}

void Matmul::planProblem(const runtime::MatmulProblem &problem, std::optional<Tensor> bias,
                         std::vector<Tensor> userInputs,
                         std::vector<mlir::mepi::DeviceObject> objects) {
  State &s = *state;
  std::string arch = s.options.arch.empty() ? deviceArch(s.a.device) : s.options.arch;
  KernelCache::Entry kernel =
      check(KernelCache::global().getOrCompile(problem, arch, objects), "plan");
  s.problem = problem;
  s.bias = std::move(bias);
  s.userInputs = std::move(userInputs);
  s.pointersChecked = false;
  s.prepared.reset(); // before the module it points into
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
  // Fast path: the same operands as last time; one cuLaunchKernel.
  if (s.prepared) {
    CUresult r = s.prepared->launch(*s.driver, stream);
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
    checkDevicePointer(driver, s.a, "a");
    checkDevicePointer(driver, s.b, "b");
    if (s.c)
      checkDevicePointer(driver, *s.c, "c");
    if (s.bias)
      checkDevicePointer(driver, *s.bias, "bias");
    for (size_t i = 0; i < s.userInputs.size(); ++i)
      checkDevicePointer(driver, s.userInputs[i], "epilog input " + std::to_string(i));
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
  if (s.kernel->workspaceBytes > static_cast<int64_t>(s.workspaceBytes)) {
    s.freeWorkspace();
    check(checkCuda(driver.cuMemAlloc(&s.workspace, s.kernel->workspaceBytes),
                    "cuMemAlloc(workspace)"),
          "execute");
    s.workspaceBytes = s.kernel->workspaceBytes;
    // Zero before the first launch that counts in it, in that launch's stream order.
    check(checkCuda(driver.cuMemsetD8Async(s.workspace, 0, s.workspaceBytes, stream),
                    "cuMemsetD8Async(workspace)"),
          "execute");
  }
  if (!s.prepared) {
    LaunchArguments args;
    args.workspace = s.workspace;
    args.a = reinterpret_cast<CUdeviceptr>(s.a.data);
    args.b = reinterpret_cast<CUdeviceptr>(s.b.data);
    args.c = s.c ? reinterpret_cast<CUdeviceptr>(s.c->data) : 0;
    args.bias = s.bias ? reinterpret_cast<CUdeviceptr>(s.bias->data) : 0;
    args.d = s.d;
    args.alpha = s.alpha;
    args.beta = s.beta;
    for (const Tensor &input : s.userInputs)
      args.userInputs.push_back(reinterpret_cast<CUdeviceptr>(input.data));
    s.prepared = check(
        PreparedLaunch::create(s.loaded->kernelFunction(), *s.kernel, s.problem, args),
        "execute");
  }
  check(checkCuda(s.prepared->launch(driver, stream),
                  "cuLaunchKernel(" + s.kernel->kernelName + ")"),
        "execute");

  Tensor &d = s.result;
  d.data = reinterpret_cast<void *>(s.d);
  d.device = s.a.device;
  d.shape = s.problem.d.shape;
  d.strides = s.problem.d.strides;
  switch (s.problem.d.type) {
  case ElementType::F16: d.dtype = DType::Float16; break;
  case ElementType::BF16: d.dtype = DType::BFloat16; break;
  default: d.dtype = DType::Float32; break;
  }
  return d;
}

void Matmul::resetOperands(const Tensor &a, const Tensor &b, std::optional<Tensor> c,
                           std::optional<Tensor> bias) {
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
  if (bias.has_value() != s.problem.bias.has_value())
    fail(bias ? "resetOperands: bias given, but the planned epilog takes none"
              : "resetOperands: bias missing for the planned epilog");
  if (bias)
    expectSameLayout(*bias, *s.problem.bias, "bias");
  // The planned kernel may read a and b through TMA, which needs what plan() saw.
  for (auto [t, name] : {std::pair<const Tensor &, const char *>{a, "a"}, {b, "b"}})
    if (commonAlignment(t.data, t.data) < s.problem.addressAlignment)
      fail(llvm::formatv("resetOperands: operand {0}: the planned kernel needs {1}-byte aligned "
                         "addresses, got {2}; plan a new Matmul for these operands",
                         name, s.problem.addressAlignment, t.data));
  s.a = a;
  s.b = b;
  s.c = c;
  s.bias = bias;
  s.released = false;
  s.pointersChecked = false;
  s.prepared.reset();
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
  state->freeResult();
  state->freeWorkspace();
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
