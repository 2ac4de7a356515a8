// Block scales in the promoted main loop (MepiOps.td: block_scales): each k-step of 128
// elements of K is one scale block. The producer copies a stage's scales beside its tiles
// (BlockScaleCopies: A's of the tile's rows, B's of its one or two blocks of 128 columns, into
// the stage's scales in shared memory, tracked by the stage's full barrier) where the tiles'
// k-steps are short, so they arrive as many k-steps ahead as the stages do; a consumer thread
// then reads its rows' and columns' scales from the full stage. Where k-steps are long, each
// consumer thread loads its own a k-step ahead. The promotion adds the step's sums times
// their product into the f32 accumulators.
#ifndef MEPI_CONVERSION_MEPITOGPU_BLOCKSCALES_H
#define MEPI_CONVERSION_MEPITOGPU_BLOCKSCALES_H

#include "Emitter.h"

#include "llvm/ADT/DenseMap.h"
#include <optional>
#include "llvm/ADT/SmallVector.h"

namespace mlir::mepi {

/// The producer's part: one warp copies each stage's scales.
class BlockScaleCopies {
public:
  /// Threads that copy a stage's scales (the producer's first warp), each arriving once on
  /// the stage's full barrier when its copies have landed.
  static constexpr int64_t kThreads = 32;

  /// `aScales`, `bScales`: the kernel's memrefs, D of `m` x `n`, tiles of `tileM` x `tileN`.
  BlockScaleCopies(Emitter &e, Value aScales, Value bScales, int64_t m, int64_t n,
                   int64_t tileM, int64_t tileN);
  /// Lane `lane` (i32) copies its part of block `k`'s scales (i32: the k-step) of the tile
  /// from row `firstRow`, column `firstCol` (i32) into `stage` (a shared pointer to the
  /// stage's scales: Sm90SharedLayout), then arrives on `full` once they have landed. Rows
  /// past D read its last row's scales, blocks past its columns the last block's: in range,
  /// and unused.
  void emit(Emitter &e, Value stage, Value full, Value firstRow, Value firstCol, Value k,
            Value lane) const;

private:
  /// The global address of element [`i`, `j`] (index) of `scales` (aScales or bScales).
  Value emitAddress(Emitter &e, Value scales, Value i, Value j) const;

  Value aScales, bScales;
  Value aBase, bBase; // global pointers to their first elements
  int64_t m, n, tileM;
  bool twoBlocks; // the tile's columns may cross a block boundary
};

/// The consumer's part: a thread's factors of each promotion. Where one k-step's wgmmas last
/// less than a load from DRAM (Sm90Spec::stagesBlockScales), it reads them from the full stage
/// (the producer copied them there); else it loads them from global memory a k-step ahead, and
/// the loop carries their products.
class BlockScaleFactors {
public:
  /// For a consumer thread (`thread`: its index in the warpgroup, i32) whose `slices` 64-row
  /// slices start at row `firstRow` (i32: of the tile where staged, else of D), in the tile of
  /// `tileN` columns from `firstCol` (i32); `aScales`, `bScales` the kernel's memrefs, D of `m`
  /// x `n`. `stages`: a shared pointer to stage 0's scales (Sm90SharedLayout), each
  /// `stageBytes` apart, where they are staged; else null.
  BlockScaleFactors(Emitter &e, Value aScales, Value bScales, int64_t m, int64_t n,
                    Value firstRow, int64_t slices, Value firstCol, int64_t tileM,
                    int64_t tileN, Value thread, Value stages, int64_t stageBytes);

  class Factors {
  public:
    /// The factor of accumulator register `r` of slice `s` (WgmmaFragment.h: its row half
    /// picks A's scale, its group of 8 columns B's).
    Value of(Emitter &e, int64_t s, int64_t r);

  private:
    friend class BlockScaleFactors;
    SmallVector<Value> first, second; // A's scale times B's first / second block's, 2 s + h
    Value split; // i32: the tile's columns in its first block (two blocks only)
    llvm::DenseMap<int64_t, Value> picked;
  };
  /// One promotion's scales through the block loop.
  struct Block {
    std::optional<Factors> factors;
    SmallVector<Value> loaded; // loaded from global memory: the next block's scales
  };
  /// The values the block loop carries from its start, whose first block is `k` (i32).
  SmallVector<Value> emitCarriedInit(Emitter &e, Value k) const;
  /// At the top of a block, from what the loop carried: its factors (loaded a block ahead),
  /// and the loads of block `next`'s (i32) scales. Staged: nothing yet.
  Block emitBlockTop(Emitter &e, ValueRange carried, Value next) const;
  /// Once the block's wgmmas are issued (its stage `stage`, i32, is full): staged, its factors
  /// read from the stage.
  void emitAfterIssue(Emitter &e, Block &block, Value stage) const;
  /// What the loop carries to the next block.
  SmallVector<Value> emitCarriedNext(Emitter &e, const Block &block) const;

private:
  /// The factors from the scales `loaded` (B's block or two, then A's rows).
  Factors factorsOf(Emitter &e, ArrayRef<Value> loaded) const;
  SmallVector<Value> emitLoads(Emitter &e, Value k) const;
  /// The factors as the loop carries them: the first products, then the second.
  static SmallVector<Value> carriedOf(const Factors &f);

  Value aScales, bScales;
  SmallVector<Value> rows;     // index: each slice's two rows of D, clamped into D
  SmallVector<Value> rowBytes; // i32: the same rows' scales in a stage
  Value columnBlock, nextBlock; // index: the tile's first block of columns, and the next
  Value split;                  // i32: the tile's columns in its first block
  Value stages;                 // staged: stage 0's scales
  int64_t stageBytes, tileM;
  bool twoBlocks = false; // the tile's columns may cross a block boundary
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_BLOCKSCALES_H
