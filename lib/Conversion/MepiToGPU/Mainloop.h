// The wgmma kernels' main loop step: one k-step's warpgroup MMAs over a stage of the ring, by
// the operands' MMA atom (Sm90Spec.h: K per instruction and element width), each wgmma's
// shared-memory descriptor its tile's plus an offset. A consumer computes its row slices of A
// (cooperative), all of them (ping-pong), or, swapped (Dᵀ = B Aᵀ), its 64 rows of B by the
// tile's rows of A.
#ifndef MEPI_CONVERSION_MEPITOGPU_MAINLOOP_H
#define MEPI_CONVERSION_MEPITOGPU_MAINLOOP_H

#include "Emitter.h"
#include "mepi/Sm90/Sm90Spec.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::mepi {

/// wgmma shared-memory descriptor of a stage tile with the 128-byte swizzle starting at the
/// shared address `address`: start address / 16 in bits 0-13, leading offset / 16 in bits
/// 16-29, stride offset / 16 in bits 32-45, swizzle mode 1 (128 bytes) in bits 62-63.
///   K-major: stride = 1024 bytes between 8-row core matrices; the leading offset is unused
///   (1 by convention).
///   MN-major: leading = 8 KiB from one 64-row block to the next, stride = 1024 bytes from 8
///   k-lines to the next.
Value emitMatrixDescriptor(Emitter &e, Value address, bool mnMajor);

/// The wgmma input type of an operand element type (f32 is read as tf32; e4m3 and e5m2 are
/// the 8-bit float types).
NVVM::WGMMATypes wgmmaType(Type t);

class WgmmaMainloop {
public:
  /// `aType`, `bType`: A's and B's element types (the same but for the mixed 8-bit pairs).
  WgmmaMainloop(const Sm90Spec &spec, Type aType, Type bType, Type accType)
      : spec(spec), config(spec.getConfig()), atom(spec.problem().atom()), aType(aType),
        bType(bType), accType(accType) {}

  /// Where this consumer's operand tiles start in the stage at `stageAddress` (shared i32).
  struct StageTiles {
    Value a, b;
  };
  StageTiles emitStageTiles(Emitter &e, Value stageAddress, Value consumer) const;
  /// The tiles' wgmma descriptors, at `stageAddress` for the swapped form's A.
  StageTiles emitDescriptors(Emitter &e, Value stageAddress, const StageTiles &tiles,
                             Value consumer) const;
  /// One k-step's wgmmas into `accs` (one per row slice), after a wgmma fence, without
  /// committing them; `afterStep(kk)` runs after the wgmmas of instruction step kk. `fresh`:
  /// the first wgmma of each slice starts from zero (scale-d = 0) instead of reading `accs`.
  /// `low`: strict f32, the descriptors of the stage's low TF32 parts (Tf32Split.h); each
  /// step then adds a_lo b_hi and a_hi b_lo before a_hi b_hi, the small products first.
  void emitWgmmas(Emitter &e, const StageTiles &descriptors, const StageTiles *low,
                  MutableArrayRef<Value> accs, bool fresh,
                  function_ref<void(int64_t)> afterStep) const;
  /// Bytes a wgmma's step of K advances in a tile: 32 within each K-major line, or the
  /// atom's K in MN-major lines.
  int64_t kStep(bool mnMajor) const {
    return mnMajor ? atom.instrK * sm90::kSwizzleBytes : atom.kBytes();
  }

private:
  const Sm90Spec &spec;
  KernelConfigAttr config;
  MmaAtom atom;
  Type aType, bType, accType;
};

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_MAINLOOP_H
