// Grouped kernels: the 64-row slices of a tile that lie wholly past its group's end. A group's
// last tile holds on average half a tile of the next group's rows (or of none), which the
// kernel must not store; a slice with none of its own rows skips its epilog. Its wgmmas still
// run: a consumer that skipped them (bfcd2fa) finished such tiles early, which drew the blocks'
// statically assigned units out of step and cost L2 reuse (Mixtral up read 5.1 GB from DRAM
// instead of 3.3, bench/NOTES.md), more than the skipped wgmmas saved.
#include "WgmmaKernelGenerator.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::wgmma {

/// Whether `slice` (i32, of the tile's slices) of `unit` has rows of its group (i1); null where
/// every slice has (not grouped by rows).
Value WgmmaKernelGenerator::emitSliceHasRows(Emitter &e, const WorkUnit &unit,
                                             Value slice) const {
  if (!unit.rowEnd)
    return {};
  Value first = e.add(unit.firstRow(e, config.getTileM()), e.mul(slice, e.i32(sm90::kSliceRows)));
  return e.ult(first, unit.rowEnd);
}

} // namespace mlir::mepi::wgmma
