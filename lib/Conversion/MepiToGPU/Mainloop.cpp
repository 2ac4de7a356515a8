// The wgmma kernels' main loop step (see Mainloop.h).
#include "Mainloop.h"

using namespace mlir;
using namespace mlir::mepi;
using namespace mlir::mepi::sm90;

Value mlir::mepi::emitMatrixDescriptor(Emitter &e, Value address, bool mnMajor) {
  uint64_t leading = mnMajor ? kBlockBytes / 16 : 1;
  uint64_t fixed = (leading << 16) | (uint64_t{1024 / 16} << 32) | (uint64_t{1} << 62);
  Value start = e.shr(e.andI(address, e.i32(0x3FFFF)), e.i32(4));
  return e.orI(e.zext64(start), e.i64(static_cast<int64_t>(fixed)));
}

NVVM::WGMMATypes mlir::mepi::wgmmaType(Type t) {
  if (t.isF32()) // read as tf32: the low 13 bits of the mantissa are ignored
    return NVVM::WGMMATypes::tf32;
  if (isa<Float8E4M3FNType>(t))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(t))
    return NVVM::WGMMATypes::e5m2;
  return t.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
}

auto WgmmaMainloop::emitStageTiles(Emitter &e, Value stageAddress, Value consumer) const
    -> StageTiles {
  // A slice's 64 rows of A: 64 lines (K-major) or one block (MN-major), 8 KiB either way. A
  // cooperative consumer computes slice `consumer`, a ping-pong one all of them.
  int64_t slices = Sm90Spec::slicesPerConsumer(config);
  StageTiles tiles;
  tiles.a = config.getMainloop().getPingpong()
                ? stageAddress
                : e.add(stageAddress, e.mul(consumer, e.i32(slices * kBlockBytes)));
  tiles.b = e.add(stageAddress, e.i32(spec.sharedLayout().aBytes));
  return tiles;
}

auto WgmmaMainloop::emitDescriptors(Emitter &e, Value stageAddress, const StageTiles &tiles,
                                    Value consumer) const -> StageTiles {
  const Sm90Problem &p = spec.problem();
  StageTiles d;
  if (config.getSwapped()) { // this consumer's 64 rows of B: 64 lines or one 64-row block
    d.a = emitMatrixDescriptor(e, stageAddress, /*mnMajor=*/false);
    d.b = emitMatrixDescriptor(e, e.add(tiles.b, e.mul(consumer, e.i32(kBlockBytes))),
                               p.mnMajorB);
    return d;
  }
  d.a = emitMatrixDescriptor(e, tiles.a, p.mnMajorA);
  d.b = emitMatrixDescriptor(e, tiles.b, p.mnMajorB);
  return d;
}

void WgmmaMainloop::emitWgmmas(Emitter &e, const StageTiles &d, const StageTiles *low,
                               MutableArrayRef<Value> accs, bool fresh,
                               function_ref<void(int64_t)> afterStep) const {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  const Sm90Problem &p = spec.problem();
  bool swapped = config.getSwapped();
  // Swapped: B's 64 rows of this consumer are the m side, A's tile_m rows the n side.
  auto shape = NVVM::MMAShapeAttr::get(
      b.getContext(), 64, swapped ? config.getTileM() : config.getTileN(), atom.instrK);
  NVVM::WGMMATypes typeA = wgmmaType(aType), typeB = wgmmaType(bType);
  // wgmma reads A row-major and B column-major (K-major both); MN-major ones transposed.
  NVVM::MMALayout layoutA = p.mnMajorA ? NVVM::MMALayout::col : NVVM::MMALayout::row;
  NVVM::MMALayout layoutB = p.mnMajorB ? NVVM::MMALayout::row : NVVM::MMALayout::col;
  // A wgmma's descriptor is its tile's at the stage plus its offset in 16-byte units (the
  // start address field cannot carry: shared addresses stay below 2^18): one 64-bit add per
  // wgmma instead of the address arithmetic.
  auto at = [&](Value descriptor, int64_t bytes) {
    return bytes ? e.add(descriptor, e.i64(bytes / 16)) : descriptor;
  };
  // `fresh`: the first wgmma into each accumulator ignores it (scale-d = 0).
  SmallVector<bool> unread(accs.size(), fresh);
  auto wgmma = [&](size_t s, Value descA, Value descB, NVVM::WGMMATypes ta, NVVM::WGMMATypes tb,
                   NVVM::MMALayout la, NVVM::MMALayout lb) {
    NVVM::WGMMAScaleOut scale = unread[s] ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one;
    unread[s] = false;
    accs[s] = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accType, accs[s], descA, descB, shape, ta, tb, NVVM::WGMMATypes::f32, scale,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, la, lb, NVVM::MMAIntOverflowAttr());
  };
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kk = 0; kk < config.getTileK() / atom.instrK; ++kk) {
    if (swapped) { // B's rows the m side (transposed where MN-major), A's the n side
      Value descB = at(d.b, kk * kStep(p.mnMajorB));
      Value descA = at(d.a, kk * atom.kBytes());
      wgmma(0, descB, descA, typeB, typeA, p.mnMajorB ? NVVM::MMALayout::col : NVVM::MMALayout::row,
            NVVM::MMALayout::col);
      continue;
    }
    int64_t bBytes = kk * kStep(p.mnMajorB);
    Value descB = at(d.b, bBytes);
    for (size_t s = 0; s < accs.size(); ++s) {
      int64_t aBytes = static_cast<int64_t>(s) * kBlockBytes + kk * kStep(p.mnMajorA);
      Value descA = at(d.a, aBytes);
      if (low) {
        wgmma(s, at(low->a, aBytes), descB, typeA, typeB, layoutA, layoutB);
        wgmma(s, descA, at(low->b, bBytes), typeA, typeB, layoutA, layoutB);
      }
      wgmma(s, descA, descB, typeA, typeB, layoutA, layoutB);
    }
    afterStep(kk);
  }
}
