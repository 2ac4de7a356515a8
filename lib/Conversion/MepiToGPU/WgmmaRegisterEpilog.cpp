// The wgmma epilogs that take D from the accumulator registers (see WgmmaRegisterEpilog.h).
#include "WgmmaRegisterEpilog.h"

#include "EpilogEmitter.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;
using namespace mlir::mepi;

namespace {
using mlir::mepi::sm90::kWarpgroup;
/// A TMA store buffer (Sm90Spec.h): the slice's 64 rows of one 128-byte line each (64 columns
/// of a 16-bit D, 32 of f32), with the 128-byte swizzle that the D tensor map declares.
constexpr int64_t kLineBytes = sm90::kSwizzleBytes, kBufferBytes = sm90::kTmaStoreBufferBytes;

/// What every path needs of the thread's place in the slice and the slice's place in D.
struct SlicePlace {
  Value rowBase, colBase;          ///< D coordinates of the slice's first element
  Value fragmentRow, fragmentCol;  ///< the thread's first row and column in the slice
  std::array<Value, 2> rows;       ///< D rows of the thread: fragmentRow and fragmentRow + 8
  /// Per epilog input: its values at the thread's two rows when it is a per-row vector
  /// (loaded once per slice), else null.
  SmallVector<std::array<Value, 2>> rowInputs;
};

SlicePlace placeSlice(Emitter &e, MatmulOp op, const IRMapping &operands,
                      const WgmmaEpilogFrame &f, Value rowBase, Value colBase, Value fragmentRow,
                      Value fragmentCol) {
  SlicePlace p{rowBase, colBase, fragmentRow, fragmentCol, {}, {}};
  p.rows = {e.add(rowBase, fragmentRow), e.add(rowBase, e.add(fragmentRow, e.i32(8)))};
  p.rowInputs.resize(op.getEpilogInputs().size());
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs())) {
    Value vector = operands.lookup(input);
    if (!isRowVectorInput(op, i))
      continue;
    for (int h = 0; h < 2; ++h)
      p.rowInputs[i][h] = emitRowVectorLoad(e, f, op, i, vector, p.rows[h]);
  }
  return p;
}

/// Called per step of `groupsPerStep` groups of 8 columns with the step's first group (its
/// index in the slice) and the D values of the thread's element pairs: pairs[2 j + h] is group
/// first + j, row half h (0: the thread's first row, 1: 8 rows below), a vector of 2 D
/// elements (unspecified where the pair lies outside D: visitors store only inside D).
using StepVisitor = llvm::function_ref<void(Value first, ArrayRef<Value> pairs)>;

/// Whether computing an element outside D could read or write outside the operands: per-element
/// loads (C, matrix and bitmask inputs, per-row inputs not preloaded; column inputs are loaded
/// at columns inside D, loadColumnInputs) and calls of external device code (which may write
/// through its user data). Without them the epilog of an element outside D is arithmetic on
/// values that are never stored, so it runs unguarded: the guard was two compares, a branch
/// and two moves per pair, and its basic blocks kept ptxas from interleaving a line's elements.
bool elementsNeedGuard(MatmulOp op, const SlicePlace &p) {
  if (op.getC())
    return true;
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs()))
    if (isa<MemRefType>(input.getType()) && op.getInputKind(i) != BroadcastKind::Scalar &&
        op.getInputKind(i) != BroadcastKind::Col && !p.rowInputs[i][0])
      return true;
  return op.getEpilog()
      .walk([](CallOpInterface) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// D column of the thread's first element pair in group `group`.
Value pairColumn(Emitter &e, const SlicePlace &p, Value group) {
  return e.add(p.colBase, e.add(p.fragmentCol, e.mul(group, e.i32(8))));
}

/// Per epilog input: where it is a per-column vector (a bias per output feature), its values at
/// the thread's columns of groups [first, first + count), element c of group first + j at
/// 2 j + c; else empty. One load per column serves both of the thread's rows (a load per
/// element loaded each twice), and a column past D's edge reads column 0 (valid memory; its
/// elements are never stored). The TMA store path loads a line's values while the line before
/// it is written, as it does C's pairs (loadSourcePairs).
using ColumnInputs = SmallVector<SmallVector<Value>>;
ColumnInputs loadColumnInputs(Emitter &e, MatmulOp op, const IRMapping &operands,
                              const WgmmaEpilogFrame &f, const SlicePlace &p, Value first,
                              int64_t count) {
  ColumnInputs columns(op.getEpilogInputs().size());
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs())) {
    if (op.getInputKind(i) != BroadcastKind::Col || !isa<MemRefType>(input.getType()))
      continue;
    for (int64_t j = 0; j < count; ++j)
      for (int64_t c = 0; c < 2; ++c) {
        Value col = e.add(pairColumn(e, p, e.add(first, e.i32(j))), e.i32(c));
        Value safe = arith::SelectOp::create(e.b, e.loc, e.ult(col, e.i32(f.n)), col, e.i32(0));
        ElementIndex index;
        index.row = e.toIndex(p.rows[0]);
        index.col = e.toIndex(safe);
        columns[i].push_back(
            loadEpilogInput(e.b, e.loc, op, i, operands.lookup(input), index));
      }
  }
  return columns;
}

