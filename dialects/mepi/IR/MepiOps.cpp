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
// Assembly: `inputs(%x as col : memref<...>, ...)`
//===----------------------------------------------------------------------===//

static ParseResult parseEpilogInputs(OpAsmParser &parser,
                                     SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
                                     SmallVectorImpl<Type> &types, ArrayAttr &kinds) {
  SmallVector<Attribute> kindAttrs;
  if (succeeded(parser.parseOptionalKeyword("inputs"))) {
    auto parseOne = [&]() -> ParseResult {
      OpAsmParser::UnresolvedOperand operand;
      StringRef kindName;
      Type type;
      SMLoc kindLoc;
      if (parser.parseOperand(operand) || parser.parseKeyword("as") ||
          (kindLoc = parser.getCurrentLocation(), parser.parseKeyword(&kindName)) ||
          parser.parseColonType(type))
        return failure();
      std::optional<BroadcastKind> kind = symbolizeBroadcastKind(kindName);
      if (!kind)
        return parser.emitError(kindLoc)
               << "expected broadcast kind row, col, scalar or matrix, got '" << kindName << "'";
      operands.push_back(operand);
      types.push_back(type);
      kindAttrs.push_back(BroadcastKindAttr::get(parser.getContext(), *kind));
      return success();
    };
    if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseOne))
      return failure();
  }
  kinds = parser.getBuilder().getArrayAttr(kindAttrs);
  return success();
}

static void printEpilogInputs(OpAsmPrinter &printer, MatmulOp, OperandRange operands,
                              TypeRange types, ArrayAttr kinds) {
  if (operands.empty())
    return;
  printer << "inputs(";
  for (auto [i, operand] : llvm::enumerate(operands)) {
    if (i)
      printer << ", ";
    printer << operand << " as ";
    if (i < kinds.size())
      if (auto kind = dyn_cast<BroadcastKindAttr>(kinds[i]))
        printer << stringifyBroadcastKind(kind.getValue());
    printer << " : " << types[i];
  }
  printer << ")";
}

#define GET_OP_CLASSES
#include "mepi/IR/MepiOps.cpp.inc"

int64_t mlir::mepi::getPromisedAlignment(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return 0;
  auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!fn || arg.getOwner() != &fn.getFunctionBody().front())
    return 0;
  auto attr = fn.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kAlignmentAttr);
  return attr ? attr.getInt() : 0;
}

//===----------------------------------------------------------------------===//
// Memory effects
//===----------------------------------------------------------------------===//

void MatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  SmallPtrSet<OpOperand *, 4> written = {&getDMutable()};
  for (OpOperand &aux : getAuxMutable())
    written.insert(&aux);
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
} // namespace

