// GPU correctness suite: every dtype, epilog, transpose, batch broadcast and odd shape, run
// through the public C++ API (libmepi) on the device and compared with an fp64 host reference. Outputs are poisoned with
// NaN before each run; random inputs are drawn anew for every case.
// Usage: mepi-gpu-tests [--quick] [--compile-only] [--sample] [--filter TEXT]... [--shard I/N]
// (one line per case, then "N passed, M failed"; --sample: only the README's sample problem;
// --shard I/N: every N-th selected case from the I-th, counting from 0, so that N device calls
// run the whole suite, each within one call's time; the API cases after the matrix run in
// shard 0)
#include "Autotune.h"
#include "EpilogCatalog.h"
#include "Fp8Cases.h"
#include "GroupedCases.h"
#include "LargeProblem.h"
#include "UserEpilogs.h"
#include "GpuCases.h"
#include "GpuReference.h"
#include "GpuTestSupport.h"

#include "llvm/Support/Signals.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace mepi::runtime;
using namespace gputest;

namespace {


/// The configuration of the kernel the last plan() chose (printed with each case).
std::string lastKernelConfig;


#define CHECK_CU(expr, what)                                                                   \
  if (llvm::Error e = checkCuda((expr), what)) {                                               \
    return "error: " + llvm::toString(std::move(e));                                           \
  }


enum class Mode { Plain, ResetOperands, FunctionForm };

/// Case `c`'s mirrors of D (`bytes` each), from `arena`.
std::vector<mepi::Tensor> mirrorTensors(DeviceArena &arena, const Case &c, size_t bytes) {
  HostTensor zeros;
  zeros.layout = {c.outType.value_or(c.type), c.dShape, rowMajorStrides(c.dShape)};
  zeros.bytes.assign(bytes, 0);
  std::vector<mepi::Tensor> out;
  for (int i = 0; i < c.mirrors; ++i)
    out.push_back(arena.toDevice(zeros));
  return out;
}


/// Runs case `c` through the public C++ API and checks D against the fp64 reference. Plain:
/// Matmul, plan, execute. ResetOperands: then fresh inputs of the same layouts, D poisoned,
/// execute again. FunctionForm: mepi::matmul. `ms` gets the plan (JIT or cache) + first execute.
std::string runApiCase(const Device &dev, const Case &c, std::mt19937 &rng, double &err,
                       double &ms, Mode mode) {
  const CudaDriver &d = *dev.d;
  DeviceArena arena(d);
  auto toDevice = [&](const HostTensor &t) { return arena.toDevice(t); };
  auto download = [&](const mepi::Tensor &t, std::vector<uint8_t> &out) {
    if (llvm::Error e = checkCuda(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize"))
      throw mepi::Error(llvm::toString(std::move(e)));
    if (llvm::Error e = checkCuda(d.cuMemcpyDtoH(out.data(), reinterpret_cast<CUdeviceptr>(t.data),
                                                 out.size()),
                                  "DtoH"))
      throw mepi::Error(llvm::toString(std::move(e)));
  };
  std::string status;
  try {
    int64_t m = c.dShape[c.dShape.size() - 2];
    HostTensor a = randomTensor(c.type, c.aShape, rng, c.columnMajorA);
    HostTensor b = randomTensor(c.type, c.bShape, rng);
    HostTensor cT, bias;
    if (c.withC)
      cT = randomTensor(c.outType.value_or(c.type), {m, c.dShape.back()}, rng);
    bool hasBias = c.epilog.find("BIAS") != std::string::npos;
    if (hasBias)
      bias = randomTensor(c.biasType.value_or(c.type), {m}, rng);
    std::optional<mepi::Tensor> cDev, biasDev;
    if (c.withC)
      cDev = toDevice(cT);
    if (hasBias)
      biasDev = toDevice(bias);
    std::optional<float> beta;
    if (c.withC)
      beta = c.beta;
    mepi::Epilog epilog = apiEpilog(c.epilog);
    mepi::Qualifiers q{c.transA, c.transB};
    int64_t dCount = 1;
    for (int64_t s : c.dShape)
      dCount *= s;
    std::vector<uint8_t> out(dCount * elementTypeBytes(c.outType.value_or(c.type)));
    mepi::Options options;
    if (c.outType)
      options.resultType = apiDType(*c.outType);
    options.allowTF32 = c.tf32;
    options.kernelConfig = c.config;
    options.mirrors = c.mirrors;
    auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
          .count();
    };
    if (mode == Mode::FunctionForm) {
      mepi::Tensor aDev = arena.toDevice(a, c.misalignBytes);
      mepi::Tensor bDev = arena.toDevice(b, c.misalignBytes);
      t0 = std::chrono::steady_clock::now();
      mepi::Tensor dT = mepi::matmul(aDev, bDev, cDev, c.alpha, beta, epilog, {biasDev}, q);
      ms = elapsed();
      arena.adopt(dT.data); // the function form's D is ours to free
      download(dT, out);
      status = compareWithReference(c, a, b, cT, bias, out, rng, err);
    } else {
      mepi::Tensor aDev = arena.toDevice(a, c.misalignBytes);
      mepi::Tensor bDev = arena.toDevice(b, c.misalignBytes);
      mepi::Matmul mm(aDev, bDev, cDev, c.alpha, beta, q, options);
      t0 = std::chrono::steady_clock::now();
      mm.plan(epilog, {biasDev});
      lastKernelConfig = mm.kernelConfiguration();
      std::vector<mepi::Tensor> mirrors = mirrorTensors(arena, c, out.size());
      if (!mirrors.empty())
        mm.setMirrors(mirrors);
      mepi::Tensor dT = mm.execute();
      ms = elapsed();
      // NaN bytes in f16, bf16 and f32: an element the kernel does not write fails the check.
      std::vector<void *> written = {dT.data};
      for (const mepi::Tensor &t : mirrors)
        written.push_back(t.data);
      auto poison = [&] {
        for (void *p : written)
          if (llvm::Error e = checkCuda(
                  d.cuMemsetD8(reinterpret_cast<CUdeviceptr>(p), 0xFF, out.size()), "poison"))
            throw mepi::Error(llvm::toString(std::move(e)));
      };
      // Each mirror holds D's bytes.
      auto checkMirrors = [&]() -> std::string {
        std::vector<uint8_t> copy(out.size());
        for (size_t i = 0; i < mirrors.size(); ++i) {
          download(mirrors[i], copy);
          if (copy != out)
            return "mirror " + std::to_string(i) + " differs from d";
        }
        return "";
      };
      // Split tiles sum their records in a fixed order (SplitReduction.cpp, SplitTreeSum.cpp):
      // the second run's D must have the first's bits.
      bool reduced = lastKernelConfig.find("split_k") != std::string::npos ||
                     lastKernelConfig.find("stream_k") != std::string::npos;
      std::vector<uint8_t> first;
      if (reduced) {
        first.resize(out.size());
        download(dT, first);
      }
      poison(); // and run again: the checked result is this second run's
      download(mm.execute(), out);
      status = compareWithReference(c, a, b, cT, bias, out, rng, err);
      if (status.empty() && reduced && first != out)
        status = "split tiles: the second run's D differs in its bits from the first's";
      if (status.empty())
        status = checkMirrors();
      // Strict f32 runs on the tensor cores, split into TF32 parts, unless a case forces a
      // configuration.
      if (status.empty() && c.type == ElementType::F32 && !c.tf32 && c.config.empty() &&
          lastKernelConfig.find("wgmma") == std::string::npos)
        status = "strict f32 expected on the tensor cores (wgmma), got " + lastKernelConfig;
      if (status.empty() && mode == Mode::ResetOperands) { // same layouts, kernel reused
        HostTensor a2 = randomTensor(c.type, c.aShape, rng, c.columnMajorA);
        HostTensor b2 = randomTensor(c.type, c.bShape, rng);
        mm.resetOperands(toDevice(a2), toDevice(b2), cDev, mepi::EpilogInputs{biasDev});
        poison(); // D is the same buffer across executes
        download(mm.execute(), out);
        status = compareWithReference(c, a2, b2, cT, bias, out, rng, err);
        if (status.empty())
          status = checkMirrors();
        if (!status.empty())
          status = "after resetOperands: " + status;
      }
    }
  } catch (const mepi::Error &e) {
    status = std::string("mepi::Error: ") + e.what();
  }
  return status;
}

/// For the user-epilog cases (bf16 A m x k, B k x n, row-major; D bf16): executes `mm` twice
/// with D poisoned in between, then compares D with epilog(sum_k A·B, row, col) in fp64.
template <typename Ref>
std::string checkUserEpilog(const CudaDriver &d, mepi::Matmul &mm, const HostTensor &a,
                            const HostTensor &b, int64_t m, int64_t n, int64_t k, Ref ref,
                            double &err) {
  mepi::Tensor dT = mm.execute();
  std::vector<uint8_t> out(m * n * 2);
  cu(d.cuMemsetD8(reinterpret_cast<CUdeviceptr>(dT.data), 0xFF, out.size()), "poison");
  mm.execute();
  cu(d.cuStreamSynchronize(nullptr), "sync");
  cu(d.cuMemcpyDtoH(out.data(), reinterpret_cast<CUdeviceptr>(dT.data), out.size()), "DtoH");
  double num = 0, den = 0;
  bool finite = true;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += a.values[i * k + kk] * b.values[kk * n + j];
      double r = ref(acc, i, j);
      double o = readDevice(out, ElementType::BF16, i * n + j);
      finite &= std::isfinite(o);
      num += (o - r) * (o - r);
      den += r * r;
    }
  err = std::sqrt(num / den);
  if (!finite)
    return "non-finite outputs (unwritten or NaN)";
  if (!(err <= 1e-2))
    return "relative error above 1e-2";
  return "";
}

/// User epilogs given as MLIR text, through the C++ API: SiLU (no inputs), and acc * scale[row]
/// + residual[row, col] (a row input in f32 and a matrix input in bf16).
std::string runUserEpilogCase(const Device &dev, bool withInputs, std::mt19937 &rng, double &err) {
  const char *silu = R"mlir(
    func.func @silu(%acc: f32, %row: index, %col: index) -> bf16 {
      %one = arith.constant 1.0 : f32
      %neg = arith.negf %acc : f32
      %e = math.exp %neg : f32
      %den = arith.addf %one, %e : f32
      %y = arith.divf %acc, %den : f32
      %t = arith.truncf %y : f32 to bf16
      return %t : bf16
    })mlir";
  const char *scaleAdd = R"mlir(
    func.func @scale_add(%acc: f32, %scale: f32, %res: bf16, %row: index, %col: index) -> bf16 {
      %r = arith.extf %res : bf16 to f32
      %y = math.fma %acc, %scale, %r : f32
      %t = arith.truncf %y : f32 to bf16
      return %t : bf16
    })mlir";
  const int64_t m = 127, n = 129, k = 255;
  const CudaDriver &d = *dev.d;
  DeviceArena arena(d);
  std::string status;
  try {
    auto toDevice = [&](const HostTensor &t) { return arena.toDevice(t); };
    HostTensor a = randomTensor(ElementType::BF16, {m, k}, rng);
    HostTensor b = randomTensor(ElementType::BF16, {k, n}, rng);
    HostTensor scale = randomTensor(ElementType::F32, {m}, rng);
    HostTensor residual = randomTensor(ElementType::BF16, {m, n}, rng);
    mepi::Matmul mm(toDevice(a), toDevice(b));
    std::vector<mepi::UserEpilogInput> inputs;
    if (withInputs) {
      inputs.push_back({toDevice(scale), mepi::InputKind::Row});
      inputs.push_back({toDevice(residual), mepi::InputKind::Matrix});
      mm.plan(mepi::UserEpilog{scaleAdd, "scale_add"}, inputs);
    } else {
      mm.plan(mepi::UserEpilog{silu, "silu"});
    }
    status = checkUserEpilog(d, mm, a, b, m, n, k, [&](double acc, int64_t i, int64_t j) {
      return withInputs ? acc * scale.values[i] + residual.values[i * n + j]
                        : acc / (1.0 + std::exp(-acc));
    }, err);
  } catch (const mepi::Error &e) {
    status = std::string("mepi::Error: ") + e.what();
  }
  return status;
}

