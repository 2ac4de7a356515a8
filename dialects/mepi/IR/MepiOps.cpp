// mepi.matmul and mepi.yield: custom assembly, memory effects and verification.
#include "mepi/IR/MepiOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::mepi;

//===----------------------------------------------------------------------===//
// Assembly: `inputs(%x as col : memref<...>, ...)`, `aux(%m as bitmask : memref<...>)`,
// `reduce(%r as row add : memref<...>)`
//===----------------------------------------------------------------------===//

/// Parses `keyword(%v as kind [combiner] : type, ...)` when `keyword` comes next.
static ParseResult parseKindedOperands(OpAsmParser &parser, StringRef keyword,
                                       SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                                       SmallVectorImpl<Type> &types, ArrayAttr &kinds,
                                       ArrayAttr *combiners) {
  SmallVector<Attribute> kindAttrs, combinerAttrs;
  if (succeeded(parser.parseOptionalKeyword(keyword))) {
    auto parseOne = [&]() -> ParseResult {
      OpAsmParser::UnresolvedOperand operand;
      StringRef kindName, combinerName;
      Type type;
      SMLoc kindLoc, combinerLoc;
      if (parser.parseOperand(operand) || parser.parseKeyword("as") ||
          (kindLoc = parser.getCurrentLocation(), parser.parseKeyword(&kindName)))
        return failure();
      std::optional<BroadcastKind> kind = symbolizeBroadcastKind(kindName);
      if (!kind)
        return parser.emitError(kindLoc) << "expected broadcast kind row, col, scalar, matrix, "
                                            "bitmask or cyclic_row, got '"
                                         << kindName << "'";
      if (combiners) {
        combinerLoc = parser.getCurrentLocation();
        if (parser.parseKeyword(&combinerName))
          return failure();
        std::optional<Combiner> combiner = symbolizeCombiner(combinerName);
        if (!combiner)
          return parser.emitError(combinerLoc)
                 << "expected combiner add or max, got '" << combinerName << "'";
        combinerAttrs.push_back(CombinerAttr::get(parser.getContext(), *combiner));
      }
      if (parser.parseColonType(type))
        return failure();
      operands.push_back(operand);
      types.push_back(type);
      kindAttrs.push_back(BroadcastKindAttr::get(parser.getContext(), *kind));
      return success();
    };
    if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseOne))
      return failure();
  }
  kinds = parser.getBuilder().getArrayAttr(kindAttrs);
  if (combiners)
    *combiners = parser.getBuilder().getArrayAttr(combinerAttrs);
  return success();
}

static void printKindedOperands(OpAsmPrinter &printer, StringRef keyword, OperandRange operands,
                                TypeRange types, ArrayAttr kinds, ArrayAttr combiners) {
  if (operands.empty())
    return;
  printer << keyword << "(";
  for (auto [i, operand] : llvm::enumerate(operands)) {
    if (i)
      printer << ", ";
    printer << operand << " as ";
    if (i < kinds.size())
      if (auto kind = dyn_cast<BroadcastKindAttr>(kinds[i]))
        printer << stringifyBroadcastKind(kind.getValue());
    if (combiners && i < combiners.size())
      if (auto combiner = dyn_cast<CombinerAttr>(combiners[i]))
        printer << " " << stringifyCombiner(combiner.getValue());
    printer << " : " << types[i];
  }
  printer << ")";
}

static ParseResult parseEpilogInputs(OpAsmParser &parser,
                                     SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                                     SmallVectorImpl<Type> &types, ArrayAttr &kinds) {
  return parseKindedOperands(parser, "inputs", operands, types, kinds, nullptr);
}
static void printEpilogInputs(OpAsmPrinter &printer, MatmulOp, OperandRange operands,
                              TypeRange types, ArrayAttr kinds) {
  printKindedOperands(printer, "inputs", operands, types, kinds, {});
}
static ParseResult parseAuxOutputs(OpAsmParser &parser,
                                   SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                                   SmallVectorImpl<Type> &types, ArrayAttr &kinds) {
  return parseKindedOperands(parser, "aux", operands, types, kinds, nullptr);
}
static void printAuxOutputs(OpAsmPrinter &printer, MatmulOp, OperandRange operands,
                            TypeRange types, ArrayAttr kinds) {
  printKindedOperands(printer, "aux", operands, types, kinds, {});
}
static ParseResult parseReductions(OpAsmParser &parser,
                                   SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                                   SmallVectorImpl<Type> &types, ArrayAttr &kinds,
                                   ArrayAttr &combiners) {
  return parseKindedOperands(parser, "reduce", operands, types, kinds, &combiners);
}
static void printReductions(OpAsmPrinter &printer, MatmulOp, OperandRange operands,
                            TypeRange types, ArrayAttr kinds, ArrayAttr combiners) {
  printKindedOperands(printer, "reduce", operands, types, kinds, combiners);
}

