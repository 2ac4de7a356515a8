// Attributes of the mepi dialect: enum printing and kernel configuration checks.
#include "mepi/IR/MepiAttrs.h"
#include "mepi/IR/MepiDialect.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mepi;

#include "mepi/IR/MepiEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mepi/IR/MepiAttrs.cpp.inc"

/// Split-K beyond this many slices costs more in partial sums than it gains in blocks.
static constexpr int64_t kMaxSplits = 32;

LogicalResult KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       KernelStrategy strategy, int64_t tileM, int64_t tileN,
                                       int64_t tileK, int64_t stages, int64_t splits,
                                       bool tma, bool pingpong, int64_t cluster,
                                       DStore store, bool swapped, bool streamk) {
  if (tileM <= 0 || tileN <= 0 || tileK <= 0)
    return emitError() << "expected positive tile sizes, got [" << tileM << ", " << tileN << ", "
                       << tileK << "]";
  // A SIMT block runs one thread per output element of its tile; CUDA caps a block at 1024.
  if (strategy == KernelStrategy::Simt && tileM * tileN > 1024)
    return emitError() << "expected at most 1024 threads per simt block, got " << tileM * tileN;
  if (strategy == KernelStrategy::Simt && stages != 1)
    return emitError() << "expected 1 stage for simt, got " << stages;
  if (splits < 1 || splits > kMaxSplits)
    return emitError() << "expected 1 to " << kMaxSplits << " splits, got " << splits;
  if (strategy == KernelStrategy::Simt && splits != 1)
    return emitError() << "expected 1 split for simt, got " << splits;
  if (strategy == KernelStrategy::Simt && !tma)
    return emitError() << "expected no tma setting for simt";
  // Stream-K cuts the last wave of a cooperative kernel's units into even k ranges, one per
  // walker, each consumer holding one 64-row slice (its partials are split-K records).
  if (streamk && (strategy != KernelStrategy::Wgmma || swapped || pingpong || splits != 1 ||
                  tileM == 256))
    return emitError() << "expected streamk only for a cooperative wgmma kernel (not swapped or "
                          "ping-pong, 1 split, tile_m 64 or 128)";
  if (strategy == KernelStrategy::Wgmma && swapped) {
    // Dᵀ = B Aᵀ: tile_m rows of D are each wgmma's n side, 64 columns each consumer's m64 side.
    if (tileM != 16 && tileM != 32 && tileM != 64)
      return emitError() << "expected tile_m 16, 32 or 64 for a swapped wgmma kernel, got "
                         << tileM;
    if (tileN != 64 && tileN != 128)
      return emitError() << "expected tile_n 64 or 128 for a swapped wgmma kernel (one "
                            "consumer per 64 columns), got "
                         << tileN;
    if (tileK != 64)
      return emitError() << "expected tile_k 64 for wgmma, got " << tileK;
    if (stages < 2 || stages > 16)
      return emitError() << "expected 2 to 16 stages for a swapped wgmma kernel, got " << stages;
    if (splits != 1 || pingpong || cluster != 1 || store != DStore::Staged)
      return emitError() << "expected no splits, pingpong, cluster or store setting for a "
                            "swapped wgmma kernel";
    return success();
  }
  if (swapped)
    return emitError() << "expected swapped only for wgmma";
  if (strategy == KernelStrategy::Wgmma) {
    // One consumer warpgroup per 64 rows (wgmma m64), n a multiple of 8 up to 256, and one
    // 128-byte swizzle atom of 16-bit elements along K per stage.
    if (tileM != 64 && tileM != 128 && tileM != 256)
      return emitError() << "expected tile_m 64, 128 or 256 for wgmma, got " << tileM;
    // 256 rows: two consumers of two 64-row slices each, whose accumulators must fit.
    if (tileM == 256 && (tileN > 128 || splits != 1))
      return emitError() << "expected tile_n at most 128 and 1 split for 256-row wgmma tiles "
                            "(each consumer holds two 64-row slices), got tile_n "
                         << tileN << " and " << splits << " splits";
    if (tileN % 8 != 0 || tileN > 256)
      return emitError() << "expected tile_n a multiple of 8 up to 256 for wgmma, got " << tileN;
    if (tileK != 64)
      return emitError() << "expected tile_k 64 for wgmma, got " << tileK;
    if (stages < 2 || stages > 8)
      return emitError() << "expected 2 to 8 stages for wgmma, got " << stages;
    // A ping-pong consumer holds a whole tile's f32 accumulators: at most 128 registers.
    if (pingpong && tileM * tileN > 128 * 128)
      return emitError() << "expected tile_m * tile_n at most 16384 for a ping-pong wgmma "
                            "kernel (one warpgroup holds the whole tile), got "
                         << tileM << " x " << tileN;
    if (pingpong && splits != 1)
      return emitError() << "expected 1 split for a ping-pong wgmma kernel, got " << splits;
    // A cluster of 2 shares B between vertically adjacent tiles, each block loading half of it
    // (whole 64-row blocks when B is MN-major: tile_n a multiple of 128 then, which the
    // generator checks).
    if (cluster != 1 && cluster != 2)
      return emitError() << "expected a cluster of 1 or 2 blocks for wgmma, got " << cluster;
    if (cluster != 1 && (splits != 1 || !tma))
      return emitError() << "expected a cluster of 2 only with TMA loads and 1 split";
    if (store == DStore::Tma && !tma)
      return emitError() << "expected store = tma only with TMA loads";
  } else if (pingpong || cluster != 1 || store != DStore::Staged) {
    return emitError() << "expected no pingpong, cluster or store setting for simt";
  }
  return success();
}

void MepiDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mepi/IR/MepiAttrs.cpp.inc"
      >();
}
