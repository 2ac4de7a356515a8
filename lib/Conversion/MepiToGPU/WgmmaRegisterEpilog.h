// The wgmma epilogs that take D from the accumulator registers, for epilogs that write D only:
//   - store = registers: each thread stores its pairs of elements straight to D;
//   - store = tma: the consumer writes its values into a swizzled shared buffer a 128-byte
//     line of the slice's rows at a time, and one thread hands each line to a TMA store
//     (two buffers per consumer warpgroup, alternating); where TMA cannot address D's rows,
//     the consumer's threads store the line themselves.
// Both walk the registers 8 columns at a time in the wgmma fragment layout (DESIGN §5).
#ifndef MEPI_CONVERSION_MEPITOGPU_WGMMAREGISTEREPILOG_H
#define MEPI_CONVERSION_MEPITOGPU_WGMMAREGISTEREPILOG_H

#include "WgmmaEpilogFrame.h"

namespace mlir::mepi {

/// The epilog of one 64-row slice for f.store registers or tma: `rowBase`, `colBase` are the
/// slice's first row and column of D, `fragmentRow`, `fragmentCol` the thread's first row and
/// column in the slice.
void emitRegisterEpilog(Emitter &e, MatmulOp op, const IRMapping &operands,
                        const WgmmaEpilogFrame &f, Value acc, Value rowBase, Value colBase,
                        Value fragmentRow, Value fragmentCol);

/// The swapped form's epilog (Dᵀ = B Aᵀ): `acc` holds consumer `consumer`'s 64 x tile_m
/// block of Dᵀ, i.e. D rows tileRow * tileM + [0, tileM) by 64 columns from tileCol * tileN +
/// 64 * consumer. Element by element (D is short: M <= 64), any element-wise epilog with
/// matrix or bitmask aux outputs (a bitmask byte's 8 rows are one quad's, ORed by shuffles).
void emitTransposedEpilog(Emitter &e, MatmulOp op, const IRMapping &operands, int64_t m,
                          int64_t n, int64_t tileM, int64_t tileN, Value acc, Value tileRow,
                          Value tileCol, Value tid, Value consumer);

/// The swapped form with store = tma: the consumer's 64 columns of the tile's rows through the
/// epilog into its two TMA store buffers, up to 64 rows at a time (stmatrix.trans turns the
/// fragments of Dᵀ into rows of D), each chunk stored in boxes of `boxRows` rows
/// (Sm90Spec::dStoreBoxRows), so that no box reaches the next tile row. Epilogs that write D
/// only, a 16-bit D, tile_m a multiple of 16.
void emitTransposedTmaStores(Emitter &e, MatmulOp op, const IRMapping &operands,
                             const WgmmaEpilogFrame &f, Value acc, Value tileRow, Value tileCol,
                             int64_t boxRows);

/// Before a consumer warpgroup leaves: its issuing thread (of thread index `tid` in the
/// block) waits until its TMA stores of D are complete.
void emitTmaStoresDrained(Emitter &e, Value tid);

/// The byte offset of byte `byte` (i32) of row `row` (i32) in a TMA store buffer, in the
/// 128-byte swizzle the D tensor map declares.
Value swizzledOffset(Emitter &e, Value row, Value byte);

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_WGMMAREGISTEREPILOG_H
