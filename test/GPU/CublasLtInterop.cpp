// mepi-cublaslt-interop: mepi's ReLU mask is cuBLASLt's, bit for bit, and the two libraries'
// forward and backward ReLU epilogs take each other's masks.
//
// Inputs are small integers (A, B in {-1, 0, 1}, the bias in {-2, ..., 2}), so every sum is
// exact in f32 whatever the summation order: both libraries must then agree exactly, including
// on pre-activations that are exactly 0 (the mask bit is x >= 0, cuBLASLt's choice). Per shape and dtype:
//   1. RELU_AUX_BIAS in mepi and in cuBLASLt: D equal element for element, the masks equal on
//      every bit of the M rows of each column (bits past M are padding);
//   2. DRELU_BGRAD in mepi with cuBLASLt's mask, and in cuBLASLt with mepi's mask: D and the
//      bias gradient equal (|D| stays within the 16-bit types' exact integers, so a gradient
//      summed from rounded or unrounded D is the same).
// Layout: A [M, K] and B [N, K] K-major ("TN"); mepi's D row-major, cuBLASLt's column-major.
#include "GpuTestSupport.h"

#include <cublasLt.h>

#include <cstdio>
#include <string>

using namespace gputest;

namespace {
void cublas(cublasStatus_t s, const char *what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw mepi::Error(std::string(what) + " failed: cublasStatus " + std::to_string(int(s)));
}

int64_t maskPitch(int64_t m) { return ((m + 7) / 8 + 15) / 16 * 16; }

/// A host tensor of integers drawn uniformly from [lo, hi], exact in the 16-bit types.
HostTensor integerTensor(ElementType type, std::vector<int64_t> shape, int lo, int hi,
                         std::mt19937 &rng) {
  HostTensor t = randomTensor(type, std::move(shape), rng);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (size_t i = 0; i < t.values.size(); ++i) {
    float f = static_cast<float>(dist(rng));
    uint16_t h = type == ElementType::BF16 ? toBF16(f) : toF16(f);
    std::memcpy(&t.bytes[i * 2], &h, 2);
    t.values[i] = f;
  }
  return t;
}

std::vector<uint8_t> download(const Device &dev, const void *ptr, size_t bytes) {
  std::vector<uint8_t> host(bytes);
  cu(dev.d->cuMemcpyDtoH(host.data(), reinterpret_cast<CUdeviceptr>(ptr), bytes), "DtoH");
  return host;
}

/// cuBLASLt's D (column-major M x N) = A B^T with `epilogue`; `aux` is the ReLU mask (written by
/// RELU_AUX_BIAS, read by DRELU_BGRAD), `bias` the bias (read) or its gradient (written).
constexpr size_t kWorkspaceBytes = 32u << 20;

void cublasLtRun(cublasLtHandle_t lt, CUdeviceptr workspace, cublasLtEpilogue_t epilogue,
                 cudaDataType_t type, int64_t m, int64_t n, int64_t k, const void *a,
                 const void *b, void *d, void *aux, void *bias) {
  cublasLtMatmulDesc_t desc;
  cublas(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
  cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
  auto set = [&](cublasLtMatmulDescAttributes_t attr, const void *value, size_t size,
                 const char *what) {
    cublas(cublasLtMatmulDescSetAttribute(desc, attr, value, size), what);
  };
  set(CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT, "TRANSA");
  set(CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN, "TRANSB");
  set(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue, "EPILOGUE");
  set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias, "BIAS_POINTER");
  set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &type, sizeof type, "BIAS_DATA_TYPE");
  int64_t auxLd = maskPitch(m) * 8; // in elements: bits
  set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux, "AUX_POINTER");
  set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &auxLd, sizeof auxLd, "AUX_LD");
  cublasLtMatrixLayout_t la, lb, ld;
  cublas(cublasLtMatrixLayoutCreate(&la, type, k, m, k), "layout A");
  cublas(cublasLtMatrixLayoutCreate(&lb, type, k, n, k), "layout B");
  cublas(cublasLtMatrixLayoutCreate(&ld, type, m, n, m), "layout D");
  cublasLtMatmulPreference_t pref;
  cublas(cublasLtMatmulPreferenceCreate(&pref), "PreferenceCreate");
  size_t maxWorkspace = kWorkspaceBytes; // the bias-gradient epilogs need one
  cublas(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                              &maxWorkspace, sizeof maxWorkspace),
         "workspace preference");
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  cublas(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &heuristic, &found),
         "AlgoGetHeuristic");
  if (!found)
    throw mepi::Error("cuBLASLt has no algorithm for this problem");
  float alpha = 1.0f, beta = 0.0f;
  cublas(cublasLtMatmul(lt, desc, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &heuristic.algo,
                        reinterpret_cast<void *>(workspace), kWorkspaceBytes, nullptr),
         "cublasLtMatmul");
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(desc);
}

