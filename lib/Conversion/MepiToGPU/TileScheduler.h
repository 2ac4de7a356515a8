// The tile scheduler of the wgmma kernels: how a persistent grid's blocks (or clusters) walk the
// work units of a problem, the same walk in the producer and the consumers. A work unit is a
// tile of one batch element of D (batched problems: each element's units in turn), in a grouped
// order that keeps concurrently running blocks on shared operand rows in L2; with split-K a
// tile's slice of the k-steps; with stream-K the last wave's k-steps cut into one even range
// per walker, or each of its units into pieces of its own (see WgmmaKernel.cpp's header for
// the full rules). Its sizes are Sm90Spec's.
#ifndef MEPI_CONVERSION_MEPITOGPU_TILESCHEDULER_H
#define MEPI_CONVERSION_MEPITOGPU_TILESCHEDULER_H

#include "Emitter.h"
#include "GroupTable.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <functional>
#include <optional>

namespace mlir::mepi {

/// a / b and a % b (u32; 0 < b, a < 2^22) by the approximate reciprocal and a correction each
/// way (its error is under one there). ptxas makes a u32 division by a runtime value a
/// subroutine, and under nvJitLink a call anywhere in the kernel serializes all of its wgmmas
/// (C7509, bench/NOTES.md). A constant `b` divides as integers (a multiply and shifts, which
/// stay on the uniform datapath where `a` is uniform).
std::pair<Value, Value> emitDivRem(Emitter &e, Value a, Value b);

/// Block `rank`'s tile row and column in its cluster's unit (Sm90Spec::clusterRows): (rank %
/// rows, rank / rows), i32 (constants 0 along a dimension without a cluster).
std::pair<Value, Value> emitClusterPosition(Emitter &e, KernelConfigAttr config, Value rank);

class TileScheduler {
public:
  /// `rank`: the block's rank in its cluster (i32; 0 without one).
  TileScheduler(const Sm90Spec &spec, Value rank) : spec(spec), rank(rank) {}
  /// Grouped: the walk covers the tile rows of every group (`table`), in group order.
  void setGroups(const GroupTable &table) { groups = table; }
  /// Grouped along K: batch element g's k-steps are those of group g of `bounds` (the groups
  /// operand, ends or indptr over K).
  void setKGroups(GroupForm form, Value bounds) { kGroups = KGroups{form, bounds}; }

  /// Stream-K: how this walker covers the units. All i32.
  struct StreamKWalk {
    Value walker, grid;    // w and G (at most the units and the records' blocks)
    Value wholeUnits;      // the unit loop's first iterations, whole units: U / G
    Value firstShared;     // the first unit cut into ranges: wholeUnits * G
    Value walkers;         // the walkers with a range (G, or fewer where the ranges are short)
    Value share, extra;    // k-steps per range: share, one more for the first `extra` ranges
    Value begin, end;      // this walker's range of the shared units' k-steps, end to end
    Value firstUnit;       // the shared unit where its range begins (begin / kSteps)
    Value iterations;      // the unit loop's trip count
    /// Where the walkers are known when the kernel is generated (Sm90Spec::fixedStreamKWalkers):
    /// G, U / G, G', share and extra as constants. `pieces` > 0: each shared unit is cut into
    /// that many ranges of its own (G' = pieces x the shared units; a range never crosses into
    /// a second unit), the unit's k-steps `kSteps`.
    struct Fixed {
      int64_t grid = 0, wholeUnits = 0, walkers = 0, share = 0, extra = 0;
      int64_t kSteps = 0, pieces = 0;
    };
    std::optional<Fixed> fixed;
  };
  StreamKWalk emitStreamKWalk(Emitter &e) const;
  /// The walk of `f`'s constants for walker `walker`.
  StreamKWalk emitFixedStreamKWalk(Emitter &e, const StreamKWalk::Fixed &f, Value walker) const;