/// The values of `columns` (loadColumnInputs of `count` groups) of `steps` groups from group
/// `from` of them on.
ColumnInputs sliceColumnInputs(const ColumnInputs &columns, int64_t from, int64_t steps) {
  ColumnInputs sliced(columns.size());
  for (auto [i, values] : llvm::enumerate(columns))
    if (!values.empty())
      sliced[i].assign(values.begin() + 2 * from, values.begin() + 2 * (from + steps));
  return sliced;
}

/// A row-major matrix's element pairs of groups [first, first + count) of the thread, as
/// vectors of 2 in the order visitStep hands D's (pair 2 j + h: group first + j, row half h),
/// or none where `matrix` is not a 2-D row-major memref of 16- or 32-bit floats whose pairs
/// are aligned (the planner promises an operand's alignment where its address has it). Pairs
/// outside D read row or column 0 (valid memory, never stored).
SmallVector<Value> loadMatrixPairs(Emitter &e, Value matrix, const IRMapping &operands,
                                   const WgmmaEpilogFrame &f, const SlicePlace &p,
                                   int64_t first, int64_t count) {
  auto type = dyn_cast<MemRefType>(matrix.getType());
  if (!type)
    return {};
  Type element = type.getElementType();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (type.getRank() != 2 || !isa<BFloat16Type, Float16Type, Float32Type>(element) ||
      failed(type.getStridesAndOffset(strides, offset)) || offset != 0 || strides[1] != 1 ||
      ShapedType::isDynamic(strides[0]) || strides[0] % 2 != 0 || f.n % 2 != 0 ||
      getPromisedAlignment(matrix) < 2 * bytes)
    return {};
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Value base = emitGlobalBase(e, operands.lookup(matrix));
  auto pairType = VectorType::get({2}, element);
  SmallVector<Value> pairs;
  for (int64_t j = 0; j < count; ++j) {
    Value col = pairColumn(e, p, e.i32(first + j));
    Value safeCol = arith::SelectOp::create(b, loc, e.ult(col, e.i32(f.n)), col, e.i32(0));
    for (int h = 0; h < 2; ++h) {
      Value safeRow = arith::SelectOp::create(b, loc, e.ult(p.rows[h], f.emitRowLimit(e)),
                                              p.rows[h], e.i32(0));
      Value linear = e.add(e.mul(e.zext64(safeRow), e.i64(strides[0])), e.zext64(safeCol));
      Value at = LLVM::GEPOp::create(b, loc, e.globalPtr(), element, base,
                                     ArrayRef<LLVM::GEPArg>{linear});
      pairs.push_back(LLVM::LoadOp::create(b, loc, pairType, at, 2 * bytes));
    }
  }
  return pairs;
}

/// The element pairs the epilog reads per element, loaded ahead by pairs: C's (the kernel adds
/// beta * C) and each row-major matrix epilog input's (e.g. C read by the epilog beside FP8
/// scales, a residual), loadMatrixPairs' order, each empty where loaded per element instead.
/// The TMA store path loads a line's pairs while the line before it is written, so that their
/// latency hides behind that line's barrier; a load per element inside the line would wait
/// there, once per line.
struct SourcePairs {
  SmallVector<Value> c;
  SmallVector<SmallVector<Value>> inputs; // one per epilog input