/// The device code of inputs/<name>.cu as LTO-IR, compiled by nvcc now (nvcc -dlto -ltoir).
std::vector<char> compileUserCode(const std::string &name, std::string &why) {
  char self[4096] = {0};
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = len > 0 ? std::string(self, len) : std::string(".");
  dir = dir.substr(0, dir.rfind('/'));
  std::string source = dir + "/../inputs/" + name + ".cu";
  std::string output = "/tmp/mepi-" + name + "-" + std::to_string(getpid()) + ".ltoir";
  std::string command = "nvcc -arch=lto_90a -dlto -ltoir -rdc=true " + source + " -o " + output;
  if (std::system(command.c_str()) != 0) {
    why = "cannot compile the user device code: " + command;
    return {};
  }
  std::ifstream in(output, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(output.c_str());
  return bytes;
}

/// An epilog calling external device code (user_gelu from LTO-IR, linked by nvJitLink), checked
/// against fp64, and timed against the same GELU inlined from MLIR on a 2048^3 bf16 problem.
std::string runExternalEpilogCase(const Device &dev, std::mt19937 &rng, double &err,
                                  double &externalMs, double &inlinedMs) {
  const char *external = R"mlir(
    func.func private @user_gelu(f32) -> f32
    func.func @epilog(%acc: f32, %row: index, %col: index) -> bf16 {
      %g = func.call @user_gelu(%acc) : (f32) -> f32
      %t = arith.truncf %g : f32 to bf16
      return %t : bf16
    })mlir";
  const char *inlined = R"mlir(
    func.func @epilog(%x: f32, %row: index, %col: index) -> bf16 {
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1.0 : f32
      %k0 = arith.constant 0.7978845608 : f32
      %k1 = arith.constant 0.044715 : f32
      %x2 = arith.mulf %x, %x : f32
      %x3 = arith.mulf %x2, %x : f32
      %in = math.fma %k1, %x3, %x : f32
      %s = arith.mulf %k0, %in : f32
      %t = math.tanh %s : f32
      %o = arith.addf %one, %t : f32
      %h = arith.mulf %half, %x : f32
      %g = arith.mulf %h, %o : f32
      %r = arith.truncf %g : f32 to bf16
      return %r : bf16
    })mlir";
  std::string status;
  std::vector<char> code = compileUserCode("user-gelu", status);
  if (!status.empty())
    return status;
  const CudaDriver &d = *dev.d;
  DeviceArena arena(d);
  try {
    auto toDevice = [&](const HostTensor &t) { return arena.toDevice(t); };
    // Correctness on an odd shape.
    const int64_t m = 127, n = 129, k = 255;
    HostTensor a = randomTensor(ElementType::BF16, {m, k}, rng);
    HostTensor b = randomTensor(ElementType::BF16, {k, n}, rng);
    mepi::Matmul mm(toDevice(a), toDevice(b));
    mm.plan(mepi::UserEpilog{external, "epilog",
                             {{mepi::DeviceCode::Kind::LTOIR, "user-gelu.ltoir", code}}});
    status = checkUserEpilog(
        d, mm, a, b, m, n, k, [](double acc, int64_t, int64_t) { return geluRef(acc); }, err);

    // Cost of the call against the same epilog inlined (median of 9 launches each).
    const int64_t s2 = 2048;
    HostTensor a2 = randomTensor(ElementType::BF16, {s2, s2}, rng);
    HostTensor b2 = randomTensor(ElementType::BF16, {s2, s2}, rng);
    mepi::Tensor a2d = toDevice(a2), b2d = toDevice(b2);
    auto timeIt = [&](mepi::Matmul &matmul) {
      matmul.execute();
      std::vector<double> ms;
      CUevent start, stop;
      cu(d.cuEventCreate(&start, CU_EVENT_DEFAULT), "event");
      cu(d.cuEventCreate(&stop, CU_EVENT_DEFAULT), "event");
      for (int i = 0; i < 9; ++i) {
        cu(d.cuEventRecord(start, nullptr), "record");
        matmul.execute();
        cu(d.cuEventRecord(stop, nullptr), "record");
        cu(d.cuEventSynchronize(stop), "sync");
        float t = 0;
        cu(d.cuEventElapsedTime(&t, start, stop), "elapsed");
        ms.push_back(t);
      }
      d.cuEventDestroy(start);
      d.cuEventDestroy(stop);
      std::sort(ms.begin(), ms.end());
      return ms[4];
    };
    mepi::Matmul viaCall(a2d, b2d), viaInline(a2d, b2d);
    viaCall.plan(mepi::UserEpilog{external, "epilog",
                                  {{mepi::DeviceCode::Kind::LTOIR, "user-gelu.ltoir", code}}});
    viaInline.plan(mepi::UserEpilog{inlined, "epilog"});
    externalMs = timeIt(viaCall);
    inlinedMs = timeIt(viaInline);
  } catch (const mepi::Error &e) {
    status = std::string("mepi::Error: ") + e.what();
  }
  return status;
}

