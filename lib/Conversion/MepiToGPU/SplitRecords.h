// Split-K and stream-K records in the workspace: each consumer thread's accumulators (and
// partial operand sums) as float4s, one record per split of a tile, and the device-scope
// counters the units count in on. SplitReduction.cpp sums them at the last arrival or a
// waiting stream-K finisher, SplitTreeSum.cpp up a tree of pairs.
#ifndef MEPI_CONVERSION_MEPITOGPU_SPLITRECORDS_H
#define MEPI_CONVERSION_MEPITOGPU_SPLITRECORDS_H

#include "Emitter.h"

namespace mlir::mepi::wgmma {

/// The address of this thread's float4 `quad` in the record of split `split` (i32).
using PartialAddress = function_ref<Value(Value split, int64_t quad)>;

/// Stores the f32 struct `acc` as float4s at `partial(split, ...)`.
void storePartials(Emitter &e, Value acc, int64_t quads, Value split, PartialAddress partial);

/// `total` (an f32 struct) plus the float4 `v` at quad `q`; where `inRange` is false (when
/// given) the quad's floats stay as they were.
Value addQuad(Emitter &e, Value total, Value v, int64_t q, Value inRange = {});

/// A relaxed device-scope load of the i32 at `counter` (ld.relaxed.gpu): a spin reads the
/// count where it lives (L2) without taking the atomic unit each time.
Value loadCount(OpBuilder &b, Location loc, Value counter);

/// The split-K units that share a tile sum their records up a binary tree of counters
/// (SplitTreeSum.cpp): returns whether this warpgroup holds the tile's whole sum (it runs the
/// epilog) and, there, the sum.
struct SplitTree {
  int64_t splits;                    ///< of the tile (static)
  Value split;                       ///< this unit's (i32)
  Value isLeader;                    ///< thread 0 of the warpgroup
  Value consumer;                    ///< the warpgroup, for its named barrier
  Value flag;                        ///< a shared i32 of the warpgroup's, to broadcast
  function_ref<Value(Value node)> counter; ///< the tile's counter of node `node` (i32)
  PartialAddress partial;
};
std::pair<Value, Value> emitTreeSum(Emitter &e, const SplitTree &t, Value acc, int64_t quads);

} // namespace mlir::mepi::wgmma

#endif