  /// The pairs of `steps` groups from group `from` of them on.
  SourcePairs slice(int64_t from, int64_t steps) const {
    auto part = [&](ArrayRef<Value> pairs) {
      return pairs.empty() ? SmallVector<Value>()
                           : SmallVector<Value>(pairs.slice(2 * from, 2 * steps));
    };
    SourcePairs sliced{part(c), {}};
    for (const SmallVector<Value> &pairs : inputs)
      sliced.inputs.push_back(part(pairs));
    return sliced;
  }
};

SourcePairs loadSourcePairs(Emitter &e, MatmulOp op, const IRMapping &operands,
                            const WgmmaEpilogFrame &f, const SlicePlace &p, int64_t first,
                            int64_t count) {
  SourcePairs pairs;
  if (Value c = op.getC())
    pairs.c = loadMatrixPairs(e, c, operands, f, p, first, count);
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs()))
    pairs.inputs.push_back(op.getInputKind(i) == BroadcastKind::Matrix
                               ? loadMatrixPairs(e, input, operands, f, p, first, count)
                               : SmallVector<Value>());
  return pairs;
}

/// One step of the walk: the element pairs of groups [group, group + groupsPerStep) from their
/// registers (`registers`, 4 per group: columns (c, c + 1) of rows r and r + 8, the wgmma
/// fragment layout), handed to `visit`. `sources`: the step's loadSourcePairs, or none (loaded
/// per element); `columns`: the step's loadColumnInputs, or none (loaded here).
void visitStep(Emitter &e, MatmulOp op, const IRMapping &operands, const WgmmaEpilogFrame &f,
               const SlicePlace &p, Value group, ArrayRef<Value> registers,
               int64_t groupsPerStep, StepVisitor visit, const SourcePairs &sources = {},
               ColumnInputs columns = {}) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type dElement = op.getD().getType().getElementType();
  auto pairType = VectorType::get({2}, storageElementType(dElement));
  // Only tiles that reach past D's edge test whether an element is inside, and only where
  // computing it outside could touch memory.
  bool bounds = (f.rowBounds() || f.n % f.tileN != 0) && elementsNeedGuard(op, p);
  if (columns.empty())
    columns = loadColumnInputs(e, op, operands, f, p, group, groupsPerStep);
  SmallVector<Value> pairs;
  for (int64_t j = 0; j < groupsPerStep; ++j) {
    Value col = pairColumn(e, p, e.add(group, e.i32(j)));
    for (int h = 0; h < 2; ++h) {
      SmallVector<Value> preloaded(op.getEpilogInputs().size());
      for (auto [i, rowPair] : llvm::enumerate(p.rowInputs))
        preloaded[i] = rowPair[h];
      // Element c of the pair through the epilog, in D's storage type.
      auto element = [&](int64_t c) {
        ElementIndex index;
        index.row = e.toIndex(p.rows[h]);
        index.col = e.toIndex(e.add(col, e.i32(c)));
        auto ofPair = [&](ArrayRef<Value> pairs) {
          return pairs.empty() ? Value()
                               : Value(LLVM::ExtractElementOp::create(b, loc, pairs[2 * j + h],
                                                                      e.i32(c)));
        };
        Value cValue = ofPair(sources.c);
        for (auto [i, values] : llvm::enumerate(columns))
          if (!values.empty())
            preloaded[i] = values[2 * j + c];
        for (auto [i, pairs] : llvm::enumerate(sources.inputs))
          if (!pairs.empty())
            preloaded[i] = ofPair(pairs);
        SmallVector<Value> results = emitEpilogValues(
            b, loc, op, operands, registers[4 * j + 2 * h + c], index, preloaded, cValue);
        return emitToStorage(b, loc, results[0]);
      };
      // With an odd row length the pair's second element is tested on its own (col < n below
      // covers col + 1 only where n is even).
      bool guardSecond = bounds && f.n % 2 != 0;
      auto compute = [&] {
        Value out = LLVM::UndefOp::create(b, loc, pairType);
        out = LLVM::InsertElementOp::create(b, loc, out, element(0), e.i32(0));
        Value second;
        if (guardSecond) {
          Type storage = pairType.getElementType();
          auto ifOp = scf::IfOp::create(b, loc, TypeRange{storage},
                                        e.ult(e.add(col, e.i32(1)), e.i32(f.n)),
                                        /*withElseRegion=*/true);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(ifOp.thenBlock());
          scf::YieldOp::create(b, loc, element(1));
          b.setInsertionPointToStart(ifOp.elseBlock());
          scf::YieldOp::create(b, loc,
                               Value(arith::ConstantOp::create(b, loc, b.getZeroAttr(storage))));
          second = ifOp.getResult(0);
        } else {
          second = element(1);
        }
        return Value(LLVM::InsertElementOp::create(b, loc, out, second, e.i32(1)));
      };
      if (!bounds) {
        pairs.push_back(compute());
        continue;
      }
      // col is even: col < n covers col + 1 where D's row length is even (else guardSecond).
      Value inside = e.andI(e.ult(p.rows[h], f.emitRowLimit(e)), e.ult(col, e.i32(f.n)));
      auto ifOp =
          scf::IfOp::create(b, loc, TypeRange{pairType}, inside, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard branch(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, loc, compute());
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, loc, Value(LLVM::ZeroOp::create(b, loc, pairType)));
      pairs.push_back(ifOp.getResult(0));
    }
  }
  visit(group, pairs);
}

