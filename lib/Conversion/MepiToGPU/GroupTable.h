// The group table of a grouped wgmma kernel (mepi.matmul with `groups`): where each group's
// rows and tile rows lie, worked out once per block from the groups operand (which stays on the
// device: nothing is read on the host) and read by both roles to place every work unit.
//
// Layout in shared memory (sm90::groupTableBytes), i32 entries:
//   tileStart[S + 1]: the group's first tile row among all groups' tile rows laid end to end
//                     (tileStart[S]: their total, which bounds the walk)
//   rowStart[S], rowEnd[S]: the group's rows of A and D, clamped to [0, T], end >= start
// A group of r rows has ceil(r / tile_m) tile rows; an empty group has none, so a tile row
// belongs to the last group whose tileStart is at most its index.
#ifndef MEPI_CONVERSION_MEPITOGPU_GROUPTABLE_H
#define MEPI_CONVERSION_MEPITOGPU_GROUPTABLE_H

#include "Emitter.h"
#include "mepi/IR/MepiOps.h"

namespace mlir::mepi {

/// Group `g`'s (start, end) (i32; `g` < `groups`) in `bounds`, the groups operand of `form`,
/// clamped to [0, limit] with end >= start. The lengths form gives (0, length) (its starts are
/// the sums of the lengths before: GroupTable's scan); the masked form's groups have
/// limit / groups elements each.
std::pair<Value, Value> emitGroupBounds(Emitter &e, GroupForm form, Value bounds, Value g,
                                        int64_t limit, int64_t groups);

class GroupTable {
public:
  /// The table at `base` (ptr<3>) of `op`'s groups, for tiles of `tileM` rows.
  GroupTable(MatmulOp op, Value base, int64_t tileM);

  /// Warp 0 of the block (threads `tid` < 32) fills the table from `groups` (the kernel's
  /// groups memref); the block's barrier must follow before anyone reads it.
  void emitBuild(Emitter &e, Value groups, Value tid) const;

  /// All groups' tile rows together (i32).
  Value emitTotalTileRows(Emitter &e) const;

  /// Where tile row `v` (i32, below the total) of all groups lies.
  struct Place {
    Value group;    // i32
    Value firstRow; // the tile's first row of A and D (i32)
    Value rowEnd;   // its group's end row (i32)
  };
  Place emitPlace(Emitter &e, Value v) const;

private:
  /// Group `g`'s (start, end) rows, clamped (i32; `g` < S). The lengths form gives (0, length).
  std::pair<Value, Value> emitBounds(Emitter &e, Value groups, Value g) const;
  int64_t arrayStart(int64_t array) const;
  Value emitEntry(Emitter &e, int64_t array, Value index) const;
  void emitStoreEntry(Emitter &e, int64_t array, Value index, Value value) const;

  GroupForm form;
  int64_t groups, rows, tileM;
  Value base;
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_GROUPTABLE_H
