// mepi-bench --user (see UserEpilogBench.h).
#include "UserEpilogBench.h"

#include "mepi/EpilogBuilder.h"

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace bench;

namespace {
// GELU of acc + bias[row] with libdevice's accurate tanh, as a user writes it.
const char *kBiasGelu = R"mlir(
  func.func @bias_gelu(%acc: f32, %bias: bf16, %row: index, %col: index) -> bf16 {
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %c = arith.constant 0.7978845608 : f32
    %c3 = arith.constant 0.044715 : f32
    %b = arith.extf %bias : bf16 to f32
    %x = arith.addf %acc, %b : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %in = math.fma %x3, %c3, %x : f32
    %arg = arith.mulf %in, %c : f32
    %t = math.tanh %arg : f32
    %s = arith.addf %one, %t : f32
    %hx = arith.mulf %x, %half : f32
    %y = arith.mulf %hx, %s : f32
    %d = arith.truncf %y : f32 to bf16
    return %d : bf16
  }
)mlir";

// The same through a call to user_gelu, device code linked by nvJitLink.
const char *kExternal = R"mlir(
  func.func private @user_gelu(f32) -> f32
  func.func @bias_gelu(%acc: f32, %bias: bf16, %row: index, %col: index) -> bf16 {
    %b = arith.extf %bias : bf16 to f32
    %x = arith.addf %acc, %b : f32
    %y = func.call @user_gelu(%x) : (f32) -> f32
    %d = arith.truncf %y : f32 to bf16
    return %d : bf16
  }
)mlir";

// The same by the builder, with approximate tanh (tanh.approx.f32), as the built-in GELU
// approximates (its exp and division).
mepi::EpilogBuilder biasGeluBuilder() {
  mepi::EpilogBuilder e;
  e.setFastMath(true);
  mepi::EpilogValue x = e.add(e.accumulator(), e.input("bias", mepi::InputKind::Row));
  mepi::EpilogValue inner =
      e.mul(e.fma(e.mul(e.mul(x, x), x), e.constant(0.044715), x), e.constant(0.7978845608));
  e.store(e.mul(e.mul(x, e.constant(0.5)), e.add(e.constant(1.0), e.tanh(inner))));
  return e;
}
} // namespace

namespace {
/// The bf16 buffers of one problem: `rotation` sets of A [M, K] and B [N, K], the bias and the
/// reference's D.
struct UserBuffers {
  int rotation;
  std::vector<CUdeviceptr> as, bs;
  CUdeviceptr bias = 0, refD = 0;
  UserBuffers(const Shape &shape, int rotation) : rotation(rotation) {
    for (int i = 0; i < rotation; ++i) {
      as.push_back(randomBuffer(size_t(shape.m * shape.k), true, 2 * i + 1));
      bs.push_back(randomBuffer(size_t(shape.n * shape.k), true, 2 * i + 2));
    }
    bias = randomBuffer(size_t(shape.m), true, 99);
    cu(driver->cuMemAlloc(&refD, size_t(shape.m * shape.n) * 2), "cuMemAlloc(ref d)");
  }
  ~UserBuffers() {
    for (CUdeviceptr ptr : as) driver->cuMemFree(ptr);
    for (CUdeviceptr ptr : bs) driver->cuMemFree(ptr);
    driver->cuMemFree(bias);
    driver->cuMemFree(refD);
  }
  UserBuffers(const UserBuffers &) = delete;
  UserBuffers &operator=(const UserBuffers &) = delete;
};

mepi::Tensor bf16Tensor(CUdeviceptr ptr, std::vector<int64_t> shape) {
  mepi::Tensor t;
  t.data = reinterpret_cast<void *>(ptr);
  t.dtype = mepi::DType::BFloat16;
  t.shape = std::move(shape);
  return t;
}

/// One planned Matmul per input set of each variant (the kernel compiles once per variant):
/// the built-in GELU_BIAS, the MLIR text, the builder and (with `ltoir`) the external
/// function. `config` takes the last one's configuration.
std::vector<std::vector<mepi::Matmul>> planVariants(const Shape &shape, const UserBuffers &buf,
                                                    const std::vector<char> &ltoir,
                                                    const std::string &forcedConfig,
                                                    std::string &config) {
  auto planned = [&](auto plan) {
    std::vector<mepi::Matmul> mms;
    for (int i = 0; i < buf.rotation; ++i) {
      mepi::Options options;
      options.kernelConfig = forcedConfig; // --config, for every variant
      mms.emplace_back(bf16Tensor(buf.as[i], {shape.m, shape.k}),
                       bf16Tensor(buf.bs[i], {shape.n, shape.k}), std::nullopt, 1.0f,
                       std::nullopt, mepi::Qualifiers{false, true}, options);
      plan(mms.back());
    }
    config = mms.back().kernelConfiguration();
    return mms;
  };
  mepi::Tensor biasT = bf16Tensor(buf.bias, {shape.m});
  mepi::EpilogBuilder builder = biasGeluBuilder();
  std::vector<std::vector<mepi::Matmul>> variants;
  variants.push_back(planned([&](mepi::Matmul &mm) {
    mepi::EpilogInputs inputs;
    inputs.bias = biasT;
    mm.plan(mepi::Epilog::GeluBias, inputs);
  }));
  variants.push_back(planned([&](mepi::Matmul &mm) {
    mm.plan(mepi::UserEpilog{kBiasGelu, "bias_gelu"}, {{biasT, mepi::InputKind::Row}});
  }));
  variants.push_back(planned([&](mepi::Matmul &mm) { mm.plan(builder, {{"bias", biasT}}); }));
  if (!ltoir.empty())
    variants.push_back(planned([&](mepi::Matmul &mm) {
      mm.plan(mepi::UserEpilog{kExternal,
                               "bias_gelu",
                               {{mepi::DeviceCode::Kind::LTOIR, "user_gelu.ltoir", ltoir}}},
              {{biasT, mepi::InputKind::Row}});
    }));
  return variants;
}
} // namespace

