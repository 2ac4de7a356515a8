// The FP8 GPU cases (see Fp8Cases.h).
#include "Fp8Cases.h"
#include "Fp8MatmulCase.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace gputest;

namespace {

const char *typeName(ElementType t) { return elementTypeName(t); }

std::string describe(const Fp8Case &c) {
  auto scale = [](Scale s) {
    return s == Scale::None ? "-" : s == Scale::Tensor ? "T" : s == Scale::Vector ? "V" : "B";
  };
  char line[256];
  std::snprintf(line, sizeof line, "fp8 %s x %s -> %s %lldx%lldx%lld sA=%s sB=%s%s%s%s %s",
                typeName(c.a), typeName(c.b), typeName(c.d), (long long)c.m, (long long)c.n,
                (long long)c.k, scale(c.scaleA), scale(c.scaleB), c.scaleD ? " sD" : "",
                c.amax ? " amax" : "", c.fast ? " fast" : "", c.epilog.c_str());
  std::string operandC = !c.c ? "" : std::string(" C=") + typeName(*c.c) + (c.scaleC ? " sC" : "");
  std::string alpha = c.alpha == 1.0f ? "" : " alpha=" + std::to_string(c.alpha).substr(0, 4);
  return line + std::string(c.mnMajorA ? " mnA" : "") + (c.mnMajorB ? " mnB" : "") + operandC +
         alpha + (c.config.empty() ? "" : " " + c.config);
}

/// Element (row, kk) of an operand held as [rows, K], in whatever layout it was made.
double element(const HostTensor &t, int64_t row, int64_t kk) {
  return t.values[row * t.layout.strides[0] + kk * t.layout.strides[1]];
}

/// f32 scales drawn from [lo, hi]: one value (rank 0) or `count`.
HostTensor scaleTensor(int64_t count, bool vector, double lo, double hi, std::mt19937 &rng) {
  return uniformF32(vector ? std::vector<int64_t>{count} : std::vector<int64_t>{}, lo, hi, rng);
}

/// Block scales drawn from [lo, hi]: A's [M, ceil(K / 128)] M-major, B's [ceil(N / 128),
/// ceil(K / 128)] row-major.
HostTensor blockScaleTensor(const Fp8Case &c, bool ofA, double lo, double hi,
                            std::mt19937 &rng) {
  int64_t blocksK = (c.k + kScaleBlock - 1) / kScaleBlock;
  if (!ofA)
    return uniformF32({(c.n + kScaleBlock - 1) / kScaleBlock, blocksK}, lo, hi, rng);
  HostTensor t = uniformF32({blocksK, c.m}, lo, hi, rng);
  t.layout.shape = {c.m, blocksK};
  t.layout.strides = {1, c.m};
  return t;
}

/// The factor of A's scale for row i and K element kk, and of B's for column j.
double scaleOf(const std::optional<HostTensor> &s, Scale kind, int64_t index, int64_t kk) {
  if (!s)
    return 1.0;
  if (kind == Scale::Tensor)
    return s->values[0];
  if (kind == Scale::Vector)
    return s->values[index];
  const std::vector<int64_t> &strides = s->layout.strides;
  return s->values[index * strides[0] + kk / kScaleBlock * strides[1]];
}

double activation(const std::string &epilog, double x) {
  if (epilog.rfind("RELU", 0) == 0)
    return std::max(x, 0.0);
  if (epilog.rfind("GELU", 0) == 0)
    return geluRef(x);
  return x;
}

/// The rows the reference computes: all of them, or a spread sample for large problems.
std::vector<int64_t> checkedRows(const Fp8Case &c) {
  int64_t stride = c.m * c.n * c.k > (int64_t(1) << 31) ? 37 : 1;
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < c.m; i += stride)
    rows.push_back(i);
  if (rows.back() != c.m - 1)
    rows.push_back(c.m - 1);
  return rows;
}

