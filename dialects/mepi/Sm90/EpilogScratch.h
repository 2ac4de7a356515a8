// The wgmma epilog's per-consumer scratch area in shared memory: what threads combine through it
// (bitmask bits, column-major aux columns, reduction values), laid out once for the generator
// (WgmmaEpilog.cpp) and for Sm90Spec's shared-memory layout.
#ifndef MEPI_SM90_EPILOGSCRATCH_H
#define MEPI_SM90_EPILOGSCRATCH_H

#include "mepi/IR/MepiOps.h"
#include "mepi/Sm90/Sm90Spec.h"

namespace mlir::mepi::sm90 {

/// Consecutive columns one thread takes through the staged epilog at a time (one float4 from
/// the staging block, one vector store of D where D's layout allows it).
constexpr int64_t kEpilogVector = 4;
/// Threads per staged row, and the steps a warpgroup takes over the 64 rows of a chunk: in step
/// s, thread t has row 16 s + t / 8 and columns 4 (t % 8) .. 4 (t % 8) + 3.
constexpr int64_t kThreadsPerRow = kChunkColumns / kEpilogVector;
constexpr int64_t kChunkSteps = kSliceRows * kThreadsPerRow / kWarpgroup;
constexpr int64_t kRowsPerStep = kWarpgroup / kThreadsPerRow;
/// Bytes per row of a bitmask flag block: 4 more than the chunk's columns, so that the packing
/// threads of 8 byte rows read distinct banks (two-way at most).
constexpr int64_t kMaskPitch = kChunkColumns + 4;

/// Whether D takes one vector store per kEpilogVector columns: row-major with N a multiple of
/// it, at an address promised aligned for it (mepi allocates D).
bool hasVectorStores(MatmulOp op);

/// A column-major matrix aux output ([rows, N], strides [1, ld], unbatched) whose columns a
/// warp can write as 16-byte vectors: ld and rows keep every 16 bytes of a column aligned, and
/// the buffer is promised 16-byte aligned (mepi allocates it). gelu_aux is one. Only with D's
/// vector stores, whose epilog path fills the block.
bool isColumnMajorAux(MatmulOp op, unsigned i);

/// Bytes per column of a column-major aux's transposing block in shared memory: 64 rows, plus
/// 16 bytes so that the 8 column groups of a warp's stores fall in different banks while each
/// column stays 16-byte aligned for the vector reads.
int64_t transposePitch(MatmulOp op, unsigned i);

/// Byte offsets inside one consumer's scratch area.
struct ScratchLayout {
  SmallVector<int64_t> masks; ///< per bitmask aux output, in aux order: 64 x kMaskPitch flags
  /// Per aux output: its transposing block (kChunkColumns x transposePitch), or -1.
  SmallVector<int64_t> transposed;
  SmallVector<int64_t> slots; ///< per reduction: f32 slots (512, or 128 for a scalar)
  int64_t flags = 0;          ///< per reduction: i32, whether this warpgroup arrived last
  int64_t bytes = 0;
  explicit ScratchLayout(MatmulOp op);
};

} // namespace mlir::mepi::sm90

#endif // MEPI_SM90_EPILOGSCRATCH_H
