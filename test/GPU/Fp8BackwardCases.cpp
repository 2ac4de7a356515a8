// The backward epilogs beside 8-bit A and B (see Fp8Cases.h): DRELU / DGELU read the forward
// pass's aux (the ReLU mask, the GELU's input in bf16 beside an 8-bit D), DRELU_BGRAD /
// DGELU_BGRAD also write the bias gradient (the sum of each row of the unscaled D, bf16 beside
// an 8-bit D), against fp64 on the dequantized inputs.
#include "Fp8Cases.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace gputest {
namespace {
struct Fp8BackwardCase {
  ElementType a, b, d;
  int64_t m, n, k;
  std::string epilog;    // DRELU, DRELU_BGRAD, DGELU or DGELU_BGRAD
  bool rowScales = false; // A's scale per row of D (else one value)
};

std::string describe(const Fp8BackwardCase &c) {
  char line[200];
  std::snprintf(line, sizeof line, "fp8 backward %s x %s -> %s %lldx%lldx%lld %s sA=%s",
                elementTypeName(c.a), elementTypeName(c.b), elementTypeName(c.d),
                (long long)c.m, (long long)c.n, (long long)c.k, c.epilog.c_str(),
                c.rowScales ? "V" : "T");
  return line;
}

bool isRelu(const Fp8BackwardCase &c) { return c.epilog.rfind("DRELU", 0) == 0; }

/// The forward pass's aux in the layout its epilog writes (column-major, rows padded): the
/// ReLU's mask, a bit per element (about half set), or the GELU's input in bf16.
HostTensor forwardAux(const Fp8BackwardCase &c, std::mt19937 &rng) {
  if (!isRelu(c)) {
    HostTensor z = randomTensor(ElementType::BF16, {c.n, (c.m + 7) / 8 * 8}, rng);
    z.layout.shape = {z.layout.shape[1], c.n};
    z.layout.strides = {1, z.layout.shape[0]};
    return z;
  }
  int64_t bytes = ((c.m + 7) / 8 + 15) / 16 * 16;
  HostTensor mask = uniformF32({c.n, bytes}, 0, 255, rng);
  mask.layout.type = ElementType::U8;
  mask.bytes.resize(mask.values.size());
  for (size_t i = 0; i < mask.values.size(); ++i)
    mask.values[i] = mask.bytes[i] = static_cast<uint8_t>(mask.values[i]);
  mask.layout.shape = {bytes, c.n};
  mask.layout.strides = {1, bytes};
  return mask;
}

/// The backward factor of element (i, j): the mask's bit or gelu'(z).
double backwardFactor(const Fp8BackwardCase &c, const HostTensor &aux, int64_t i, int64_t j) {
  int64_t ld = aux.layout.strides[1];
  if (isRelu(c))
    return (static_cast<int>(aux.values[j * ld + i / 8]) >> (i % 8)) & 1;
  return geluDerivativeRef(aux.values[j * ld + i]);
}

std::string runFp8BackwardCase(const Device &dev, std::mt19937 &rng, const Fp8BackwardCase &c,
                               double &err, std::string &config) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(c.a, {c.m, c.k}, rng), b = randomTensor(c.b, {c.n, c.k}, rng);
  HostTensor sA = uniformF32(c.rowScales ? std::vector<int64_t>{c.m} : std::vector<int64_t>{},
                             0.5, 2, rng);
  HostTensor sB = uniformF32({}, 0.5, 2, rng), sD = uniformF32({}, 0.5, 2, rng);
  mepi::Options options;
  options.resultType = apiDType(c.d);
  options.quantizationScales.a = arena.toDevice(sA);
  options.quantizationScales.b = arena.toDevice(sB);
  bool fp8D = isFp8(c.d);
  if (fp8D)
    options.quantizationScales.d = arena.toDevice(sD);
  HostTensor aux = forwardAux(c, rng);
  mepi::EpilogInputs inputs;
  (isRelu(c) ? inputs.reluAux : inputs.geluAux) = arena.toDevice(aux);
  mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b), std::nullopt, 1.0f, std::nullopt,
                  mepi::Qualifiers{false, true}, options);
  mm.plan(apiEpilog(c.epilog), inputs);
  config = mm.kernelConfiguration();
  std::vector<uint8_t> dBytes = fetch(dev, executeTwice(dev, mm));

  std::vector<double> wantD, gotD, wantGrad(c.m, 0.0);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double x = 0;
      for (int64_t kk = 0; kk < c.k; ++kk)
        x += a.values[i * c.k + kk] * b.values[j * c.k + kk];
      x *= sA.values[c.rowScales ? i : 0] * sB.values[0] * backwardFactor(c, aux, i, j);
      wantGrad[i] += x;
      if (fp8D)
        x = roundedAs(x * sD.values[0], c.d);
      wantD.push_back(x);
      gotD.push_back(readDevice(dBytes, c.d, i * c.n + j));
    }
  double tolerance = fp8OutputTolerance(c.d);
  if (std::string why = compare("D", packFloats(gotD), ElementType::F32, wantD, tolerance, err);
      !why.empty())
    return why;
  if (c.epilog.find("BGRAD") == std::string::npos)
    return mm.auxOutputs().empty() ? "" : "an output besides D without a bias gradient";
  mepi::Tensor grad = mm.auxOutputs().at(isRelu(c) ? "drelu_bgrad" : "dgelu_bgrad");
  ElementType gradType = fp8D ? ElementType::BF16 : c.d;
  if (grad.dtype != apiDType(gradType))
    return "the bias gradient's type is not " + std::string(elementTypeName(gradType));
  return compare("bias gradient", fetch(dev, grad), gradType, wantGrad, 1e-2, err);
}
} // namespace

void runFp8BackwardCases(const Device &dev, std::mt19937 &rng,
                         const std::function<bool(const std::string &)> &selected, int &passed,
                         int &failed) {
  using T = ElementType;
  // Odd M and N (a mask byte and an aux column past D's rows), both 8-bit D types, a 16-bit
  // D, row-wise scales, and a decode shape split along K (the gradient summed after the
  // splits meet).
  const Fp8BackwardCase cases[] = {
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 301, 263, 528, "DRELU_BGRAD"},
      {T::F8E4M3FN, T::F8E5M2, T::F8E5M2, 257, 384, 1040, "DGELU_BGRAD", true},
      {T::F8E5M2, T::F8E4M3FN, T::F8E4M3FN, 200, 136, 520, "DGELU"},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 999, 1001, 1040, "DGELU_BGRAD"},
      {T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN, 16, 1504, 6000, "DRELU_BGRAD", true},
  };
  for (const Fp8BackwardCase &c : cases)
    if (std::string line = describe(c); selected(line))
      reportCase(
          line,
          [&](double &err, std::string &config) {
            return runFp8BackwardCase(dev, rng, c, err, config);
          },
          passed, failed);
}
} // namespace gputest
