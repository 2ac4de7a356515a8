// GPU tests of user epilogs that write more than D: the epilog builder (a clamp-and-scale
// quantizer with a per-row amax, an epilog reading C) and MLIR text with an aux matrix, a
// bitmask and column/scalar reductions, each against an fp64 reference on odd shapes, on the
// wgmma family (in place, staged, split-K) and the simt family forced.
#include "UserEpilogs.h"

#include "mepi/EpilogBuilder.h"

#include <cstdio>

namespace gputest {
namespace {
struct Shape {
  int64_t m, n, k;
  std::string config; ///< forced kernel configuration, empty: the planner's
};

/// The clamp-and-scale quantizer by the builder: D = clamp(round(acc * scale[col]), -127, 127)
/// (integers, exact in bf16), and the amax of acc * scale[col] over each row (f32).
std::string runQuantizer(const Device &dev, const Shape &s, std::mt19937 &rng, double &err,
                         std::string &config) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(ElementType::BF16, {s.m, s.k}, rng);
  HostTensor b = randomTensor(ElementType::BF16, {s.n, s.k}, rng);
  HostTensor scale = randomTensor(ElementType::F32, {s.n}, rng);
  for (double &v : scale.values) // |scale| in [20, 60): values reach past the clamp
    v = 40.0 + 20.0 * v;
  for (size_t i = 0; i < scale.values.size(); ++i) {
    float f = static_cast<float>(scale.values[i]);
    std::memcpy(&scale.bytes[i * 4], &f, 4);
  }
  mepi::EpilogBuilder e;
  mepi::EpilogValue scaled = e.mul(e.accumulator(), e.input("scale", mepi::InputKind::Col));
  e.store(e.clamp(e.round(scaled), e.constant(-127), e.constant(127)));
  e.reduction("row_amax", e.abs(scaled), mepi::ReductionKind::Row,
              mepi::UserEpilogOutput::Combiner::Max);
  mepi::Options options;
  options.kernelConfig = s.config;
  mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b), std::nullopt, 1.0f, std::nullopt,
                  {false, true}, options);
  mm.plan(e, {{"scale", arena.toDevice(scale)}});
  config = mm.kernelConfiguration();
  mepi::Tensor d = executeTwice(dev, mm);

  std::vector<double> acc = referenceTN(a, b, s.m, s.n, s.k), q(acc.size()), amax(s.m, 0.0);
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      double v = acc[i * s.n + j] * scale.values[j];
      q[i * s.n + j] = std::clamp(std::nearbyint(v), -127.0, 127.0);
      amax[i] = std::max(amax[i], std::abs(v));
    }
  // f32 sums may round a value near x.5 the other way: at most one step, on few elements.
  std::vector<uint8_t> got = fetch(dev, d);
  int64_t offByOne = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    double diff = std::abs(readDevice(got, ElementType::BF16, i) - q[i]);
    if (diff > 1.0)
      return "D[" + std::to_string(i) + "] differs by " + std::to_string(diff);
    offByOne += diff != 0.0;
  }
  if (offByOne * 1000 > static_cast<int64_t>(q.size()))
    return std::to_string(offByOne) + " elements off by one rounding step (more than 0.1%)";
  err = static_cast<double>(offByOne) / q.size();
  return compare("row_amax", fetch(dev, mm.auxOutputs().at("row_amax")), ElementType::F32, amax,
                 1e-5, err);
}

