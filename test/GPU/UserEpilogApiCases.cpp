// User epilogs through the C++ API (MLIR text, external LTO-IR, user data): each checked
// against fp64 on the device (see UserEpilogs.h).
#include "UserEpilogs.h"
#include "GpuReference.h"
#include "GpuTestSupport.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace mepi::runtime;
using namespace gputest;

namespace {
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
} // namespace

void gputest::runUserEpilogApiCases(const Device &dev, std::mt19937 &rng, int &passed,
                                    int &failed) {
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
}