/// Walks groups [first, first + count) of the thread's registers, `groupsPerStep` at a time, in
/// a runtime loop so that the epilog region is emitted 4 * groupsPerStep times, not tile_n / 2
/// (a switch picks each step's registers).
void walkPairs(Emitter &e, MatmulOp op, const IRMapping &operands, const WgmmaEpilogFrame &f,
               const SlicePlace &p, Value acc, Value first, int64_t count, int64_t groupsPerStep,
               StepVisitor visit) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type f32 = b.getF32Type();
  int64_t steps = f.tileN / 8 / groupsPerStep, registers = 4 * groupsPerStep;
  auto loop = scf::ForOp::create(b, loc, first, e.add(first, e.i32(count)),
                                 e.i32(groupsPerStep));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value group = loop.getInductionVar();
  SmallVector<int64_t> caseValues = llvm::to_vector(llvm::seq<int64_t>(0, steps));
  auto pick = scf::IndexSwitchOp::create(b, loc, SmallVector<Type>(registers, f32),
                                         e.toIndex(e.div(group, e.i32(groupsPerStep))),
                                         caseValues, steps);
  for (int64_t step = 0; step <= steps; ++step) {
    Region &region = step < steps ? pick.getCaseRegions()[step] : pick.getDefaultRegion();
    b.createBlock(&region);
    SmallVector<Value> picked;
    for (int64_t j = 0; j < registers; ++j)
      picked.push_back(LLVM::ExtractValueOp::create(
          b, loc, acc, registers * (step < steps ? step : 0) + j));
    scf::YieldOp::create(b, loc, picked);
  }
  b.setInsertionPointAfter(pick);
  visitStep(e, op, operands, f, p, group, SmallVector<Value>(pick.getResults()), groupsPerStep,
            visit);
}

/// The same walk unrolled: each step reads its registers by their static indices (no switch,
/// no loop), and the steps are free to interleave. `sources`, `columns`: loadSourcePairs and
/// loadColumnInputs of the run, or none.
void walkPairsUnrolled(Emitter &e, MatmulOp op, const IRMapping &operands,
                       const WgmmaEpilogFrame &f, const SlicePlace &p, Value acc, int64_t first,
                       int64_t count, int64_t groupsPerStep, StepVisitor visit,
                       const SourcePairs &sources, const ColumnInputs &columns) {
  for (int64_t group = first; group < first + count; group += groupsPerStep) {
    SmallVector<Value> registers;
    for (int64_t j = 0; j < 4 * groupsPerStep; ++j)
      registers.push_back(LLVM::ExtractValueOp::create(e.b, e.loc, acc, 4 * group + j));
    visitStep(e, op, operands, f, p, e.i32(group), registers, groupsPerStep, visit,
              sources.slice(group - first, groupsPerStep),
              sliceColumnInputs(columns, group - first, groupsPerStep));
  }
}