/// result_amax: against the reference's maximum (over all rows, where all were computed) at
/// the accumulation's precision, and against D's own values: max |D| exactly for an f32 D
/// without D's scale, within D's rounding for a 16-bit D (D = amax's value times sD).
std::string checkAmax(const Device &dev, const Fp8Case &c, mepi::Matmul &mm,
                      const std::vector<uint8_t> &dBytes, const std::optional<HostTensor> &sD,
                      double amaxRef, double accumulation) {
  std::vector<uint8_t> amaxBytes = fetch(dev, mm.auxOutputs().at("result_amax"));
  double amax = readDevice(amaxBytes, ElementType::F32, 0);
  bool allRows = checkedRows(c).size() == static_cast<size_t>(c.m);
  if (allRows && !(std::fabs(amax - amaxRef) <= accumulation * amaxRef))
    return "result_amax " + std::to_string(amax) + ", expected " + std::to_string(amaxRef);
  if (isFp8(c.d))
    return "";
  double maxD = 0;
  for (int64_t i = 0; i < c.m * c.n; ++i)
    maxD = std::max(maxD, std::fabs(readDevice(dBytes, c.d, i)));
  double scale = sD ? sD->values[0] : 1.0;
  double rounding = c.d == ElementType::F32 ? 0 : c.d == ElementType::BF16 ? 1.0 / 256 : 1.0 / 2048;
  if (c.d == ElementType::F32 && !sD ? amax != maxD
                                     : !(std::fabs(amax * scale - maxD) <= rounding * maxD))
    return "result_amax " + std::to_string(amax) + " against max |D| " + std::to_string(maxD) +
           (sD ? " (D's scale " + std::to_string(scale) + ")" : "");
  return "";
}

/// BGRADA's and BGRADB's bias gradient: the sums over K of the dequantized op(A)'s rows or
/// op(B)'s columns (a pass after the GEMM), in bf16 beside an 8-bit D, else in D's type.
std::string checkOperandSums(const Device &dev, const Fp8Case &c, mepi::Matmul &mm,
                             const HostTensor &a, const HostTensor &b,
                             const std::optional<HostTensor> &sA,
                             const std::optional<HostTensor> &sB, double &err) {
  bool ofA = c.epilog == "BGRADA";
  int64_t rows = ofA ? c.m : c.n;
  std::vector<double> want(rows, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t kk = 0; kk < c.k; ++kk)
      want[r] += ofA ? element(a, r, kk) * scaleOf(sA, c.scaleA, r, kk)
                     : element(b, r, kk) * scaleOf(sB, c.scaleB,
                                                   c.scaleB == Scale::Block ? r / kScaleBlock : r,
                                                   kk);
  mepi::Tensor sums = mm.auxOutputs().at(ofA ? "bgrada" : "bgradb");
  ElementType type = isFp8(c.d) ? ElementType::BF16 : c.d;
  if (sums.dtype != apiDType(type))
    return "the bias gradient's type is not " + std::string(elementTypeName(type));
  // The sums in f32, rounded once to a 16-bit type.
  double tolerance = type == ElementType::F32 ? 1e-5 : 1e-2;
  return compare("bias gradient", fetch(dev, sums), type, want, tolerance, err);
}

/// mepi's matmul of A [M, K] by B given as [N, K] (and C where given, with kBeta) with
/// `options`, planned with `epilog` (and a bias [M] drawn into `bias` where the epilog has one).
mepi::Matmul plannedMatmul(DeviceArena &arena, const HostTensor &a, const HostTensor &b,
                           const std::optional<HostTensor> &c, float alpha,
                           const mepi::Options &options, const std::string &epilog, int64_t m,
                           std::optional<HostTensor> &bias, std::mt19937 &rng) {
  mepi::EpilogInputs inputs;
  if (epilog.find("BIAS") != std::string::npos) {
    bias = randomTensor(ElementType::BF16, {m}, rng);
    inputs.bias = arena.toDevice(*bias);
  }
  std::optional<mepi::Tensor> cTensor;
  if (c)
    cTensor = arena.toDevice(*c);
  mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b), cTensor, alpha,
                  c ? std::optional<float>(kBeta) : std::nullopt, mepi::Qualifiers{false, true},
                  options);
  mm.plan(apiEpilog(epilog), inputs);
  return mm;
}

