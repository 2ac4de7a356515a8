// The wgmma kernels' producer warpgroup: TMA (or ordinary) loads of each work unit's operand
// tiles into the stage ring (see WgmmaKernel.cpp's header for the layout).
#include "WgmmaKernelGenerator.h"

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi::wgmma {

auto WgmmaKernelGenerator::emitLoadedUnits(Emitter &e, const Context &c) const
    -> std::pair<scf::ForOp, WorkUnit> {
  // Stream-K's walk is worked out in each role, so that its values stay out of the other's
  // registers.
  std::optional<StreamKWalk> walk;
  if (config.getScheduler().isStreamK())
    walk = c.scheduler->emitStreamKWalk(e);
  scf::ForOp units = c.scheduler->emitUnitLoop(e, walk ? &*walk : nullptr);
  WorkUnit unit = c.scheduler->emitWorkUnit(e, units.getInductionVar(), walk ? &*walk : nullptr);
  return {units, unit};
}

void WgmmaKernelGenerator::emitProducer(Emitter &e, const Context &c, MatmulOp op,
                                        const IRMapping &operands) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Sm90SharedLayout &layout = c.layout;
  OpBuilder::InsertionGuard guard(b);
  auto [units, unit] = emitLoadedUnits(e, c);
  StageLoad load;
  load.rowA = unit.firstRow(e, config.getTileM());
  load.rowB = e.mul(unit.tileCol, e.i32(config.getTileN()));
  if (unit.batch) {
    Value d = operands.lookup(op.getD());
    load.batchA = emitTmaBatchCoordinates(b, loc, operands.lookup(op.getA()), d, unit.batch);
    load.batchB = emitTmaBatchCoordinates(b, loc, operands.lookup(op.getB()), d, unit.batch);
  }
  // Grouped: the group's matrix of B, weight_indices[group] or the group itself.
  if (unit.group) {
    Value matrix = unit.group;
    if (Value indices = op.getWeightIndices()) {
      matrix = memref::LoadOp::create(b, loc, operands.lookup(indices),
                                      ValueRange{e.toIndex(unit.group)});
      if (!matrix.getType().isInteger(32))
        matrix = arith::TruncIOp::create(b, loc, b.getI32Type(), matrix);
    }
    load.batchB = {matrix};
  }
  // Block scales: the issuing warp copies them (BlockScales.h), its first thread the tiles.
  std::optional<BlockScaleCopies> scaleCopies;
  if (c.spec.stagesBlockScales())
    scaleCopies.emplace(e, operands.lookup(op.getABlockScales()),
                        operands.lookup(op.getBBlockScales()), c.m, c.n, config.getTileM(),
                        config.getTileN());
  auto kLoop = scf::ForOp::create(b, loc, unit.kBegin, unit.kEnd, e.i32(1),
                                  ValueRange{units.getRegionIterArg(0)});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value it = kLoop.getRegionIterArg(0);
    StagePipeline::Slot slot = c.pipeline->emitSlot(e, it);
    load.full = slot.full;
    c.pipeline->emitAcquire(e, slot);
    load.stageBase = e.offset(c.base, e.mul(slot.stage, e.i32(layout.stageBytes)));
    load.k = e.mul(kLoop.getInductionVar(), e.i32(config.getTileK()));
    if (scaleCopies) {
      Value scales = e.offset(c.base, e.add(e.i32(layout.scales),
                                            e.mul(slot.stage, e.i32(layout.scaleStageBytes))));
      scaleCopies->emit(e, scales, slot.full, load.rowA, load.rowB, kLoop.getInductionVar(),
                        c.tid);
      OpBuilder::InsertionGuard issuer(b);
      auto first = scf::IfOp::create(b, loc, e.eq(c.tid, e.i32(0)), /*withElseRegion=*/false);
      b.setInsertionPointToStart(first.thenBlock());
      emitTmaLoads(e, c, load);
    } else if (config.getMainloop().getTma())
      emitTmaLoads(e, c, load);
    else
      emitOrdinaryLoads(e, c, load, operands.lookup(op.getA()), operands.lookup(op.getB()));
    scf::YieldOp::create(b, loc, e.add(it, e.i32(1)));
  }
  scf::YieldOp::create(b, loc, kLoop.getResult(0));
}