/// store = registers: each pair one store of two elements, no shared memory and no barrier.
void emitDirectStores(Emitter &e, MatmulOp op, const IRMapping &operands,
                      const WgmmaEpilogFrame &f, const SlicePlace &p, Value acc) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  Type dElement = op.getD().getType().getElementType();
  int64_t dBytes = op.getD().getType().getElementTypeBitWidth() / 8;
  SmallVector<Value> bases = llvm::map_to_vector(
      storedOperands(op), [&](Value stored) { return emitGlobalBase(e, operands.lookup(stored)); });
  walkPairs(e, op, operands, f, p, acc, e.i32(0), f.tileN / 8, /*groupsPerStep=*/1,
            [&](Value group, ArrayRef<Value> pairs) {
              Value col = pairColumn(e, p, group);
              for (int h = 0; h < 2; ++h) {
                OpBuilder::InsertionGuard guard(b);
                auto ifOp = scf::IfOp::create(
                    b, loc, e.andI(e.ult(p.rows[h], f.emitRowLimit(e)), e.ult(col, e.i32(f.n))),
                    /*withElseRegion=*/false);
                b.setInsertionPointToStart(ifOp.thenBlock());
                Value linear = e.add(e.mul(e.zext64(p.rows[h]), e.i64(f.n)), e.zext64(col));
                for (Value base : bases) {
                  Value target = LLVM::GEPOp::create(b, loc, e.globalPtr(),
                                                     storageElementType(dElement), base,
                                                     ArrayRef<LLVM::GEPArg>{linear});
                  LLVM::StoreOp::create(b, loc, pairs[h], target, 2 * dBytes);
                }
              }
            });
}

/// Writes the thread's values of groups [first, first + groupsPerLine) (one line) into
/// `buffer`. 16-bit D: stmatrix.x4, four 8 x 8 matrices of 16-bit elements per warp, which are
/// exactly the fragments of two groups (rows 0-7 and 8-15 of the warp's 16, each group's 8
/// columns): register i of a lane is its pair of matrix i, and lane l gives the address of row
/// l % 8 of matrix l / 8. Wider D: one store per element pair. `sources`, `columns`: the
/// line's pairs and column inputs, loaded ahead (loadSourcePairs, loadColumnInputs), or none.
void writeTmaStoreLine(Emitter &e, MatmulOp op, const IRMapping &operands,
                       const WgmmaEpilogFrame &f, const SlicePlace &p, Value acc, Value buffer,
                       int64_t first, int64_t groupsPerLine, const SourcePairs &sources,
                       const ColumnInputs &columns) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  int64_t dBytes = op.getD().getType().getElementTypeBitWidth() / 8;
  Value firstGroup = e.i32(first);
  if (dBytes != 2) {
    walkPairsUnrolled(e, op, operands, f, p, acc, first, groupsPerLine, /*groupsPerStep=*/1,
                      [&](Value group, ArrayRef<Value> pairs) {
                        Value column =
                            e.add(e.mul(e.sub(group, firstGroup), e.i32(8)), p.fragmentCol);
                        for (int h = 0; h < 2; ++h) {
                          Value row = e.add(p.fragmentRow, e.i32(8 * h));
                          Value at = swizzledOffset(e, row, e.mul(column, e.i32(dBytes)));
                          LLVM::StoreOp::create(b, loc, pairs[h], e.offset(buffer, at),
                                                2 * dBytes);
                        }
                      },
                      sources, columns);
    return;
  }
  Value lane = e.rem(f.tid, e.i32(32));
  Value matrix = e.div(lane, e.i32(8));
  Value warpRow = e.sub(p.fragmentRow, e.div(lane, e.i32(4))); // 16 * warp
  Value row =
      e.add(warpRow, e.add(e.mul(e.rem(matrix, e.i32(2)), e.i32(8)), e.rem(lane, e.i32(8))));
  walkPairsUnrolled(
      e, op, operands, f, p, acc, first, groupsPerLine, /*groupsPerStep=*/2,
      [&](Value group, ArrayRef<Value> pairs) {
        Value column =
            e.mul(e.add(e.sub(group, firstGroup), e.div(matrix, e.i32(2))), e.i32(8));
        Value at = swizzledOffset(e, row, e.mul(column, e.i32(2)));
        SmallVector<Value> words;
        for (Value pair : pairs)
          words.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair));
        NVVM::StMatrixOp::create(b, loc, e.offset(buffer, at), words, NVVM::MMALayout::row,
                                 NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
                                 NVVM::LdStMatrixEltType::B16);
      },
      sources, columns);
}