std::string runFp8Case(const Device &dev, std::mt19937 &rng, const Fp8Case &c, double &err,
                       std::string &config) {
  DeviceArena arena(*dev.d);
  // A [M, K] and B [N, K] (B^T: K-major), or column-major: A given as [K, M], B as [K, N].
  HostTensor a = randomTensor(c.a, {c.m, c.k}, rng, c.mnMajorA),
             b = randomTensor(c.b, {c.n, c.k}, rng, c.mnMajorB);
  mepi::Options options;
  options.resultType = apiDType(c.d);
  options.resultAmax = c.amax;
  options.fastAccumulation = c.fast;
  std::optional<HostTensor> sA, sB, sC, sD, bias, operandC;
  options.kernelConfig = c.config;
  if (c.c)
    operandC = randomTensor(*c.c, {c.m, c.n}, rng);
  if (c.scaleC) {
    sC = scaleTensor(1, false, 0.5, 2, rng);
    options.quantizationScales.c = arena.toDevice(*sC);
  }
  if (c.scaleA != Scale::None)
    sA = c.scaleA == Scale::Block ? blockScaleTensor(c, true, 0.25, 4, rng)
                                  : scaleTensor(c.m, c.scaleA == Scale::Vector, 0.5, 2, rng);
  if (c.scaleB != Scale::None)
    sB = c.scaleB == Scale::Block ? blockScaleTensor(c, false, 0.25, 4, rng)
                                  : scaleTensor(c.n, c.scaleB == Scale::Vector, 0.5, 2, rng);
  if (c.scaleD)
    sD = scaleTensor(1, false, c.dScaleRange / 4, c.dScaleRange, rng);
  if (sA)
    options.quantizationScales.a = arena.toDevice(*sA);
  if (sB)
    options.quantizationScales.b = arena.toDevice(*sB);
  if (sD)
    options.quantizationScales.d = arena.toDevice(*sD);
  mepi::Matmul mm =
      plannedMatmul(arena, a, b, operandC, c.alpha, options, c.epilog, c.m, bias, rng);
  config = mm.kernelConfiguration();
  mepi::Tensor d = executeTwice(dev, mm);
  std::vector<uint8_t> gotBytes = fetch(dev, d);

  // The reference on the dequantized inputs, in fp64; an 8-bit D compares with the reference
  // rounded and saturated as the kernel must (a rare tie flips one code).
  bool fp8D = isFp8(c.d);
  std::vector<double> want, got;
  double amaxRef = 0;
  for (int64_t i : checkedRows(c))
    for (int64_t j = 0; j < c.n; ++j) {
      double x = 0;
      for (int64_t k0 = 0; k0 < c.k; k0 += kScaleBlock) {
        double part = 0;
        for (int64_t kk = k0; kk < std::min(k0 + kScaleBlock, c.k); ++kk)
          part += element(a, i, kk) * element(b, j, kk);
        x += part * scaleOf(sA, c.scaleA, i, k0) *
             scaleOf(sB, c.scaleB, c.scaleB == Scale::Block ? j / kScaleBlock : j, k0);
      }
      x *= c.alpha;
      if (operandC)
        x += kBeta * (sC ? sC->values[0] : 1.0) * operandC->values[i * c.n + j];
      if (bias)
        x += bias->values[i];
      x = activation(c.epilog, x);
      amaxRef = std::max(amaxRef, std::fabs(x));
      if (sD)
        x *= sD->values[0];
      if (fp8D)
        x = roundedAs(x, c.d);
      want.push_back(x);
      got.push_back(readDevice(gotBytes, c.d, i * c.n + j));
    }
  // Tolerances: the output rounding's, or for an f32 D the tensor cores' 8-bit sums (about
  // 14 significant bits each 128-element window; measured 8e-5 to 1e-4 relative with promotion
  // at K = 4096 and 8192 against 7e-4 without it at K = 8192, on the H200).
  double accumulation = c.fast ? 5e-3 : 5e-4;
  double tolerance = c.d == ElementType::F32 ? accumulation : fp8OutputTolerance(c.d);
  if (std::string why = compare("D", packFloats(got), ElementType::F32, want, tolerance, err);
      !why.empty())
    return why;
  if (c.amax)
    if (std::string why = checkAmax(dev, c, mm, gotBytes, sD, amaxRef, accumulation);
        !why.empty())
      return why;
  return c.epilog.rfind("BGRAD", 0) == 0 ? checkOperandSums(dev, c, mm, a, b, sA, sB, err) : "";
}
/// GELU_AUX beside 8-bit operands: the aux ("gelu_aux", the GELU's input z) in its own type
/// (nvmath's aux_type; unset: bf16 beside an 8-bit D), an 8-bit one holding z times its scale
/// ("aux_quantization_scale"), rounded and saturated, with max |z| before the scale
/// ("gelu_aux_amax", nvmath's aux_amax). Tensor-wise scales of A and B; D's scale with an 8-bit D.
struct Fp8AuxCase {
  ElementType a, b, d;
  int64_t m, n, k;
  std::optional<ElementType> aux; // unset: the default type
  std::string epilog = "GELU_AUX";
};

