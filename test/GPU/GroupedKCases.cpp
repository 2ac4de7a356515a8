// GPU tests of groups along K (torch._grouped_mm's 2-D x 2-D, the weight gradient): A [M, K]
// or [K, M] by B [K, N] or [N, K] with random group sizes over K (empty groups, sizes of no
// particular multiple, one group larger than all others, elements of K in no group), D [S, M,
// N] against fp64 element by element; built-in and user epilogs with per-group inputs; a CUDA
// graph replayed with other sizes.
#include "GroupedCases.h"

#include "mepi/GroupedMatmul.h"

#include <cstdio>
#include <numeric>

namespace gputest {
namespace {
struct KCase {
  ElementType type;
  int64_t m, n, k, groups;
  mepi::GroupForm form;
  bool transposeA, transposeB;
  bool tail = false; // the groups end before K (its last elements are in no group)
  // DEFAULT, GELU_BIAS (bias [S, N]) or USER (scale[g] * acc + bias[g, col] + g)
  std::string epilog = "DEFAULT";
  std::string config = ""; // forced (Options::kernelConfig), else the heuristic's
};

std::string describe(const KCase &c) {
  char line[200];
  std::snprintf(line, sizeof line, "grouped along K %s M=%lld N=%lld K=%lld S=%lld %s%s%s%s %s",
                elementTypeName(c.type), (long long)c.m, (long long)c.n, (long long)c.k,
                (long long)c.groups, c.form == mepi::GroupForm::Ends ? "ends" : "indptr",
                c.transposeA ? " tA" : "", c.transposeB ? " tB" : "",
                c.tail ? " K-past-groups" : "", c.epilog.c_str());
  return line + (c.config.empty() ? "" : " forced " + c.config);
}


/// Group bounds of `sizes` in `form` (ends: cumulative ends; indptr: starts and the end).
std::vector<int64_t> boundsOf(const std::vector<int64_t> &sizes, mepi::GroupForm form) {
  std::vector<int64_t> ends(sizes.size());
  std::partial_sum(sizes.begin(), sizes.end(), ends.begin());
  if (form == mepi::GroupForm::Ends)
    return ends;
  std::vector<int64_t> indptr = {0};
  indptr.insert(indptr.end(), ends.begin(), ends.end());
  return indptr;
}

/// D[g] of op(A) [M, K] by op(B) [K, N] over the group sizes, against the device's D [S, M, N]
/// element by element (a stray or missing element of K moves one by far more than bf16
/// rounding), then in relative L2 norm.
std::string compareGroups(const KCase &c, const HostTensor &a, const HostTensor &b,
                          const std::vector<int64_t> &sizes, const std::vector<uint8_t> &got,
                          const std::function<double(double, int64_t, int64_t)> &epilog,
                          double &err) {
  std::vector<double> want, gotValues;
  int64_t start = 0;
  for (int64_t g = 0; g < c.groups; start += sizes[g], ++g)
    for (int64_t r = 0; r < c.m; ++r)
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (int64_t kk = start; kk < start + sizes[g]; ++kk)
          sum += a.values[c.transposeA ? kk * c.m + r : r * c.k + kk] *
                 b.values[c.transposeB ? j * c.k + kk : kk * c.n + j];
        double w = epilog(sum, g, j), o = readDevice(got, c.type, (g * c.m + r) * c.n + j);
        if (!(std::abs(o - w) <= 0.02 * std::abs(w) + 0.03))
          return "D[" + std::to_string(g) + ", " + std::to_string(r) + ", " + std::to_string(j) +
                 "] = " + std::to_string(o) + ", expected " + std::to_string(w);
        want.push_back(w);
        gotValues.push_back(o);
      }
  return compare("D", packFloats(gotValues), ElementType::F32, want, 1e-2, err);
}

std::string runKCase(const Device &dev, const KCase &c, std::mt19937 &rng, double &err,
                     std::string &config) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(c.type, c.transposeA ? std::vector<int64_t>{c.k, c.m}
                                                   : std::vector<int64_t>{c.m, c.k}, rng);
  HostTensor b = randomTensor(c.type, c.transposeB ? std::vector<int64_t>{c.n, c.k}
                                                   : std::vector<int64_t>{c.k, c.n}, rng);
  std::vector<int64_t> sizes = randomSizes(c.groups, c.tail ? c.k - c.k / 7 : c.k, rng);
  mepi::Groups groups;
  groups.form = c.form;
  bool int64 = c.form == mepi::GroupForm::Indptr;
  groups.bounds = arena.toDevice(indexTensor(boundsOf(sizes, c.form), int64));
  groups.bounds.dtype = int64 ? mepi::DType::Int64 : mepi::DType::Int32;
  mepi::Options options;
  options.kernelConfig = c.config;
  mepi::GroupedMatmul mm(arena.toDevice(a), arena.toDevice(b), groups, 1.0f,
                         {c.transposeA, c.transposeB}, options);
  HostTensor scale = randomTensor(ElementType::F32, {c.groups}, rng);
  HostTensor bias = randomTensor(ElementType::BF16, {c.groups, c.n}, rng);
  if (c.epilog == "USER") {
    mm.plan(mepi::UserEpilog{kGroupedUserEpilog, "scaled", {}, {}, nullptr},
            {{arena.toDevice(scale), mepi::InputKind::Scalar},
             {arena.toDevice(bias), mepi::InputKind::Col}});
  } else if (c.epilog == "GELU_BIAS") {
    mepi::EpilogInputs inputs;
    inputs.bias = arena.toDevice(bias);
    mm.plan(mepi::Epilog::GeluBias, inputs);
  } else {
    mm.plan();
  }
  config = mm.kernelConfiguration();
  mepi::Tensor d = mm.execute();
  if (d.shape != std::vector<int64_t>{c.groups, c.m, c.n})
    return "D: expected shape [S, M, N]";
  cu(dev.d->cuMemsetD8(reinterpret_cast<CUdeviceptr>(d.data), 0xFF, fetch(dev, d).size()),
     "poison D");
  d = mm.execute(); // every element written again, an empty group's too
  auto epilog = [&](double sum, int64_t g, int64_t j) {
    if (c.epilog == "GELU_BIAS")
      return geluRef(sum + bias.values[g * c.n + j]);
    if (c.epilog == "USER")
      return sum * scale.values[g] + bias.values[g * c.n + j] + double(g);
    return sum;
  };
  return compareGroups(c, a, b, sizes, fetch(dev, d), epilog, err);
}