/// MLIR text with every kind of output: D = acc + bias[col] (bf16); "pre" the same value as an
/// f32 matrix; "positive" the bitmask of D > 0; "col_sum" the sum of each column of D (f32),
/// "amax" max |D| (f32).
std::string runTextOutputs(const Device &dev, const Shape &s, std::mt19937 &rng, double &err,
                           std::string &config) {
  const char *mlir = R"mlir(
    func.func @epilog(%acc: f32, %bias: bf16, %row: index, %col: index)
        -> (bf16, f32, i1, f32, f32) {
      %zero = arith.constant 0.0 : f32
      %b = arith.extf %bias : bf16 to f32
      %y = arith.addf %acc, %b : f32
      %t = arith.truncf %y : f32 to bf16
      %pos = arith.cmpf ogt, %y, %zero : f32
      %abs = math.absf %y : f32
      return %t, %y, %pos, %y, %abs : bf16, f32, i1, f32, f32
    })mlir";
  using Out = mepi::UserEpilogOutput;
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(ElementType::BF16, {s.m, s.k}, rng);
  HostTensor b = randomTensor(ElementType::BF16, {s.n, s.k}, rng);
  HostTensor bias = randomTensor(ElementType::BF16, {s.n}, rng);
  mepi::Options options;
  options.kernelConfig = s.config;
  mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b), std::nullopt, 1.0f, std::nullopt,
                  {false, true}, options);
  mepi::UserEpilog epilog{mlir, "epilog", {}, {}};
  epilog.outputs = {{"pre", Out::Kind::Matrix, mepi::DType::Float32},
                    {"positive", Out::Kind::Bitmask},
                    {"col_sum", Out::Kind::ColReduction, mepi::DType::Float32},
                    {"amax", Out::Kind::ScalarReduction, mepi::DType::Float32,
                     Out::Combiner::Max}};
  mm.plan(epilog, {{arena.toDevice(bias), mepi::InputKind::Col}});
  config = mm.kernelConfiguration();
  mepi::Tensor d = executeTwice(dev, mm);

  std::vector<double> y = referenceTN(a, b, s.m, s.n, s.k), colSum(s.n, 0.0), amax(1, 0.0);
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      double &v = y[i * s.n + j];
      v += bias.values[j];
      colSum[j] += v;
      amax[0] = std::max(amax[0], std::abs(v));
    }
  const auto &aux = mm.auxOutputs();
  if (aux.size() != 4)
    return "expected 4 aux outputs, got " + std::to_string(aux.size());
  if (aux.at("pre").shape != std::vector<int64_t>{s.m, s.n})
    return "aux 'pre': expected shape [m, n]";
  std::string why = compare("D", fetch(dev, d), ElementType::BF16, y, 1e-2, err);
  if (why.empty())
    why = compare("pre", fetch(dev, aux.at("pre")), ElementType::F32, y, 1e-5, err);
  if (why.empty())
    why = compare("col_sum", fetch(dev, aux.at("col_sum")), ElementType::F32, colSum, 1e-4, err);
  if (why.empty())
    why = compare("amax", fetch(dev, aux.at("amax")), ElementType::F32, amax, 1e-5, err);
  if (!why.empty())
    return why;
  // The mask: bit i % 8 of byte (i / 8, j), column-major; set where D > 0 (values within
  // 1e-4 of 0 may go either way in f32).
  const mepi::Tensor &mask = aux.at("positive");
  std::vector<uint8_t> bits = fetch(dev, mask);
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      double v = y[i * s.n + j];
      bool bit = (bits[(i / 8) * mask.strides[0] + j * mask.strides[1]] >> (i % 8)) & 1;
      if (std::abs(v) > 1e-4 && bit != (v > 0))
        return "mask bit (" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
               std::to_string(bit) + " for D = " + std::to_string(v);
    }
  return "";
}

