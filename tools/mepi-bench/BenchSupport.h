// What mepi-bench's measurements share: the driver table, error checks, random device buffers,
// event timing, and a cuBLASLt matmul set up once and launched many times.
#ifndef MEPI_TOOLS_BENCHSUPPORT_H
#define MEPI_TOOLS_BENCHSUPPORT_H

#include "QueueGate.h"
#include "Runtime/CudaDriver.h"
#include "mepi/Matmul.h"

#include <cublasLt.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace bench {
struct Shape {
  int64_t m, n, k;
  const char *name;
  int64_t batch = 1;    ///< strided batch elements of A, B and D
  bool sharedB = false; ///< batched: one B for every element (numpy broadcasting, stride 0)
};

extern const mepi::runtime::CudaDriver *driver;
/// --stream: medianMs times launches back to back, as kernels that follow one another in a
/// model's stream run, rather than each between its own events.
extern bool streamTiming;

void cu(CUresult r, const char *what);
void cublas(cublasStatus_t s, const char *what);

/// A device buffer of `count` random 16-bit values in [-1, 1), filled from the host in parallel.
CUdeviceptr randomBuffer(size_t count, bool bf16, uint64_t seed);
/// The same of `count` e4m3 values.
CUdeviceptr randomFp8Buffer(size_t count, uint64_t seed);
/// The same of `count` f32 values.
CUdeviceptr randomFloatBuffer(size_t count, uint64_t seed);
/// randomFloatBuffer when `f32`, else randomBuffer.
inline CUdeviceptr randomBufferOf(size_t count, bool f32, bool bf16, uint64_t seed) {
  return f32 ? randomFloatBuffer(count, seed) : randomBuffer(count, bf16, seed);
}

/// A row-major API tensor over device memory.
mepi::Tensor deviceTensor(CUdeviceptr ptr, mepi::DType type, std::vector<int64_t> shape);

/// Median of `iterations` launches of `launch(i)`, each between two events on `stream`, all
/// queued behind a QueueGate.
/// With streamTiming, the median over three rounds of `iterations` launches between two events,
/// each round's time over its launches: the launches then overlap what they can (programmatic
/// launch), and each one's share of the events' own cost is small.
template <typename F> double medianMs(CUstream stream, int iterations, F &&launch) {
  int rounds = streamTiming ? 3 : iterations;
  std::vector<CUevent> events(2 * rounds);
  for (CUevent &e : events)
    cu(driver->cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  QueueGate gate(stream);
  for (int r = 0, i = 0; r < rounds; ++r) {
    cu(driver->cuEventRecord(events[2 * r], stream), "cuEventRecord");
    for (int j = 0; j < (streamTiming ? iterations : 1); ++j)
      launch(i++);
    cu(driver->cuEventRecord(events[2 * r + 1], stream), "cuEventRecord");
  }
  gate.release();
  cu(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
  std::vector<double> ms(rounds);
  for (int r = 0; r < rounds; ++r) {
    float t = 0;
    cu(driver->cuEventElapsedTime(&t, events[2 * r], events[2 * r + 1]), "cuEventElapsedTime");
    ms[r] = streamTiming ? t / iterations : t;
  }
  for (CUevent &e : events)
    driver->cuEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  return ms[rounds / 2];
}

/// The median time of each of `launches` over `iterations` rounds in which every one of them
/// runs once, in turn, each between two events: variants compared this way share the card's
/// clock and temperature, which drift over a run of separate measurements. `prelude`, where
/// given, is queued before each launch's first event (outside the time). Each launch is given
/// its index among all of them (round i's variant v: i * variants + v), so that launches that
/// rotate input sets by it never read the set the launch before them read: given the round
/// (before 2026-12-01), every variant after the first of a round ran on inputs the first had
/// just brought into L2.
std::vector<double> interleavedMedianMs(CUstream stream, int iterations,
                                        const std::vector<std::function<void(int)>> &launches,
                                        const std::function<void()> &prelude = {});

/// About 300 ms (100 with `quick`) of launches of `once`, timed once: at least 3, at most 50.
int calibratedIterations(CUstream stream, bool quick, const std::function<void()> &once);

/// The median time of executing `mms` in turn on `stream`, after a warm-up and calibration;
/// adds the mean host time of execute() to `hostUs` when given.
double mepiMs(std::vector<mepi::Matmul> &mms, CUstream stream, bool quick,
              double *hostUs = nullptr, int *iterations = nullptr);

/// D (column-major M x N, 16-bit) = op(A) op(B) with an epilog, through cuBLASLt: A as K x M
/// column-major (op T) or, M-major, M x K (op N); B as K x N (op N) or, N-major, N x K (op T).
struct LtMatmulSpec {
  int64_t m, n, k;
  bool bf16 = true;
  bool mMajorA = false, nMajorB = false;
  cublasLtEpilogue_t epilog = CUBLASLT_EPILOGUE_DEFAULT;
  CUdeviceptr bias = 0;  ///< the bias, or the bias gradient a backward epilog writes
  CUdeviceptr aux = 0;   ///< the epilog's aux matrix
  int64_t auxLd = 0;     ///< in elements (bits for the ReLU mask)
  bool f32 = false;      ///< f32 A, B and D (CUBLAS_COMPUTE_32F: SGEMM's precision)
  bool tf32 = false;     ///< with f32: multiplied at TF32 precision (FAST_TF32)
  int64_t batch = 1;     ///< strided batch: A, B and D elements one after the other
  bool sharedB = false;  ///< batched: B's batch stride is 0
};

class LtMatmul {
public:
  LtMatmul(cublasLtHandle_t lt, const LtMatmulSpec &spec);
  LtMatmul(const LtMatmul &) = delete;
  virtual ~LtMatmul();
  void launch(CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUstream stream);
  /// Points the epilog at another bias of the same length (a loop over groups, each with its
  /// own), for the launches after this.
  void setBias(CUdeviceptr bias);

protected:
  /// For a derived set-up (FP8): the workspace only; it creates desc and the layouts, then
  /// calls chooseAlgorithm().
  explicit LtMatmul(cublasLtHandle_t lt);
  /// cuBLASLt's first algorithm for desc and the layouts within the workspace.
  void chooseAlgorithm();
  cublasLtHandle_t lt;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic{};
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 32u << 20;
};
/// "wgmma 128x256 s4 k1" (" pp" ping-pong, " c2" cluster of 2, " c8ab" of 8 sharing both,
/// " tma" / " reg" D's stores, ...) from the configuration mepi's IR prints.
std::string shortConfig(const std::string &config);
/// `["<shortConfig>", ms], ...`: candidates and their times as the JSON lists them.
std::string candidatesJson(const std::vector<std::pair<std::string, double>> &timed);
/// Opens a set's JSON object: device, date, command, the bundle's commit (MEPI_REVISION), then
/// what its layout and numbers mean; the caller adds its own fields and "results".
void writeJsonHeader(std::ostream &json, const char *device, const char *date,
                     const std::string &command, const std::string &layout,
                     const std::string &meaning);
/// `s` with '"' and '\\' escaped, for a JSON string.
std::string jsonEscape(const std::string &s);
/// Whether a problem's label contains one of `filters` (every label without filters).
bool selectedLabel(const std::vector<std::string> &filters, const std::string &label);

} // namespace bench

#endif // MEPI_TOOLS_BENCHSUPPORT_H
