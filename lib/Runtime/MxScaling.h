// MX block scaling (MXFP8: nvmath-python's `block_scaling`, cuBLASLt's VEC32_UE8M0) on Hopper,
// which has no block-scaled MMA. Each 32 elements of K of a row of op(A) and of a column of
// op(B) carry an e8m0 scale e (the factor 2^(e - 127); 255 is NaN):
//   D = epilog(alpha * sum_k (A[m, k] 2^(ea[m, k/32] - 127)) (B[k, n] 2^(eb[n, k/32] - 127)))
// A pre-pass per operand writes each element times its factor as bf16, which holds every
// e4m3 and e5m2 value times a power of two exactly (8 exponent bits like f32, 8 significant
// bits against the fp8 types' 4 and 3) unless the product leaves bf16's range; a bf16 GEMM
// then multiplies the copies (exact products, f32 sums), as the MX MMA would.
//
// The scales come in cuBLASLt's interleaved layout (nvmath's to_block_scale): for R rows
// (M, or N for op(B)) and Kb = ceil(K / 32) blocks, tiles of 128 rows x 4 blocks (512 bytes)
// in row-tile-major order, ceil(Kb / 4) tiles per row tile, and within a tile scale (r, c) at
// (r % 32) * 16 + (r / 32) * 4 + c: mxScaleOffset.
#ifndef MEPI_RUNTIME_MXSCALING_H
#define MEPI_RUNTIME_MXSCALING_H

#include "Runtime/SplitOperand.h"

#include <cstdint>
#include <string>

namespace mepi::runtime {

inline constexpr int64_t kMxBlockElements = 32; ///< elements of K per scale
inline constexpr int64_t kMxTileRows = 128, kMxTileBlocks = 4;

inline int64_t mxBlocksK(int64_t k) { return (k + kMxBlockElements - 1) / kMxBlockElements; }
/// The bytes of an operand's scales: rows and blocks padded to whole tiles.
inline int64_t mxScaleBytes(int64_t rows, int64_t blocksK) {
  return (rows + kMxTileRows - 1) / kMxTileRows * kMxTileRows *
         ((blocksK + kMxTileBlocks - 1) / kMxTileBlocks * kMxTileBlocks);
}
/// Where scale (row, block) of an operand with `blocksK` blocks lies.
inline int64_t mxScaleOffset(int64_t row, int64_t block, int64_t blocksK) {
  int64_t tilesK = (blocksK + kMxTileBlocks - 1) / kMxTileBlocks;
  int64_t tile = row / kMxTileRows * tilesK + block / kMxTileBlocks;
  return tile * kMxTileRows * kMxTileBlocks + row % 32 * 16 + row % kMxTileRows / 32 * 4 +
         block % kMxTileBlocks;
}

/// The pre-pass's lines (SplitOperand.cpp's store loop, index values %r and %k, the 8-bit
/// element %v as i8) that define %bf, the element times its scale as bf16: the e4m3 or e5m2
/// bits decoded into f32, multiplied by the f32 power of two of scales[mxScaleOffset(r,
/// k / 32)], rounded to bf16.
std::string mxDequantizeLines(const SplitPlan &plan);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_MXSCALING_H
