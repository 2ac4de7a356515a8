// The bias gradients of a distributed matmul: DRELU_BGRAD and DGELU_BGRAD (the sum of each
// row of D), BGRADA (of each row of op(A), over K) and BGRADB (of each column of op(B)).
// Host logic only: which local GEMMs compute which block of the vector, and whether the
// ranks' vectors are partial sums that an all-reduce adds.
//
// Each rank returns the vector of its D's rows (its columns for BGRADB), complete. The
// GEMMs of a plan compute sums over what they multiply: over this rank's part of K when A and
// B are split along K (reduce-scatter, all-reduce), over this rank's columns of D when D is
// split by columns (all-gather of A, reduce-scatter of columns). Such partial vectors, laid
// out over all of M or N on every rank, are summed by an all-reduce; so are the disjoint
// blocks of a replicated D (all-reduce), each rank's own rows and zeros elsewhere.
#ifndef MEPI_DISTRIBUTED_BIASGRADIENTS_H
#define MEPI_DISTRIBUTED_BIASGRADIENTS_H

#include "Distributed/DistPlan.h"

#include "mepi/Matmul.h"

#include <vector>

namespace mepi::dist::plan {

/// What a bias-gradient epilog sums.
enum class GradientSum { None, RowsOfD, RowsOfA, ColumnsOfB };
GradientSum gradientSumOf(Epilog epilog);
/// Its aux output's key, as a single GPU's Matmul names it ("drelu_bgrad", "bgrada", ...).
const char *gradientKey(Epilog epilog);

struct GradientPlan {
  GradientSum sum = GradientSum::None;
  /// Per GEMM of the plan: it carries the epilog and its vector is taken (ops(A)'s sums are
  /// the same in every GEMM that multiplies the same rows: one of them is taken).
  std::vector<bool> computes;
  /// Per GEMM: where its vector goes in the rank's vector of `length` values.
  std::vector<Range> at;
  int64_t length = 0;
  Range mine;             ///< the block of the vector this rank returns
  bool allReduce = false; ///< the ranks' vectors are added before it is returned
};

/// The plan of `sum` over `p`'s GEMMs; an error (not supported) where this rank's D rows are
/// spread over several ranks of a Summa grid row, whose sums no one collective adds.
llvm::Expected<GradientPlan> planGradient(const DistPlan &p, const Request &q,
                                          GradientSum sum);

} // namespace mepi::dist::plan

#endif // MEPI_DISTRIBUTED_BIASGRADIENTS_H
