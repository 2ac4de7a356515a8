// The aux matrices of the built-in epilogs ("relu_aux", "gelu_aux"): their layouts, the blocks of
// taller aux matrices a problem may read or write, and nvmath's epilog preferences for them
// (an 8-bit "gelu_aux" with its scale and amax). Plain C++: the planner and tests share it.
#ifndef MEPI_RUNTIME_AUXLAYOUTS_H
#define MEPI_RUNTIME_AUXLAYOUTS_H

#include "Runtime/Problem.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace mepi::runtime {

/// D's batch dimensions, M and N.
struct OutputShape {
  std::vector<int64_t> batch;
  int64_t m, n;
  explicit OutputShape(const MatmulProblem &p)
      : batch(p.d.shape.begin(), p.d.shape.end() - 2), m(p.d.shape[p.d.shape.size() - 2]),
        n(p.d.shape.back()) {}
};

/// The layout of an aux matrix (as written by the forward epilog and read by the backward one),
/// column-major as cuBLASLt's: "relu_aux" is 1 bit per element, M padded to 128 bits per column
/// (u8 [batch..., ceil(M/8) rounded up to 16, N]); "gelu_aux" has geluAuxType with M padded to
/// 16 bytes' worth of elements where that is more than 8 (an 8-bit aux: 16 rows).
OperandLayout auxLayout(llvm::StringRef key, const MatmulProblem &p);

/// An aux matrix the epilog writes: auxLayout, with the column stride of
/// Options::auxLeadingDimension where given, checked against the smallest and the granule.
llvm::Expected<OperandLayout> auxOutputLayout(llvm::StringRef key, const MatmulProblem &p);

/// Whether an aux matrix given as an epilog input has the forward epilog's layout `want`, or
/// (unbatched) that layout with a larger column stride.
bool auxInputFits(const OperandLayout &given, const OperandLayout &want);

/// Checks nvmath's epilog preferences (MatmulProblem::auxType, auxAmax) and the built-in input
/// "aux_quantization_scale" against the epilog (`writesGeluAux`) and the operands: a type other
/// than D's needs 8-bit A and B; an 8-bit aux needs its scale (f32, one value) and only it
/// takes one; the amax needs an 8-bit aux.
llvm::Error checkAuxPreferences(const MatmulProblem &p, bool writesGeluAux);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_AUXLAYOUTS_H
