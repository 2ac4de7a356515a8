// The aux outputs of a distributed matmul (the ReLU mask, the GELU input, a user epilog's
// matrices, bitmasks and row reductions): each final local GEMM writes those of its block of
// rows of this rank's D straight into one output per key, in the layout a single GPU's Matmul
// returns (mepi/Matmul.h): Matmul::setAuxOutput with a block of it, the column-major ones with
// Options::auxLeadingDimension (copying the blocks into place cost GELU_AUX_BIAS's all-gather
// 0.08-0.16 of its efficiency on 2x H200, bench/NOTES.md). Under all-reduce, where D is
// replicated, each rank's final GEMMs write only some of D's rows: the outputs are then
// symmetric buffers, and each block goes to every peer's too (pushTo), beside D's rows. Bias
// gradients: the GEMMs' vectors assembled into one (BiasGradients.h says which).
#ifndef MEPI_DISTRIBUTED_DISTAUX_H
#define MEPI_DISTRIBUTED_DISTAUX_H

#include "mepi/Matmul.h"

#include "Distributed/PeerMemory.h"
#include "Runtime/CudaDriver.h"

#include <map>
#include <string>
#include <vector>

namespace mepi::dist::detail {

/// How an aux output of a D of rows x cols is laid out, and so how a block of rows lands in it.
enum class AuxLayout {
  Mask,        ///< cuBLASLt's ReLU mask: bytes of 8 rows, ceil(rows / 8) rounded up to 16 a
               ///< column, column-major (blocks start at multiples of 8 rows)
  ColumnMajor, ///< the GELU input: rows rounded up to 8 a column, column-major
  RowMajor,    ///< a user epilog's matrix: [rows, cols] row-major
  Rows,        ///< a user epilog's row reduction: one value per row
};

class DistAux {
public:
  /// For this rank's D of `rows` x `cols`, written by `finalGemms` GEMMs here and, where
  /// `replicated`, by the peers' too; forgets the last plan's outputs (release() frees them).
  void reset(int64_t rows, int64_t cols, int finalGemms, bool replicated);
  /// Output `key` will be assembled (plan time, before the allocations).
  void declare(const std::string &key, DType dtype, AuxLayout layout);
  /// Allocates the declared outputs that only this rank writes, where more than one final GEMM
  /// writes them (plan time: an execute allocates nothing, so no rank can fail halfway through
  /// a schedule its peers are running). The ReLU mask's padding bytes are zeroed, as a single
  /// GPU's.
  void allocateLocal(const runtime::CudaDriver &driver, int device);
  /// Collective: the replicated outputs as symmetric buffers (zeroed), in declaration order.
  void allocateShared(const Group &group);
  /// Options::auxLeadingDimension of the final GEMMs: the assembled column-major output's
  /// column stride in rows (0 where none is assembled).
  int64_t leadingDimension() const;
  /// A planned final GEMM that writes rows [row, row + count) of D (row a multiple of 128
  /// where a column-major output is assembled, unless it is the only one) writes its aux
  /// outputs into their blocks of the assembled ones.
  void writeInPlace(mepi::Matmul &gemm, int64_t row, int64_t count) const;
  /// After the only final GEMM (not replicated): its outputs are returned as they are.
  void gather(const mepi::Matmul &gemm);
  /// The same block into `peer`'s outputs (replicated only), on `stream`.
  void pushTo(const runtime::CudaDriver &driver, const mepi::Matmul &gemm, int64_t row,
              int64_t count, int peer, CUstream stream) const;
  bool replicates() const { return replicated && !declared.empty(); }
  /// The symmetric buffers, for the collective release (PeerMemory.h).
  std::vector<SymmetricBuffer *> sharedBuffers();

  /// Allocates the bias-gradient vector `key` of `length` values of `dtype`, of which the
  /// output is the block `mine` (plan time, like allocateLocal()).
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
  /// The outputs returned, for others made elsewhere (DistReductions.h) to join.
  std::map<std::string, Tensor> &published() { return assembled; }
  /// Frees what only this rank holds (errors ignored: release paths run in destructors); the
  /// symmetric buffers are released collectively through sharedBuffers().
  void release(const runtime::CudaDriver &driver);

private:
  struct Declared {
    std::string key;
    DType dtype;
    AuxLayout layout;
  };
  /// The output's height (its leading extent: rows, mask bytes or padded rows) and its bytes.
  int64_t height(AuxLayout layout) const;
  /// Where the block of D's rows from `row` starts in an output of `layout`, in elements.
  int64_t rowOffset(AuxLayout layout, int64_t row) const;
  size_t bytes(const Declared &d) const;
  Tensor wholeAt(const Declared &d, CUdeviceptr memory, int device) const;
  /// Rows [row, row + count) of the assembled output `d`, as a GEMM of those rows writes them.
  Tensor block(const Declared &d, int64_t row, int64_t count) const;
  bool assembles() const { return replicated || finalGemms > 1; }
  /// Copies the block of `piece` into the output `d` starting at `base`.
  void place(const runtime::CudaDriver &driver, const Declared &d, const Tensor &piece,
             int64_t row, int64_t count, CUdeviceptr base, CUstream stream) const;
  const Tensor &pieceOf(const mepi::Matmul &gemm, const Declared &d) const;

  int64_t rows = 0, cols = 0;
  int finalGemms = 0;
  bool replicated = false;
  std::vector<Declared> declared;
  std::map<std::string, Tensor> assembled;
  std::map<std::string, CUdeviceptr> owned;
  std::map<std::string, SymmetricBuffer> shared;
  std::string vectorKey;
  CUdeviceptr vector = 0;
  int64_t vectorSize = 0;
  size_t vectorElement = 0;
};

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_DISTAUX_H