  /// A work unit's tile and k-steps [kBegin, kEnd); `inside`: the tile has elements of D
  /// (false only for the second tile of a cluster's pair below D, or right of it).
  /// Split-K and stream-K units: `split` of `splits` (i32, 1 where the unit is whole) and the
  /// counter slot of their reduction (the tile, or the first walker's block).
  /// Batched: `batch` is D's batch element (i32; null when unbatched), `tile` the tile within it.
  /// Grouped: `group` is the tile's group, `groupRow` its first row and `rowEnd` its group's
  /// end (i32; null otherwise), `tileRow` its index among all groups' tile rows.
  /// Grouped along K: `kStart` and `kStop` bound the group's elements of K (i32; null
  /// otherwise); the k-steps [kBegin, kEnd) cover them, none for an empty group.
  struct WorkUnit {
    Value batch, tile, split, splits, slot, tileRow, tileCol, kBegin, kEnd, inside;
    Value group, groupRow, rowEnd;
    Value kStart, kStop;
    std::function<Value(Value)> record; // which record holds split j (i32) of the workspace's
    /// The tile's first row of A and D.
    Value firstRow(Emitter &e, int64_t tileM) const {
      return groupRow ? groupRow : e.mul(tileRow, e.i32(tileM));
    }
  };
  /// Unit `unit` of the walk: iteration `unit` of the walker's loop with stream-K (`walk`).
  WorkUnit emitWorkUnit(Emitter &e, Value unit, const StreamKWalk *walk) const;
  /// The k-steps of unit `unit` (i32; past the last unit, the last unit's), whole units.
  Value emitUnitKSteps(Emitter &e, Value unit) const;

  /// The for loop over this block's work units carrying the stage counter (starting at `init`,
  /// 0 if null): blockIdx.x + skip * gridDim.x, then every `stride`-th of the block's units;
  /// the builder is left in its body.
  scf::ForOp emitUnitLoop(Emitter &e, const StreamKWalk *walk, Value skip = {},
                          int64_t stride = 1, Value init = {}) const;

  /// How many walk the work units side by side: the blocks of the grid, or its clusters.
  Value emitWalkers(Emitter &e) const;
  /// The block that walks units beside the others: its cluster, or itself.
  Value emitWalker(Emitter &e) const;

private:
  int64_t cluster() const { return spec.getConfig().getMainloop().getCluster(); }
  /// This walker's range of the shared k-steps and its unit loop's trip count, from the walk's
  /// kernel-wide values.
  void emitWalkerRange(Emitter &e, StreamKWalk &s) const;
  /// Where walker `w`'s range starts among the shared units' k-steps.
  static Value emitRangeStart(Emitter &e, const StreamKWalk &s, Value w);
  /// The walker whose range holds shared k-step `p` (its inverse).
  static Value emitWalkerOf(Emitter &e, const StreamKWalk &s, Value p);
  /// Stream-K's part of a unit: its tile, k-steps, splits and records.
  void emitStreamKUnit(Emitter &e, Value unit, const StreamKWalk &s, WorkUnit &w) const;
  /// The grouped order: the unit's tile row and column.
  void emitTilePosition(Emitter &e, WorkUnit &w) const;
  /// The same order over the tile rows of all groups (their count known in the kernel only),
  /// then the tile's group and rows.
  void emitGroupedTilePosition(Emitter &e, WorkUnit &w) const;

  /// Grouped: a tile row's units (its tile columns, or their clusters along N).
  int64_t groupedUnitColumns() const;

  /// Grouped along K: the unit's k-steps, those of its batch element's group.
  void emitGroupKSteps(Emitter &e, WorkUnit &w) const;

  const Sm90Spec &spec;
  Value rank;
  std::optional<GroupTable> groups;
  struct KGroups {
    GroupForm form;
    Value bounds;
  };
  std::optional<KGroups> kGroups;
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_TILESCHEDULER_H
