// mepi.matmul's grouped form: the verifier of its groups operand, weight indices and ranks, and
// the group count (MepiOps.td describes the form).
#include "mepi/IR/MepiOps.h"

#include <string>

using namespace mlir;
using namespace mlir::mepi;

namespace mlir::mepi {
/// A 1-D static memref of i32 or i64 elements.
namespace {
bool isIndexVector(MemRefType type) {
  Type element = type.getElementType();
  return type.getRank() == 1 && type.hasStaticShape() &&
         (element.isInteger(32) || element.isInteger(64));
}
std::string dimStr(int64_t d) { return ShapedType::isDynamic(d) ? "?" : std::to_string(d); }
} // namespace

/// What a grouped matmul takes of the epilog's outputs: scalar f32 maxima (an amax), which each
/// slice combines into the output atomically (the maximum does not depend on the tiles' order,
/// and the tiles' count is on the device); no row or column reductions, sums or operand sums.
LogicalResult verifyGroupedOutputs(MatmulOp op) {
  if (op.getASums() || op.getBSums())
    return op.emitOpError() << "expected no operand sums in a grouped matmul";
  for (unsigned j = 0; j < op.getReductions().size(); ++j) {
    auto type = cast<MemRefType>(op.getReductions()[j].getType());
    if (op.getReductionKind(j) != BroadcastKind::Scalar ||
        op.getReductionCombiner(j) != Combiner::Max || !type.getElementType().isF32())
      return op.emitOpError() << "expected only scalar f32 maxima among a grouped matmul's "
                                 "reductions, got reduction "
                              << j << " (" << stringifyBroadcastKind(op.getReductionKind(j))
                              << ", " << stringifyCombiner(op.getReductionCombiner(j)) << ", "
                              << type.getElementType() << ")";
  }
  return success();
}

/// Groups along K: A [M, K] and B [K, N] (2-D, as transposed or not), D [S, M, N] (C and the
/// inputs: verifyBatchBroadcast); bounds as ends or indptr, no weight indices.
LogicalResult verifyGroupsAlongK(MatmulOp op) {
  MemRefType aType = op.getA().getType(), bType = op.getB().getType(), dType = op.getD().getType();
  int64_t groups = op.getNumGroups();
  // Each unit reads its own group's bounds: the ends and indptr forms give them directly.
  GroupForm form = *op.getGroupForm();
  if ((form != GroupForm::Ends && form != GroupForm::Indptr) || op.getWeightIndices())
    return op.emitOpError() << "expected groups along k in the ends or indptr form without "
                               "weight_indices, got the "
                            << stringifyGroupForm(form) << " form"
                            << (op.getWeightIndices() ? " with weight_indices" : "");
  if (aType.getRank() != 2 || bType.getRank() != 2 || dType.getRank() != 3)
    return op.emitOpError() << "expected a matmul grouped along k to have a, b and d of ranks "
                               "2, 2 and 3 ([M, K], [K, N], [S, M, N]), got "
                            << aType.getRank() << ", " << bType.getRank() << " and "
                            << dType.getRank();
  if (!ShapedType::isDynamic(dType.getDimSize(0)) && dType.getDimSize(0) != groups)
    return op.emitOpError() << "expected d to have one matrix per group (" << groups
                            << "), got " << dimStr(dType.getDimSize(0));
  return verifyGroupedOutputs(op);
}

/// The grouped form: the groups operand and its form, the ranks of A, B, C and D, B's matrices
/// (one per group, or as many as weight_indices name), and what a grouped matmul does not take.
LogicalResult verifyGroups(MatmulOp op) {
  if (!op.isGrouped()) {
    if (op.getGroupForm() || op.getWeightIndices())
      return op.emitOpError() << "expected no group form or weight_indices without groups";
    return success();
  }
  auto groupsType = cast<MemRefType>(op.getGroups().getType());
  if (!isIndexVector(groupsType))
    return op.emitOpError() << "expected groups to be a 1-D static memref of i32 or i64, got "
                            << groupsType;
  if (!op.getGroupForm())
    return op.emitOpError() << "expected a group form (ends, indptr, lengths or masked)";
  if (op.getNumGroups() < 1)
    return op.emitOpError() << "expected groups to give at least one group, got "
                            << groupsType.getDimSize(0) << " elements in the "
                            << stringifyGroupForm(*op.getGroupForm()) << " form";
  if (op.getGroupsAlongK())
    return verifyGroupsAlongK(op);
  MemRefType aType = op.getA().getType(), bType = op.getB().getType(), dType = op.getD().getType();
  if (aType.getRank() != 2 || bType.getRank() != 3 || dType.getRank() != 2)
    return op.emitOpError() << "expected a grouped matmul's a, b and d to have ranks 2, 3 and "
                               "2 ([T, K], [W, K, N], [T, N]), got "
                            << aType.getRank() << ", " << bType.getRank() << " and "
                            << dType.getRank();
  if (Value c = op.getC(); c && cast<MemRefType>(c.getType()).getRank() != 2)
    return op.emitOpError() << "expected a grouped matmul's c to have rank 2 ([T, N]), got "
                            << c.getType();
  int64_t matrices = bType.getDimSize(0), groups = op.getNumGroups();
  // The masked form gives every group the same R rows of A and D: T = S R.
  int64_t rows = dType.getDimSize(0);
  if (op.getGroupForm() == GroupForm::Masked && !ShapedType::isDynamic(rows) && rows % groups)
    return op.emitOpError() << "expected the masked form's " << dimStr(rows)
                            << " rows of d to be a multiple of its " << groups
                            << " groups (R rows each)";
  if (Value weights = op.getWeightIndices()) {
    auto weightsType = cast<MemRefType>(weights.getType());
    if (!isIndexVector(weightsType) || weightsType.getDimSize(0) != groups)
      return op.emitOpError() << "expected weight_indices to be a memref of " << groups
                              << " i32 or i64 (one per group), got " << weightsType;
  } else if (matrices != groups) {
    return op.emitOpError() << "expected b to have one matrix per group (" << groups
                            << ") without weight_indices, got " << dimStr(matrices);
  }
  if (failed(verifyGroupedOutputs(op)))
    return failure();
  // A mask byte holds 8 rows, which may lie in two groups written by different tiles.
  for (unsigned i = 0; i < op.getAux().size(); ++i)
    if (op.getAuxKind(i) == BroadcastKind::Bitmask)
      return op.emitOpError() << "expected no bitmask aux outputs in a grouped matmul (a byte's 8 "
                                 "rows may lie in two groups), got aux "
                              << i;
  return success();
}

int64_t MatmulOp::getNumGroups() {
  if (!isGrouped())
    return 0;
  int64_t elements = cast<MemRefType>(getGroups().getType()).getDimSize(0);
  if (ShapedType::isDynamic(elements))
    return 0;
  return getGroupForm() == GroupForm::Indptr ? elements - 1 : elements;
}

} // namespace mlir::mepi