/// A builder epilog reading C on its own (beta = 0): D = acc + c * scale (scalar input), f16.
std::string runBuilderReadsC(const Device &dev, const Shape &s, std::mt19937 &rng, double &err,
                             std::string &config) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(ElementType::F16, {s.m, s.k}, rng);
  HostTensor b = randomTensor(ElementType::F16, {s.n, s.k}, rng);
  HostTensor c = randomTensor(ElementType::F16, {s.m, s.n}, rng);
  HostTensor scale = randomTensor(ElementType::F32, {}, rng);
  mepi::EpilogBuilder e;
  e.store(e.fma(e.c(), e.input("scale", mepi::InputKind::Scalar), e.accumulator()));
  mepi::Options options;
  options.kernelConfig = s.config;
  mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b), arena.toDevice(c), 1.0f, 0.0f,
                  {false, true}, options);
  mm.plan(e, {{"scale", arena.toDevice(scale)}});
  config = mm.kernelConfiguration();
  mepi::Tensor d = executeTwice(dev, mm);
  std::vector<double> y = referenceTN(a, b, s.m, s.n, s.k);
  for (size_t i = 0; i < y.size(); ++i)
    y[i] += c.values[i] * scale.values[0];
  return compare("D", fetch(dev, d), ElementType::F16, y, 1e-2, err);
}
/// The builder with fast math: D = gelu(acc + bias[row]) through tanh.approx.f32, bf16.
std::string runBuilderFastGelu(const Device &dev, const Shape &s, std::mt19937 &rng,
                               double &err, std::string &config) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(ElementType::BF16, {s.m, s.k}, rng);
  HostTensor b = randomTensor(ElementType::BF16, {s.n, s.k}, rng);
  HostTensor bias = randomTensor(ElementType::BF16, {s.m}, rng);
  mepi::EpilogBuilder e;
  e.setFastMath(true);
  mepi::EpilogValue x = e.add(e.accumulator(), e.input("bias", mepi::InputKind::Row));
  mepi::EpilogValue inner =
      e.mul(e.fma(e.mul(e.mul(x, x), x), e.constant(0.044715), x), e.constant(0.7978845608));
  e.store(e.mul(e.mul(x, e.constant(0.5)), e.add(e.constant(1.0), e.tanh(inner))));
  mepi::Options options;
  options.kernelConfig = s.config;
  mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b), std::nullopt, 1.0f, std::nullopt,
                  {false, true}, options);
  mm.plan(e, {{"bias", arena.toDevice(bias)}});
  config = mm.kernelConfiguration();
  mepi::Tensor d = executeTwice(dev, mm);
  std::vector<double> y = referenceTN(a, b, s.m, s.n, s.k);
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j)
      y[i * s.n + j] = geluRef(y[i * s.n + j] + bias.values[i]);
  return compare("D", fetch(dev, d), ElementType::BF16, y, 1e-2, err);
}
} // namespace

int runUserEpilogs(const Device &dev, std::mt19937 &rng, bool quick,
                   const std::function<bool(const std::string &)> &selected, int &passed,
                   int &failed) {
  const std::string simt = "#mepi.kernel_config<simt, tile = [16, 32, 1]>";
  // wgmma in place (K = 128), staged (rows of 99 and 300 elements), split-K (K = 4096), simt.
  std::vector<Shape> shapes = {{100, 30, 64, simt}, {257, 131, 99, ""}, {300, 200, 128, ""}};
  if (!quick) {
    shapes.push_back({1000, 520, 300, ""});
    shapes.push_back({200, 260, 4096, ""});
  }
  using Runner = std::string (*)(const Device &, const Shape &, std::mt19937 &, double &,
                                 std::string &);
  const std::pair<const char *, Runner> kinds[] = {
      {"builder clamp-and-scale + row amax", runQuantizer},
      {"MLIR text + matrix/bitmask/col-sum/amax outputs", runTextOutputs},
      {"builder reading C", runBuilderReadsC},
      {"builder fast-math bias+GELU", runBuilderFastGelu}};
  for (const auto &[name, run] : kinds)
    for (const Shape &s : shapes) {
      char line[256];
      std::snprintf(line, sizeof line, "user epilog %s %lldx%lldx%lld%s", name, (long long)s.m,
                    (long long)s.n, (long long)s.k, s.config.empty() ? "" : " simt");
      if (!selected(line))
        continue;
      double err = 0;
      std::string config, why;
      try {
        why = run(dev, s, rng, err, config);
      } catch (const mepi::Error &e) {
        why = std::string("error: ") + e.what();
      }
      bool ok = why.empty();
      (ok ? passed : failed)++;
      std::printf("%s %s %s err=%.2e%s%s\n", ok ? "PASS" : "FAIL", line, config.c_str(), err,
                  ok ? "" : "  ", why.c_str());
      std::fflush(stdout);
    }
  return failed;
}

} // namespace gputest
