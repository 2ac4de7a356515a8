// The wgmma kernel generator's class and the values both of its roles share, for the files
// that emit its parts (WgmmaKernel.cpp: the block, the consumers; WgmmaProducer.cpp: the
// producer). Internal to the conversion.
#ifndef MEPI_CONVERSION_MEPITOGPU_WGMMAKERNELGENERATOR_H
#define MEPI_CONVERSION_MEPITOGPU_WGMMAKERNELGENERATOR_H

#include "BatchViews.h"
#include "BlockScales.h"
#include "EpilogEmitter.h"
#include "Emitter.h"
#include "KGroupMask.h"
#include "Tf32Split.h"
#include "KernelGenerator.h"
#include "Mainloop.h"
#include "StagePipeline.h"
#include "TileScheduler.h"
#include "OperandSums.h"
#include "WgmmaEpilog.h"
#include "WgmmaRegisterEpilog.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"

#include <functional>
#include <optional>


namespace mlir::mepi::wgmma {
using namespace mlir::mepi::sm90;
constexpr StringLiteral kSharedMemoryName = "mepi_shared_memory";
// Named barriers: 0 is the block's, 1 + c consumer c's own (WgmmaEpilog.h); ping-pong consumer
// c waits for its turn to run a main loop on kMainloopTurnBarrier + c.
constexpr int64_t kMainloopTurnBarrier = 3;
// Grouped along K: the consumers meet at kKGroupMaskBarrier after masking a stage.
constexpr int64_t kKGroupMaskBarrier = kMainloopTurnBarrier + 2;

/// Makes the accumulator registers (`count` of them) wait for the wgmmas that write them
/// (WgmmaConsumerLoop.cpp).
Value emitAccumulatorFence(Emitter &e, Value acc, int64_t count);
/// emitAccumulatorFence for f32 values (the operand sums' fragments).
SmallVector<Value> emitValueFence(Emitter &e, ArrayRef<Value> values);

class WgmmaKernelGenerator : public KernelGenerator {
public:
  using KernelGenerator::KernelGenerator;

  /// The kernel's sizes for `op` (Sm90Spec.h): roles, work units, layouts.
  Sm90Spec spec(MatmulOp op) const { return Sm90Spec(Sm90Problem::of(op), config, target); }
  // What depends on the configuration alone.
  int64_t consumers() const { return Sm90Spec::consumers(config); }
  int64_t cluster() const { return config.getMainloop().getCluster(); }
  int64_t rowSlices() const { return Sm90Spec::rowSlices(config); }
  int64_t slicesPerConsumer() const { return Sm90Spec::slicesPerConsumer(config); }
  int64_t threads() const { return Sm90Spec::threads(config); }
  int64_t registers() const { return Sm90Spec::registers(config); }
  int64_t bSumRows() const { return Sm90Spec::bSumRows(config); }
  /// How the tiles cover D for the declared reductions: each consumer warpgroup is a row slice.
  TileGrid tileGrid(MatmulOp op) const {
    Sm90Problem p = Sm90Problem::of(op);
    TileGrid grid;
    grid.m = p.m;
    grid.n = p.n;
    grid.tileM = config.getTileM();
    grid.tileN = config.getTileN();
    grid.slices = rowSlices();
    return grid;
  }
  /// How a consumer sums `groups` 64-row groups of an operand tile.
  TileSums tileSums(const Sm90Spec &s, bool mnMajor, int64_t groups) const {
    return TileSums{mnMajor, groups, s.sumsOnTensorCores(),
                    /*chains=*/config.getTileK() / kInstrK};
  }
  /// Workspace: the split-K counters and partials, then the reductions' (Reductions.h).
  SmallVector<ReductionLayout> reductionLayouts(MatmulOp op, int64_t &workspaceBytes) const {
    workspaceBytes = spec(op).splitKBytes();
    if (op.getReductions().empty())
      return {};
    return planReductions(op, tileGrid(op), workspaceBytes, workspaceBytes);
  }

