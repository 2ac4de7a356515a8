// A user epilog's column and scalar reductions in a distributed matmul. Each final GEMM reduces
// its block of rows of this rank's D into an f32 partial: its output in f32, written into row i
// (the i-th final GEMM) of a [GEMMs, width] matrix (Matmul::setAuxOutput). After the schedule a
// kernel combines the rows in GEMM order (sum or max, in f32, as a single GPU combines its
// tiles': Runtime/CombineRows.h); under all-reduce, where every rank holds all of D, NCCL then
// combines the ranks' f32 results (ncclSum, ncclMax) before a last pass stores the output's
// dtype. Outputs: [columns of this rank's D] or one value, in the single GPU's layout.
#ifndef MEPI_DISTRIBUTED_DISTREDUCTIONS_H
#define MEPI_DISTRIBUTED_DISTREDUCTIONS_H

#include "mepi/Matmul.h"

#include "Distributed/Group.h"
#include "Runtime/CombineRows.h"
#include "Runtime/CudaDriver.h"

#include <map>
#include <string>
#include <vector>

namespace mepi::dist::detail {

class DistReductions {
public:
  /// For `finalGemms` GEMMs of this rank's D of `cols` columns, replicated on every rank
  /// (all-reduce) or not; forgets the last plan's outputs (release() frees them).
  void reset(int64_t cols, int finalGemms, bool replicated);
  /// A user epilog output to combine if it is a column or scalar reduction; false otherwise.
  bool declare(const UserEpilogOutput &out);
  bool empty() const { return outputs.empty(); }
  /// The final GEMMs' epilog: the declared outputs in f32.
  UserEpilog widened(UserEpilog epilog) const;
  /// Allocates the partials and results and loads the kernels for `arch` (plan time).
  void allocate(const runtime::CudaDriver &driver, int device, const std::string &arch);
  /// The `index`-th final GEMM (planned with widened()) writes its row of partials.
  void writeInPlace(mepi::Matmul &gemm, int index) const;
  /// After the schedule, on `stream`: the rows combined, then (replicated) the ranks'.
  void combine(const Group &group, CUstream stream) const;
  /// The results by key, as auxOutputs() returns them.
  void publish(std::map<std::string, Tensor> &into) const;
  /// Frees the memory and unloads the kernels (errors ignored: release paths run in
  /// destructors).
  void release(const runtime::CudaDriver &driver);

private:
  struct Output {
    std::string key;
    DType dtype;
    bool max;
    bool scalar;
    CUdeviceptr partials = 0, result = 0, f32 = 0; // f32: the combined rows (replicated)
    CUfunction toF32 = nullptr, toResult = nullptr;
    int device = 0;
  };
  int64_t width(const Output &o) const { return o.scalar ? 1 : cols; }
  /// The output's values at `at` ([cols], or rank 0 for a scalar) as a tensor of `dtype`.
  Tensor vector(const Output &o, CUdeviceptr at, DType dtype) const;
  CUfunction load(const runtime::CudaDriver &driver, runtime::CombineRows kind,
                  const std::string &arch);
  void launch(const runtime::CudaDriver &driver, CUfunction f, CUdeviceptr rows, int64_t g,
              int64_t w, CUdeviceptr result, CUstream stream) const;

  int64_t cols = 0;
  int finalGemms = 0;
  bool replicated = false;
  std::vector<Output> outputs;
  std::map<std::string, CUmodule> modules; // by the kernel's IR
};

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_DISTREDUCTIONS_H