std::string describe(const Fp8AuxCase &c) {
  char line[256];
  std::snprintf(line, sizeof line, "fp8 aux %s x %s -> %s %lldx%lldx%lld %s aux=%s%s",
                typeName(c.a), typeName(c.b), typeName(c.d), (long long)c.m, (long long)c.n,
                (long long)c.k, c.epilog.c_str(), c.aux ? typeName(*c.aux) : "default",
                c.aux && isFp8(*c.aux) ? " scale amax" : "");
  return line;
}

std::string runFp8AuxCase(const Device &dev, std::mt19937 &rng, const Fp8AuxCase &c, double &err,
                          std::string &config) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(c.a, {c.m, c.k}, rng), b = randomTensor(c.b, {c.n, c.k}, rng);
  HostTensor sA = scaleTensor(1, false, 0.5, 2, rng), sB = scaleTensor(1, false, 0.5, 2, rng);
  std::optional<HostTensor> sD, sAux, bias;
  mepi::Options options;
  options.resultType = apiDType(c.d);
  options.quantizationScales.a = arena.toDevice(sA);
  options.quantizationScales.b = arena.toDevice(sB);
  if (isFp8(c.d)) {
    sD = scaleTensor(1, false, 0.5, 2, rng);
    options.quantizationScales.d = arena.toDevice(*sD);
  }
  mepi::EpilogInputs inputs;
  bool quantizedAux = c.aux && isFp8(*c.aux);
  if (c.aux)
    options.auxType = apiDType(*c.aux);
  if (quantizedAux) {
    sAux = scaleTensor(1, false, 0.25, 2, rng);
    inputs.auxQuantizationScale = arena.toDevice(*sAux);
    options.auxAmax = true;
  }
  if (c.epilog.find("BIAS") != std::string::npos) {
    bias = randomTensor(ElementType::BF16, {c.m}, rng);
    inputs.bias = arena.toDevice(*bias);
  }
  mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b), std::nullopt, 1.0f, std::nullopt,
                  mepi::Qualifiers{false, true}, options);
  mm.plan(apiEpilog(c.epilog), inputs);
  config = mm.kernelConfiguration();
  std::vector<uint8_t> dBytes = fetch(dev, executeTwice(dev, mm));
  mepi::Tensor auxTensor = mm.auxOutputs().at("gelu_aux");
  std::vector<uint8_t> auxBytes = fetch(dev, auxTensor);
  ElementType auxType = c.aux ? *c.aux : isFp8(c.d) ? ElementType::BF16 : c.d;
  int64_t ld = auxTensor.strides.back();

  // An 8-bit value compares with the reference rounded and saturated as the kernel must.
  auto rounded = roundedAs;
  std::vector<double> wantD, gotD, wantAux, gotAux;
  double amaxRef = 0;
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double z = 0;
      for (int64_t kk = 0; kk < c.k; ++kk)
        z += element(a, i, kk) * element(b, j, kk);
      z = z * sA.values[0] * sB.values[0] + (bias ? bias->values[i] : 0.0);
      amaxRef = std::max(amaxRef, std::fabs(z));
      wantD.push_back(rounded(geluRef(z) * (sD ? sD->values[0] : 1.0), c.d));
      gotD.push_back(readDevice(dBytes, c.d, i * c.n + j));
      wantAux.push_back(rounded(z * (sAux ? sAux->values[0] : 1.0), auxType));
      gotAux.push_back(readDevice(auxBytes, auxType, j * ld + i));
    }
  if (std::string why = compare("D", packFloats(gotD), ElementType::F32, wantD, 1e-2, err);
      !why.empty())
    return why;
  if (std::string why = compare("gelu_aux", packFloats(gotAux), ElementType::F32, wantAux, 1e-2,
                                err);
      !why.empty())
    return why;
  if (!quantizedAux)
    return mm.auxOutputs().count("gelu_aux_amax") ? "gelu_aux_amax without auxAmax" : "";
  double amax = readDevice(fetch(dev, mm.auxOutputs().at("gelu_aux_amax")), ElementType::F32, 0);
  if (!(std::fabs(amax - amaxRef) <= 5e-4 * amaxRef))
    return "gelu_aux_amax " + std::to_string(amax) + ", expected " + std::to_string(amaxRef);
  return "";
}

