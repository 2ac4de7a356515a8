// mepi-bench --user: a user epilog (bias + GELU as MLIR text with an accurate tanh, by the
// builder with fast math, and calling external LTO-IR) fused by mepi, against the same epilog built in and against the unfused
// sequence: a cuBLASLt matmul, then a separate elementwise kernel.
#ifndef MEPI_TOOLS_USEREPILOGBENCH_H
#define MEPI_TOOLS_USEREPILOGBENCH_H

#include "BenchSupport.h"

namespace bench {
struct UserEpilogResult {
  double builtinMs = 0, mlirMs = 0, builderMs = 0, externalMs = 0; ///< mepi, fused
  double unfusedMs = 0, gemmMs = 0, fusedRefMs = 0; ///< cuBLASLt (+ the elementwise kernel)
  std::string config, error;
};

/// Measures `shape` in bf16 (A M x K, B N x K, bias length M). `elementwise` is the cubin of
/// bias_gelu.cu; `ltoir`, when not empty, the LTO-IR of user_gelu for the external variant.
UserEpilogResult measureUserEpilog(const Shape &shape, cublasLtHandle_t lt, CUstream stream,
                                   size_t l2Bytes, bool quick, CUfunction elementwise,
                                   const std::vector<char> &ltoir,
                                   const std::string &forcedConfig = {});

/// --user: measureUserEpilog on every shape but the fp16 blog problem whose label passes
/// `filters`; prints a table, writes JSON to `jsonPath` when given. `argv0` locates the
/// elementwise kernel's cubin and user_gelu.ltoir (unless `ltoirPath`). Returns the exit code.
int runUserBench(const std::vector<Shape> &shapes, cublasLtHandle_t lt, CUstream stream,
                 size_t l2Bytes, bool quick, const std::vector<std::string> &filters,
                 const std::string &forcedConfig, const std::string &ltoirPath,
                 const char *argv0, const char *device, const char *date,
                 const std::string &command, const std::string &jsonPath);
} // namespace bench

#endif // MEPI_TOOLS_USEREPILOGBENCH_H