/// `groups(%offs ends : memref<8xi32>)`, then optionally `weights(%w : memref<8xi64>)`.
static ParseResult parseGroups(OpAsmParser &parser,
                               std::optional<OpAsmParser::UnresolvedOperand> &groups,
                               Type &groupsType, GroupFormAttr &form, UnitAttr &alongK,
                               std::optional<OpAsmParser::UnresolvedOperand> &weights,
                               Type &weightsType) {
  if (failed(parser.parseOptionalKeyword("groups")))
    return success();
  OpAsmParser::UnresolvedOperand operand;
  StringRef formName;
  if (parser.parseLParen() || parser.parseOperand(operand))
    return failure();
  SMLoc formLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&formName))
    return failure();
  std::optional<GroupForm> parsed = symbolizeGroupForm(formName);
  if (!parsed)
    return parser.emitError(formLoc) << "expected group form ends, indptr, lengths or masked, got '"
                                     << formName << "'";
  if (succeeded(parser.parseOptionalKeyword("along"))) {
    if (parser.parseKeyword("k"))
      return failure();
    alongK = UnitAttr::get(parser.getContext());
  }
  if (parser.parseColonType(groupsType) || parser.parseRParen())
    return failure();
  groups = operand;
  form = GroupFormAttr::get(parser.getContext(), *parsed);
  if (failed(parser.parseOptionalKeyword("weights")))
    return success();
  OpAsmParser::UnresolvedOperand weightOperand;
  if (parser.parseLParen() || parser.parseOperand(weightOperand) ||
      parser.parseColonType(weightsType) || parser.parseRParen())
    return failure();
  weights = weightOperand;
  return success();
}

static void printGroups(OpAsmPrinter &printer, MatmulOp, Value groups, Type groupsType,
                        GroupFormAttr form, UnitAttr alongK, Value weights, Type weightsType) {
  if (!groups)
    return;
  printer << "groups(" << groups << " "
          << (form ? stringifyGroupForm(form.getValue()) : StringRef("ends"))
          << (alongK ? " along k" : "") << " : " << groupsType << ")";
  if (weights)
    printer << " weights(" << weights << " : " << weightsType << ")";
}

#define GET_OP_CLASSES
#include "mepi/IR/MepiOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Memory effects
//===----------------------------------------------------------------------===//

void MatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  SmallPtrSet<OpOperand *, 4> written = {&getDMutable()};
  for (MutableOperandRange outputs : {getAuxMutable(), getReductionsMutable(), getASumsMutable(),
                                      getBSumsMutable(), getMirrorsMutable()})
    for (OpOperand &output : outputs)
      written.insert(&output);
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (written.contains(&operand))
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

//===----------------------------------------------------------------------===//
// Verification helpers
//===----------------------------------------------------------------------===//

