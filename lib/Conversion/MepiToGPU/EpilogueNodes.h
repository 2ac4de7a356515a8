// The staged epilog's nodes (in the manner of CUTLASS's epilogue visitor trees): every output the
// epilog writes besides D is a node with hooks at the points of the staged walk over a consumer's
// 64-row slice (WgmmaEpilog.h): a matrix aux output, a bitmask aux output, and a row, column or
// scalar reduction. The walk (the D stores, the chunk copy and steps) is the driver's; a new kind
// of output is a new node, not another branch inside the walk.
//
// The walk calls the nodes in one fixed order (matrix aux outputs in aux order, then bitmask aux
// outputs in aux order, then reductions in declaration order) at each hook, so that what the
// threads combine does so in a fixed order too.
#ifndef MEPI_CONVERSION_MEPITOGPU_EPILOGUENODES_H
#define MEPI_CONVERSION_MEPITOGPU_EPILOGUENODES_H

#include "EpilogEmitter.h"
#include "WgmmaEpilogFrame.h"
#include "mepi/Sm90/EpilogScratch.h"

#include <memory>

namespace mlir::mepi {

/// What the nodes of one staged epilog share: the tile's place, the calling consumer's staging
/// block, scratch area and barrier, and the thread's position in its warpgroup.
struct StagedEpilog {
  StagedEpilog(Emitter &e, MatmulOp op, const IRMapping &operands, const WgmmaEpilogFrame &f,
               Value thread, Value tileRow, Value tileCol, Value slice, Value rowBase,
               Value colBase);

  Emitter &e;
  mutable MatmulOp op; // (op accessors are not const)
  const IRMapping &operands;
  const WgmmaEpilogFrame &f;
  sm90::ScratchLayout scratch;
  Value thread;           ///< in the warpgroup (i32)
  Value tileRow, tileCol; ///< the tile (i32)
  Value slice;            ///< the 64-row slice of the tile (i32)
  Value rowBase, colBase; ///< D's row and column of the slice's first element (i32)
  Value consumer;         ///< the calling consumer warpgroup (0-based, i32)
  Value staging, area;    ///< its staging block and scratch area (ptr<3>)

  /// f32 slot `index` of reduction j in the scratch area.
  Value slot(unsigned j, Value index) const;
  Value load(Type type, Value pointer, int64_t alignment) const;
  void store(Value value, Value pointer, int64_t alignment) const;
  /// The consumer warpgroup's named barrier.
  void sync() const;
  /// D's column of the chunk's local column `local` (i32).
  Value chunkColumn(Value chunk, Value local) const;
};

/// One step of a chunk: the thread's kEpilogVector consecutive elements of one row.
struct StagedStep {
  Value linear;             ///< step * kWarpgroup + thread
  Value localRow, localCol; ///< in the slice and the chunk
  /// combined[j]: element j's values the threads combine (pickCombinedValues: the bitmask bits,
  /// then the reduction values).
  SmallVector<SmallVector<Value>> combined;
};

/// What completes the reductions across tiles, shared by their nodes.
struct TileReductions {
  Value rowGroup; ///< the slice among all slices of its tile column (i32)
  int64_t tilesN = 0;
};

class EpilogueNode {
public:
  virtual ~EpilogueNode() = default;
  /// Before the first chunk of the tile.
  virtual void beginTile(const StagedEpilog &) {}
  /// After the chunk's accumulators are in the staging block, before the consumer's barrier.
  virtual void beginChunk(const StagedEpilog &) {}
  /// Element `j` of a step inside D, with its epilog results (D's value, then one per aux
  /// output), where D is stored by whole vectors.
  virtual void visitElement(const StagedEpilog &, const StagedStep &, int64_t j,
                            ArrayRef<Value> results, const ElementIndex &index) {}
  /// After the step's elements: their combined values.
  virtual void visitStep(const StagedEpilog &, const StagedStep &) {}
  /// Whether endChunk reads what other threads of the consumer wrote (a barrier before it).
  virtual bool readsOtherThreads() const { return false; }
  virtual void endChunk(const StagedEpilog &, Value chunk) {}
  // A reduction across tiles: this slice's partial, the count of its arrival (inside the block
  // of the consumer's thread 0), and the last arrival's combination and store.
  virtual void storePartial(const StagedEpilog &, const TileReductions &) {}
  virtual void arrive(const StagedEpilog &, const TileReductions &) {}
  virtual void finish(const StagedEpilog &, const TileReductions &) {}
};

using EpilogueNodes = SmallVector<std::unique_ptr<EpilogueNode>>;

/// The nodes of `x.op`'s outputs besides D, in the walk's order.
EpilogueNodes makeEpilogueNodes(const StagedEpilog &x);
/// The reductions' nodes, in declaration order.
void appendReductionNodes(const StagedEpilog &x, EpilogueNodes &nodes);

/// Emits the ops in an `scf.if` on `condition` from here to the end of the current scope.
void thenIf(Emitter &e, Value condition);

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_EPILOGUENODES_H