std::string describe(const Case &c) {
  auto dims = [](const std::vector<int64_t> &s) {
    std::string r;
    for (size_t i = 0; i < s.size(); ++i)
      r += (i ? "x" : "") + std::to_string(s[i]);
    return r;
  };
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-4s a=%-12s b=%-12s d=%-12s %-9s tA=%d tB=%d%s%s%s%s%s",
                elementTypeName(c.type), dims(c.aShape).c_str(), dims(c.bShape).c_str(),
                dims(c.dShape).c_str(), c.epilog.c_str(), c.transA, c.transB,
                c.withC ? " +beta*C" : "", c.columnMajorA ? " colmajorA" : "",
                c.outType ? " D:" : "", c.outType ? elementTypeName(*c.outType) : "",
                c.tf32 ? " tf32" : "");
  if (c.biasType)
    std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), " bias:%s",
                  elementTypeName(*c.biasType));
  if (c.misalignBytes)
    std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), " a,b at +%lldB",
                  static_cast<long long>(c.misalignBytes));
  if (c.mirrors)
    std::snprintf(buf + std::strlen(buf), sizeof buf - std::strlen(buf), " mirrors:%d",
                  c.mirrors);
  return c.config.empty() ? std::string(buf) : std::string(buf) + " forced";
}

} // namespace

