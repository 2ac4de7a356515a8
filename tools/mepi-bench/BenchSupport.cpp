// mepi-bench's shared pieces (see BenchSupport.h).
#include "BenchSupport.h"

#include <chrono>
#include <cstring>
#include <thread>

using namespace bench;

const mepi::runtime::CudaDriver *bench::driver = nullptr;
bool bench::streamTiming = false;

void bench::cu(CUresult r, const char *what) {
  if (llvm::Error e = mepi::runtime::checkCuda(r, what))
    throw mepi::Error(llvm::toString(std::move(e)));
}

void bench::cublas(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw mepi::Error(std::string(what) + " failed: cublasStatus " + std::to_string(int(s)));
}

namespace {
uint16_t toHalfBits(float f, bool bf16) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (bf16) {
    u += 0x7FFF + ((u >> 16) & 1);
    return static_cast<uint16_t>(u >> 16);
  }
  _Float16 h = static_cast<_Float16>(f);
  uint16_t r;
  std::memcpy(&r, &h, 2);
  return r;
}
} // namespace

namespace {
/// `count` values in [-1, 1) from `seed`, converted by `convert`, filled in parallel.
template <typename T, typename Convert>
CUdeviceptr randomValues(size_t count, uint64_t seed, Convert convert) {
  std::vector<T> host(count);
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  size_t chunk = (count + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      uint64_t x = seed * 0x9E3779B97F4A7C15ull + t + 1;
      for (size_t i = t * chunk; i < std::min(count, (t + 1) * chunk); ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        host[i] = convert(static_cast<float>((x >> 40) & 0xFFFFFF) / 16777216.0f * 2.0f - 1.0f);
      }
    });
  for (std::thread &t : pool)
    t.join();
  CUdeviceptr ptr;
  cu(driver->cuMemAlloc(&ptr, count * sizeof(T)), "cuMemAlloc");
  cu(driver->cuMemcpyHtoD(ptr, host.data(), count * sizeof(T)), "cuMemcpyHtoD");
  return ptr;
}
} // namespace

CUdeviceptr bench::randomFloatBuffer(size_t count, uint64_t seed) {
  return randomValues<float>(count, seed, [](float f) { return f; });
}

CUdeviceptr bench::randomFp8Buffer(size_t count, uint64_t seed) {
  // e4m3 by truncation of the f32 bits (values in [-1, 1): exponents -7..-1, tiny ones to 0).
  return randomValues<uint8_t>(count, seed, [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint8_t sign = static_cast<uint8_t>((u >> 31) << 7);
    int exponent = static_cast<int>((u >> 23) & 0xFF) - 127 + 7;
    if (exponent <= 0)
      return sign;
    return static_cast<uint8_t>(sign | (exponent << 3) | ((u >> 20) & 7));
  });
}

CUdeviceptr bench::randomBuffer(size_t count, bool bf16, uint64_t seed) {
  return randomValues<uint16_t>(count, seed, [bf16](float f) { return toHalfBits(f, bf16); });
}

mepi::Tensor bench::deviceTensor(CUdeviceptr ptr, mepi::DType type, std::vector<int64_t> shape) {
  mepi::Tensor t;
  t.data = reinterpret_cast<void *>(ptr);
  t.dtype = type;
  t.shape = std::move(shape);
  return t;
}

LtMatmul::LtMatmul(cublasLtHandle_t lt) : lt(lt) {
  cu(driver->cuMemAlloc(&workspace, workspaceBytes), "cuMemAlloc(workspace)");
}

void LtMatmul::chooseAlgorithm() {
  cublas(cublasLtMatmulPreferenceCreate(&pref), "PreferenceCreate");
  cublas(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                              &workspaceBytes, sizeof workspaceBytes),
         "workspace pref");
  int found = 0;
  cublas(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &heuristic, &found),
         "AlgoGetHeuristic");
  if (!found)
    throw mepi::Error("cuBLASLt has no algorithm for this problem");
}