void WgmmaKernelGenerator::emitSplitters(Emitter &e, const Context &c, Value thread) const {
  OpBuilder &b = e.b;
  OpBuilder::InsertionGuard guard(b);
  auto [units, unit] = emitLoadedUnits(e, c);
  auto kLoop = scf::ForOp::create(b, e.loc, unit.kBegin, unit.kEnd, e.i32(1),
                                  ValueRange{units.getRegionIterArg(0)});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value it = kLoop.getRegionIterArg(0);
    StagePipeline::Slot slot = c.pipeline->emitSlot(e, it);
    c.pipeline->emitWaitLanded(e, slot);
    c.tf32Split->emit(e, c.base, slot.stage, thread);
    c.pipeline->emitTransformed(e, slot);
    scf::YieldOp::create(b, e.loc, e.add(it, e.i32(1)));
  }
  scf::YieldOp::create(b, e.loc, kLoop.getResult(0));
}

void WgmmaKernelGenerator::emitTmaLoads(Emitter &e, const Context &c,
                                        const StageLoad &load) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Sm90SharedLayout &layout = c.layout;
  auto sharedCluster = LLVM::LLVMPointerType::get(b.getContext(), 7);
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), load.full, e.i32(layout.stageBytes),
                                         NVVM::MemScopeKind::CTA, false, Value());
  // `multicast` (i16 mask of the cluster's blocks, or null): the copy lands at the same offset
  // in each, completing the barrier at the same offset in each.
  // Coordinates innermost first: the matrix's two, then its batch dimensions'.
  auto copy = [&](Value dst, Value map, Value inner, Value outer, ArrayRef<Value> batch,
                  Value multicast) {
    Value clusterDst = LLVM::AddrSpaceCastOp::create(b, loc, sharedCluster, dst);
    SmallVector<Value> coordinates = {inner, outer};
    llvm::append_range(coordinates, batch);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, loc, clusterDst, map, coordinates, load.full, ValueRange{}, multicast, Value(),
        NVVM::TMALoadMode::TILE, false, NVVM::CTAGroupKindAttr(), Value());
  };
  // (k, row) for K-major, (row, k) per 64-row block otherwise.
  auto copyTile = [&](Value dst, Value map, Value row, int64_t rows, bool mnMajor,
                      ArrayRef<Value> batch, Value multicast) {
    if (!mnMajor)
      return copy(dst, map, load.k, row, batch, multicast);
    for (int64_t block = 0; block < rows / kBlockRows; ++block)
      copy(e.offset(dst, e.i32(block * kBlockBytes)), map,
           e.add(row, e.i32(block * kBlockRows)), load.k, batch, multicast);
  };
  // An operand's tile is shared by `sharers` blocks of the cluster (1: not shared), those of
  // mask `multicast`: the one at `index` among them loads rows [index * rows / sharers,
  // (index + 1) * rows / sharers) of it (whole lines, or whole 64-row blocks) into each.
  auto copyOperand = [&](Value base, int64_t bytes, Value map, Value row, int64_t rows,
                         bool mnMajor, ArrayRef<Value> batch, int64_t sharers, Value index,
                         Value multicast) {
    if (sharers > 1) {
      base = e.offset(base, e.mul(index, e.i32(bytes / sharers)));
      row = e.add(row, e.mul(index, e.i32(rows / sharers)));
    }
    copyTile(base, map, row, rows / sharers, mnMajor, batch, sharers > 1 ? multicast : Value());
  };
  // Block r of a cluster of R rows and C columns is tile (r % R, r / R) of the unit: a row's C
  // blocks (ranks i + R j) share A's tile, a column's R blocks (ranks R j .. R j + R - 1) B's.
  int64_t rows = Sm90Spec::clusterRows(config), columns = Sm90Spec::clusterColumns(config);
  auto [rankRow, rankColumn] = emitClusterPosition(e, config, c.rank);
  auto mask = [&](int64_t bits, llvm::function_ref<Value()> shift, int64_t other) -> Value {
    Value fixed = arith::ConstantIntOp::create(b, loc, bits, 16);
    if (other == 1) // one row or column: every block of the cluster
      return fixed;
    return arith::ShLIOp::create(b, loc, fixed,
                                 arith::TruncIOp::create(b, loc, b.getI16Type(), shift()));
  };
  int64_t rowBits = 0;
  for (int64_t j = 0; j < columns; ++j)
    rowBits |= int64_t(1) << (rows * j);
  Value maskA = columns > 1 ? mask(rowBits, [&] { return rankRow; }, rows) : Value();
  Value maskB = rows > 1 ? mask((int64_t(1) << rows) - 1,
                                [&] { return e.mul(rankColumn, e.i32(rows)); }, columns)
                         : Value();
  copyOperand(load.stageBase, layout.aBytes, c.mapA, load.rowA, config.getTileM(), c.mnMajorA,
              load.batchA, columns, rankColumn, maskA);
  copyOperand(e.offset(load.stageBase, e.i32(layout.aBytes)), layout.bBytes, c.mapB, load.rowB,
              config.getTileN(), c.mnMajorB, load.batchB, rows, rankRow, maskB);
}

