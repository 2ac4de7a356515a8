// The kernel that combines the rows of an f32 matrix [G, W] into one row of W values, in row
// order (a sum or a maximum, in f32), stored in f32, bf16 or f16: a distributed matmul's column
// and scalar reductions, one partial row per local GEMM (Distributed/DistReductions.h). One
// thread a column; a warp's loads cover 128 contiguous bytes of a row.
#ifndef MEPI_RUNTIME_COMBINEROWS_H
#define MEPI_RUNTIME_COMBINEROWS_H

#include "Runtime/Problem.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mepi::runtime {

inline constexpr const char *combineRowsKernelName = "mepi_combine_rows";

struct CombineRows {
  bool max = false;                    ///< the maximum (arith.maximumf: NaN wins), else the sum
  ElementType out = ElementType::F32;  ///< f32, bf16 or f16 (rounded to nearest even)
  static constexpr unsigned block = 256;
  /// Blocks of `block` threads for W columns.
  static unsigned grid(int64_t columns) {
    return static_cast<unsigned>(std::max<int64_t>(1, (columns + block - 1) / block));
  }
  /// The kernel's parameters (expanded memref descriptors: the rows [G, W], the result [W]).
  static std::vector<int64_t> parameters(uint64_t rows, int64_t g, int64_t w, uint64_t result);
};

/// The kernel's module (gpu dialect).
std::string combineRowsKernelIR(const CombineRows &kind);

/// Its cubin for `arch`, compiled once per kind and arch.
llvm::Expected<std::shared_ptr<const std::vector<char>>>
combineRowsKernelCubin(const CombineRows &kind, llvm::StringRef arch);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_COMBINEROWS_H