/// A CUDA graph captures one execute(), then replays it after the bounds were rewritten on the
/// device (the big group moved, others emptied).
std::string runKGraphCase(const Device &dev, std::mt19937 &rng, double &err,
                          std::string &config) {
  KCase c{ElementType::BF16, 136, 200, 1500, 6, mepi::GroupForm::Ends, true, false};
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(c.type, {c.k, c.m}, rng);
  HostTensor b = randomTensor(c.type, {c.k, c.n}, rng);
  std::vector<int64_t> first = randomSizes(c.groups, c.k, rng), second = randomSizes(c.groups, c.k, rng);
  std::rotate(second.begin(), second.begin() + 2, second.end());
  mepi::Groups groups;
  groups.bounds = arena.toDevice(indexTensor(boundsOf(first, c.form), false));
  groups.bounds.dtype = mepi::DType::Int32;
  mepi::GroupedMatmul mm(arena.toDevice(a), arena.toDevice(b), groups, 1.0f, {true, false});
  mm.plan();
  config = mm.kernelConfiguration();
  mepi::Tensor d = replayWithNewBounds(dev, mm, groups.bounds,
                                       indexTensor(boundsOf(second, c.form), false));
  return compareGroups(c, a, b, second, fetch(dev, d),
                       [](double sum, int64_t, int64_t) { return sum; }, err);
}
} // namespace

constexpr const char *kPingpong = "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = "
                                  "<stages = 4, pingpong = true>, epilogue = <store = tma>>";

void runGroupedKCases(const Device &dev, std::mt19937 &rng,
                      const std::function<bool(const std::string &)> &selected, int &passed,
                      int &failed) {
  using F = mepi::GroupForm;
  const KCase cases[] = {
      {ElementType::BF16, 200, 136, 1000, 5, F::Ends, true, false, false, "DEFAULT"},
      {ElementType::F16, 77, 264, 777, 6, F::Indptr, false, true, false, "GELU_BIAS"},
      {ElementType::BF16, 256, 520, 4099, 8, F::Ends, true, false, true, "DEFAULT"},
      {ElementType::BF16, 129, 100, 2051, 9, F::Ends, false, false, false, "USER"},
      {ElementType::F16, 64, 64, 333, 1, F::Ends, true, true, true, "DEFAULT"},
      {ElementType::BF16, 300, 384, 5003, 32, F::Indptr, true, false, false, "GELU_BIAS"},
      // Ping-pong: each consumer masks its own stages; the stage counters skip the other
      // consumer's units, whose k-steps differ from group to group (empty ones take none).
      {ElementType::BF16, 300, 384, 5003, 32, F::Ends, true, false, false, "GELU_BIAS",
       kPingpong},
      {ElementType::BF16, 77, 264, 777, 6, F::Indptr, false, true, true, "USER", kPingpong},
  };
  auto report = [&](const std::string &line,
                    const std::function<std::string(double &, std::string &)> &run) {
    if (selected(line))
      reportCase(line, run, passed, failed);
  };
  report("grouped along K cuda-graph replay with new sizes",
         [&](double &err, std::string &config) { return runKGraphCase(dev, rng, err, config); });
  for (const KCase &c : cases)
    report(describe(c), [&](double &err, std::string &config) {
      return runKCase(dev, c, rng, err, config);
    });
}
} // namespace gputest
