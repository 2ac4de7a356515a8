// The ring of shared-memory stages between the wgmma kernels' producer and consumers: stage
// it % S in phase (it / S) & 1 of the counter `it` that both roles run across work units;
// full[s] completes on the producer's arrival plus the bytes its TMA loads land, empty[s] on
// one arrival per warpgroup that reads the stage, in every block that multicasts into it (its
// cluster's row and column: sharers() blocks, itself included). A ring whose
// stages are transformed before the consumers read them (3xTF32: split into TF32 parts,
// Tf32Split.h) has a third barrier per stage, ready[s], on which the transforming threads
// arrive once the stage is theirs no more; the consumers wait on it instead of full[s].
#ifndef MEPI_CONVERSION_MEPITOGPU_STAGEPIPELINE_H
#define MEPI_CONVERSION_MEPITOGPU_STAGEPIPELINE_H

#include "Emitter.h"
#include "mepi/Sm90/Sm90Spec.h"

namespace mlir::mepi {

class StagePipeline {
public:
  /// `base`: the aligned dynamic shared memory (ptr<3>); `config`'s stages and cluster shape;
  /// `rank`: the block's rank in its cluster (i32).
  StagePipeline(Value base, const Sm90SharedLayout &layout, KernelConfigAttr config, Value rank)
      : base(base), layout(layout), config(config), stages(config.getMainloop().getStages()),
        rows(Sm90Spec::clusterRows(config)), columns(Sm90Spec::clusterColumns(config)),
        rank(rank) {}

  /// The blocks whose readers free a stage of this block: those of its cluster row (which
  /// multicast A's tile into it) and column (B's).
  int64_t sharers() const { return rows + columns - 1; }

  /// One stage of the ring for counter `it`.
  struct Slot {
    Value stage, phase, full, empty;
    Value ready; // what the consumers wait on: full, or ready in a transformed ring
  };
  Slot emitSlot(Emitter &e, Value it) const;
  /// Pointers of stage `stage`'s barriers: full (loads landed) and empty (readers done).
  std::pair<Value, Value> emitBarriers(Emitter &e, Value stage) const;

  /// Every stage's barriers, by one thread: `producerArrivals` on full (1 with TMA, the
  /// warpgroup's threads with ordinary loads), `readers` on empty, `transformers` on ready.
  void emitInit(Emitter &e, int64_t producerArrivals, int64_t readers,
                int64_t transformers) const;
  /// Producer: waits until the readers freed the slot's stage (a fresh barrier passes the
  /// parity before the first at once).
  void emitAcquire(Emitter &e, const Slot &slot) const;
  /// Consumer: waits until the slot's stage has landed (and is transformed).
  void emitWait(Emitter &e, const Slot &slot) const;
  /// Transforming threads: wait until the slot's stage has landed; arrive once it is
  /// transformed (its writes made visible to the tensor cores first).
  void emitWaitLanded(Emitter &e, const Slot &slot) const;
  void emitTransformed(Emitter &e, const Slot &slot) const;
  /// Consumer: frees stage `it`: its thread i (`thread`, in the warpgroup) arrives on empty in
  /// the i-th block of its cluster row and column (emitTargets); without a cluster its leader
  /// (`isLeader`: thread 0) in its own block.
  void emitRelease(Emitter &e, Value it, Value thread, Value isLeader) const;

private:
  /// The cluster ranks of the blocks whose readers free a stage of this one (sharers()).
  SmallVector<Value> emitTargets(Emitter &e) const;

  Value base;
  const Sm90SharedLayout &layout;
  KernelConfigAttr config;
  int64_t stages, rows, columns;
  Value rank;
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_STAGEPIPELINE_H