/// The bytes of D one thread stores at a time in copyLineBounded: 16 where TMA addresses D's
/// rows, else the largest power of two (at least an element) that divides D's row pitch and
/// its promised alignment, so that a unit is wholly inside or outside D.
int64_t lineUnitBytes(MatmulOp op, const WgmmaEpilogFrame &f) {
  constexpr int64_t kMaxUnitBytes = 16;
  if (f.dMap)
    return kMaxUnitBytes;
  int64_t dBytes = op.getD().getType().getElementTypeBitWidth() / 8;
  // No promise: an element's own alignment.
  int64_t alignment = std::max(getPromisedAlignment(op.getD()), dBytes);
  int64_t unit = kMaxUnitBytes;
  while (unit > dBytes && ((f.n * dBytes) % unit != 0 || alignment % unit != 0))
    unit /= 2;
  return unit;
}

/// A line that TMA cannot store: the consumer's 128 threads copy the line's first `columns`
/// columns from its buffer to D themselves, a unit each per step (lineUnitBytes: a warp writes
/// consecutive units of a row), rows and columns inside D only. Where D's rows are not 16-byte
/// multiples (no TMA store), for a slice that crosses its group's end (grouped: a TMA box clips
/// at D's end only, and the rows past the group's end are the next group's), and for a tile's
/// last line narrower than a TMA store's box, whose box would overwrite the next tile's columns.
/// The buffer was written and the consumer's barrier passed, as for the TMA store; the next
/// write of this buffer comes after the next line's barrier, which every thread reaches after
/// its reads here.
void copyLineBounded(Emitter &e, MatmulOp op, const WgmmaEpilogFrame &f, const SlicePlace &p,
                     ArrayRef<Value> bases, Value buffer, Value col, int64_t columns) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  int64_t dBytes = op.getD().getType().getElementTypeBitWidth() / 8;
  int64_t unitBytes = lineUnitBytes(op, f), unitsPerRow = columns * dBytes / unitBytes;
  // Whole steps of the warpgroup: a partial line is 32 bytes a row or more (Sm90SpecChecks).
  assert((sm90::kSliceRows * unitsPerRow) % kWarpgroup == 0 && "a step leaves threads idle");
  Value thread = e.rem(f.tid, e.i32(kWarpgroup));
  Type unitType = unitBytes >= 8 ? Type(VectorType::get({unitBytes / 4}, b.getI32Type()))
                                 : Type(b.getIntegerType(8 * unitBytes));
  for (int64_t first = 0; first < sm90::kSliceRows * unitsPerRow; first += kWarpgroup) {
    Value unit = e.add(thread, e.i32(first));
    Value row = e.div(unit, e.i32(unitsPerRow));
    Value byte = e.mul(e.rem(unit, e.i32(unitsPerRow)), e.i32(unitBytes));
    Value value = LLVM::LoadOp::create(b, loc, unitType,
                                       e.offset(buffer, swizzledOffset(e, row, byte)), unitBytes);
    Value dRow = e.add(p.rowBase, row), dCol = e.add(col, e.div(byte, e.i32(dBytes)));
    OpBuilder::InsertionGuard guard(b);
    auto ifOp = scf::IfOp::create(
        b, loc, e.andI(e.ult(dRow, f.emitRowLimit(e)), e.ult(dCol, e.i32(f.n))),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value linear = e.add(e.mul(e.zext64(dRow), e.i64(f.n)), e.zext64(dCol));
    for (Value base : bases)
      LLVM::StoreOp::create(b, loc, value,
                            e.globalOffset(base, e.mul(linear, e.i64(dBytes))), unitBytes);
  }
}