UserEpilogResult bench::measureUserEpilog(const Shape &shape, cublasLtHandle_t lt,
                                          CUstream stream, size_t l2Bytes, bool quick,
                                          CUfunction elementwise,
                                          const std::vector<char> &ltoir,
                                          const std::string &forcedConfig) {
  UserEpilogResult r;
  const int64_t m = shape.m, n = shape.n, k = shape.k;
  size_t inputBytes = 2 * size_t(m * k + n * k);
  int rotation =
      inputBytes < 2 * l2Bytes ? int(std::min<size_t>(8, 2 * l2Bytes / inputBytes + 1)) : 1;
  UserBuffers buf(shape, rotation);
  const std::vector<CUdeviceptr> &as = buf.as, &bs = buf.bs;
  try {
    std::vector<std::vector<mepi::Matmul>> variants =
        planVariants(shape, buf, ltoir, forcedConfig, r.config);
    // cuBLASLt: the matmul alone, the matmul then the elementwise kernel, and its own fused
    // GELU_BIAS (D column-major, the bias per row).
    LtMatmul gemm(lt, {m, n, k, true, false, false, CUBLASLT_EPILOGUE_DEFAULT});
    LtMatmulSpec fusedSpec{m, n, k, true, false, false, CUBLASLT_EPILOGUE_GELU_BIAS};
    fusedSpec.bias = buf.bias;
    LtMatmul fused(lt, fusedSpec);
    long long rows = m, total = m * n;
    void *dPtr = reinterpret_cast<void *>(buf.refD), *biasPtr = reinterpret_cast<void *>(buf.bias);
    void *params[] = {&dPtr, &biasPtr, &rows, &total};
    unsigned threads = 256;
    unsigned blocks = unsigned(std::min<long long>((total / 8 + threads) / threads, 132 * 16));
    auto unfused = [&](int i) {
      gemm.launch(as[i % rotation], bs[i % rotation], buf.refD, stream);
      cu(driver->cuLaunchKernel(elementwise, blocks, 1, 1, threads, 1, 1, 0, stream, params,
                                nullptr),
         "cuLaunchKernel(bias_gelu_bf16)");
    };
    for (int i = 0; i < rotation; ++i)
      unfused(i);
    int refIterations = std::max(20, calibratedIterations(stream, quick, [&] { unfused(0); }));
    std::vector<std::function<void(int)>> refs = {
        unfused,
        [&](int i) { gemm.launch(as[i % rotation], bs[i % rotation], buf.refD, stream); },
        [&](int i) { fused.launch(as[i % rotation], bs[i % rotation], buf.refD, stream); }};

    // The fused variants and the cuBLASLt ones, interleaved launch by launch (the external
    // variant, an order of magnitude slower, apart).
    std::vector<std::function<void(int)>> launches;
    for (size_t v = 0; v < 3; ++v) {
      mepiMs(variants[v], stream, true); // warm-up
      launches.push_back([&, v](int i) { variants[v][i % rotation].execute(stream); });
    }
    launches.insert(launches.end(), refs.begin(), refs.end());
    std::vector<double> ms =
        interleavedMedianMs(stream, std::max(quick ? 10 : 30, refIterations / 4), launches);
    r.builtinMs = ms[0];
    r.mlirMs = ms[1];
    r.builderMs = ms[2];
    r.unfusedMs = ms[3];
    r.gemmMs = ms[4];
    r.fusedRefMs = ms[5];
    r.externalMs = ltoir.empty() ? 0 : mepiMs(variants[3], stream, quick);
  } catch (const mepi::Error &e) {
    r.error = e.what();
  }
  return r;
}

