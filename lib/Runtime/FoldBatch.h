// numpy.matmul's A [batch..., M, K] @ B [K, N] (B the same matrix for every batch element) as
// one GEMM of batch x M rows, the way torch.matmul runs it: where A, D (and C) step from one
// batch element to the next by whole matrices, the batched problem is the plain problem
// A' [batch * M, K] @ B, D' [batch * M, N]. The kernel then tiles the rows of all elements at
// once: no element ends in a partial tile (448 rows in 256-row tiles leave 1/8 of the tensor
// work idle per element), and the heuristic sees the one large GEMM it was tuned on.
//
// Only where every operand the epilog reads or writes follows the rows the same way: a bias
// given per batch element ([batch..., M]; one [M] for all elements would need the row within
// its element), scalar FP8 scales and max |D|. Epilogs that write aux matrices (cuBLASLt's
// column-major layouts), sum operands or read the row index (user epilogs) keep the batch.
#ifndef MEPI_RUNTIME_FOLDBATCH_H
#define MEPI_RUNTIME_FOLDBATCH_H

#include "Runtime/Problem.h"

#include <optional>

namespace mepi::runtime {

/// `problem` with its batch dimensions folded into the rows of A, D and C, or nullopt where it
/// has none to fold or cannot be folded (see above). The data pointers are unchanged: the
/// folded layouts describe the same memory.
std::optional<MatmulProblem> foldedBatch(const MatmulProblem &problem);

/// `layout` with its leading `count` + 1 dimensions merged into one, where each of those but the
/// last steps over whole instances of the next (stride[i] = shape[i + 1] * stride[i + 1]; a
/// dimension of size 1 may have any stride); nullopt otherwise.
std::optional<OperandLayout> mergedLeading(const OperandLayout &layout, size_t count);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_FOLDBATCH_H
