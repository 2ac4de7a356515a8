// The block scaling of FP8 operands (mepi.matmul's block_scales), in plain C++ for the
// dialect, the generator and the runtime alike.
#ifndef MEPI_IR_BLOCKSCALING_H
#define MEPI_IR_BLOCKSCALING_H

#include <cstdint>

namespace mlir::mepi {
/// Elements of K that one pair of block scale factors covers (DeepSeek-V3's 1 x 128 blocks of
/// A and 128 x 128 of B, cuBLASLt's VEC128_32F / BLK128x128_32F), and columns of D that one
/// factor of B covers.
inline constexpr int64_t kScaleBlockElements = 128;
} // namespace mlir::mepi

#endif // MEPI_IR_BLOCKSCALING_H