/// Plans (JIT-compiles for sm_90a) one case through the C++ API without a GPU: the pointers
/// are never touched before execute(). Returns why it failed ("" when it planned) and sets its
/// configuration.
std::string compileCase(const Case &c, std::string &config) {
  auto fake = [](const std::vector<int64_t> &shape, ElementType type,
                 std::vector<int64_t> strides = {}) {
    mepi::Tensor t;
    t.data = reinterpret_cast<void *>(uintptr_t(0x7f0000000000));
    t.dtype = apiDType(type);
    t.shape = shape;
    t.strides = std::move(strides);
    return t;
  };
  try {
    int64_t m = c.dShape[c.dShape.size() - 2], n = c.dShape.back();
    std::vector<int64_t> aStrides;
    if (c.columnMajorA)
      aStrides = {1, c.aShape[0]};
    std::optional<mepi::Tensor> cT, bias;
    std::optional<float> beta;
    if (c.withC) {
      cT = fake({m, n}, c.outType.value_or(c.type));
      beta = c.beta;
    }
    if (c.epilog.find("BIAS") != std::string::npos)
      bias = fake({m}, c.biasType.value_or(c.type));
    mepi::Options options;
    options.arch = "sm_90a";
    if (c.outType)
      options.resultType = apiDType(*c.outType);
    options.allowTF32 = c.tf32;
    options.kernelConfig = c.config;
    options.mirrors = c.mirrors;
    mepi::Matmul mm(fake(c.aShape, c.type, aStrides), fake(c.bShape, c.type), cT, c.alpha,
                    beta, {c.transA, c.transB}, options);
    mm.plan(apiEpilog(c.epilog), {bias});
    config = mm.kernelConfiguration();
  } catch (const mepi::Error &e) {
    return e.what();
  }
  return "";
}

