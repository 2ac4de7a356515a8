// The SIMT kernel's block combination (see SimtBlockCombination.h).
#include "SimtBlockCombination.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mepi;

namespace {
/// The block being combined: its thread's element, the tile, and the helpers every step uses.
struct SimtBlock {
  OpBuilder &b;
  Location loc;
  MatmulOp op;
  const IRMapping &operands;
  const ElementIndex &element;
  const TileGrid &grid;
  Emitter e;
  Value tx, ty, rowIn, colIn;

  Value index(int64_t v) const { return arith::ConstantIndexOp::create(b, loc, v); }
  Value eqIndex(Value x, int64_t v) const {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, index(v));
  }
  Value ltIndex(Value x, int64_t v) const {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, index(v));
  }
  Value i32(Value x) const {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), x).getResult();
  }
  void thenIf(Value condition) const {
    auto ifOp = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
  }
  /// A workgroup buffer, 16-byte aligned: LLVM vectorizes the loops that read them.
  Value addBuffer(ArrayRef<int64_t> shape, Type type) const {
    auto func = b.getBlock()->getParent()->getParentOfType<gpu::GPUFuncOp>();
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
    Value buffer = func.addWorkgroupAttribution(
        MemRefType::get(shape, type, MemRefLayoutAttrInterface{}, workgroup), loc);
    func.setWorkgroupAttributionAttr(func.getNumWorkgroupAttributions() - 1,
                                     LLVM::LLVMDialect::getAlignAttrName(),
                                     b.getI64IntegerAttr(16));
    return buffer;
  }
};

/// Each thread's value into a [tile_m, tile_n] workgroup buffer per shared value (bits as
/// bytes), then a barrier.
SmallVector<Value> storeShared(SimtBlock &k, ValueRange shared) {
  OpBuilder &b = k.b;
  SmallVector<Value> buffers;
  for (Value value : shared) {
    bool bit = value.getType().isInteger(1);
    Type type = bit ? Type(b.getI8Type()) : Type(b.getF32Type());
    Value buffer = k.addBuffer({k.grid.tileM, k.grid.tileN}, type);
    Value stored = bit ? arith::ExtUIOp::create(b, k.loc, b.getI8Type(), value).getResult()
                       : value;
    memref::StoreOp::create(b, k.loc, stored, buffer, ValueRange{k.ty, k.tx});
    buffers.push_back(buffer);
  }
  gpu::BarrierOp::create(b, k.loc);
  return buffers;
}

/// Bitmasks: the thread of every 8th row packs its column's 8 rows (tile_m % 8 == 0, and rows
/// past M contributed zeros). Returns how many buffers the bitmasks took.
unsigned packBitmasks(SimtBlock &k, ArrayRef<Value> buffers) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  unsigned next = 0;
  Value eight = k.index(8);
  for (auto [i, aux] : llvm::enumerate(k.op.getAux())) {
    if (k.op.getAuxKind(i) != BroadcastKind::Bitmask)
      continue;
    Value buffer = buffers[next++];
    OpBuilder::InsertionGuard guard(b);
    k.thenIf(k.e.andI(k.e.andI(k.rowIn, k.colIn),
                      k.eqIndex(arith::RemUIOp::create(b, loc, k.ty, eight), 0)));
    Value byte = arith::ConstantIntOp::create(b, loc, 0, 8);
    for (int64_t j = 0; j < 8; ++j) {
      Value flag = memref::LoadOp::create(
          b, loc, buffer, ValueRange{arith::AddIOp::create(b, loc, k.ty, k.index(j)), k.tx});
      Value shifted = arith::ShLIOp::create(b, loc, flag,
                                            arith::ConstantIntOp::create(b, loc, j, 8));
      byte = arith::OrIOp::create(b, loc, byte, shifted);
    }
    SmallVector<Value> indices(k.element.batch);
    indices.append({arith::DivUIOp::create(b, loc, k.element.row, eight), k.element.col});
    memref::StoreOp::create(b, loc, byte, k.operands.lookup(aux), indices);
  }
  return next;
}

/// Who combines what of one reduction in this block: the owner thread, the workspace group and
/// this block's place among its contributors, the owner's slot, and where the result goes.
struct Part {
  Value owner, group, contributor, local;
  SmallVector<Value> resultIndices;
  int64_t rows, cols;     ///< the owner's share of the block
  Value firstRow, firstCol;
};

Part reductionPart(SimtBlock &k, const ReductionLayout &layout, Value bx, Value by,
                   Value bz) {
  Emitter &e = k.e;
  const TileGrid &grid = k.grid;
  Part part;
  part.rows = grid.tileM, part.cols = grid.tileN;
  part.firstRow = k.index(0), part.firstCol = k.index(0);
  if (layout.kind == BroadcastKind::Scalar) {
    part.owner = e.andI(k.eqIndex(k.tx, 0), k.eqIndex(k.ty, 0));
    part.group = e.i32(0);
    part.contributor =
        e.add(e.mul(e.add(e.mul(bz, e.i32(grid.tilesM())), by), e.i32(grid.tilesN())), bx);
    part.local = e.i32(0);
    return part;
  }
  // A row reduction: the thread of column 0 owns its row, the tile columns contribute; a
  // column reduction is its mirror image.
  bool row = layout.kind == BroadcastKind::Row;
  Value own = row ? k.ty : k.tx, across = row ? k.tx : k.ty;
  part.owner = e.andI(k.eqIndex(across, 0), row ? k.rowIn : k.colIn);
  part.group = e.add(e.mul(bz, e.i32(row ? grid.tilesM() : grid.tilesN())), row ? by : bx);
  part.contributor = row ? bx : by;
  part.local = k.i32(own);
  part.resultIndices = k.element.batch;
  part.resultIndices.push_back(row ? k.element.row : k.element.col);
  (row ? part.rows : part.cols) = 1;
  (row ? part.firstRow : part.firstCol) = own;
  return part;
}

