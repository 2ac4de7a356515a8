// mepi-bench --user (see UserEpilogBench.h).
#include "UserEpilogBench.h"

#include "mepi/EpilogBuilder.h"

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
