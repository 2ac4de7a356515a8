// Which local GEMMs of a distributed matmul compute its bias gradient (BiasGradients.h).
#include "Distributed/BiasGradients.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mepi;
using namespace mepi::dist;
using namespace mepi::dist::plan;

GradientSum plan::gradientSumOf(Epilog epilog) {
  switch (epilog) {
  case Epilog::DReluBGrad:
  case Epilog::DGeluBGrad: return GradientSum::RowsOfD;
  case Epilog::BGradA: return GradientSum::RowsOfA;
  case Epilog::BGradB: return GradientSum::ColumnsOfB;
  default: return GradientSum::None;
  }
}

const char *plan::gradientKey(Epilog epilog) {
  switch (epilog) {
  case Epilog::DReluBGrad: return "drelu_bgrad";
  case Epilog::DGeluBGrad: return "dgelu_bgrad";
  case Epilog::BGradA: return "bgrada";
  case Epilog::BGradB: return "bgradb";
  default: return "";
  }
}

namespace {
bool splitsK(Algorithm a) {
  return a == Algorithm::ReduceScatterRows || a == Algorithm::ReduceScatterCols ||
         a == Algorithm::AllReduce;
}

/// The rows of D: their sums are the final GEMMs' (each writes whole rows of this rank's
/// D), partial where D's columns are split, and a replicated D's rows are split among the
/// ranks' final GEMMs.
void rowsOfD(GradientPlan &g, const DistPlan &p) {
  for (const Gemm &gemm : p.gemms) {
    g.computes.push_back(gemm.final);
    g.at.push_back(gemm.mRows);
  }
  g.length = p.rowSpace;
  g.mine = p.myRows;
  g.allReduce = p.algorithm == Algorithm::AllGatherA ||
                p.algorithm == Algorithm::ReduceScatterCols ||
                p.algorithm == Algorithm::AllReduce;
}

/// Sums of an operand's rows (of op(A)) or columns (of op(B)): the first GEMM that multiplies
/// each block computes them (the GEMMs' blocks are equal or disjoint), partial over K where
/// K is split.
void operandSums(GradientPlan &g, const DistPlan &p, bool rowsOfA) {
  std::vector<Range> taken;
  for (const Gemm &gemm : p.gemms) {
    Range r = rowsOfA ? gemm.mRows : gemm.nCols;
    bool first = r.size > 0 && !llvm::is_contained(taken, r);
    if (first)
      taken.push_back(r);
    g.computes.push_back(first);
    g.at.push_back(r);
  }
  g.length = rowsOfA ? p.rowSpace : p.colSpace;
  g.mine = rowsOfA ? p.myRows : p.myCols;
  g.allReduce = splitsK(p.algorithm);
}
} // namespace

llvm::Expected<GradientPlan> plan::planGradient(const DistPlan &p, const Request &q,
                                                GradientSum sum) {
  GradientPlan g;
  g.sum = sum;
  switch (sum) {
  case GradientSum::None:
    g.computes.assign(p.gemms.size(), false);
    g.at.assign(p.gemms.size(), Range{});
    return g;
  case GradientSum::RowsOfD:
    if (p.algorithm == Algorithm::Summa && q.distributions[2].grid.cols > 1)
      return unsupportedError(llvm::formatv(
          "Summa: the bias gradient of D's rows with D on a grid of {0} columns: each row's "
          "sum is spread over the ranks of a grid row (supported: grids of one column)",
          q.distributions[2].grid.cols));
    rowsOfD(g, p);
    return g;
  case GradientSum::RowsOfA:
  case GradientSum::ColumnsOfB:
    operandSums(g, p, sum == GradientSum::RowsOfA);
    return g;
  }
  return g;
}