  LogicalResult checkSupported(MatmulOp op) const override {
    Type aElt = op.getA().getType().getElementType();
    bool fp8 = aElt.getIntOrFloatBitWidth() == 8; // an fp8 pair (the verifier's rule)
    if (!fp8 && (aElt != op.getB().getType().getElementType() ||
                 !(aElt.isBF16() || aElt.isF16() || aElt.isF32())))
      return op.emitOpError() << "wgmma kernels need A and B of one 16-bit type, f32 (at TF32 "
                                 "precision, or split into TF32 parts) or an fp8 pair, got "
                              << aElt << " and " << op.getB().getType().getElementType();
    if (!op.getD().getType().hasStaticShape() || !op.getA().getType().hasStaticShape() ||
        !op.getB().getType().hasStaticShape())
      return op.emitOpError() << "wgmma kernels need static shapes";
    for (Value operand : {op.getA(), op.getB()}) {
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(cast<MemRefType>(operand.getType()).getStridesAndOffset(strides, offset)) ||
          strides.back() != 1 || llvm::any_of(strides, ShapedType::isDynamic))
        return op.emitOpError() << "wgmma kernels need A and B with contiguous rows (stride 1 "
                                   "in the last dimension, static strides)";
    }
    if (std::optional<std::string> why = spec(op).whyNot())
      return op.emitOpError() << *why;
    return success();
  }

  SmallVector<Value> emitLeadingLaunchOperands(OpBuilder &b, MatmulOp op) const override {
    Location loc = op.getLoc();
    Type ptr = LLVM::LLVMPointerType::get(b.getContext());
    Sm90Problem p = Sm90Problem::of(op);
    SmallVector<Value> leading;
    if (config.getMainloop().getTma()) {
      // Boxes of 64 elements (one swizzled line) by the tile's rows (K-major) or by 64 k-lines
      // (MN-major, one box per 64-row block).
      int64_t line = p.atom().lineElements();
      auto box = [&](bool mnMajor, int64_t rows) {
        return b.getDenseI64ArrayAttr({line, mnMajor ? config.getTileK() : rows});
      };
      // In a cluster each block loads half of the shared tile's rows.
      int64_t rowsA = config.getTileM() / Sm90Spec::clusterColumns(config);
      int64_t rowsB = config.getTileN() / Sm90Spec::clusterRows(config);
      leading.push_back(TensorMapOp::create(b, loc, ptr, op.getA(), box(p.mnMajorA, rowsA),
                                            b.getI64IntegerAttr(kSwizzleBytes)));
      leading.push_back(TensorMapOp::create(b, loc, ptr, op.getB(), box(p.mnMajorB, rowsB),
                                            b.getI64IntegerAttr(kSwizzleBytes)));
    }
    // D's stores: boxes of one 128-byte line by a slice's 64 rows (Sm90Spec::dStoreBoxRows);
    // each mirror's the same. None where TMA cannot address D's rows (the consumer's threads
    // store the lines).
    if (config.getEpilogue().getStore() == DStore::Tma && spec(op).problem().dThroughTma)
      for (Value target : storedOperands(op))
        leading.push_back(TensorMapOp::create(
            b, loc, ptr, target,
            b.getDenseI64ArrayAttr({tmaStoreLineColumns(op), spec(op).dStoreBoxRows()}),
            b.getI64IntegerAttr(kSwizzleBytes)));
    if (spec(op).needsWorkspace()) {
      int64_t bytes = 0;
      reductionLayouts(op, bytes);
      leading.push_back(WorkspaceOp::create(b, loc, ptr, bytes));
    }
    return leading;
  }

  int64_t dynamicSharedMemoryBytes(MatmulOp op) const override {
    return spec(op).sharedLayout().total;
  }

  std::optional<SmallVector<int32_t, 3>> knownBlockSize() const override {
    return SmallVector<int32_t, 3>{static_cast<int32_t>(threads()), 1, 1};
  }

  void decorateKernel(gpu::GPUFuncOp kernel) const override {
    // One block per multiprocessor: with the thread count this caps registers at entry, which
    // setmaxnreg needs to redistribute them between the roles.
    kernel->setAttr("nvvm.minctasm", OpBuilder(kernel).getI32IntegerAttr(1));
    // The cluster shape is the kernel's own (.reqnctapercluster): a plain launch forms them.
    if (cluster() > 1)
      kernel->setAttr("nvvm.cluster_dim", OpBuilder(kernel).getDenseI32ArrayAttr(
                                              {static_cast<int32_t>(cluster()), 1, 1}));
  }