/// Plans every case without a GPU, on every core (planning from several threads is safe: the
/// kernel caches are), and prints the results in the cases' order.
int compileOnly(bool quick, std::vector<Case> cases = {}) {
  if (cases.empty())
    cases = allCases(quick);
  std::vector<std::string> why(cases.size()), configs(cases.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < cases.size();)
        why[i] = compileCase(cases[i], configs[i]);
    });
  for (std::thread &worker : workers)
    worker.join();
  int passed = 0, failed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    bool ok = why[i].empty();
    (ok ? passed : failed)++;
    std::printf("%s compile %s %s%s%s\n", ok ? "PASS" : "FAIL", describe(cases[i]).c_str(),
                configs[i].c_str(), ok ? "" : "  ", why[i].c_str());
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

/// User data: the epilog passes its i64 argument to external code as `const void *` (the
/// parameters of an affine epilog in device memory), and the parameters change between
/// executes without a new plan.
std::string runUserDataCase(const Device &dev, std::mt19937 &rng, double &err) {
  const char *text = R"mlir(
    func.func private @user_affine(f32, i64) -> f32
    func.func @epilog(%acc: f32, %user: i64, %row: index, %col: index) -> bf16 {
      %y = func.call @user_affine(%acc, %user) : (f32, i64) -> f32
      %t = arith.truncf %y : f32 to bf16
      return %t : bf16
    })mlir";
  std::string status;
  std::vector<char> code = compileUserCode("user-affine", status);
  if (!status.empty())
    return status;
  const CudaDriver &d = *dev.d;
  DeviceArena arena(d);
  try {
    const int64_t m = 127, n = 129, k = 255;
    HostTensor a = randomTensor(ElementType::BF16, {m, k}, rng);
    HostTensor b = randomTensor(ElementType::BF16, {k, n}, rng);
    HostTensor params = randomTensor(ElementType::F32, {2}, rng);
    mepi::Tensor paramsDev = arena.toDevice(params);
    mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b));
    mepi::UserEpilog epilog{text, "epilog",
                            {{mepi::DeviceCode::Kind::LTOIR, "user-affine.ltoir", code}}};
    epilog.userData = paramsDev.data;
    mm.plan(epilog);
    for (int round = 0; round < 2 && status.empty(); ++round) {
      if (round == 1) { // new parameters in the same buffer
        float next[2] = {-0.75f, 0.25f};
        params.values = {next[0], next[1]};
        cu(d.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(paramsDev.data), next, sizeof next),
           "params");
      }
      status = checkUserEpilog(d, mm, a, b, m, n, k,
                               [&](double acc, int64_t, int64_t) {
                                 return acc * params.values[0] + params.values[1];
                               },
                               err);
    }
  } catch (const mepi::Error &e) {
    status = std::string("mepi::Error: ") + e.what();
  }
  return status;
}

