// numpy.matmul's A [batch..., M, K] @ B [K, N] (B the same matrix for every batch element) as
// one GEMM of batch x M rows, the way torch.matmul runs it: where A, D (and C) step from one
// batch element to the next by whole matrices, the batched problem is the plain problem
// A' [batch * M, K] @ B, D' [batch * M, N]. The kernel then tiles the rows of all elements at
// once: no element ends in a partial tile (448 rows in 256-row tiles leave 1/8 of the tensor
// work idle per element), and the heuristic sees the one large GEMM it was tuned on.
//
// Only where every operand the epilog reads or writes follows the rows: a bias given per batch
// element ([batch..., M], merged like D), or one [M] for all elements (its batch dimensions
// absent or broadcast), which the kernel reads at the row within the element (a cyclic row
// input, MatmulProblem::cyclicBias); scalar FP8 scales, B's scale per column and max |D|. A, C
// and a bias per element need D's batch dimensions in full (a size-1 dimension that broadcasts
// would merge into fewer rows). Epilogs that write aux matrices (cuBLASLt's column-major
// layouts), sum operands or read the row index (user epilogs) keep the batch.
//
// And only where each element's rows end in a partial tile of kWholeTileRows: where they fill
// whole 128-row tiles, the batched kernel's tiles are the folded one's, and the batched
// heuristic's choices, fitted on batched problems, stand. Against keeping the batch (H200,
// 2026-12-01, `fold-ab.log`, bf16 DEFAULT, A B B A by process): 71 x 448 x 128 x 2752 1.48x,
// 105 x 448 x 3392 x 2240 1.28x, rows of 192, 832 and 1856 within 3 % either way (832's folded
// 81536 x 128 went to 256 x 128, 0.95x, before narrowPingpong); but 16 x 1024^3 and
// 8 x 2048 x 4096 x 1024, whose rows fill whole tiles, ran 0.96x: the dense heuristic gives
// their folded shapes 256 x 128 where the batched one gives ping-pong 128 x 128.
#ifndef MEPI_RUNTIME_FOLDBATCH_H
#define MEPI_RUNTIME_FOLDBATCH_H

#include "Runtime/Problem.h"

#include <optional>

namespace mepi::runtime {

/// Rows per element that fill whole tiles of the many-tile forms (128 and 64 rows; 256-row tiles
/// at 256): such elements keep the batch.
inline constexpr int64_t kWholeTileRows = 128;

/// `problem` with its batch dimensions folded into the rows of A, D and C, or nullopt where it
/// has none to fold or cannot be folded (see above). The data pointers are unchanged: the
/// folded layouts describe the same memory.
std::optional<MatmulProblem> foldedBatch(const MatmulProblem &problem);

/// `layout` with its leading `count` + 1 dimensions merged into one, where each of those steps
/// over whole instances of the ones inside it (stride[i] = shape[i + 1] * ... * shape[count] *
/// stride[count]; a dimension of size 1 may have any stride); nullopt otherwise.
std::optional<OperandLayout> mergedLeading(const OperandLayout &layout, size_t count);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_FOLDBATCH_H