/// One thread's TMA store of the line in `buffer` at D's (`col`, `row`): D's line, then the same
/// line of each mirror, in one bulk group.
void storeTmaLine(Emitter &e, const WgmmaEpilogFrame &f, Value buffer, Value col, Value row) {
  SmallVector<Value> coordinates = {col, row};
  llvm::append_range(coordinates, f.dBatch);
  SmallVector<Value> maps = {f.dMap};
  llvm::append_range(maps, f.mirrorMaps);
  for (Value map : maps)
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(e.b, e.loc, map, buffer, coordinates,
                                                       /*l2CacheHint=*/f.dStorePolicy,
                                                       NVVM::TMAStoreMode::TILE,
                                                       /*predicate=*/Value());
  NVVM::CpAsyncBulkCommitGroupOp::create(e.b, e.loc);
}

/// store = tma: line by line (128 bytes of each of the slice's 64 rows), the consumer writes
/// the values into one of its buffers in turn, and one thread hands the buffer to a TMA store,
/// which clips at D's edges. With two buffers, before the barrier that ends a line, that
/// thread waits until the previous line's store has read its buffer, the one the next line
/// overwrites; so one barrier per line, and the stores run under the next line's epilog (and
/// the last one under the next tile's main loop). With one, each line first waits for the
/// store before it (a second barrier a line). `crosses` (grouped; uniform over the consumer):
/// the slice crosses its group's end, and its lines go to D by copyLineBounded instead. A tile
/// width that is not a multiple of a line (128 x 160) ends in a narrower line, which the
/// threads copy (copyLineBounded) where the others go to TMA stores.
void emitTmaStores(Emitter &e, MatmulOp op, const IRMapping &operands, const WgmmaEpilogFrame &f,
                   const SlicePlace &p, Value acc, Value crosses) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  int64_t lineColumns = tmaStoreLineColumns(op), wholeLines = f.tileN / lineColumns;
  int64_t lastColumns = f.tileN % lineColumns, lines = wholeLines + (lastColumns ? 1 : 0);
  int64_t groupsPerLine = lineColumns / 8;
  auto columnsOf = [&](int64_t line) { return line < wholeLines ? lineColumns : lastColumns; };
  Value consumer = f.consumer;
  Value isLeader = e.eq(e.rem(f.tid, e.i32(kWarpgroup)), e.i32(0));
  Value buffers = e.add(e.i32(f.staging), e.mul(consumer, e.i32(f.stagingBytes)));
  int64_t count = f.tmaStoreBuffers;
  TmaBufferTurns turns{count};
  auto leader = [&](llvm::function_ref<void()> body) {
    OpBuilder::InsertionGuard guard(b);
    auto ifOp = scf::IfOp::create(b, loc, isLeader, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  };
  SmallVector<Value> bases;
  if (crosses || !f.dMap || lastColumns)
    bases = llvm::map_to_vector(storedOperands(op), [&](Value stored) {
      return emitGlobalBase(e, operands.lookup(stored));
    });
  auto waitBuffersRead = [&] {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0), b.getUnitAttr());
  };
  auto waitForBuffer = [&] {
    leader(waitBuffersRead);
    emitConsumerBarrier(e, consumer);
  };
  // Line 0's wait goes before the first line's loads, the others' in the loop.
  if (turns.waitsBefore(0, lines))
    waitForBuffer();
  // The lines are unrolled (1 to 8 of them), so their registers are static and ptxas may
  // interleave a line's elements (32 a thread) rather than one step's 8 at a time.
  // The next line's source pairs and column inputs are loaded before this line's barrier
  // (loadSourcePairs, loadColumnInputs).
  SourcePairs nextC = loadSourcePairs(e, op, operands, f, p, 0, columnsOf(0) / 8);
  ColumnInputs nextInputs =
      loadColumnInputs(e, op, operands, f, p, e.i32(0), columnsOf(0) / 8);
  for (int64_t staticLine = 0; staticLine < lines; ++staticLine) {
    SourcePairs lineC = std::move(nextC);
    ColumnInputs lineInputs = std::move(nextInputs);
    if (staticLine + 1 < lines) {
      int64_t next = (staticLine + 1) * groupsPerLine, count = columnsOf(staticLine + 1) / 8;
      nextC = loadSourcePairs(e, op, operands, f, p, next, count);
      nextInputs = loadColumnInputs(e, op, operands, f, p, e.i32(next), count);
    }
    if (staticLine > 0 && turns.waitsBefore(staticLine, lines))
      waitForBuffer();
    Value line = e.i32(staticLine);
    Value bufferOffset =
        e.add(buffers, e.mul(e.andI(line, e.i32(count - 1)), e.i32(kBufferBytes)));
    Value buffer = e.offset(f.base, bufferOffset);
    int64_t columns = columnsOf(staticLine);
    writeTmaStoreLine(e, op, operands, f, p, acc, buffer, staticLine * groupsPerLine,
                      columns / 8, lineC, lineInputs);
    // The generic-proxy writes become visible to the TMA unit (the async proxy).
    e.fenceAsyncShared();
    if (turns.waitsAtEnd())
      leader(waitBuffersRead);
    emitConsumerBarrier(e, consumer);
    Value col = e.add(p.colBase, e.mul(line, e.i32(lineColumns)));
    auto tmaStore = [&] { storeTmaLine(e, f, buffer, col, p.rowBase); };
    if (!f.dMap || columns < lineColumns) { // not TMA's rows, or a narrow last line
      copyLineBounded(e, op, f, p, bases, buffer, col, columns);
      continue;
    }
    if (!crosses) {
      leader(tmaStore);
      continue;
    }
    OpBuilder::InsertionGuard guard(b);
    auto ifOp = scf::IfOp::create(b, loc, crosses, /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    copyLineBounded(e, op, f, p, bases, buffer, col, columns);
    b.setInsertionPointToStart(ifOp.elseBlock());
    leader(tmaStore);
  }
}

} // namespace