  LaunchGeometry emitLaunchGeometry(OpBuilder &b, MatmulOp op) const override {
    // Persistent: at most one block per walker (a work unit, or stream-K's ranges); the runtime
    // caps the grid at the number of multiprocessors (stream-K's fixed walk: already capped).
    Location loc = op.getLoc();
    auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
    LaunchGeometry geometry;
    int64_t blocks = spec(op).fixedStreamKWalkers().value_or(spec(op).walkers() * cluster());
    geometry.grid = {index(blocks), index(1), index(1)};
    geometry.block = {index(threads()), index(1), index(1)};
    return geometry;
  }

  void emitBody(OpBuilder &b, MatmulOp op, const IRMapping &operands,
                ValueRange leading) const override;

private:
  struct Context;
  /// One k-step's load into a stage: where (stage base, k, first rows of A and B) and the
  /// barrier that completes when it landed.
  struct StageLoad {
    Value full, stageBase, k, rowA, rowB;
    SmallVector<Value> batchA, batchB; // batched: TMA coordinates of the batch dimensions
  };
  using StreamKWalk = TileScheduler::StreamKWalk;
  using WorkUnit = TileScheduler::WorkUnit;
  /// The loop over the block's work units that the producer warpgroup's roles walk (the
  /// builder left in its body) and its unit.
  std::pair<scf::ForOp, WorkUnit> emitLoadedUnits(Emitter &e, const Context &c) const;
  void emitProducer(Emitter &e, const Context &c, MatmulOp op, const IRMapping &operands) const;
  /// 3xTF32: the producer warpgroup's splitting threads (`thread` < Tf32Split::kThreads) walk
  /// the producer's k-steps and split each stage once it landed (Tf32Split.h).
  void emitSplitters(Emitter &e, const Context &c, Value thread) const;
  void emitTmaLoads(Emitter &e, const Context &c, const StageLoad &load) const;
  void emitOrdinaryLoads(Emitter &e, const Context &c, const StageLoad &load, Value a,
                         Value bMatrix) const;
  void emitConsumer(Emitter &e, const Context &c, MatmulOp op, const IRMapping &operands) const;
  /// Operand sums: the tiles of the first tile column sum their rows of A (each consumer its
  /// 64), those of the first tile row the rows of B (split between the consumers in 64-row
  /// groups, or all by consumer 0 when there are fewer than 64 each), from the stage tiles, on
  /// the tensor cores or by the threads (OperandSums.h).
  struct SumsPlan {
    Value sums;       // the kernel's a_sums / b_sums memref
    TileSums tile;
    Value active;     // i1: this consumer sums in this unit
    Value firstRow;   // of the operand's rows (of op(A) / op(B)^T) this consumer covers
    int64_t stageOffset = 0; // bytes from the stage's start to the operand's tile (A: 0)
    Value consumerOffset;    // i32 bytes from there to this consumer's first 64-row group
    int64_t limit = 0;
  };
  SmallVector<SumsPlan> planOperandSums(Emitter &e, const Context &c, MatmulOp op,
                                        const IRMapping &operands, const WorkUnit &unit,
                                        Value consumer) const;
  /// What a consumer's main loop over one work unit needs of the consumer.
  struct UnitLoop {
    const WorkUnit &unit;
    ArrayRef<SumsPlan> sumsPlans;
    ArrayRef<Value> loopInit; // the stage counter, then zero accumulators
    const WgmmaMainloop &mainloop;
    Value consumer, isLeader, localThread, f32Zero, onesDescriptor, hasNext;
    /// Block scales: the factors each promotion multiplies its k-step's sums by.
    const BlockScaleFactors *blockScales = nullptr;
    /// Ping-pong: the k-steps of the other consumer's next unit (i32).
    Value otherSteps;
  };
  void fillContext(Emitter &e, Context &c, MatmulOp op, ValueRange leading) const;
  /// The policies the problem asks for: the group walk (grouped rows or K), 3xTF32's split.
  void fillPolicies(Emitter &e, Context &c, MatmulOp op, const IRMapping &operands) const;
  /// Thread 0 (`isThread0`) initializes the stage barriers for their producer arrivals and
  /// readers.
  void emitBarrierInit(Emitter &e, const Context &c, Value isThread0) const;
  void emitPingpongTurn(Emitter &e, Value hasPrevious, Value consumer) const;
  Value pingpongFirstSteps(Emitter &e, const Context &c) const;
  SmallVector<Value> emitMainLoopVariants(Emitter &e, const Context &c, const UnitLoop &u,
                                          TypeRange resultTypes, SmallVector<bool> summing) const;
  void emitUnitEpilog(Emitter &e, const Context &c, MatmulOp op, const IRMapping &operands,
                      const UnitLoop &u, ArrayRef<Value> loopResults) const;
  // Grouped: slices wholly past their group's end (GroupedSlices.cpp).
  Value emitSliceHasRows(Emitter &e, const WorkUnit &unit, Value slice) const;
  void emitBlockValues(Emitter &e, Context &c) const;
  SmallVector<Value> emitUnitMainLoop(Emitter &e, const Context &c, const UnitLoop &u,
                                      ArrayRef<bool> summing) const;
  static std::pair<SmallVector<size_t>, size_t> sumsLayout(ArrayRef<SumsPlan> plans,
                                                            ArrayRef<bool> summing);
  SmallVector<Value> emitKStep(Emitter &e, const Context &c, const UnitLoop &u,
                               ArrayRef<bool> summing, Value it, Value k, ValueRange carried,
                               bool fresh) const;
  scf::ForOp emitKSteps(Emitter &e, const Context &c, const UnitLoop &u, ArrayRef<bool> summing,
                        Value begin, Value end, ValueRange init) const;
  SmallVector<Value> emitPromotedKSteps(Emitter &e, const Context &c, const UnitLoop &u) const;
  Value emitPromotion(Emitter &e, Value sums, Value part, BlockScaleFactors::Factors *factors,
                      int64_t s) const;
  void emitLaterSlices(Emitter &e, const Context &c, const UnitLoop &u, Value it, Value part,
                       MutableArrayRef<Value> sums, BlockScaleFactors::Factors *factors) const;
  WgmmaMainloop::StageTiles emitStageDescriptors(Emitter &e, const UnitLoop &u,
                                                 Value stageAddress, int64_t slice) const;
  /// Split-K: stores this unit's `record` (an f32 struct: the accumulators, then any partial
  /// operand sums) and counts it in; returns whether this unit arrived last and, there, the
  /// records of all splits summed in split order.
  void emitReducedEpilog(Emitter &e, const Context &c, MatmulOp op, const IRMapping &operands,
                         Value acc, const WorkUnit &unit, ArrayRef<Value> sumPartials,
                         Value slice, function_ref<void(ArrayRef<Value>)> storeSums) const;
  std::pair<Value, Value> emitSplitReduction(Emitter &e, const Context &c, const WorkUnit &unit,
                                             Value record) const;
  /// The epilog of row slice `slice` of the unit's tile, from its accumulators `acc`.
  void emitEpilog(Emitter &e, const Context &c, MatmulOp op, const IRMapping &operands,
                  Value acc, const WorkUnit &unit, Value slice) const;
};