//===----------------------------------------------------------------------===//
// MatmulOp verifier (operands)
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  MemRefType aType = getA().getType(), bType = getB().getType(), dType = getD().getType();
  for (auto [name, type] : {std::pair<StringRef, MemRefType>{"a", aType}, {"b", bType},
                            {"d", dType}})
    if (type.getRank() < 2)
      return emitOpError() << "expected " << name << " to have rank >= 2, got "
                           << type.getRank();

  // Element types: cuBLASLt's combinations (fp8 mixes e4m3 and e5m2, never e5m2 x e5m2).
  Type aElt = aType.getElementType(), bElt = bType.getElementType(),
       dElt = dType.getElementType();
  bool sameWide = isWideFloat(aElt) && aElt == bElt;
  bool fp8Pair = isFloat8(aElt) && isFloat8(bElt) &&
                 !(isa<Float8E5M2Type>(aElt) && isa<Float8E5M2Type>(bElt));
  if (!sameWide && !fp8Pair)
    return emitOpError() << "unsupported operand element types " << aElt << " x " << bElt
                         << "; expected f16 x f16, bf16 x bf16, f32 x f32 or an fp8 pair "
                            "(f8E4M3FN x f8E4M3FN, f8E4M3FN x f8E5M2, f8E5M2 x f8E4M3FN)";
  if (!isWideFloat(dElt) && !(fp8Pair && isFloat8(dElt)))
    return emitOpError() << "unsupported d element type " << dElt << " for " << aElt
                         << " operands; expected f16, bf16 or f32"
                         << (fp8Pair ? " or an fp8 type" : "");

  if (getCompute() == ComputeType::TF32 && !(aElt.isF32() && bElt.isF32()))
    return emitOpError() << "expected f32 operands for tf32 compute, got " << aElt << " x "
                         << bElt;

  // Shapes: op(A) is M x K, op(B) is K x N, D is M x N.
  ArrayRef<int64_t> aShape = aType.getShape(), bShape = bType.getShape(),
                    dShape = dType.getShape();
  int64_t aRows = aShape[aShape.size() - 2], aCols = aShape.back();
  int64_t bRows = bShape[bShape.size() - 2], bCols = bShape.back();
  int64_t m = getTransposeA() ? aCols : aRows, kA = getTransposeA() ? aRows : aCols;
  int64_t kB = getTransposeB() ? bCols : bRows, n = getTransposeB() ? bRows : bCols;
  if (!dimsMatch(kA, kB))
    return emitOpError() << "expected op(a) and op(b) to agree on K, got " << dimStr(kA)
                         << " and " << dimStr(kB);
  if (!dimsMatch(m, dShape[dShape.size() - 2]))
    return emitOpError() << "expected d to have M = " << dimStr(m)
                         << " rows (from op(a)), got " << dimStr(dShape[dShape.size() - 2]);
  if (!dimsMatch(n, dShape.back()))
    return emitOpError() << "expected d to have N = " << dimStr(n)
                         << " columns (from op(b)), got " << dimStr(dShape.back());
  if (failed(verifyBatchBroadcast(*this, "a", aShape, 2)) ||
      failed(verifyBatchBroadcast(*this, "b", bShape, 2)))
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
      return emitOpError() << "expected batch dimension " << i
                           << " of d to be 1 (a and b both broadcast it), got " << dDim;
  }

  // C and beta.
  if (getBeta() && !getC())
    return emitOpError() << "expected no beta without c";
  if (Value c = getC()) {
    if (!getBeta())
      return emitOpError() << "expected beta with c";
    auto cType = cast<MemRefType>(c.getType());
    Type cElt = cType.getElementType();
    if (isFloat8(dElt) ? !isa<Float16Type, BFloat16Type>(cElt) : cElt != dElt)
      return emitOpError() << "expected c element type "
                           << (isFloat8(dElt) ? std::string("f16 or bf16 (d is fp8)")
                                              : "to be the element type of d")
                           << ", got " << cElt;
    ArrayRef<int64_t> cShape = cType.getShape();
    if (cShape.size() < 2 || !dimsMatch(cShape[cShape.size() - 2], dShape[dShape.size() - 2]) ||
        !dimsMatch(cShape.back(), dShape.back()))
      return emitOpError() << "expected c to have shape [batch..., " << dimStr(m) << ", "
                           << dimStr(n) << "], got " << cType;
    if (failed(verifyBatchBroadcast(*this, "c", cShape, 2)))
      return failure();
  }

  // Epilog inputs, by broadcast kind.
  if (getInputKinds().size() != getEpilogInputs().size())
    return emitOpError() << "expected " << getEpilogInputs().size()
                         << " input kinds (one per epilog input), got " << getInputKinds().size();
  for (auto [i, input] : llvm::enumerate(getEpilogInputs())) {
    BroadcastKind kind = getInputKind(i);
    std::string what;
    llvm::raw_string_ostream(what) << "epilog input " << i << " ("
                                   << stringifyBroadcastKind(kind) << ")";
    auto memref = dyn_cast<MemRefType>(input.getType());
    if (kind == BroadcastKind::Scalar) {
      if (memref ? memref.getRank() != 0 : !input.getType().isIntOrIndexOrFloat())
        return emitOpError() << "expected " << what
                             << " to be a rank-0 memref or an integer, index or float value, got "
                             << input.getType();
      continue;
    }
    if (!memref)
      return emitOpError() << "expected " << what << " to be a memref, got " << input.getType();
    SmallVector<int64_t> core;
    if (kind == BroadcastKind::Row || kind == BroadcastKind::Matrix)
      core.push_back(dShape[dShape.size() - 2]);
    if (kind == BroadcastKind::Col || kind == BroadcastKind::Matrix)
      core.push_back(dShape.back());
    ArrayRef<int64_t> shape = memref.getShape();
    bool coreOk = shape.size() >= core.size() &&
                  llvm::all_of(llvm::zip(shape.take_back(core.size()), core),
                               [](auto p) { return dimsMatch(std::get<0>(p), std::get<1>(p)); });
    if (!coreOk) {
      std::string want;
      llvm::raw_string_ostream os(want);
      os << "[batch...";
      for (int64_t dim : core)
        os << ", " << dimStr(dim);
      os << "]";
      return emitOpError() << "expected " << what << " to have shape " << want << ", got "
                           << memref;
    }
    if (failed(verifyBatchBroadcast(*this, what, shape, core.size())))
      return failure();
  }

  // Aux outputs are written in full: they have exactly D's shape.
  for (auto [i, aux] : llvm::enumerate(getAux())) {
    auto auxType = cast<MemRefType>(aux.getType());
    if (auxType.getShape() != dShape &&
        !(auxType.getRank() == dType.getRank() &&
          llvm::all_of(llvm::zip(auxType.getShape(), dShape),
                       [](auto p) { return dimsMatch(std::get<0>(p), std::get<1>(p)); })))
      return emitOpError() << "expected aux " << i << " to have the shape of d " << dType
                           << ", got " << auxType;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp verifier (epilog region)
//===----------------------------------------------------------------------===//

/// The type a block argument has for an epilog input: the element type of a memref input, or
/// the scalar value's own type.
static Type epilogElementType(Value input) {
  if (auto memref = dyn_cast<MemRefType>(input.getType()))
    return memref.getElementType();
  return input.getType();
}

LogicalResult MatmulOp::verifyRegions() {
  Block &body = getEpilog().front();
  size_t numInputs = getEpilogInputs().size();
  if (body.getNumArguments() != numInputs + 3)
    return emitOpError() << "expected epilog to have " << numInputs + 3 << " arguments (acc, "
                         << numInputs << " inputs, row, col), got " << body.getNumArguments();
  if (!getAccArg().getType().isF32())
    return emitOpError() << "expected epilog argument 0 (acc) to be f32, got "
                         << getAccArg().getType();
  for (auto [i, input] : llvm::enumerate(getEpilogInputs())) {
    Type want = epilogElementType(input);
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
  size_t numAux = getAux().size();
  if (yield.getValues().size() != numAux + 1)
    return emitOpError() << "expected epilog to yield " << numAux + 1 << " values (d and "
                         << numAux << " aux), got " << yield.getValues().size();
  Type dElt = getD().getType().getElementType();
  if (yield.getValues()[0].getType() != dElt)
    return emitOpError() << "expected yielded value 0 to be " << dElt
                         << " (element type of d), got " << yield.getValues()[0].getType();
  for (auto [i, aux] : llvm::enumerate(getAux())) {
    Type auxElt = cast<MemRefType>(aux.getType()).getElementType();
    Type got = yield.getValues()[i + 1].getType();
    if (got != auxElt)
      return emitOpError() << "expected yielded value " << i + 1 << " to be " << auxElt
                           << " (element type of aux " << i << "), got " << got;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// mepi.tensor_map
//===----------------------------------------------------------------------===//

LogicalResult TensorMapOp::verify() {
  MemRefType type = getSource().getType();
  if (type.getRank() != 2)
    return emitOpError() << "expected a 2-D source, got rank " << type.getRank();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides[1] != 1)
    return emitOpError() << "expected a source with unit stride in its last dimension, got "
                         << type;
  unsigned eltBytes = type.getElementTypeBitWidth() / 8;
  if (ShapedType::isDynamic(strides[0]) || (strides[0] * eltBytes) % 16 != 0)
    return emitOpError() << "expected a row pitch that is a multiple of 16 bytes, got "
                         << (ShapedType::isDynamic(strides[0]) ? std::string("dynamic")
                                                               : std::to_string(strides[0] * eltBytes));
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
