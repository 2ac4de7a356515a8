// User epilogs on a distributed matmul's local GEMMs (dist::Matmul::plan(UserEpilog)).
//
// The epilog applies where the built-in ones do: to every GEMM of the all-gathers, and to the
// GEMM that completes each reduction. Each such GEMM writes a block of rows of this rank's D;
// its epilog is a wrapper that calls the user's function with the row and column of this
// rank's D (not of the block) and reads the inputs at those rows, so the function sees what it
// would on a single GPU whose D were this rank's part.
#ifndef MEPI_DISTRIBUTED_DISTUSEREPILOG_H
#define MEPI_DISTRIBUTED_DISTUSEREPILOG_H

#include "Distributed/DistAux.h"
#include "Distributed/DistPlan.h"
#include "Distributed/DistReductions.h"

#include "mepi/Matmul.h"

#include <cstdint>
#include <vector>

namespace mepi::dist::detail {

struct DistUserEpilog {
  UserEpilog epilog;
  std::vector<UserEpilogInput> inputs;

  /// Throws inputs that are not this rank's: row and matrix inputs must cover the `rows` of
  /// its D, matrix and column inputs its `cols`, scalars be rank 0.
  void check(int64_t rows, int64_t cols) const;
  /// Whether an output is a bitmask (whose blocks of rows start at multiples of 8).
  bool writesBitmask() const;
  /// Its outputs: those assembled from the final GEMMs' blocks of rows, and the column and
  /// scalar reductions combined from their partials.
  void declareOutputs(DistAux &aux, DistReductions &reductions) const;
  /// What every rank must give alike: a hash of the text, the function and the inputs'
  /// kinds and dtypes, and the outputs.
  int64_t fingerprint() const;
  /// The epilog of a GEMM writing `d` (a block of this rank's D, of dtype `dType`): the
  /// wrapper, which offsets the indices by the block's place.
  UserEpilog forBlock(const plan::View &d, DType dType) const;
  /// The inputs of that GEMM: row and matrix inputs from the block's first row.
  std::vector<UserEpilogInput> inputsForBlock(const plan::View &d) const;
};

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_DISTUSEREPILOG_H