/// Values shared by both roles.
struct WgmmaKernelGenerator::Context {
  explicit Context(Sm90Spec spec) : spec(std::move(spec)), layout(this->spec.sharedLayout()) {}
  Value mapA, mapB, mapD;           // TMA descriptors (generic pointers to kernel parameters)
  SmallVector<Value> mirrorMaps;    // store = tma: each mirror's, in the op's order
  Value workspace;                  // split-K workspace (global pointer)
  Value base;                       // aligned dynamic shared memory (ptr<3>)
  Value baseAddress;                // its shared-window address (i32)
  Value tid, warpgroup;             // thread and warpgroup index in the block (i32)
  Value consumer;                   // warpgroup - 1 in the consumer branch (i32), once for all uses
  Value rank;                       // the block's rank in its cluster (i32; 0 without one)
  int64_t m, n, k, tilesM, tilesN, kSteps, units;
  int64_t batch, unitsPerBatch;     // D's batch elements, and the work units of each
  Type elementType;
  bool mnMajorA = false, mnMajorB = false;
  Sm90Spec spec;                    // the kernel's sizes
  Sm90SharedLayout layout;
  std::optional<TileScheduler> scheduler; // the walk over the work units (once rank is known)
  std::optional<GroupTable> groups;       // grouped: the group table (GroupTable.h)
  std::optional<KGroupMask> kGroupMask;   // grouped along K: the stage masking (KGroupMask.h)
  std::optional<Tf32Split> tf32Split;     // strict f32: the stage's TF32 parts (Tf32Split.h)
  std::optional<StagePipeline> pipeline;  // the stage ring (once the base is known)
  SmallVector<ReductionLayout> reductions; // declared reductions, in the workspace
};

} // namespace mlir::mepi::wgmma

#endif // MEPI_CONVERSION_MEPITOGPU_WGMMAKERNELGENERATOR_H
