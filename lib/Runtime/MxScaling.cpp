// The MX pre-pass's dequantization (see MxScaling.h).
#include "Runtime/MxScaling.h"

#include <sstream>

using namespace mepi::runtime;

namespace {
/// f32 bits of an fp8 format's finite nonzero normal value: (exponent + rebias) << 23 |
/// mantissa << (23 - mantissa bits); subnormals are mantissa * 2^subnormalScale.
struct Fp8Format {
  int exponentBits, mantissaBits, rebias;
  const char *subnormalScale; // 2^(1 - bias - mantissa bits), an f32 literal
  bool infinities;            // e5m2: the top exponent is Inf (mantissa 0) or NaN; e4m3: only
                              // all ones is NaN
};
constexpr Fp8Format kE4M3{4, 3, 127 - 7, "0.001953125", false};
constexpr Fp8Format kE5M2{5, 2, 127 - 15, "1.52587890625e-05", true};

/// %val (f32) from %v (i8) in format `f`.
void writeDecode(std::ostringstream &os, const Fp8Format &f) {
  int exponentMask = (1 << f.exponentBits) - 1, mantissaMask = (1 << f.mantissaBits) - 1;
  os << "          %c0_i32 = arith.constant 0 : i32\n"
     << "          %c128_i32 = arith.constant 128 : i32\n"
     << "          %cmb = arith.constant " << f.mantissaBits << " : i32\n"
     << "          %cexm = arith.constant " << exponentMask << " : i32\n"
     << "          %cmtm = arith.constant " << mantissaMask << " : i32\n"
     << "          %crebias = arith.constant " << f.rebias << " : i32\n"
     << "          %c23 = arith.constant 23 : i32\n"
     << "          %cmtshift = arith.constant " << 23 - f.mantissaBits << " : i32\n"
     << "          %csub = arith.constant " << f.subnormalScale << " : f32\n"
     << "          %nan = arith.constant 0x7FC00000 : f32\n"
     << "          %b32 = arith.extui %v : i8 to i32\n"
     << "          %sgn = arith.andi %b32, %c128_i32 : i32\n"
     << "          %exs = arith.shrui %b32, %cmb : i32\n"
     << "          %ex = arith.andi %exs, %cexm : i32\n"
     << "          %mt = arith.andi %b32, %cmtm : i32\n"
     << "          %exr = arith.addi %ex, %crebias : i32\n"
     << "          %exb = arith.shli %exr, %c23 : i32\n"
     << "          %mtb = arith.shli %mt, %cmtshift : i32\n"
     << "          %nb = arith.ori %exb, %mtb : i32\n"
     << "          %norm = arith.bitcast %nb : i32 to f32\n"
     << "          %mtf = arith.uitofp %mt : i32 to f32\n"
     << "          %sub = arith.mulf %mtf, %csub : f32\n"
     << "          %isSub = arith.cmpi eq, %ex, %c0_i32 : i32\n"
     << "          %mag0 = arith.select %isSub, %sub, %norm : f32\n"
     << "          %top = arith.cmpi eq, %ex, %cexm : i32\n";
  if (f.infinities) // the top exponent: Inf with mantissa 0, else NaN
    os << "          %mt0 = arith.cmpi eq, %mt, %c0_i32 : i32\n"
       << "          %special = arith.select %mt0, %inf, %nan : f32\n"
       << "          %mag = arith.select %top, %special, %mag0 : f32\n";
  else // all ones is NaN
    os << "          %mtAll = arith.cmpi eq, %mt, %cmtm : i32\n"
       << "          %isNan = arith.andi %top, %mtAll : i1\n"
       << "          %mag = arith.select %isNan, %nan, %mag0 : f32\n";
  os << "          %neg = arith.negf %mag : f32\n"
     << "          %isNeg = arith.cmpi ne, %sgn, %c0_i32 : i32\n"
     << "          %val = arith.select %isNeg, %neg, %mag : f32\n";
}

/// %factor (f32) = 2^(e - 127) of the scale byte at (%r, %k / 32); e = 255 is NaN, e = 0 the
/// subnormal 2^-127.
void writeScale(std::ostringstream &os, const SplitPlan &plan) {
  int64_t tilesK = (mxBlocksK(plan.k) + kMxTileBlocks - 1) / kMxTileBlocks;
  os << "          %c32i = arith.constant 32 : index\n"
     << "          %c128i = arith.constant 128 : index\n"
     << "          %c4i = arith.constant 4 : index\n"
     << "          %c16i = arith.constant 16 : index\n"
     << "          %c512i = arith.constant 512 : index\n"
     << "          %tilesK = arith.constant " << tilesK << " : index\n"
     << "          %kb = arith.divui %k, %c32i : index\n"
     << "          %rt = arith.divui %r, %c128i : index\n"
     << "          %ct = arith.divui %kb, %c4i : index\n"
     << "          %rtk = arith.muli %rt, %tilesK : index\n"
     << "          %stile = arith.addi %rtk, %ct : index\n"
     << "          %tileAt = arith.muli %stile, %c512i : index\n"
     << "          %r32 = arith.remui %r, %c32i : index\n"
     << "          %r32at = arith.muli %r32, %c16i : index\n"
     << "          %r128 = arith.remui %r, %c128i : index\n"
     << "          %quarter = arith.divui %r128, %c32i : index\n"
     << "          %quarterAt = arith.muli %quarter, %c4i : index\n"
     << "          %col = arith.remui %kb, %c4i : index\n"
     << "          %at0 = arith.addi %tileAt, %r32at : index\n"
     << "          %at1 = arith.addi %at0, %quarterAt : index\n"
     << "          %at = arith.addi %at1, %col : index\n"
     << "          %e8 = memref.load %scales[%at] : memref<" << plan.mxScaleBytes << "xi8>\n"
     << "          %e = arith.extui %e8 : i8 to i32\n"
     << "          %eBits = arith.shli %e, %c23 : i32\n"
     << "          %c255 = arith.constant 255 : i32\n"
     << "          %tiny = arith.constant 4194304 : i32\n" // 0x00400000: 2^-127
     << "          %nanBits = arith.constant 2143289344 : i32\n" // 0x7FC00000
     << "          %eZero = arith.cmpi eq, %e, %c0_i32 : i32\n"
     << "          %eNan = arith.cmpi eq, %e, %c255 : i32\n"
     << "          %fb0 = arith.select %eZero, %tiny, %eBits : i32\n"
     << "          %fb = arith.select %eNan, %nanBits, %fb0 : i32\n"
     << "          %factor = arith.bitcast %fb : i32 to f32\n";
}
} // namespace

std::string mepi::runtime::mxDequantizeLines(const SplitPlan &plan) {
  std::ostringstream os;
  writeDecode(os, plan.source.type == ElementType::F8E5M2 ? kE5M2 : kE4M3);
  writeScale(os, plan);
  os << "          %scaled = arith.mulf %val, %factor : f32\n"
     << "          %bf = arith.truncf %scaled : f32 to bf16\n";
  return os.str();
}