LtMatmul::LtMatmul(cublasLtHandle_t lt, const LtMatmulSpec &s) : LtMatmul(lt) {
  cublas(cublasLtMatmulDescCreate(&desc, s.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                                  CUDA_R_32F),
         "MatmulDescCreate");
  cublasOperation_t opA = s.mMajorA ? CUBLAS_OP_N : CUBLAS_OP_T;
  cublasOperation_t opB = s.nMajorB ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof opA),
         "TRANSA");
  cublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof opB),
         "TRANSB");
  cublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &s.epilog,
                                        sizeof s.epilog),
         "EPILOGUE");
  cudaDataType_t type = s.f32 ? CUDA_R_32F : s.bf16 ? CUDA_R_16BF : CUDA_R_16F;
  if (s.bias) {
    void *biasPtr = reinterpret_cast<void *>(s.bias);
    cublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &biasPtr,
                                          sizeof biasPtr),
           "BIAS_POINTER");
    cublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &type,
                                          sizeof type),
           "BIAS_DATA_TYPE");
  }
  if (s.aux) {
    void *auxPtr = reinterpret_cast<void *>(s.aux);
    cublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                                          &auxPtr, sizeof auxPtr),
           "AUX_POINTER");
    cublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &s.auxLd,
                                          sizeof s.auxLd),
           "AUX_LD");
  }
  cublas(s.mMajorA ? cublasLtMatrixLayoutCreate(&la, type, s.m, s.k, s.m)
                   : cublasLtMatrixLayoutCreate(&la, type, s.k, s.m, s.k),
         "layout A");
  cublas(s.nMajorB ? cublasLtMatrixLayoutCreate(&lb, type, s.n, s.k, s.n)
                   : cublasLtMatrixLayoutCreate(&lb, type, s.k, s.n, s.k),
         "layout B");
  cublas(cublasLtMatrixLayoutCreate(&ld, type, s.m, s.n, s.m), "layout D");
  if (s.batch > 1) { // strided batched, as torch.bmm calls it
    auto batched = [&](cublasLtMatrixLayout_t layout, int64_t stride, const char *what) {
      int32_t count = static_cast<int32_t>(s.batch);
      cublas(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                              sizeof count),
             what);
      cublas(cublasLtMatrixLayoutSetAttribute(
                 layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
             what);
    };
    batched(la, s.m * s.k, "batch A");
    batched(lb, s.sharedB ? 0 : s.n * s.k, "batch B");
    batched(ld, s.m * s.n, "batch D");
  }
  chooseAlgorithm();
}

LtMatmul::~LtMatmul() {
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (la) cublasLtMatrixLayoutDestroy(la);
  if (lb) cublasLtMatrixLayoutDestroy(lb);
  if (ld) cublasLtMatrixLayoutDestroy(ld);
  if (desc) cublasLtMatmulDescDestroy(desc);
  if (workspace) driver->cuMemFree(workspace);
}

void LtMatmul::launch(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUstream stream) {
  float alpha = 1.0f, beta = 0.0f;
  cublas(cublasLtMatmul(lt, desc, &alpha, reinterpret_cast<void *>(a), la,
                        reinterpret_cast<void *>(b), lb, &beta, reinterpret_cast<void *>(d), ld,
                        reinterpret_cast<void *>(d), ld, &heuristic.algo,
                        reinterpret_cast<void *>(workspace), workspaceBytes,
                        reinterpret_cast<cudaStream_t>(stream)),
         "cublasLtMatmul");
}

void LtMatmul::setBias(CUdeviceptr bias) {
  void *biasPtr = reinterpret_cast<void *>(bias);
  cublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &biasPtr,
                                        sizeof biasPtr),
         "BIAS_POINTER");
}

int bench::calibratedIterations(CUstream stream, bool quick, const std::function<void()> &once) {
  auto c0 = std::chrono::steady_clock::now();
  once();
  cu(driver->cuStreamSynchronize(stream), "calibrate");
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
  return int(std::clamp((quick ? 100.0 : 300.0) / std::max(ms, 1e-3), 3.0, 50.0));
}

double bench::mepiMs(std::vector<mepi::Matmul> &mms, CUstream stream, bool quick,
                     double *hostUs, int *iterations) {
  for (mepi::Matmul &mm : mms) // warm-up: module load, first-launch costs
    mm.execute(stream);
  cu(driver->cuStreamSynchronize(stream), "warm-up");
  int n = calibratedIterations(stream, quick, [&] { mms[0].execute(stream); });
  double host = 0;
  double ms = medianMs(stream, n, [&](int i) {
    auto h0 = std::chrono::steady_clock::now();
    mms[i % mms.size()].execute(stream);
    host += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0)
                .count();
  });
  if (hostUs)
    *hostUs = host / n;
  if (iterations)
    *iterations = n;
  return ms;
}