/// The owner combines its share of the block, row-major (a fixed order), into its partial.
void storePartial(SimtBlock &k, const ReductionLayout &layout, const Part &part,
                  Value buffer, Value workspace) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  OpBuilder::InsertionGuard guard(b);
  k.thenIf(part.owner);
  Value total = emitReductionIdentity(k.e, layout.combiner);
  auto rowLoop = scf::ForOp::create(b, loc, k.index(0), k.index(part.rows), k.index(1), total);
  b.setInsertionPointToStart(rowLoop.getBody());
  auto colLoop = scf::ForOp::create(b, loc, k.index(0), k.index(part.cols), k.index(1),
                                    rowLoop.getRegionIterArg(0));
  b.setInsertionPointToStart(colLoop.getBody());
  Value r = arith::AddIOp::create(b, loc, part.firstRow, rowLoop.getInductionVar());
  Value c = arith::AddIOp::create(b, loc, part.firstCol, colLoop.getInductionVar());
  Value v = memref::LoadOp::create(b, loc, buffer, ValueRange{r, c});
  scf::YieldOp::create(b, loc, emitCombine(k.e, layout.combiner, colLoop.getRegionIterArg(0), v));
  b.setInsertionPointAfter(colLoop);
  scf::YieldOp::create(b, loc, colLoop.getResult(0));
  b.setInsertionPointAfter(rowLoop);
  LLVM::StoreOp::create(b, loc, rowLoop.getResult(0),
                        emitPartialAddress(k.e, workspace, layout, part.group, part.contributor,
                                           part.local),
                        /*alignment=*/4);
}

/// Releases the partials, counts the block in for every reduction (one thread), and where it
/// is the last to arrive, combines every block's partials and stores the result.
void completeReductions(SimtBlock &k, ArrayRef<ReductionLayout> layouts,
                        ArrayRef<Part> parts, Value workspace) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
  gpu::BarrierOp::create(b, loc);
  Value lastFlags = k.addBuffer({static_cast<int64_t>(layouts.size())}, b.getI32Type());
  {
    OpBuilder::InsertionGuard guard(b);
    k.thenIf(k.e.andI(k.eqIndex(k.tx, 0), k.eqIndex(k.ty, 0)));
    for (auto [j, layout] : llvm::enumerate(layouts)) {
      Value last = emitArrival(k.e, workspace, layout, parts[j].group);
      memref::StoreOp::create(b, loc, arith::ExtUIOp::create(b, loc, b.getI32Type(), last),
                              lastFlags, ValueRange{k.index(j)});
    }
  }
  gpu::BarrierOp::create(b, loc);
  for (auto [j, layout] : llvm::enumerate(layouts)) {
    OpBuilder::InsertionGuard guard(b);
    Value flag = memref::LoadOp::create(b, loc, lastFlags, ValueRange{k.index(j)});
    k.thenIf(k.e.andI(k.e.ne(flag, k.e.i32(0)), parts[j].owner));
    // Acquire: the other blocks' partials, released before their count.
    NVVM::MembarOp::create(b, loc, NVVM::MemScopeKind::GPU);
    Value result = emitCombinedPartials(k.e, workspace, layout, parts[j].group, parts[j].local);
    emitStoreReduction(k.e, k.op, k.operands, j, result, parts[j].resultIndices);
  }
}
} // namespace

void mlir::mepi::emitSimtBlockCombination(OpBuilder &b, Location loc, MatmulOp op,
                                          const IRMapping &operands, Value workspaceArg,
                                          const ElementIndex &element, ValueRange shared,
                                          const TileGrid &grid) {
  SimtBlock k{b, loc, op, operands, element, grid, Emitter{b, loc}, {}, {}, {}, {}};
  k.tx = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  k.ty = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::y);
  k.rowIn = k.ltIndex(element.row, grid.m);
  k.colIn = k.ltIndex(element.col, grid.n);
  SmallVector<Value> buffers = storeShared(k, shared);
  unsigned next = packBitmasks(k, buffers);
  if (op.getReductions().empty())
    return;

  // Reductions: one owner thread per row / column / block combines the block's values.
  int64_t end = 0;
  SmallVector<ReductionLayout> layouts = planReductions(op, grid, 0, end);
  Value workspace = LLVM::AddrSpaceCastOp::create(b, loc, k.e.globalPtr(), workspaceArg);
  Value bx = k.i32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  Value by = k.i32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  Value bz = k.i32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  SmallVector<Part> parts;
  for (auto [j, layout] : llvm::enumerate(layouts)) {
    parts.push_back(reductionPart(k, layout, bx, by, bz));
    storePartial(k, layout, parts.back(), buffers[next + j], workspace);
  }
  completeReductions(k, layouts, parts, workspace);
}