namespace {
/// Renders a dimension for a diagnostic ("?" when dynamic).
std::string dimStr(int64_t d) { return ShapedType::isDynamic(d) ? "?" : std::to_string(d); }

bool dimsMatch(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

bool isFloat8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }
bool isWideFloat(Type t) { return isa<Float16Type, BFloat16Type, Float32Type>(t); }

/// Checks that the leading `rank - coreRank` dimensions of `shape` broadcast against D's batch
/// dimensions (numpy rules: aligned right, each 1 or equal).
LogicalResult verifyBatchBroadcast(MatmulOp op, StringRef what, ArrayRef<int64_t> shape,
                                   unsigned coreRank) {
  ArrayRef<int64_t> dShape = op.getD().getType().getShape();
  ArrayRef<int64_t> dBatch = dShape.drop_back(2);
  ArrayRef<int64_t> batch = shape.drop_back(coreRank);
  // Grouped: one leading dimension of one value set per group, or none.
  if (op.isGrouped()) {
    if (batch.empty() || (batch.size() == 1 && batch[0] == op.getNumGroups()))
      return success();
    return op.emitOpError() << "expected " << what
                            << " to have no leading dimension or one of the " << op.getNumGroups()
                            << " groups, got " << shape.size() - coreRank << " leading dimensions"
                            << (batch.size() == 1 ? " of " + dimStr(batch[0]) : std::string());
  }
  if (batch.size() > dBatch.size())
    return op.emitOpError() << "expected " << what << " to have at most " << dBatch.size()
                            << " batch dimensions (as d), got " << batch.size();
  unsigned offset = dBatch.size() - batch.size();
  for (auto [i, dim] : llvm::enumerate(batch)) {
    int64_t dDim = dBatch[offset + i];
    if (dim != 1 && !dimsMatch(dim, dDim))
      return op.emitOpError() << "expected batch dimension " << i << " of " << what
                              << " to be 1 or " << dimStr(dDim) << " (as in d), got " << dim;
  }
  return success();
}

/// Number of trailing dimensions that an operand of broadcast kind `kind` indexes by (row, col).
unsigned coreRank(BroadcastKind kind) {
  switch (kind) {
  case BroadcastKind::Scalar: return 0;
  case BroadcastKind::Row:
  case BroadcastKind::CyclicRow:
  case BroadcastKind::Col: return 1;
  case BroadcastKind::Matrix:
  case BroadcastKind::Bitmask: return 2;
  }
  return 0;
}

/// Checks the trailing dimensions of `type` for kind `kind`: [M] (row), [N] (col), [>= M, N]
/// (matrix: rows past M are padding) or [>= ceil(M / 8), N] (bitmask: 8 rows per byte).
LogicalResult verifyCoreShape(MatmulOp op, StringRef what, MemRefType type, BroadcastKind kind) {
  ArrayRef<int64_t> dShape = op.getD().getType().getShape();
  int64_t m = dShape[dShape.size() - 2], n = dShape.back();
  struct Dim {
    int64_t size;
    bool atLeast;
  };
  SmallVector<Dim> core;
  switch (kind) {
  case BroadcastKind::Scalar: break;
  case BroadcastKind::Row: core = {{m, false}}; break;
  case BroadcastKind::CyclicRow: break; // verifyCyclicRow
  case BroadcastKind::Col: core = {{n, false}}; break;
  case BroadcastKind::Matrix: core = {{m, true}, {n, false}}; break;
  case BroadcastKind::Bitmask:
    core = {{ShapedType::isDynamic(m) ? m : int64_t(llvm::divideCeil(m, 8)), true}, {n, false}};
    break;
  }
  ArrayRef<int64_t> shape = type.getShape();
  bool ok = shape.size() >= core.size();
  for (size_t i = 0; ok && i < core.size(); ++i) {
    int64_t got = shape[shape.size() - core.size() + i];
    ok = core[i].atLeast && !ShapedType::isDynamic(got) && !ShapedType::isDynamic(core[i].size)
             ? got >= core[i].size
             : dimsMatch(got, core[i].size);
  }
  if (ok)
    return success();
  std::string want;
  llvm::raw_string_ostream os(want);
  std::string coreDims;
  for (Dim dim : core)
    coreDims += ", " + std::string(dim.atLeast ? ">= " : "") + dimStr(dim.size);
  // A grouped matmul's inputs have one value set per group ([S, ...]), or one for all.
  if (op.isGrouped())
    os << "[" << op.getNumGroups() << coreDims << "] or [" << StringRef(coreDims).drop_front(2)
       << "]";
  else
    os << "[batch..." << coreDims << "]";
  return op.emitOpError() << "expected " << what << " to have shape " << want << ", got "
                          << type;
}

/// A cyclic row input: one static length P dividing D's static rows M, no batch dimensions
/// (every batch element reads the same P values), and not in a grouped matmul, whose rows are
/// the groups'.
LogicalResult verifyCyclicRow(MatmulOp op, StringRef what, MemRefType type) {
  ArrayRef<int64_t> dShape = op.getD().getType().getShape();
  int64_t m = dShape[dShape.size() - 2];
  if (op.isGrouped())
    return op.emitOpError() << "expected " << what << " in a matmul that is not grouped";
  if (type.getRank() != 1 || type.isDynamicDim(0) || ShapedType::isDynamic(m) ||
      type.getDimSize(0) <= 0 || m % type.getDimSize(0) != 0)
    return op.emitOpError() << "expected " << what << " to have shape [P] with P dividing "
                            << dimStr(m) << " (the rows of d), got " << type;
  return success();
}

/// Checks that the dimensions of `shape` before its `coreRank` trailing ones are D's batch
/// dimensions (outputs are written for every batch element, so they do not broadcast).
LogicalResult verifyExactBatch(MatmulOp op, StringRef what, ArrayRef<int64_t> shape,
                               unsigned coreRank) {
  ArrayRef<int64_t> dBatch = op.getD().getType().getShape().drop_back(2);
  ArrayRef<int64_t> batch = shape.drop_back(coreRank);
  bool ok = batch.size() == dBatch.size() &&
            llvm::all_of(llvm::zip(batch, dBatch),
                         [](auto p) { return dimsMatch(std::get<0>(p), std::get<1>(p)); });
  if (ok)
    return success();
  auto render = [](ArrayRef<int64_t> dims) {
    std::string text = "[";
    llvm::raw_string_ostream os(text);
    llvm::interleaveComma(dims, os, [&](int64_t d) { os << dimStr(d); });
    return text + "]";
  };
  return op.emitOpError() << "expected " << what << " to have the batch dimensions of d "
                          << render(dBatch) << ", got " << render(batch);
}
} // namespace

