// The aux outputs of a distributed matmul (the ReLU mask, the GELU input): each final local
// GEMM writes those of its block of rows of this rank's D; they are assembled into one output
// per key in the layout a single GPU's Matmul returns (mepi/Matmul.h), column-major. Bias
// gradients: the GEMMs' vectors assembled into one (BiasGradients.h says which).
#ifndef MEPI_DISTRIBUTED_DISTAUX_H
#define MEPI_DISTRIBUTED_DISTAUX_H

#include "mepi/Matmul.h"

#include "Runtime/CudaDriver.h"

#include <map>
#include <string>

namespace mepi::dist::detail {

class DistAux {
public:
  /// For this rank's D of `rows` x `cols`, written by `finalGemms` GEMMs; frees the last
  /// plan's outputs.
  void reset(const runtime::CudaDriver &driver, int64_t rows, int64_t cols, int finalGemms);
  /// Allocates the assembled output `key` of `dtype` (plan time: an execute allocates nothing,
  /// so no rank can fail halfway through a schedule its peers are running), where more than
  /// one final GEMM writes it. The ReLU mask's padding bytes are zeroed, as a single GPU's.
  void allocate(const runtime::CudaDriver &driver, const std::string &key, DType dtype,
                int device);
  /// After a final GEMM that wrote rows [row, row + count) of D (row a multiple of 8, the
  /// mask's byte of rows, unless it is the only one): copies its aux outputs into place on
  /// `stream`. With one final GEMM its outputs are returned as they are, uncopied.
  void gather(const runtime::CudaDriver &driver, const mepi::Matmul &gemm, int64_t row,
              int64_t count, CUstream stream);
  /// Allocates the bias-gradient vector `key` of `length` values of `dtype`, of which the
  /// output is the block `mine` (plan time, like allocate()).
  void allocateVector(const runtime::CudaDriver &driver, const std::string &key, DType dtype,
                      int device, int64_t length, int64_t mineOffset, int64_t mineSize);
  /// Zeroes the vector on `stream` (before GEMMs that write only blocks of it, and an
  /// all-reduce that adds every rank's).
  void clearVector(const runtime::CudaDriver &driver, CUstream stream) const;
  /// After a GEMM that computed its block of the vector: copies it to `offset` on `stream`.
  void gatherVector(const runtime::CudaDriver &driver, const mepi::Matmul &gemm, int64_t offset,
                    CUstream stream) const;
  /// The whole vector (for the all-reduce): its memory and length.
  CUdeviceptr vectorData() const { return vector; }
  int64_t vectorLength() const { return vectorSize; }
  const std::map<std::string, Tensor> &outputs() const { return assembled; }
  /// Frees the assembled outputs (errors ignored: release paths run in destructors).
  void release(const runtime::CudaDriver &driver);

private:
  int64_t rows = 0, cols = 0;
  int finalGemms = 0;
  std::map<std::string, Tensor> assembled;
  std::map<std::string, CUdeviceptr> owned;
  std::string vectorKey;
  CUdeviceptr vector = 0;
  int64_t vectorSize = 0;
  size_t vectorElement = 0;
};

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_DISTAUX_H