namespace {
std::vector<char> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw mepi::Error("cannot read " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

/// --user's device code: the unfused reference's elementwise kernel (its cubin lies beside
/// this program, built by nvcc with it) and the external variant's LTO-IR (--ltoir, or the
/// examples' user_gelu beside this program, where the device bundle puts it). Throws
/// mepi::Error.
std::vector<char> loadUserBenchCode(const std::string &ltoirPath, const char *argv0,
                                    CUmodule &module, CUfunction &elementwise) {
  std::string self = argv0, dir = self.substr(0, self.find_last_of('/') + 1);
  std::vector<char> cubin = readFile(dir + "mepi-bench-bias-gelu.cubin");
  cu(driver->cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData(bias_gelu)");
  cu(driver->cuModuleGetFunction(&elementwise, module, "bias_gelu_bf16"), "bias_gelu_bf16");
  if (!ltoirPath.empty())
    return readFile(ltoirPath);
  if (std::ifstream(dir + "user_gelu.ltoir"))
    return readFile(dir + "user_gelu.ltoir");
  return {};
}

std::string userJsonRow(const Shape &s, const UserEpilogResult &r, double vsBuiltin,
                        double vsUnfused) {
  double flops = 2.0 * s.m * s.n * s.k;
  auto tflops = [&](double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0.0; };
  char row[1600];
  std::snprintf(
      row, sizeof row,
      "    {\"name\": \"%s\", \"m\": %ld, \"n\": %ld, \"k\": %ld, \"dtype\": \"bf16\", "
      "\"epilog\": \"user bias+GELU (MLIR text)\", \"mepi_tflops\": %.2f, "
      "\"ref_tflops\": %.2f, \"ratio\": %.4f, \"user_mlir_ms\": %.4f, "
      "\"user_builder_ms\": %.4f, \"user_external_ms\": %.4f, \"builtin_gelu_bias_ms\": %.4f, "
      "\"unfused_ms\": %.4f, \"cublaslt_gemm_ms\": %.4f, \"cublaslt_gelu_bias_ms\": %.4f, "
      "\"user_vs_builtin\": %.4f, \"builder_vs_builtin\": %.4f, \"mepi_config\": \"%s\", "
      "\"error\": \"%s\"}",
      s.name, s.m, s.n, s.k, tflops(r.mlirMs), tflops(r.unfusedMs), vsUnfused, r.mlirMs,
      r.builderMs, r.externalMs, r.builtinMs, r.unfusedMs, r.gemmMs, r.fusedRefMs, vsBuiltin,
      r.error.empty() ? r.builtinMs / r.builderMs : 0.0, jsonEscape(r.config).c_str(),
      jsonEscape(r.error).c_str());
  return row;
}

void writeUserJson(const std::string &jsonPath, const char *device, const char *date,
                   const std::string &command, double geoBuiltin, double geoUnfused,
                   const std::string &rows) {
  std::ofstream json(jsonPath);
  json << "{\n  \"device\": \"" << jsonEscape(device) << "\",\n  \"date\": \"" << date
       << "\",\n  \"command\": \"" << jsonEscape(command) << "\",\n"
       << "  \"layout\": \"A MxK, B NxK (TN), bf16; bias length M (per row of D); mepi D "
          "row-major, cuBLASLt D column-major\",\n"
       << "  \"meaning\": \"mepi_tflops: the user epilog (MLIR text) fused by mepi; "
          "ref_tflops: the unfused sequence, cuBLASLt matmul then a bias+GELU elementwise "
          "kernel (bias_gelu.cu, accurate tanhf); ratio = unfused_ms / user_mlir_ms; "
          "user_vs_builtin = builtin_gelu_bias_ms / user_mlir_ms (libdevice tanhf against the "
          "built-in's ex2.approx and div.approx); builder_vs_builtin = builtin_gelu_bias_ms / "
          "user_builder_ms (the builder with setFastMath: tanh.approx.f32); the variants are "
          "timed interleaved, launch by launch\",\n"
       << "  \"geomean_user_vs_builtin\": " << geoBuiltin
       << ",\n  \"geomean_ratio\": " << geoUnfused << ",\n  \"results\": [\n"
       << rows << "\n  ]\n}\n";
}

} // namespace

int bench::runUserBench(const std::vector<Shape> &shapes, cublasLtHandle_t lt,
                        CUstream stream, size_t l2Bytes, bool quick,
                        const std::vector<std::string> &filters, const std::string &forcedConfig,
                 const std::string &ltoirPath, const char *argv0, const char *device,
                 const char *date, const std::string &command, const std::string &jsonPath) {
  CUmodule module;
  CUfunction elementwise;
  std::vector<char> ltoir;
  try {
    ltoir = loadUserBenchCode(ltoirPath, argv0, module, elementwise);
  } catch (const mepi::Error &e) {
    std::printf("%s\n", e.what());
    return 1;
  }
  std::printf("device: %s, %s; bf16, D = gelu(A B^T + bias[row]); times in ms\n", device, date);
  std::printf("%-16s %6s %6s %6s %8s %8s %8s %8s %8s %8s %8s %9s %9s\n", "shape", "m", "n", "k",
              "built-in", "mlir", "builder", "extern", "unfused", "lt gemm", "lt fused",
              "mlir/bi", "unf/mlir");
  std::string rows;
  double logBuiltin = 0, logUnfused = 0;
  int counted = 0;
  for (const Shape &s : shapes) {
    if (std::string(s.name) == "blog-relu-bias" || !selectedLabel(filters, s.name))
      continue;
    UserEpilogResult r = measureUserEpilog(s, lt, stream, l2Bytes, quick, elementwise, ltoir,
                                           forcedConfig);
    double vsBuiltin = r.error.empty() ? r.builtinMs / r.mlirMs : 0;
    double vsUnfused = r.error.empty() ? r.unfusedMs / r.mlirMs : 0;
    if (r.error.empty()) {
      logBuiltin += std::log(vsBuiltin);
      logUnfused += std::log(vsUnfused);
      ++counted;
    }
    std::printf("%-16s %6ld %6ld %6ld %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %9.3f %9.3f%s%s\n",
                s.name, s.m, s.n, s.k, r.builtinMs, r.mlirMs, r.builderMs, r.externalMs,
                r.unfusedMs, r.gemmMs, r.fusedRefMs, vsBuiltin, vsUnfused,
                r.error.empty() ? "" : "  ERROR: ", r.error.c_str());
    std::fflush(stdout);
    rows += (rows.empty() ? "" : ",\n") + userJsonRow(s, r, vsBuiltin, vsUnfused);
  }
  double geoBuiltin = counted ? std::exp(logBuiltin / counted) : 0;
  double geoUnfused = counted ? std::exp(logUnfused / counted) : 0;
  std::printf("geometric means over %d shapes: built-in/user %.3f, unfused/user %.3f\n", counted,
              geoBuiltin, geoUnfused);
  if (!jsonPath.empty())
    writeUserJson(jsonPath, device, date, command, geoBuiltin, geoUnfused, rows);
  driver->cuModuleUnload(module);
  return 0;
}