//===----------------------------------------------------------------------===//
// MatmulOp verifier (operands)
//===----------------------------------------------------------------------===//

/// The operands' ranks and element types (cuBLASLt's combinations), and TF32's.
static LogicalResult verifyRanksAndTypes(MatmulOp op) {
  MemRefType aType = op.getA().getType(), bType = op.getB().getType(), dType = op.getD().getType();
  for (auto [name, type] :
       {std::pair<StringRef, MemRefType>{"a", aType}, {"b", bType}, {"d", dType}})
    if (type.getRank() < 2)
      return op.emitOpError() << "expected " << name << " to have rank >= 2, got "
                              << type.getRank();

  // Element types: cuBLASLt's combinations (fp8 mixes e4m3 and e5m2, never e5m2 x e5m2).
  Type aElt = aType.getElementType(), bElt = bType.getElementType(), dElt = dType.getElementType();
  bool sameWide = isWideFloat(aElt) && aElt == bElt;
  bool fp8Pair =
      isFloat8(aElt) && isFloat8(bElt) && !(isa<Float8E5M2Type>(aElt) && isa<Float8E5M2Type>(bElt));
  if (!sameWide && !fp8Pair)
    return op.emitOpError() << "unsupported operand element types " << aElt << " x " << bElt
                            << "; expected f16 x f16, bf16 x bf16, f32 x f32 or an fp8 pair "
                               "(f8E4M3FN x f8E4M3FN, f8E4M3FN x f8E5M2, f8E5M2 x f8E4M3FN)";
  if (!isWideFloat(dElt) && !(fp8Pair && isFloat8(dElt)))
    return op.emitOpError() << "unsupported d element type " << dElt << " for " << aElt
                            << " operands; expected f16, bf16 or f32"
                            << (fp8Pair ? " or an fp8 type" : "");

  if (op.getCompute() == ComputeType::TF32 && !(aElt.isF32() && bElt.isF32()))
    return op.emitOpError() << "expected f32 operands for tf32 compute, got " << aElt << " x "
                            << bElt;
  if (op.getFastAccumulation() && !fp8Pair)
    return op.emitOpError() << "expected fp8 operands for fast_accumulation, got " << aElt
                            << " x " << bElt;
  return success();
}

