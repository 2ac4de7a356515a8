// The wgmma accumulator fragment layout (DESIGN §5), defined once: register r of lane l in
// warp w of a consumer warpgroup holds row 16w + l/4 + 8((r/2)%2) and column 8(r/4) + 2(l%4) +
// r%2 of its 64-row slice.
#ifndef MEPI_CONVERSION_MEPITOGPU_WGMMAFRAGMENT_H
#define MEPI_CONVERSION_MEPITOGPU_WGMMAFRAGMENT_H

#include "Emitter.h"

namespace mlir::mepi::fragment {

/// Rows a thread holds in a slice: its first row and that row + 8.
constexpr int64_t kRowHalves = 2;
/// Which of the thread's two rows register `r` is (0 or 1).
constexpr int64_t rowHalf(int64_t r) { return (r / 2) % 2; }
/// Row half `h`'s row from the thread's first row.
constexpr int64_t halfRowOffset(int64_t h) { return 8 * h; }
/// Register `r`'s row and column from the thread's first row and column.
constexpr int64_t rowOffset(int64_t r) { return halfRowOffset(rowHalf(r)); }
constexpr int64_t colOffset(int64_t r) { return 8 * (r / 4) + r % 2; }

/// The thread's first row in the slice, from its index in the warpgroup (i32).
inline Value firstRow(Emitter &e, Value thread) {
  Value lane = e.rem(thread, e.i32(32)), warp = e.div(thread, e.i32(32));
  return e.add(e.mul(warp, e.i32(16)), e.div(lane, e.i32(4)));
}
/// The thread's first column in the slice (i32).
inline Value firstCol(Emitter &e, Value thread) {
  return e.mul(e.rem(thread, e.i32(4)), e.i32(2));
}

} // namespace mlir::mepi::fragment

#endif // MEPI_CONVERSION_MEPITOGPU_WGMMAFRAGMENT_H