void WgmmaKernelGenerator::emitOrdinaryLoads(Emitter &e, const Context &c, const StageLoad &load,
                                             Value a, Value bMatrix) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Sm90SharedLayout &layout = c.layout;
  int64_t tileK = config.getTileK();
  Value thread = c.tid; // the producer is warpgroup 0
  // Element i * 128 + thread of a rows x 64 tile, in the operand's memory order, so that a
  // warp reads 32 consecutive elements. Each lands where TMA's 128-byte swizzle puts it:
  // 16-byte chunk j of line l at chunk j ^ (l % 8), where a line is a row's 64 k-values
  // (K-major) or 64 rows at one k (MN-major, in 64-row blocks of 8 KiB). Elements past the
  // operand's edges are zeros, as TMA fills them.
  auto loadTile = [&](Value source, Value dst, Value rowBase, int64_t rows, int64_t limit,
                      bool mnMajor) {
    Type elt = cast<MemRefType>(source.getType()).getElementType();
    auto loop =
        scf::ForOp::create(b, loc, e.i32(0), e.i32(rows * tileK / kWarpgroup), e.i32(1));
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(loop.getBody());
    Value linear = e.add(e.mul(loop.getInductionVar(), e.i32(kWarpgroup)), thread);
    int64_t contiguous = mnMajor ? rows : tileK;
    Value inner = e.rem(linear, e.i32(contiguous)), outer = e.div(linear, e.i32(contiguous));
    Value r = mnMajor ? inner : outer;
    Value kk = mnMajor ? outer : inner;
    Value row = e.add(rowBase, r);
    Value k = e.add(load.k, kk);
    Value inside = e.andI(e.ult(row, e.i32(limit)), e.ult(k, e.i32(c.k)));
    auto element = scf::IfOp::create(b, loc, TypeRange{elt}, inside, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard then(b);
      b.setInsertionPointToStart(element.thenBlock());
      SmallVector<Value> at{e.toIndex(row), e.toIndex(k)};
      if (mnMajor)
        std::swap(at[0], at[1]);
      Value v = memref::LoadOp::create(b, loc, source, at);
      scf::YieldOp::create(b, loc, v);
      b.setInsertionPointToStart(element.elseBlock());
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(elt, 0.0));
      scf::YieldOp::create(b, loc, zero);
    }
    Value line = mnMajor ? kk : r;
    Value byte = e.mul(mnMajor ? e.rem(r, e.i32(kBlockRows)) : kk, e.i32(2));
    Value chunk = e.xorI(e.div(byte, e.i32(16)), e.rem(line, e.i32(8)));
    Value offset = e.add(e.add(e.mul(line, e.i32(kSwizzleBytes)), e.mul(chunk, e.i32(16))),
                         e.rem(byte, e.i32(16)));
    if (mnMajor)
      offset = e.add(offset, e.mul(e.div(r, e.i32(kBlockRows)), e.i32(kBlockBytes)));
    LLVM::StoreOp::create(b, loc, element.getResult(0), e.offset(dst, offset), /*alignment=*/2);
  };
  loadTile(a, load.stageBase, load.rowA, config.getTileM(), c.m, c.mnMajorA);
  loadTile(bMatrix, e.offset(load.stageBase, e.i32(layout.aBytes)), load.rowB,
           config.getTileN(), c.n, c.mnMajorB);
  // The tensor cores read shared memory through the async proxy: make these writes visible to
  // it before arriving.
  e.fenceAsyncShared();
  NVVM::MBarrierArriveOp::create(b, loc, Type(), load.full, Value());
}

} // namespace mlir::mepi::wgmma