/// op(A) is M x K, op(B) is K x N, D is M x N, batch dimensions broadcast as numpy.matmul does.
static LogicalResult verifyShapes(MatmulOp op) {
  MemRefType aType = op.getA().getType(), bType = op.getB().getType(), dType = op.getD().getType();
  // Shapes: op(A) is M x K, op(B) is K x N, D is M x N.
  ArrayRef<int64_t> aShape = aType.getShape(), bShape = bType.getShape(), dShape = dType.getShape();
  int64_t aRows = aShape[aShape.size() - 2], aCols = aShape.back();
  int64_t bRows = bShape[bShape.size() - 2], bCols = bShape.back();
  int64_t m = op.getTransposeA() ? aCols : aRows, kA = op.getTransposeA() ? aRows : aCols;
  int64_t kB = op.getTransposeB() ? bCols : bRows, n = op.getTransposeB() ? bRows : bCols;
  if (!dimsMatch(kA, kB))
    return op.emitOpError() << "expected op(a) and op(b) to agree on K, got " << dimStr(kA)
                            << " and " << dimStr(kB);
  if (!dimsMatch(m, dShape[dShape.size() - 2]))
    return op.emitOpError() << "expected d to have M = " << dimStr(m) << " rows (from op(a)), got "
                            << dimStr(dShape[dShape.size() - 2]);
  if (!dimsMatch(n, dShape.back()))
    return op.emitOpError() << "expected d to have N = " << dimStr(n)
                            << " columns (from op(b)), got " << dimStr(dShape.back());
  if (op.isGrouped()) // the groups' shapes: verifyGroups
    return success();
  if (failed(verifyBatchBroadcast(op, "a", aShape, 2)) ||
      failed(verifyBatchBroadcast(op, "b", bShape, 2)))
    return failure();
  // numpy.matmul: a batch dimension of D is 1 when both A and B broadcast it.
  ArrayRef<int64_t> dBatch = dShape.drop_back(2);
  for (auto [i, dDim] : llvm::enumerate(dBatch)) {
    auto dimOf = [&](ArrayRef<int64_t> shape) -> int64_t {
      int64_t fromRight = dBatch.size() - i;
      int64_t batchRank = shape.size() - 2;
      return fromRight > batchRank ? 1 : shape[batchRank - fromRight];
    };
    if (dimOf(aShape) == 1 && dimOf(bShape) == 1 && !dimsMatch(dDim, 1))
      return op.emitOpError() << "expected batch dimension " << i
                              << " of d to be 1 (a and b both broadcast it), got " << dDim;
  }
  return success();
}

/// C (with beta): D's element type (f16 or bf16 for an fp8 D) and shape, broadcast over the batch.
static LogicalResult verifyCAndBeta(MatmulOp op) {
  MemRefType aType = op.getA().getType(), bType = op.getB().getType(), dType = op.getD().getType();
  ArrayRef<int64_t> aShape = aType.getShape(), bShape = bType.getShape(), dShape = dType.getShape();
  int64_t aRows = aShape[aShape.size() - 2], aCols = aShape.back();
  int64_t bRows = bShape[bShape.size() - 2], bCols = bShape.back();
  int64_t m = op.getTransposeA() ? aCols : aRows;
  int64_t n = op.getTransposeB() ? bRows : bCols;
  Type dElt = dType.getElementType();
  if (op.getBeta() && !op.getC())
    return op.emitOpError() << "expected no beta without c";
  if (Value c = op.getC()) {
    if (!op.getBeta())
      return op.emitOpError() << "expected beta with c";
    auto cType = cast<MemRefType>(c.getType());
    Type cElt = cType.getElementType();
    if (isFloat8(dElt) ? !isa<Float16Type, BFloat16Type>(cElt) : cElt != dElt)
      return op.emitOpError() << "expected c element type "
                              << (isFloat8(dElt) ? std::string("f16 or bf16 (d is fp8)")
                                                 : "to be the element type of d")
                              << ", got " << cElt;
    ArrayRef<int64_t> cShape = cType.getShape();
    if (cShape.size() < 2 || !dimsMatch(cShape[cShape.size() - 2], dShape[dShape.size() - 2]) ||
        !dimsMatch(cShape.back(), dShape.back()))
      return op.emitOpError() << "expected c to have shape [batch..., " << dimStr(m) << ", "
                              << dimStr(n) << "], got " << cType;
    if (failed(verifyBatchBroadcast(op, "c", cShape, 2)))
      return failure();
  }
  return success();
}