/// The byte offset of byte `byte` of row `row` in a TMA store buffer, in the 128-byte swizzle
/// the D tensor map declares: the 16-byte unit u of a buffer row r sits at unit u ^ (r % 8), so
/// the 8 rows of a stored 8 x 16-byte matrix fill the 32 banks once.
Value mlir::mepi::swizzledOffset(Emitter &e, Value row, Value byte) {
  Value unit = e.xorI(e.shr(byte, e.i32(4)), e.andI(row, e.i32(7)));
  return e.add(e.mul(row, e.i32(kLineBytes)), e.add(e.mul(unit, e.i32(16)), e.andI(byte, e.i32(15))));
}

void mlir::mepi::emitRegisterEpilog(Emitter &e, MatmulOp op, const IRMapping &operands,
                                    const WgmmaEpilogFrame &f, Value acc, Value rowBase,
                                    Value colBase, Value fragmentRow, Value fragmentCol) {
  SlicePlace place = placeSlice(e, op, operands, f, rowBase, colBase, fragmentRow, fragmentCol);
  if (f.store != DStore::Tma) {
    emitDirectStores(e, op, operands, f, place, acc);
    return;
  }
  // Grouped: whether the slice crosses its group's end (copyLineBounded). The condition is the
  // consumer's (one slice), so its named barriers stay uniform.
  Value crosses =
      f.rowEnd ? e.ult(f.rowEnd, e.add(rowBase, e.i32(sm90::kSliceRows))) : Value();
  emitTmaStores(e, op, operands, f, place, acc, crosses);
}

void mlir::mepi::emitTmaStoresDrained(Emitter &e, Value tid) {
  OpBuilder &b = e.b;
  OpBuilder::InsertionGuard guard(b);
  auto ifOp = scf::IfOp::create(b, e.loc, e.eq(e.rem(tid, e.i32(kWarpgroup)), e.i32(0)),
                                /*withElseRegion=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  NVVM::CpAsyncBulkWaitGroupOp::create(b, e.loc, b.getI32IntegerAttr(0), UnitAttr());
}
