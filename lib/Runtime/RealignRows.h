// The pre-pass that copies an operand whose rows TMA cannot address (a pitch or address not a
// multiple of 16 bytes, needsTmaStaging) into rows padded to 16 bytes.
//
// One thread writes one 16-byte chunk of a padded row: its elements loaded one by one at the
// source's alignment (the column index clamped to the row, the values past it zero), stored in
// one 16-byte store. A warp's loads and stores each cover 512 contiguous bytes. cuMemcpy2DAsync
// did this copy at ~0.55 TB/s (bench/NOTES.md, Operands TMA cannot read directly).
#ifndef MEPI_RUNTIME_REALIGNROWS_H
#define MEPI_RUNTIME_REALIGNROWS_H

#include "Runtime/Problem.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace mepi::runtime {

inline constexpr const char *realignKernelName = "mepi_realign_rows";

/// The copy of a [rows, cols] operand (row pitch `sourcePitch` elements) into rows of
/// `stagedPitch` elements (a multiple of 16 bytes, at least cols).
struct RealignCopy {
  unsigned elementBytes = 2; ///< 1 or 2
  int64_t rows = 0, cols = 0, sourcePitch = 0, stagedPitch = 0;

  /// 16-byte chunks of the copy: rows x stagedPitch / (16 / elementBytes).
  int64_t chunks() const;
  /// Blocks of `block` threads, each thread a few chunks (grid-stride).
  unsigned grid() const;
  static constexpr unsigned block = 256;
  /// The kernel's parameters (expanded memref descriptors: source [rows, cols] with its pitch,
  /// the copy as 16-byte chunks).
  std::vector<int64_t> parameters(uint64_t source, uint64_t staged) const;
};

/// The pre-pass's module (gpu dialect) for elements of `elementBytes` bytes.
std::string realignKernelIR(unsigned elementBytes);

/// Its cubin for `arch`, compiled once per element size and arch.
llvm::Expected<std::shared_ptr<const std::vector<char>>>
realignKernelCubin(unsigned elementBytes, llvm::StringRef arch);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_REALIGNROWS_H