/// Mismatches between mepi's row-major D and cuBLASLt's column-major one.
int64_t compareD(const std::vector<uint8_t> &mepiD, const std::vector<uint8_t> &refD, int64_t m,
                 int64_t n, std::string &first) {
  int64_t bad = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (std::memcmp(&mepiD[(i * n + j) * 2], &refD[(j * m + i) * 2], 2) != 0 && bad++ == 0)
        first = "D(" + std::to_string(i) + "," + std::to_string(j) + ")";
  return bad;
}

/// Mask bits of rows < M that differ; `ones` counts mepi's set bits. `first` names the first
/// difference and how many were set only in x (mepi) and only in y (cuBLASLt).
int64_t compareMasks(const std::vector<uint8_t> &x, const std::vector<uint8_t> &y, int64_t m,
                     int64_t n, int64_t &ones, std::string &first) {
  int64_t bad = 0, onlyX = 0, pitch = maskPitch(m);
  ones = 0;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      int bx = (x[j * pitch + i / 8] >> (i % 8)) & 1, by = (y[j * pitch + i / 8] >> (i % 8)) & 1;
      ones += bx;
      onlyX += bx && !by;
      if (bx != by && bad++ == 0)
        first = "bit (" + std::to_string(i) + "," + std::to_string(j) + ")";
    }
  first += "; set only by mepi: " + std::to_string(onlyX) +
           ", only by cuBLASLt: " + std::to_string(bad - onlyX);
  return bad;
}

struct Shape {
  int64_t m, n, k;
};

/// One shape and dtype; returns "" or what differed.
std::string runCase(const Device &dev, cublasLtHandle_t lt, CUdeviceptr workspace,
                    ElementType type, Shape s,
                    std::mt19937 &rng, std::string &summary) {
  const CudaDriver &d = *dev.d;
  DeviceArena arena(d);
  int64_t m = s.m, n = s.n, k = s.k, pitch = maskPitch(m);
  cudaDataType_t cudaType = type == ElementType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
  HostTensor a = integerTensor(type, {m, k}, -1, 1, rng);
  HostTensor b = integerTensor(type, {n, k}, -1, 1, rng);
  HostTensor bias = integerTensor(type, {m}, -2, 2, rng);
  mepi::Tensor aT = arena.toDevice(a), bT = arena.toDevice(b), biasT = arena.toDevice(bias);
  // cuBLASLt's outputs (the mask poisoned, so that unwritten bits show).
  HostTensor scratch = randomTensor(type, {m, n}, rng);
  mepi::Tensor refD = arena.toDevice(scratch), refD2 = arena.toDevice(scratch);
  HostTensor maskHost;
  maskHost.layout = {ElementType::U8, {pitch, n}, {1, pitch}};
  maskHost.bytes.assign(pitch * n, 0xA5);
  maskHost.values.assign(pitch * n, 0);
  mepi::Tensor refMask = arena.toDevice(maskHost);
  mepi::Tensor refGrad = arena.toDevice(randomTensor(type, {m}, rng));

  // 1. Forward: RELU_AUX_BIAS in both.
  mepi::Matmul forward(aT, bT, std::nullopt, 1.0f, std::nullopt, mepi::Qualifiers{false, true});
  mepi::EpilogInputs biasInput;
  biasInput.bias = biasT;
  forward.plan(mepi::Epilog::ReluAuxBias, biasInput);
  summary = forward.kernelConfiguration();
  mepi::Tensor mepiD = forward.execute();
  const mepi::Tensor &mepiMask = forward.auxOutputs().at("relu_aux");
  cublasLtRun(lt, workspace, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, cudaType, m, n, k, aT.data, bT.data,
              refD.data, refMask.data, biasT.data);
  cu(d.cuCtxSynchronize(), "forward");
  std::string first;
  int64_t ones = 0;
  int64_t badD = compareD(download(dev, mepiD.data, m * n * 2), download(dev, refD.data, m * n * 2),
                          m, n, first);
  if (badD)
    return "RELU_AUX_BIAS: " + std::to_string(badD) + " elements of D differ, first " + first;
  std::vector<uint8_t> maskA = download(dev, mepiMask.data, pitch * n);
  std::vector<uint8_t> maskB = download(dev, refMask.data, pitch * n);
  if (int64_t bad = compareMasks(maskA, maskB, m, n, ones, first))
    return "RELU_AUX_BIAS: " + std::to_string(bad) + " mask bits differ, first " + first;
  // Exact zeros make x > 0 and x >= 0 differ: count them so that the check is known to bite.
  int64_t zeros = 0;
  std::vector<uint8_t> dHost = download(dev, mepiD.data, m * n * 2);
  for (int64_t i = 0; i < m * n; ++i)
    zeros += dHost[2 * i] == 0 && dHost[2 * i + 1] == 0;
  summary += " mask ones=" + std::to_string(ones) + " of " + std::to_string(m * n) +
             ", D zeros=" + std::to_string(zeros);

  // 2. Backward: DRELU_BGRAD, each with the other's mask (the same bits, checked above, but
  // separate buffers: each library reads what the other wrote).
  mepi::Matmul backward(aT, bT, std::nullopt, 1.0f, std::nullopt, mepi::Qualifiers{false, true});
  mepi::EpilogInputs maskInput;
  maskInput.reluAux = refMask;
  backward.plan(mepi::Epilog::DReluBGrad, maskInput);
  mepi::Tensor mepiDx = backward.execute();
  const mepi::Tensor &mepiGrad = backward.auxOutputs().at("drelu_bgrad");
  cublasLtRun(lt, workspace, CUBLASLT_EPILOGUE_DRELU_BGRAD, cudaType, m, n, k, aT.data, bT.data,
              refD2.data, mepiMask.data, refGrad.data);
  cu(d.cuCtxSynchronize(), "backward");
  badD = compareD(download(dev, mepiDx.data, m * n * 2), download(dev, refD2.data, m * n * 2), m,
                  n, first);
  if (badD)
    return "DRELU_BGRAD: " + std::to_string(badD) + " elements of D differ, first " + first;
  std::vector<uint8_t> gradA = download(dev, mepiGrad.data, m * 2);
  std::vector<uint8_t> gradB = download(dev, refGrad.data, m * 2);
  for (int64_t i = 0; i < m; ++i)
    if (std::memcmp(&gradA[2 * i], &gradB[2 * i], 2) != 0) {
      char why[160];
      std::snprintf(why, sizeof why, "DRELU_BGRAD: bias gradient %lld differs: mepi %g, cuBLASLt %g",
                    (long long)i, readDevice(gradA, type, i), readDevice(gradB, type, i));
      return why;
    }
  return "";
}
} // namespace