/// The epilog inputs, by broadcast kind.
static LogicalResult verifyEpilogInputs(MatmulOp op) {
  // Epilog inputs, by broadcast kind.
  if (op.getInputKinds().size() != op.getEpilogInputs().size())
    return op.emitOpError() << "expected " << op.getEpilogInputs().size()
                            << " input kinds (one per epilog input), got "
                            << op.getInputKinds().size();
  for (auto [i, input] : llvm::enumerate(op.getEpilogInputs())) {
    BroadcastKind kind = op.getInputKind(i);
    std::string what;
    llvm::raw_string_ostream(what)
        << "epilog input " << i << " (" << stringifyBroadcastKind(kind) << ")";
    auto memref = dyn_cast<MemRefType>(input.getType());
    if (kind == BroadcastKind::Scalar) {
      // Grouped: [S], one value per group.
      if (memref && memref.getRank() == 1 && op.isGrouped())
        if (failed(verifyBatchBroadcast(op, what, memref.getShape(), 0)))
          return failure();
      if (memref ? memref.getRank() > (op.isGrouped() ? 1 : 0)
                 : !input.getType().isIntOrIndexOrFloat())
        return op.emitOpError()
               << "expected " << what
               << " to be a rank-0 memref or an integer, index or float value, got "
               << input.getType();
      continue;
    }
    if (!memref)
      return op.emitOpError() << "expected " << what << " to be a memref, got " << input.getType();
    if (kind == BroadcastKind::Bitmask && !memref.getElementType().isInteger(8))
      return op.emitOpError() << "expected " << what << " to have i8 elements, got "
                              << memref.getElementType();
    if (kind == BroadcastKind::CyclicRow) {
      if (failed(verifyCyclicRow(op, what, memref)))
        return failure();
      continue;
    }
    if (failed(verifyCoreShape(op, what, memref, kind)) ||
        failed(verifyBatchBroadcast(op, what, memref.getShape(), coreRank(kind))))
      return failure();
  }
  return success();
}

/// Aux outputs: written at every element position of D, so they have D's batch dimensions.
static LogicalResult verifyAuxOutputs(MatmulOp op) {
  // Aux outputs are written at every element position of D, so they have D's batch dimensions.
  if (op.getAuxKinds().size() != op.getAux().size())
    return op.emitOpError() << "expected " << op.getAux().size()
                            << " aux kinds (one per aux output), got " << op.getAuxKinds().size();
  for (auto [i, aux] : llvm::enumerate(op.getAux())) {
    BroadcastKind kind = op.getAuxKind(i);
    std::string what;
    llvm::raw_string_ostream(what) << "aux " << i << " (" << stringifyBroadcastKind(kind) << ")";
    if (kind != BroadcastKind::Matrix && kind != BroadcastKind::Bitmask)
      return op.emitOpError() << "expected " << what << " to be matrix or bitmask";
    auto auxType = cast<MemRefType>(aux.getType());
    if (kind == BroadcastKind::Bitmask && !auxType.getElementType().isInteger(8))
      return op.emitOpError() << "expected " << what << " to have i8 elements, got "
                              << auxType.getElementType();
    if (failed(verifyCoreShape(op, what, auxType, kind)) ||
        failed(verifyExactBatch(op, what, auxType.getShape(), 2)))
      return failure();
  }
  return success();
}

