// mepi-bench --fp8: FP8 matmuls (e4m3 x e4m3, bf16 D) of mepi against cublasLtMatmul with the
// same scaling mode, timed interleaved in one run: tensor-wise scales (device scalars sA, sB)
// with promoted sums (cuBLASLt without CUBLASLT_MATMUL_DESC_FAST_ACCUM, torch._scaled_mm's
// default) and with fast accumulation (both with it), and row-wise scales (sA [M], sB [N]:
// cuBLASLt's OUTER_VEC_32F). A [M, K] and B [N, K] K-major, as both libraries read FP8. The
// issue's shapes, the dense set's, and a seeded random sweep of shapes nobody tuned on.
#ifndef MEPI_TOOLS_FP8BENCH_H
#define MEPI_TOOLS_FP8BENCH_H

#include "BenchSupport.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bench {
struct Fp8RunOptions {
  bool quick = false;
  std::vector<std::string> filters;
  std::string forcedConfig, jsonPath, command;
  const char *device = "", *date = "";
  /// --layout nn: mepi's B given as [K, N] row-major (MN-major: copied K-major by a pre-pass
  /// each execute); cuBLASLt, which reads FP8 K-major only, keeps B [N, K].
  bool rowMajorB = false;
  /// --shape: these problems instead of the set (M, N, K multiples of 16).
  std::vector<Shape> shapes;
  /// --sweep S: the seeded sweep's unbatched shapes (Sweep.h) instead of the set.
  std::optional<uint64_t> sweepSeed;
  /// --autotune: Matmul::autotune() times every candidate (8-bit lists are not pruned) and
  /// mepi runs the fastest; the row is followed by the heuristic's choice against it.
  bool autotune = false;
};

/// Runs the FP8 set; returns the process's exit status.
int runFp8Bench(cublasLtHandle_t lt, CUstream stream, const Fp8RunOptions &options);
} // namespace bench

#endif // MEPI_TOOLS_FP8BENCH_H