int main() {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver) {
    std::printf("mepi-cublaslt-interop needs a GPU: %s\n",
                llvm::toString(driver.takeError()).c_str());
    return 1;
  }
  Device dev{&*driver, nullptr};
  CUdevice device;
  char name[256] = {0};
  try {
    cu(driver->cuDeviceGet(&device, 0), "cuDeviceGet");
    cu(driver->cuDevicePrimaryCtxRetain(&dev.ctx, device), "cuDevicePrimaryCtxRetain");
    cu(driver->cuCtxSetCurrent(dev.ctx), "cuCtxSetCurrent");
  } catch (const mepi::Error &e) {
    std::printf("%s\n", e.what());
    return 1;
  }
  driver->cuDeviceGetName(name, sizeof name, device);
  std::printf("device: %s\n", name);
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasLtCreate failed\n");
    return 1;
  }
  CUdeviceptr workspace = 0;
  cu(driver->cuMemAlloc(&workspace, kWorkspaceBytes), "cuMemAlloc(workspace)");
  std::mt19937 rng(20261122);
  // Odd M and N (a partial mask byte, partial tiles); |D| <= K + 2 stays an exact bf16
  // integer (<= 256) for K <= 254, which the backward comparison needs. 13 and 29 rows take the
  // swapped form (Dᵀ = B Aᵀ), whose mask bytes are ORed across a quad of lanes.
  const Shape shapes[] = {{777, 1001, 200}, {100, 30, 64}, {1000, 520, 248}, {257, 131, 96},
                          {13, 300, 200},   {29, 1001, 96}};
  int passed = 0, failed = 0;
  for (ElementType type : {ElementType::BF16, ElementType::F16})
    for (Shape s : shapes) {
      std::string summary, why;
      try {
        why = runCase(dev, lt, workspace, type, s, rng, summary);
      } catch (const mepi::Error &e) {
        why = std::string("error: ") + e.what();
      }
      bool ok = why.empty();
      (ok ? passed : failed)++;
      std::printf("%s interop %s %lldx%lldx%lld %s%s%s\n", ok ? "PASS" : "FAIL",
                  type == ElementType::BF16 ? "bf16" : "fp16", (long long)s.m, (long long)s.n,
                  (long long)s.k, summary.c_str(), ok ? "" : "  ", why.c_str());
      std::fflush(stdout);
    }
  std::printf("%d passed, %d failed\n", passed, failed);
  cublasLtDestroy(lt);
  driver->cuMemFree(workspace);
  return failed == 0 ? 0 : 1;
}