/// MXFP8 (Options::blockScaling, emulated): e8m0 scales per 32 elements of K in cuBLASLt's
/// interleaved layout, written here from its documentation (nvmath's to_block_scale): tiles
/// of 128 rows x 4 blocks, 512 bytes each, row-tile-major; in a tile, row r and block c at
/// 16 (r % 32) + 4 (r % 128 / 32) + c % 4.
struct MxCase {
  ElementType a, b, d;
  int64_t m, n, k;
  bool columnMajorA = false; // A given as [K, M]
  std::string epilog = "DEFAULT";
};

std::string describe(const MxCase &c) {
  return std::string("mxfp8 ") + typeName(c.a) + " x " + typeName(c.b) + " -> " +
         typeName(c.d) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
         std::to_string(c.k) + (c.columnMajorA ? " A col-major " : " ") + c.epilog;
}

/// Random e8m0 scales of `rows` x ceil(k / 32) blocks in [lo, hi] (factors 2^(lo - 127) to
/// 2^(hi - 127)), laid out interleaved; `exponent(r, block)` reads them back.
struct MxScales {
  int64_t blocks;
  HostTensor bytes;
  int exponent(int64_t r, int64_t c) const {
    int64_t tilesPerRow = (blocks + 3) / 4;
    int64_t at = (r / 128 * tilesPerRow + c / 4) * 512 + r % 32 * 16 + r % 128 / 32 * 4 + c % 4;
    return bytes.bytes[at];
  }
};
MxScales mxScales(int64_t rows, int64_t k, int lo, int hi, std::mt19937 &rng) {
  MxScales s{(k + 31) / 32, {}};
  int64_t size = (rows + 127) / 128 * 128 * ((s.blocks + 3) / 4 * 4);
  s.bytes.layout = {ElementType::U8, {size}, {1}};
  std::uniform_int_distribution<int> e(lo, hi);
  for (int64_t i = 0; i < size; ++i) {
    s.bytes.bytes.push_back(static_cast<uint8_t>(e(rng)));
    s.bytes.values.push_back(0);
  }
  return s;
}

