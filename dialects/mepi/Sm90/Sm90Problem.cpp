// Sm90Problem::of: what a Hopper kernel's sizes depend on, read off a mepi.matmul.
#include "mepi/IR/MepiOps.h"
#include "mepi/Sm90/EpilogScratch.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::mepi;

bool Sm90Problem::storesDThroughLines(MatmulOp op) {
  if (canStoreDThroughTma(op))
    return true;
  // The consumer's threads store the lines of a D-only epilog into a rank-2 row-major D.
  MemRefType dType = op.getD().getType();
  return writesOnlyStaticD(op) && isStoreLineElement(dType.getElementType()) &&
         op.getMirrors().empty() && dType.getRank() == 2;
}

Sm90Problem Sm90Problem::of(MatmulOp op) {
  Sm90Problem p;
  ArrayRef<int64_t> dShape = op.getD().getType().getShape();
  p.m = dShape[dShape.size() - 2];
  p.n = dShape.back();
  ArrayRef<int64_t> aShape = op.getA().getType().getShape();
  p.k = aShape[aShape.size() - (op.getTransposeA() ? 2 : 1)];
  for (int64_t dim : dShape.drop_back(2))
    p.batch *= dim;
  p.batched = dShape.size() > 2;
  (op.isGroupedAlongK() ? p.kGroups : p.groups) = op.getNumGroups();
  // The stored operand runs along M (A) or N (B) in memory: A given as [K, M] (transpose_a) or
  // B as [K, N] (no transpose_b).
  p.mnMajorA = op.getTransposeA();
  p.mnMajorB = !op.getTransposeB();
  p.elementBytes = op.getA().getType().getElementTypeBitWidth() / 8;
  p.promotesSums = p.elementBytes == 1 && !op.getFastAccumulation();
  p.blockScales = static_cast<bool>(op.getABlockScales());
  p.splitsTf32 = op.getA().getType().getElementType().isF32() &&
                 op.getCompute() != ComputeType::TF32;
  p.aSums = static_cast<bool>(op.getASums());
  p.bSums = static_cast<bool>(op.getBSums());
  p.reductions = !op.getReductions().empty();
  p.dFromRegisters = canStoreDFromRegisters(op);
  p.dThroughTma = canStoreDThroughTma(op);
  p.dThroughLines = storesDThroughLines(op);
  p.dLineColumns = tmaStoreLineColumns(op);
  llvm::raw_string_ostream(p.dType) << "'" << op.getD().getType() << "'";
  p.epilogScratchBytes = sm90::ScratchLayout(op).bytes;
  return p;
}