/// The README's sample problem (examples/bias_gelu.mlir).
const Case kSample{ElementType::BF16, {1000, 1024}, {1024, 4096}, {1000, 4096}, false, false,
                   "GELU_BIAS"};

int main(int argc, char **argv) {
  bool quick = false, compileOnlyMode = false, sample = false;
  // --filter TEXT (repeatable): only cases whose line or forced configuration has one
  std::vector<std::string> filters;
  int shard = 0, shards = 1;
  for (int i = 1; i < argc; ++i) {
    quick |= std::string(argv[i]) == "--quick";
    compileOnlyMode |= std::string(argv[i]) == "--compile-only";
    sample |= std::string(argv[i]) == "--sample";
    if (std::string(argv[i]) == "--filter" && i + 1 < argc)
      filters.push_back(argv[++i]);
    if (std::string(argv[i]) == "--shard" && i + 1 < argc &&
        (std::sscanf(argv[++i], "%d/%d", &shard, &shards) != 2 || shards < 1 || shard < 0 ||
         shard >= shards)) {
      std::printf("--shard: expected I/N with 0 <= I < N, got '%s'\n", argv[i]);
      return 2;
    }
  }
  int64_t selectedCount = 0;
  auto selected = [&](const std::string &line) {
    bool matches = filters.empty();
    for (const std::string &f : filters)
      matches |= line.find(f) != std::string::npos;
    return matches && selectedCount++ % shards == shard;
  };
  setvbuf(stdout, nullptr, _IOLBF, 0);
  llvm::sys::PrintStackTraceOnErrorSignal(argv[0]);
  if (compileOnlyMode)
    return compileOnly(quick);
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver) {
    std::string why = llvm::toString(driver.takeError());
    if (!sample) {
      std::printf("no GPU: %s\n", why.c_str());
      return 1;
    }
    std::printf("no GPU here (%s): the sample was compiled only, not run\n", why.c_str());
    return compileOnly(quick, {kSample});
  }
  Device dev{&*driver, nullptr};
  CUdevice device;
  char name[256] = {0};
  if (llvm::Error e = checkCuda(driver->cuDeviceGet(&device, 0), "cuDeviceGet")) {
    std::printf("%s\n", llvm::toString(std::move(e)).c_str());
    return 1;
  }
  driver->cuDeviceGetName(name, sizeof name, device);
  if (llvm::Error e = checkCuda(driver->cuDevicePrimaryCtxRetain(&dev.ctx, device),
                                "cuDevicePrimaryCtxRetain")) {
    std::printf("%s\n", llvm::toString(std::move(e)).c_str());
    return 1;
  }
  driver->cuCtxSetCurrent(dev.ctx);
  std::printf("device: %s, driver %d\n", name, driver->version);

  std::mt19937 rng(std::random_device{}());
  int passed = 0, failed = 0;
  if (sample) { // the README's main job: run the sample on this GPU and check it
    double err = 0, ms = 0;
    std::string why = runApiCase(dev, kSample, rng, err, ms, Mode::Plain);
    std::printf("%s sample on %s: %s relerr=%.2e vs fp64 (sampled rows) plan+execute=%.0fms%s%s\n",
                why.empty() ? "PASS" : "FAIL", name, describe(kSample).c_str(), err, ms,
                why.empty() ? "" : "  ", why.c_str());
    return why.empty() ? 0 : 1;
  }
  for (const Case &c : allCases(quick)) {
    if (!selected(describe(c) + " " + c.config))
      continue;
    double err = 0, ms = 0;
    std::string why = runApiCase(dev, c, rng, err, ms, Mode::Plain);
    bool ok = why.empty();
    (ok ? passed : failed)++;
    std::printf("%s %s %s relerr=%.2e plan+execute=%.0fms%s%s\n", ok ? "PASS" : "FAIL",
                describe(c).c_str(), lastKernelConfig.c_str(), err, ms, ok ? "" : "  ",
                why.c_str());
    std::fflush(stdout);
  }
  runEpilogCatalog(dev, rng, quick, selected, passed, failed);
  runUserEpilogs(dev, rng, quick, selected, passed, failed);
  runAutotune(dev, rng, selected, passed, failed);
  runGroupedCases(dev, rng, selected, passed, failed);
  runGroupedKCases(dev, rng, selected, passed, failed);
  runFp8Cases(dev, rng, selected, passed, failed);
  if (!quick)
    runLargeProblem(dev, selected, passed, failed);
  if (!filters.empty() || shard != 0) { // a selection (e.g. under compute-sanitizer): the
                                        // matrix cases only
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
  }
  const Case apiCases[] = {
      {ElementType::BF16, {127, 255}, {255, 129}, {127, 129}, false, false, "RELU_BIAS", true,
       0.75f, 0.5f},
      {ElementType::F16, {65, 17}, {33, 65}, {17, 33}, true, true, "GELU"},
      {ElementType::F32, {2, 31, 40}, {40, 9}, {2, 31, 9}, false, false, "BIAS"},
      // staged A and B (K = 203, at +2 bytes), then operands at aligned addresses
      {ElementType::BF16, {300, 203}, {500, 203}, {300, 500}, false, true, "GELU_BIAS", true,
       1.0f, 0.5f, false, std::nullopt, false, "", 2}};
  for (Mode mode : {Mode::ResetOperands, Mode::FunctionForm})
    for (const Case &c : apiCases) {
      double err = 0, ms = 0;
      std::string why = runApiCase(dev, c, rng, err, ms, mode);
      bool ok = why.empty();
      (ok ? passed : failed)++;
      std::printf("%s %s %s relerr=%.2e%s%s\n", ok ? "PASS" : "FAIL",
                  mode == Mode::FunctionForm ? "matmul():" : "resetOperands:",
                  describe(c).c_str(), err, ok ? "" : "  ", why.c_str());
    }
  for (bool withInputs : {false, true}) {
    double err = 0;
    std::string why = runUserEpilogCase(dev, withInputs, rng, err);
    bool ok = why.empty();
    (ok ? passed : failed)++;
    std::printf("%s user epilog (MLIR text) bf16 127x129x255 %s relerr=%.2e%s%s\n",
                ok ? "PASS" : "FAIL",
                withInputs ? "acc*scale[row]+residual[row,col]" : "SiLU", err, ok ? "" : "  ",
                why.c_str());
  }
  {
    double err = 0, externalMs = 0, inlinedMs = 0;
    std::string why = runExternalEpilogCase(dev, rng, err, externalMs, inlinedMs);
    bool ok = why.empty();
    (ok ? passed : failed)++;
    std::printf("%s user epilog calling external LTO-IR (user_gelu) bf16 127x129x255 relerr=%.2e; "
                "2048^3: via call %.3f ms, inlined %.3f ms%s%s\n",
                ok ? "PASS" : "FAIL", err, externalMs, inlinedMs, ok ? "" : "  ", why.c_str());
  }
  {
    double err = 0;
    std::string why = runUserDataCase(dev, rng, err);
    bool ok = why.empty();
    (ok ? passed : failed)++;
    std::printf("%s user epilog with user data: external LTO-IR user_affine(acc, params) bf16 "
                "127x129x255 relerr=%.2e%s%s\n",
                ok ? "PASS" : "FAIL", err, ok ? "" : "  ", why.c_str());
  }
  // A host pointer is refused with the operand named, before any launch.
  {
    std::vector<float> host(64 * 64);
    mepi::Tensor a;
    a.data = host.data();
    a.shape = {64, 64};
    std::string why = "no error";
    try {
      mepi::Matmul mm(a, a);
      mm.plan();
      mm.execute();
    } catch (const mepi::Error &e) {
      why = e.what();
    }
    bool ok = why.find("operand a: pointer") != std::string::npos &&
              why.find("is not memory CUDA knows") != std::string::npos;
    (ok ? passed : failed)++;
    std::printf("%s host pointer refused: %s\n", ok ? "PASS" : "FAIL", why.c_str());
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