std::string runMxCase(const Device &dev, std::mt19937 &rng, const MxCase &c, double &err,
                      std::string &config) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(c.a, {c.m, c.k}, rng, c.columnMajorA),
             b = randomTensor(c.b, {c.n, c.k}, rng);
  // Factors 2^-7 .. 2^7, or for an f16 D (largest 65504) 2^-5 .. 2^3, whose sums stay finite.
  int lo = c.d == ElementType::F16 ? 122 : 120, hi = c.d == ElementType::F16 ? 130 : 134;
  MxScales sA = mxScales(c.m, c.k, lo, hi, rng), sB = mxScales(c.n, c.k, lo, hi, rng);
  mepi::Options options;
  options.resultType = apiDType(c.d);
  options.blockScaling = true;
  options.quantizationScales.a = arena.toDevice(sA.bytes);
  options.quantizationScales.b = arena.toDevice(sB.bytes);
  std::optional<HostTensor> bias;
  mepi::Matmul mm = plannedMatmul(arena, a, b, std::nullopt, 1.0f, options, c.epilog, c.m, bias, rng);
  config = mm.kernelConfiguration();
  std::vector<uint8_t> gotBytes = fetch(dev, executeTwice(dev, mm));
  std::vector<double> want, got;
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double x = 0;
      for (int64_t kk = 0; kk < c.k; ++kk)
        x += element(a, i, kk) * std::ldexp(1.0, sA.exponent(i, kk / 32) - 127) *
             element(b, j, kk) * std::ldexp(1.0, sB.exponent(j, kk / 32) - 127);
      want.push_back(activation(c.epilog, x + (bias ? bias->values[i] : 0.0)));
      got.push_back(readDevice(gotBytes, c.d, i * c.n + j));
    }
  // bf16 copies hold the scaled elements exactly: an f32 D sees only the tensor cores' f32
  // sums (truncating: ~1e-5 relative at K = 4096, bench/NOTES.md's strict f32).
  return compare("D", packFloats(got), ElementType::F32, want, c.d == ElementType::F32 ? 5e-5 : 1e-2,
                 err);
}
} // namespace

void gputest::runFp8Cases(const Device &dev, std::mt19937 &rng,
                          const std::function<bool(const std::string &)> &selected, int &passed,
                          int &failed) {
  using T = ElementType;
  const std::vector<Fp8Case> cases = fp8Cases();
  for (const Fp8Case &c : cases) {
    std::string line = describe(c);
    if (selected(line))
      reportCase(
          line,
          [&](double &err, std::string &config) { return runFp8Case(dev, rng, c, err, config); },
          passed, failed);
  }
  // GELU_AUX's aux in its own type: 8-bit with its scale and amax (odd shapes, element stores;
  // aligned ones, vector stores of the columns; a decode shape split along K), or bf16 beside
  // an 8-bit D.
  const Fp8AuxCase auxCases[] = {
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 999, 1001, 1040, T::F8E4M3FN, "GELU_AUX_BIAS"},
      {T::F8E4M3FN, T::F8E5M2, T::BF16, 512, 1024, 2048, T::F8E5M2},
      {T::F8E5M2, T::F8E4M3FN, T::F8E4M3FN, 300, 520, 528, std::nullopt},
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 16, 1504, 6000, T::F8E4M3FN, "GELU_AUX_BIAS"},
  };
  for (const Fp8AuxCase &c : auxCases)
    if (std::string line = describe(c); selected(line))
      reportCase(
          line,
          [&](double &err, std::string &config) { return runFp8AuxCase(dev, rng, c, err, config); },
          passed, failed);
  // MXFP8 (emulated): every type pair, K not a multiple of 32, A column-major, 16- and 32-bit D.
  const MxCase mxCases[] = {
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 300, 200, 1000},
      {T::F8E5M2, T::F8E4M3FN, T::F32, 129, 333, 4096, true, "GELU_BIAS"},
      {T::F8E4M3FN, T::F8E5M2, T::F16, 1000, 700, 520, false, "RELU"},
  };
  for (const MxCase &c : mxCases)
    if (std::string line = describe(c); selected(line))
      reportCase(
          line,
          [&](double &err, std::string &config) { return runMxCase(dev, rng, c, err, config); },
          passed, failed);
  runFp8BackwardCases(dev, rng, selected, passed, failed);
  runFp8BatchedSumsCases(dev, rng, selected, passed, failed);
}
