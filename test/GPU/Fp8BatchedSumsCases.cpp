// BGRADA / BGRADB of batched 8-bit A and B (see Fp8Cases.h): numpy.matmul batching, one
// operand per batch element or one shared by all (broadcast), tensor-wise or row-wise scales
// (one per row of an element, shared by the elements). D and the bias gradient ([batch, M, 1]
// or [batch, N, 1], nvmath-python's shape: the sums over K of each element's dequantized
// op(A) rows or op(B) columns, a pass after the GEMM) against fp64.
#include "Fp8Cases.h"

#include <optional>

namespace gputest {
namespace {
struct Fp8BatchedSumsCase {
  ElementType a, b, d;
  int64_t batch, m, n, k;
  std::string epilog;        // BGRADA or BGRADB
  bool sharedA = false;      // A [M, K] for every element, else [batch, M, K]
  bool sharedB = false;      // B [N, K] for every element, else [batch, N, K]
  bool rowScales = false;    // the summed operand's scale per row (else one value)
};

std::string describe(const Fp8BatchedSumsCase &c) {
  char line[200];
  std::snprintf(line, sizeof line, "fp8 batched %s x %s -> %s %lldx%lldx%lldx%lld %s%s%s sums=%s",
                elementTypeName(c.a), elementTypeName(c.b), elementTypeName(c.d),
                (long long)c.batch, (long long)c.m, (long long)c.n, (long long)c.k,
                c.epilog.c_str(), c.sharedA ? " sharedA" : "", c.sharedB ? " sharedB" : "",
                c.rowScales ? "V" : "T");
  return line;
}

std::vector<int64_t> shapeOf(const Fp8BatchedSumsCase &c, bool shared, int64_t rows) {
  return shared ? std::vector<int64_t>{rows, c.k} : std::vector<int64_t>{c.batch, rows, c.k};
}

std::string runCase(const Device &dev, std::mt19937 &rng, const Fp8BatchedSumsCase &c,
                    double &err, std::string &config) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(c.a, shapeOf(c, c.sharedA, c.m), rng);
  HostTensor b = randomTensor(c.b, shapeOf(c, c.sharedB, c.n), rng);
  bool ofA = c.epilog == "BGRADA";
  int64_t rows = ofA ? c.m : c.n;
  HostTensor sA = uniformF32(ofA && c.rowScales ? std::vector<int64_t>{c.m}
                                                : std::vector<int64_t>{},
                             0.5, 2, rng);
  HostTensor sB = uniformF32(!ofA && c.rowScales ? std::vector<int64_t>{c.n}
                                                 : std::vector<int64_t>{},
                             0.5, 2, rng);
  mepi::Options options;
  options.resultType = apiDType(c.d);
  options.quantizationScales.a = arena.toDevice(sA);
  options.quantizationScales.b = arena.toDevice(sB);
  mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b), std::nullopt, 1.0f, std::nullopt,
                  mepi::Qualifiers{false, true}, options);
  mm.plan(apiEpilog(c.epilog), {});
  config = mm.kernelConfiguration();
  std::vector<uint8_t> dBytes = fetch(dev, executeTwice(dev, mm));

  auto at = [&](const HostTensor &t, bool shared, int64_t e, int64_t r, int64_t kk) {
    return t.values[((shared ? 0 : e) * (&t == &a ? c.m : c.n) + r) * c.k + kk];
  };
  auto scale = [&](const HostTensor &s, int64_t r) { return s.values[c.rowScales ? r : 0]; };
  std::vector<double> wantD, gotD, wantSums;
  for (int64_t e = 0; e < c.batch; ++e) {
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double x = 0;
        for (int64_t kk = 0; kk < c.k; ++kk)
          x += at(a, c.sharedA, e, i, kk) * at(b, c.sharedB, e, j, kk);
        wantD.push_back(x * sA.values[ofA && c.rowScales ? i : 0] *
                        sB.values[!ofA && c.rowScales ? j : 0]);
        gotD.push_back(readDevice(dBytes, c.d, (e * c.m + i) * c.n + j));
      }
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int64_t kk = 0; kk < c.k; ++kk)
        sum += ofA ? at(a, c.sharedA, e, r, kk) : at(b, c.sharedB, e, r, kk);
      wantSums.push_back(sum * scale(ofA ? sA : sB, r));
    }
  }
  if (std::string why = compare("D", packFloats(gotD), ElementType::F32, wantD,
                                fp8OutputTolerance(c.d), err);
      !why.empty())
    return why;
  mepi::Tensor sums = mm.auxOutputs().at(ofA ? "bgrada" : "bgradb");
  // nvmath-python's shape of a batched bias gradient: [batch, rows, 1].
  if (sums.shape != std::vector<int64_t>{c.batch, rows, 1})
    return "the bias gradient's shape is not [batch, " + std::to_string(rows) + ", 1]";
  return compare("bias gradient", fetch(dev, sums), c.d, wantSums, 1e-2, err);
}
} // namespace

void runFp8BatchedSumsCases(const Device &dev, std::mt19937 &rng,
                            const std::function<bool(const std::string &)> &selected,
                            int &passed, int &failed) {
  using T = ElementType;
  // Odd M and N, K past whole steps of the pass (partial blocks of 128), each operand per
  // element or shared, both scale forms, bf16 and f16 D.
  const Fp8BatchedSumsCase cases[] = {
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 3, 130, 200, 1040, "BGRADA"},
      {T::F8E4M3FN, T::F8E5M2, T::BF16, 4, 257, 96, 2096, "BGRADB", false, false, true},
      {T::F8E5M2, T::F8E4M3FN, T::F16, 5, 100, 300, 528, "BGRADB", false, true},
      {T::F8E4M3FN, T::F8E4M3FN, T::BF16, 2, 333, 64, 4000, "BGRADA", true, false, true},
  };
  for (const Fp8BatchedSumsCase &c : cases)
    if (std::string line = describe(c); selected(line))
      reportCase(
          line, [&](double &err, std::string &config) { return runCase(dev, rng, c, err, config); },
          passed, failed);
}
} // namespace gputest
