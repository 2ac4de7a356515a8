// MatmulProblem values for the planner's host tests: row-major operands of one element type.
#ifndef MEPI_UNITTESTS_PLANNERPROBLEMS_H
#define MEPI_UNITTESTS_PLANNERPROBLEMS_H

#include "Runtime/Planner.h"
#include "Runtime/Problem.h"

#include <string>
#include <vector>

namespace mepi::runtime {

inline OperandLayout layout(ElementType type, std::vector<int64_t> shape) {
  OperandLayout l{type, shape, rowMajorStrides(shape)};
  return l;
}

/// M x N x K of `type`, A read transposed ([K, M]) with `transA`, B with `transB` ([N, K]); a
/// bias of M elements for the BIAS epilogs (not the bias gradients).
inline MatmulProblem problem(ElementType type, int64_t m, int64_t n, int64_t k,
                             std::string epilog, bool transA = false, bool transB = false) {
  MatmulProblem p;
  p.a = layout(type, transA ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k});
  p.b = layout(type, transB ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n});
  p.d = layout(type, {m, n});
  p.transposeA = transA;
  p.transposeB = transB;
  p.epilog = epilog;
  if (epilog.find("BIAS") != std::string::npos && epilog.find("BGRAD") == std::string::npos)
    p.builtinInputs.push_back({"bias", layout(type, {m})});
  return p;
}

/// Strides of a column-major [rows, N] matrix: cuBLASLt's aux layout.
inline std::vector<int64_t> colMajor(int64_t rows) { return {1, rows}; }

/// Why planning `p` fails, or "" when it plans.
inline std::string errorOf(const MatmulProblem &p) {
  llvm::Expected<std::string> planned = planModule(p);
  if (planned)
    return "";
  return llvm::toString(planned.takeError());
}

} // namespace mepi::runtime

#endif // MEPI_UNITTESTS_PLANNERPROBLEMS_H