/// Reductions: one value per row or column of every batch element of D, or one in all.
static LogicalResult verifyReductions(MatmulOp op) {
  // Reductions: one value per row or column of every batch element of D, or one in all.
  if (op.getReductionKinds().size() != op.getReductions().size() ||
      op.getReductionCombiners().size() != op.getReductions().size())
    return op.emitOpError() << "expected " << op.getReductions().size()
                            << " reduction kinds and combiners (one per reduction), got "
                            << op.getReductionKinds().size() << " and "
                            << op.getReductionCombiners().size();
  for (auto [i, result] : llvm::enumerate(op.getReductions())) {
    BroadcastKind kind = op.getReductionKind(i);
    std::string what;
    llvm::raw_string_ostream(what)
        << "reduction " << i << " (" << stringifyBroadcastKind(kind) << ")";
    if (kind != BroadcastKind::Row && kind != BroadcastKind::Col && kind != BroadcastKind::Scalar)
      return op.emitOpError() << "expected " << what << " to be row, col or scalar";
    auto type = cast<MemRefType>(result.getType());
    if (!isWideFloat(type.getElementType()))
      return op.emitOpError() << "expected " << what << " to have f16, bf16 or f32 elements, got "
                              << type.getElementType();
    if (kind == BroadcastKind::Scalar) {
      if (type.getRank() != 0)
        return op.emitOpError() << "expected " << what << " to be a rank-0 memref, got " << type;
      continue;
    }
    if (failed(verifyCoreShape(op, what, type, kind)) ||
        failed(verifyExactBatch(op, what, type.getShape(), 1)))
      return failure();
  }
  return success();
}

/// Operand sums: one value per row of op(A) (as per row of D) or per column of op(B).
static LogicalResult verifyOperandSums(MatmulOp op) {
  // Operand sums: one value per row of op(A) (as per row of D) or per column of op(B).
  for (auto [sums, kind, name] : {std::tuple{op.getASums(), BroadcastKind::Row, "a_sums"},
                                  std::tuple{op.getBSums(), BroadcastKind::Col, "b_sums"}}) {
    if (!sums)
      continue;
    auto type = cast<MemRefType>(sums.getType());
    if (!isWideFloat(type.getElementType()))
      return op.emitOpError() << "expected " << name << " to have f16, bf16 or f32 elements, got "
                              << type.getElementType();
    if (failed(verifyCoreShape(op, name, type, kind)) ||
        failed(verifyExactBatch(op, name, type.getShape(), 1)))
      return failure();
  }
  return success();
}

namespace mlir::mepi {
/// The grouped form's operands, the block scales, the mirrors (Mepi<Name>Verifier.cpp).
LogicalResult verifyGroups(MatmulOp op);
LogicalResult verifyBlockScales(MatmulOp op);
LogicalResult verifyMirrors(MatmulOp op);
} // namespace mlir::mepi

LogicalResult MatmulOp::verify() {
  return success(succeeded(verifyRanksAndTypes(*this)) && succeeded(verifyGroups(*this)) &&
                 succeeded(verifyShapes(*this)) &&
                 succeeded(verifyCAndBeta(*this)) && succeeded(verifyEpilogInputs(*this)) &&
                 succeeded(verifyAuxOutputs(*this)) && succeeded(verifyReductions(*this)) &&
                 succeeded(verifyOperandSums(*this)) && succeeded(verifyBlockScales(*this)) &&
                 succeeded(verifyMirrors(*this)));
}

//===----------------------------------------------------------------------===//
// MatmulOp verifier (epilog region)
//===----------------------------------------------------------------------===//

Type MatmulOp::getInputElementType(unsigned i) {
  Value input = getEpilogInputs()[i];
  if (getInputKind(i) == BroadcastKind::Bitmask)
    return IntegerType::get(getContext(), 1);
  if (auto memref = dyn_cast<MemRefType>(input.getType()))
    return memref.getElementType();
  return input.getType();
}