std::vector<double>
bench::interleavedMedianMs(CUstream stream, int iterations,
                           const std::vector<std::function<void(int)>> &launches,
                           const std::function<void()> &prelude) {
  size_t n = launches.size();
  std::vector<CUevent> events(2 * n * iterations);
  for (CUevent &e : events)
    cu(driver->cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  QueueGate gate(stream);
  for (int i = 0; i < iterations; ++i)
    for (size_t v = 0; v < n; ++v) {
      size_t at = 2 * (i * n + v);
      if (prelude)
        prelude();
      cu(driver->cuEventRecord(events[at], stream), "cuEventRecord");
      launches[v](int(i * n + v));
      cu(driver->cuEventRecord(events[at + 1], stream), "cuEventRecord");
    }
  gate.release();
  cu(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
  std::vector<double> medians(n);
  for (size_t v = 0; v < n; ++v) {
    std::vector<double> ms(iterations);
    for (int i = 0; i < iterations; ++i) {
      float t = 0;
      size_t at = 2 * (i * n + v);
      cu(driver->cuEventElapsedTime(&t, events[at], events[at + 1]), "cuEventElapsedTime");
      ms[i] = t;
    }
    std::sort(ms.begin(), ms.end());
    medians[v] = ms[iterations / 2];
  }
  for (CUevent &e : events)
    driver->cuEventDestroy(e);
  return medians;
}

/// "wgmma 128x256 s4 k1" (" pp" for ping-pong, " c2" for a cluster of 2, " c2a" for one
/// along N, " c8ab" for 8 sharing both operands, " tma" / " reg" for D's stores, " tma1"
/// through one TMA store buffer) from
/// "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>>".
std::string bench::shortConfig(const std::string &config) {
  int64_t tm = 0, tn = 0, tk = 0, stages = 1, splits = 1;
  char strategy[16] = {0};
  if (std::sscanf(config.c_str(), "#mepi.kernel_config<%15[a-z], tile = [%ld, %ld, %ld]",
                  strategy, &tm, &tn, &tk) != 4)
    return config;
  if (const char *s = std::strstr(config.c_str(), "stages = "))
    stages = std::atol(s + 9);
  if (const char *s = std::strstr(config.c_str(), "splits = "))
    splits = std::atol(s + 9);
  bool loads = config.find("tma = false") != std::string::npos;
  bool pingpong = config.find("pingpong = true") != std::string::npos;
  int64_t cluster = 1;
  if (const char *s = std::strstr(config.c_str(), "cluster = "))
    cluster = std::atol(s + 10);
  const char *shared = config.find("multicast = ab") != std::string::npos  ? "ab"
                       : config.find("multicast = a") != std::string::npos ? "a"
                                                                           : "";
  bool swapped = config.find("swapped = true") != std::string::npos;
  bool streamK = config.find("scheduler = <stream_k>") != std::string::npos;
  const char *store = config.find("store = tma") != std::string::npos         ? " tma"
                      : config.find("store = registers") != std::string::npos ? " reg"
                                                                              : "";
  bool oneBuffer = config.find("buffers = 1") != std::string::npos;
  return std::string(strategy) + " " + std::to_string(tm) + "x" + std::to_string(tn) + " s" +
         std::to_string(stages) + " k" + std::to_string(splits) + (loads ? " ld" : "") +
         (pingpong ? " pp" : "") +
         (cluster > 1 ? " c" + std::to_string(cluster) + shared : std::string()) +
         (swapped ? " sw" : "") + (streamK ? " sk" : "") + store + (oneBuffer ? "1" : "");
}

std::string bench::candidatesJson(const std::vector<std::pair<std::string, double>> &timed) {
  std::string list;
  for (const auto &[config, ms] : timed)
    list += (list.empty() ? "" : ", ") + std::string("[\"") + shortConfig(config) + "\", " +
            std::to_string(ms) + "]";
  return list;
}

std::string bench::jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}
bool bench::selectedLabel(const std::vector<std::string> &filters, const std::string &label) {
  return filters.empty() || std::any_of(filters.begin(), filters.end(), [&](const std::string &f) {
           return label.find(f) != std::string::npos;
         });
}


void bench::writeJsonHeader(std::ostream &json, const char *device, const char *date,
                            const std::string &command, const std::string &layout,
                            const std::string &meaning) {
  const char *revision = std::getenv("MEPI_REVISION");
  json << "{\n  \"device\": \"" << jsonEscape(device) << "\",\n  \"date\": \"" << date
       << "\",\n  \"command\": \"" << jsonEscape(command) << "\",\n  \"commit\": \""
       << jsonEscape(revision ? revision : "unknown") << "\",\n  \"layout\": \""
       << jsonEscape(layout) << "\",\n  \"meaning\": \"" << jsonEscape(meaning) << "\",\n";
}