LogicalResult MatmulOp::verifyRegions() {
  Block &body = getEpilog().front();
  size_t numInputs = getEpilogInputs().size(), numArguments = numInputs + (isGrouped() ? 4 : 3);
  if (body.getNumArguments() != numArguments)
    return emitOpError() << "expected epilog to have " << numArguments << " arguments (acc, "
                         << numInputs << " inputs, row, col" << (isGrouped() ? ", group" : "")
                         << "), got " << body.getNumArguments();
  if (isGrouped() && !getGroupArg().getType().isIndex())
    return emitOpError() << "expected epilog group argument to be index, got "
                         << getGroupArg().getType();
  if (!getAccArg().getType().isF32())
    return emitOpError() << "expected epilog argument 0 (acc) to be f32, got "
                         << getAccArg().getType();
  for (auto [i, input] : llvm::enumerate(getEpilogInputs())) {
    Type want = getInputElementType(i);
    if (getInputArg(i).getType() != want)
      return emitOpError() << "expected epilog argument " << i + 1 << " (input " << i
                           << ") to be " << want << ", got " << getInputArg(i).getType();
  }
  if (!getRowArg().getType().isIndex() || !getColArg().getType().isIndex())
    return emitOpError() << "expected epilog row and col arguments to be index, got "
                         << getRowArg().getType() << " and " << getColArg().getType();

  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError() << "expected epilog to end in mepi.yield, got "
                         << body.getTerminator()->getName();
  size_t numAux = getAux().size(), numReductions = getReductions().size();
  if (yield.getValues().size() != 1 + numAux + numReductions)
    return emitOpError() << "expected epilog to yield " << 1 + numAux + numReductions
                         << " values (d, " << numAux << " aux and " << numReductions
                         << " reductions), got " << yield.getValues().size();
  Type dElt = getD().getType().getElementType();
  if (yield.getValues()[0].getType() != dElt)
    return emitOpError() << "expected yielded value 0 to be " << dElt
                         << " (element type of d), got " << yield.getValues()[0].getType();
  for (auto [i, aux] : llvm::enumerate(getAux())) {
    bool bitmask = getAuxKind(i) == BroadcastKind::Bitmask;
    Type want = bitmask ? IntegerType::get(getContext(), 1)
                        : cast<MemRefType>(aux.getType()).getElementType();
    Type got = yield.getValues()[i + 1].getType();
    if (got != want)
      return emitOpError() << "expected yielded value " << i + 1 << " to be " << want << " ("
                           << (bitmask ? "a bit of" : "element type of") << " aux " << i
                           << "), got " << got;
  }
  for (size_t i = 0; i < numReductions; ++i) {
    Type got = yield.getValues()[1 + numAux + i].getType();
    if (!got.isF32())
      return emitOpError() << "expected yielded value " << 1 + numAux + i
                           << " to be f32 (reduction " << i << "), got " << got;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// mepi.tensor_map
//===----------------------------------------------------------------------===//

std::optional<std::string> mlir::mepi::whyNotTmaAddressable(MemRefType type) {
  std::string message;
  llvm::raw_string_ostream os(message);
  // A matrix, with up to three batch dimensions (TMA addresses five).
  if (type.getRank() < 2 || type.getRank() > 5) {
    os << "expected a source of rank 2 to 5, got rank " << type.getRank();
    return message;
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1) {
    os << "expected a source with unit stride in its last dimension, got " << type;
    return message;
  }
  unsigned eltBytes = type.getElementTypeBitWidth() / 8;
  int64_t pitch = strides[strides.size() - 2];
  if (ShapedType::isDynamic(pitch) || (pitch * eltBytes) % 16 != 0) {
    os << "expected a row pitch that is a multiple of 16 bytes, got "
       << (ShapedType::isDynamic(pitch) ? std::string("dynamic")
                                        : std::to_string(pitch * eltBytes));
    return message;
  }
  for (int64_t dim = 0; dim + 2 < type.getRank(); ++dim)
    if (type.getDimSize(dim) != 1 &&
        (ShapedType::isDynamic(strides[dim]) || (strides[dim] * eltBytes) % 16 != 0)) {
      os << "expected the stride of batch dimension " << dim << " a multiple of 16 bytes, got "
         << type;
      return message;
    }
  return std::nullopt;
}

LogicalResult TensorMapOp::verify() {
  MemRefType type = getSource().getType();
  if (std::optional<std::string> why = whyNotTmaAddressable(type))
    return emitOpError() << *why;
  unsigned eltBytes = type.getElementTypeBitWidth() / 8;
  ArrayRef<int64_t> box = getBox();
  if (box.size() != 2 || llvm::any_of(box, [](int64_t b) { return b < 1 || b > 256; }))
    return emitOpError() << "expected a box of 2 sizes in [1, 256]";
  int64_t swizzle = getSwizzle();
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitOpError() << "expected swizzle 0, 32, 64 or 128, got " << swizzle;
  if (swizzle && box[0] * eltBytes > swizzle)
    return emitOpError() << "expected the box's inner extent (" << box[0] * eltBytes
                         << " bytes) within the " << swizzle << "-byte swizzle";
  return success();
}
