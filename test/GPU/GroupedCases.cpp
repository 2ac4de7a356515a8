// GPU tests of grouped matmuls (see GroupedCases.h).
#include "GroupedCases.h"
#include "Fp8Cases.h"

#include "mepi/GroupedMatmul.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <numeric>

namespace gputest {
/// Random sizes summing to `total`: empties, and the last group larger than all others.
std::vector<int64_t> randomSizes(int64_t groups, int64_t total, std::mt19937 &rng) {
  std::vector<int64_t> sizes(groups, 0);
  int64_t small = groups > 1 ? total / 3 : 0; // at most a third outside the big group
  std::uniform_int_distribution<int64_t> pick(0, groups - 1);
  for (int64_t r = 0; r < small; ++r)
    if (int64_t g = pick(rng); g % 3 != 1 || groups < 3) // every third group stays empty
      ++sizes[g];
  int64_t used = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  sizes[groups - 1] += total - used;
  return sizes;
}

HostTensor indexTensor(const std::vector<int64_t> &values, bool int64) {
  HostTensor t;
  t.layout = {int64 ? ElementType::I64 : ElementType::I32, {int64_t(values.size())}, {1}};
  for (int64_t v : values) {
    t.values.push_back(double(v));
    if (int64) {
      uint8_t bytes[8];
      std::memcpy(bytes, &v, 8);
      t.bytes.insert(t.bytes.end(), bytes, bytes + 8);
    } else {
      int32_t w = int32_t(v);
      uint8_t bytes[4];
      std::memcpy(bytes, &w, 4);
      t.bytes.insert(t.bytes.end(), bytes, bytes + 4);
    }
  }
  return t;
}

mepi::Tensor replayWithNewBounds(const Device &dev, mepi::GroupedMatmul &mm,
                                 const mepi::Tensor &bounds, const HostTensor &newBounds) {
  CUstream stream;
  cu(dev.d->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  mepi::Tensor d = mm.execute(stream); // the first execute allocates; the graph's does not
  cu(dev.d->cuStreamSynchronize(stream), "warm-up");
  CUgraph graph;
  CUgraphExec exec;
  cu(dev.d->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
  mm.execute(stream);
  cu(dev.d->cuStreamEndCapture(stream, &graph), "cuStreamEndCapture");
  cu(dev.d->cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
  cu(dev.d->cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(bounds.data), newBounds.bytes.data(),
                         newBounds.bytes.size()),
     "rewrite the bounds");
  cu(dev.d->cuMemsetD8(reinterpret_cast<CUdeviceptr>(d.data), 0xFF, fetch(dev, d).size()),
     "poison D");
  cu(dev.d->cuGraphLaunch(exec, stream), "cuGraphLaunch");
  cu(dev.d->cuStreamSynchronize(stream), "replay");
  dev.d->cuGraphExecDestroy(exec);
  dev.d->cuGraphDestroy(graph);
  dev.d->cuStreamDestroy(stream);
  return d;
}

const char *const kGroupedUserEpilog = R"(
func.func @scaled(%acc: f32, %scale: f32, %bias: bf16, %row: index, %col: index,
                  %group: index) -> bf16 {
  %s = arith.mulf %acc, %scale : f32
  %b = arith.extf %bias : bf16 to f32
  %g = arith.index_cast %group : index to i32
  %gf = arith.sitofp %g : i32 to f32
  %sum = arith.addf %s, %b : f32
  %r = arith.addf %sum, %gf : f32
  %t = arith.truncf %r : f32 to bf16
  return %t : bf16
})";

namespace {
struct GroupedCase {
  ElementType type;
  int64_t t, k, n, groups, matrices; // rows of A and D, K, N, groups S, matrices of B W
  mepi::GroupForm form;
  bool int64Bounds = false, weightIndices = false, transposeB = false;
  bool unassignedRows = false; // the groups end before row T
  // DEFAULT, GELU, GELU_BIAS and GELU_AUX_BIAS (bias [S, N]), RELU_BIAS (one bias [N] for
  // every group) or USER (scale[g] * acc + bias[g, col] + g)
  std::string epilog = "DEFAULT";
  std::string config; // forced (Options::kernelConfig), or the heuristic's
};

std::string describe(const GroupedCase &c) {
  const char *forms[] = {"ends", "indptr", "lengths", "masked"};
  char line[200];
  std::snprintf(line, sizeof line, "grouped %s T=%lld K=%lld N=%lld S=%lld W=%lld %s %s%s%s%s %s",
                elementTypeName(c.type), (long long)c.t, (long long)c.k, (long long)c.n,
                (long long)c.groups, (long long)c.matrices, forms[int(c.form)],
                c.int64Bounds ? "i64" : "i32", c.weightIndices ? " weight_indices" : "",
                c.transposeB ? " tB" : "", c.unassignedRows ? " rows-past-groups" : "",
                c.epilog.c_str());
  return c.config.empty() ? line : std::string(line) + " forced";
}


std::string runCase(const Device &dev, const GroupedCase &c, std::mt19937 &rng, double &err,
                    std::string &config) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(c.type, {c.t, c.k}, rng);
  HostTensor b = randomTensor(c.type, c.transposeB ? std::vector<int64_t>{c.matrices, c.n, c.k}
                                                   : std::vector<int64_t>{c.matrices, c.k, c.n},
                              rng);
  int64_t assigned = c.unassignedRows ? c.t - c.t / 5 : c.t;
  std::vector<int64_t> sizes = randomSizes(c.groups, assigned, rng), starts(c.groups);
  std::exclusive_scan(sizes.begin(), sizes.end(), starts.begin(), int64_t(0));
  std::vector<int64_t> bounds;
  bool masked = c.form == mepi::GroupForm::Masked;
  if (masked) { // R rows per group, a random count of them each, one count past R (clamped)
    int64_t per = c.t / c.groups;
    std::uniform_int_distribution<int64_t> count(0, per);
    for (int64_t g = 0; g < c.groups; ++g) {
      bounds.push_back(g == 1 ? per + 7 : count(rng));
      starts[g] = g * per;
      sizes[g] = std::min(bounds[g], per);
    }
  } else if (c.form == mepi::GroupForm::Ends)
    for (int64_t g = 0; g < c.groups; ++g)
      bounds.push_back(starts[g] + sizes[g]);
  else if (c.form == mepi::GroupForm::Indptr) {
    bounds = starts;
    bounds.push_back(assigned);
  } else
    bounds = sizes;
  std::vector<int64_t> weights(c.groups);
  std::uniform_int_distribution<int64_t> anyMatrix(0, c.matrices - 1);
  for (int64_t g = 0; g < c.groups; ++g)
    weights[g] = c.weightIndices ? anyMatrix(rng) : g;
  mepi::Groups groups;
  groups.bounds = arena.toDevice(indexTensor(bounds, c.int64Bounds));
  groups.bounds.dtype = c.int64Bounds ? mepi::DType::Int64 : mepi::DType::Int32;
  groups.form = c.form;
  if (c.weightIndices) {
    groups.weightIndices = arena.toDevice(indexTensor(weights, c.int64Bounds));
    groups.weightIndices->dtype = c.int64Bounds ? mepi::DType::Int64 : mepi::DType::Int32;
  }
  mepi::Tensor aTensor = arena.toDevice(a);
  if (masked) // [S, R, K]
    aTensor.shape = {c.groups, c.t / c.groups, c.k}, aTensor.strides.clear();
  mepi::Options options;
  options.kernelConfig = c.config;
  mepi::GroupedMatmul mm(aTensor, arena.toDevice(b), groups, 1.0f, {false, c.transposeB},
                         options);
  HostTensor scale = randomTensor(ElementType::F32, {c.groups}, rng);
  HostTensor bias = randomTensor(ElementType::BF16, {c.groups, c.n}, rng);
  bool sharedBias = c.epilog == "RELU_BIAS", aux = c.epilog == "GELU_AUX_BIAS";
  if (c.epilog == "USER") {
    mepi::UserEpilog user{kGroupedUserEpilog, "scaled", {}, {}, nullptr};
    mm.plan(user, {{arena.toDevice(scale), mepi::InputKind::Scalar},
                   {arena.toDevice(bias), mepi::InputKind::Col}});
  } else if (c.epilog.find("BIAS") != std::string::npos) {
    mepi::EpilogInputs inputs;
    inputs.bias = arena.toDevice(bias);
    if (sharedBias) // the first group's row for all
      inputs.bias->shape = {c.n}, inputs.bias->strides = {1};
    mm.plan(sharedBias ? mepi::Epilog::ReluBias
            : aux      ? mepi::Epilog::GeluAuxBias
                       : mepi::Epilog::GeluBias,
            inputs);
  } else {
    mm.plan(c.epilog == "GELU" ? mepi::Epilog::Gelu : mepi::Epilog::Default);
  }
  config = mm.kernelConfiguration();
  mepi::Tensor d = mm.execute();
  cu(dev.d->cuMemsetD8(reinterpret_cast<CUdeviceptr>(d.data), 0xFF, fetch(dev, d).size()),
     "poison D");
  d = mm.execute(); // every row of a group written again, the others left poisoned
  std::vector<uint8_t> got = fetch(dev, d);
  // GELU_AUX_BIAS: the GELU's input, column-major [T rounded up to 8, N].
  std::vector<uint8_t> gotAux = aux ? fetch(dev, mm.auxOutputs().at("gelu_aux")) : got;
  int64_t auxPitch = aux ? mm.auxOutputs().at("gelu_aux").shape[0] : 0;

  std::vector<double> want, gotRows, wantAux, gotAuxRows;
  for (int64_t g = 0; g < c.groups; ++g)
    for (int64_t r = starts[g]; r < starts[g] + sizes[g]; ++r)
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (int64_t kk = 0; kk < c.k; ++kk)
          sum += a.values[r * c.k + kk] *
                 b.values[weights[g] * c.k * c.n + (c.transposeB ? j * c.k + kk : kk * c.n + j)];
        if (c.epilog.find("BIAS") != std::string::npos && c.epilog != "USER")
          sum += bias.values[(sharedBias ? 0 : g) * c.n + j];
        if (aux) {
          wantAux.push_back(sum);
          gotAuxRows.push_back(readDevice(gotAux, c.type, j * auxPitch + r));
        }
        if (c.epilog.rfind("GELU", 0) == 0)
          sum = geluRef(sum);
        else if (sharedBias)
          sum = std::max(sum, 0.0);
        else if (c.epilog == "USER")
          sum = sum * scale.values[g] + bias.values[g * c.n + j] + double(g);
        want.push_back(sum);
        gotRows.push_back(readDevice(got, c.type, r * c.n + j));
      }
  if (masked && d.shape != std::vector<int64_t>{c.groups, c.t / c.groups, c.n})
    return "D: expected shape [S, R, N]";
  // Rows in no group: still the poison (0xFFFF, a NaN in either 16-bit type).
  std::vector<bool> inGroup(c.t, false);
  for (int64_t g = 0; g < c.groups; ++g)
    std::fill(inGroup.begin() + starts[g], inGroup.begin() + starts[g] + sizes[g], true);
  for (int64_t r = 0; r < c.t; ++r)
    for (int64_t j = 0; j < c.n && !inGroup[r]; ++j)
      if (got[2 * (r * c.n + j)] != 0xFF || got[2 * (r * c.n + j) + 1] != 0xFF)
        return "row " + std::to_string(r) + " (in no group) was written";
  if (aux)
    if (std::string why = compare("gelu_aux", packFloats(gotAuxRows), ElementType::F32, wantAux,
                                  2e-2, err);
        !why.empty())
      return why;
  return compare("D", packFloats(gotRows), ElementType::F32, want, 2e-2, err);
}
/// x [t, k] by w [S, k, n] in groups of `sizes`, as the fp64 reference of D's rows in groups,
/// with the device's D rows beside them.
void referenceRows(const HostTensor &a, const HostTensor &b, const std::vector<int64_t> &sizes,
                   int64_t k, int64_t n, const std::vector<uint8_t> &got, ElementType type,
                   std::vector<double> &want, std::vector<double> &gotRows) {
  int64_t row = 0;
  for (size_t g = 0; g < sizes.size(); ++g)
    for (int64_t end = row + sizes[g]; row < end; ++row)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          sum += a.values[row * k + kk] * b.values[g * k * n + kk * n + j];
        want.push_back(sum);
        gotRows.push_back(readDevice(got, type, row * n + j));
      }
}

/// A CUDA graph captures one execute(), then replays it after the group ends were rewritten on
/// the device (other sizes, an empty group, one larger than all others): no host read of the
/// sizes, no allocation in the captured execute.
std::string runGraphCase(const Device &dev, std::mt19937 &rng, double &err, std::string &config) {
  const int64_t t = 1500, k = 136, n = 264, groups = 7;
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(ElementType::BF16, {t, k}, rng);
  HostTensor b = randomTensor(ElementType::BF16, {groups, k, n}, rng);
  std::vector<int64_t> first = randomSizes(groups, t, rng), second = randomSizes(groups, t, rng);
  std::rotate(second.begin(), second.begin() + 3, second.end()); // the big group moves
  auto ends = [](std::vector<int64_t> sizes) {
    std::partial_sum(sizes.begin(), sizes.end(), sizes.begin());
    return sizes;
  };
  mepi::Groups bounds;
  bounds.bounds = arena.toDevice(indexTensor(ends(first), false));
  bounds.bounds.dtype = mepi::DType::Int32;
  mepi::GroupedMatmul mm(arena.toDevice(a), arena.toDevice(b), bounds);
  mm.plan();
  config = mm.kernelConfiguration();
  mepi::Tensor d =
      replayWithNewBounds(dev, mm, bounds.bounds, indexTensor(ends(second), false));
  std::vector<double> want, gotRows;
  referenceRows(a, b, second, k, n, fetch(dev, d), ElementType::BF16, want, gotRows);
  return compare("D", packFloats(gotRows), ElementType::F32, want, 2e-2, err);
}
/// torch._grouped_mm's 3-D x 2-D: A [S, M, K] by B [K, N] with the groups cutting N; D [M, N]
/// comes back as a transposed view (strides [1, M]). Columns in no group stay unwritten.
std::string runColumnGroupsCase(const Device &dev, std::mt19937 &rng, bool transposeB,
                                double &err, std::string &config) {
  const int64_t groups = 6, m = 77, k = 136, n = 1003, assigned = 900;
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(ElementType::BF16, {groups, m, k}, rng);
  HostTensor b = randomTensor(ElementType::BF16,
                              transposeB ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n},
                              rng);
  std::vector<int64_t> sizes = randomSizes(groups, assigned, rng), ends(groups);
  std::partial_sum(sizes.begin(), sizes.end(), ends.begin());
  mepi::Groups bounds;
  bounds.bounds = arena.toDevice(indexTensor(ends, false));
  bounds.bounds.dtype = mepi::DType::Int32;
  // B as [K, N] is refused before anything runs (its transposed problem would read it MN-major
  // as A, which grouped kernels do not take yet): the message names the operand and the way.
  if (!transposeB) {
    try {
      mepi::GroupedMatmul refused(arena.toDevice(a), arena.toDevice(b), bounds, 1.0f,
                                  {false, false});
    } catch (const mepi::Error &e) {
      config = "refused";
      return std::string(e.what()).find("operand b: groups of columns (3-D x 2-D) need b as "
                                        "[N, K] read transposed") == 0
                 ? ""
                 : std::string("unexpected error: ") + e.what();
    }
    return "B as [K, N] was not refused";
  }
  mepi::GroupedMatmul mm(arena.toDevice(a), arena.toDevice(b), bounds, 1.0f, {false, transposeB});
  mm.plan(mepi::Epilog::Gelu);
  config = mm.kernelConfiguration();
  mepi::Tensor d = mm.execute();
  if (d.shape != std::vector<int64_t>{m, n} || d.strides != std::vector<int64_t>{1, m})
    return "D: expected shape [M, N] with strides [1, M]";
  cu(dev.d->cuMemsetD8(reinterpret_cast<CUdeviceptr>(d.data), 0xFF, size_t(m * n * 2)),
     "poison D");
  d = mm.execute();
  std::vector<uint8_t> got = fetch(dev, d);
  std::vector<double> want, gotValues;
  int64_t col = 0;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t end = col + sizes[g]; col < end; ++col)
      for (int64_t r = 0; r < m; ++r) {
        double sum = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          sum += a.values[(g * m + r) * k + kk] * b.values[transposeB ? col * k + kk : kk * n + col];
        want.push_back(geluRef(sum));
        gotValues.push_back(readDevice(got, ElementType::BF16, col * m + r));
      }
  for (int64_t c = assigned; c < n; ++c)
    for (int64_t r = 0; r < m; ++r)
      if (got[2 * (c * m + r)] != 0xFF || got[2 * (c * m + r) + 1] != 0xFF)
        return "column " + std::to_string(c) + " (in no group) was written";
  return compare("D", packFloats(gotValues), ElementType::F32, want, 2e-2, err);
}
/// FP8 grouped: e4m3 x [T, K] by e4m3 w [S, N, K], A's scale per row [T], B's per group and
/// column [S, N] (or one per group [S] with fast accumulation), a bias [S, N], GELU_BIAS, D
/// bf16 (or `fp8D`: e4m3 with its scale, GELU_AUX_BIAS and its gelu_aux, bf16 or `auxType`
/// holding z times its scale, rounded and saturated as nvmath's aux_type asks, with D's and the
/// aux's amax over the groups' rows: result_amax, gelu_aux_amax). DeepGEMM's
/// contiguous layout (torch's offs, ragged groups with an empty one) or its masked one (x [S,
/// R, K] with masked_m, one count past R).
std::string runGroupedFp8Case(const Device &dev, std::mt19937 &rng, bool perGroupScalar,
                              bool masked, const std::string &forced, double &err,
                              std::string &config, bool fp8D = false,
                              std::optional<ElementType> auxType = std::nullopt) {
  const int64_t groups = 5, t = 1000, n = 264, k = 528, per = t / groups;
  DeviceArena arena(*dev.d);
  HostTensor x = randomTensor(ElementType::F8E4M3FN, {t, k}, rng);
  HostTensor w = randomTensor(ElementType::F8E4M3FN, {groups, n, k}, rng);
  HostTensor bias = randomTensor(ElementType::BF16, {groups, n}, rng);
  HostTensor sA = uniformF32({t}, 0.5, 2, rng);
  HostTensor sB = uniformF32(perGroupScalar ? std::vector<int64_t>{groups}
                                            : std::vector<int64_t>{groups, n},
                             0.5, 2, rng);
  std::vector<int64_t> sizes = randomSizes(groups, t, rng), starts(groups), bounds(groups);
  sizes[1] += sizes[2], sizes[2] = 0; // an empty group
  std::exclusive_scan(sizes.begin(), sizes.end(), starts.begin(), int64_t(0));
  std::uniform_int_distribution<int64_t> count(0, per);
  for (int64_t g = 0; g < groups; ++g) {
    bounds[g] = masked ? (g == 1 ? per + 7 : count(rng)) : starts[g] + sizes[g];
    if (masked)
      starts[g] = g * per, sizes[g] = std::min(bounds[g], per);
  }
  mepi::Groups groupBounds;
  groupBounds.bounds = arena.toDevice(indexTensor(bounds, false));
  groupBounds.bounds.dtype = mepi::DType::Int32;
  groupBounds.form = masked ? mepi::GroupForm::Masked : mepi::GroupForm::Ends;
  mepi::Options options;
  options.kernelConfig = forced;
  options.resultType = fp8D ? mepi::DType::Float8E4M3FN : mepi::DType::BFloat16;
  options.fastAccumulation = perGroupScalar;
  options.quantizationScales.a = arena.toDevice(sA);
  options.quantizationScales.b = arena.toDevice(sB);
  HostTensor sD = uniformF32({}, 0.5, 2, rng);
  if (fp8D)
    options.quantizationScales.d = arena.toDevice(sD);
  mepi::Tensor xTensor = arena.toDevice(x);
  if (masked) // [S, R, K]
    xTensor.shape = {groups, per, k}, xTensor.strides.clear();
  mepi::EpilogInputs inputs;
  inputs.bias = arena.toDevice(bias);
  HostTensor sAux = uniformF32({}, 0.5, 2, rng);
  ElementType zType = auxType.value_or(ElementType::BF16);
  if (auxType) {
    options.auxType = apiDType(*auxType);
    options.auxAmax = options.resultAmax = true;
    inputs.auxQuantizationScale = arena.toDevice(sAux);
  }
  mepi::GroupedMatmul mm(xTensor, arena.toDevice(w), groupBounds, 1.0f, {false, true}, options);
  mm.plan(fp8D ? mepi::Epilog::GeluAuxBias : mepi::Epilog::GeluBias, inputs);
  config = mm.kernelConfiguration();
  ElementType dType = fp8D ? ElementType::F8E4M3FN : ElementType::BF16;
  std::vector<uint8_t> got = fetch(dev, mm.execute());
  std::vector<uint8_t> aux;
  mepi::Tensor auxTensor;
  if (fp8D) {
    auxTensor = mm.auxOutputs().at("gelu_aux");
    aux = fetch(dev, auxTensor);
  }
  std::vector<double> want, gotRows, wantZ, gotZ;
  double amaxD = 0, amaxZ = 0;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t row = starts[g]; row < starts[g] + sizes[g]; ++row)
      for (int64_t col = 0; col < n; ++col) {
        double acc = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          acc += x.values[row * k + kk] * w.values[(g * n + col) * k + kk];
        double scaleB = sB.values[perGroupScalar ? g : g * n + col];
        double z = acc * sA.values[row] * scaleB + bias.values[g * n + col];
        amaxD = std::max(amaxD, std::fabs(geluRef(z)));
        amaxZ = std::max(amaxZ, std::fabs(z));
        want.push_back(fp8D ? roundedAs(geluRef(z) * sD.values[0], dType) : geluRef(z));
        gotRows.push_back(readDevice(got, dType, row * n + col));
        if (fp8D) { // GELU's input, bf16 beside an 8-bit D (or scaled), column-major
          wantZ.push_back(auxType ? roundedAs(z * sAux.values[0], zType) : z);
          gotZ.push_back(readDevice(aux, zType,
                                    row * auxTensor.strides[0] + col * auxTensor.strides[1]));
        }
      }
  if (std::string why = compare("D", packFloats(gotRows), ElementType::F32, want, 1e-2, err);
      !why.empty() || !fp8D)
    return why;
  if (auxTensor.dtype != apiDType(zType))
    return std::string("gelu_aux is not ") + elementTypeName(zType);
  // The amaxes (before the scales), f32 maxima of the kernel's f32 values: within the
  // accumulation's error of the reference's.
  for (auto [key, wantAmax] : {std::pair{"result_amax", amaxD}, {"gelu_aux_amax", amaxZ}}) {
    if (!auxType)
      break;
    double gotAmax = readDevice(fetch(dev, mm.auxOutputs().at(key)), ElementType::F32, 0);
    if (!(std::fabs(gotAmax - wantAmax) <= 1e-3 * wantAmax))
      return std::string(key) + " " + std::to_string(gotAmax) + ", expected " +
             std::to_string(wantAmax);
  }
  return compare("gelu_aux", packFloats(gotZ), ElementType::F32, wantZ,
                 auxType ? fp8OutputTolerance(zType) : 1e-2, err);
}

/// The grouped cases' table: each group form, epilog and store form, groups ending inside
/// tiles, groups of ~20 rows, 128 x 192 and MN-major B, the short-K ping-pong forms.
void addGroupedFormCases(std::vector<GroupedCase> &cases) {
  using F = mepi::GroupForm;
  const GroupedCase part[] = {
      {ElementType::BF16, 1000, 200, 136, 5, 5, F::Ends, false, false, false, false, "GELU"},
      // D rows of 262 bytes (131 columns): no TMA store; the consumer's threads store the lines.
      {ElementType::BF16, 1000, 200, 131, 5, 5, F::Ends, false, false, true, false, "GELU_BIAS"},
      {ElementType::F16, 777, 72, 96, 6, 3, F::Indptr, true, true, true, false, "DEFAULT"},
      {ElementType::BF16, 515, 136, 264, 4, 4, F::Lengths, false, false, false, true, "USER"},
      {ElementType::BF16, 100, 256, 520, 64, 64, F::Ends, false, false, false, false, "DEFAULT"},
      {ElementType::BF16, 4099, 512, 1024, 8, 8, F::Ends, false, false, false, true, "GELU"},
      {ElementType::F16, 3001, 264, 200, 37, 11, F::Lengths, true, true, false, false,
       "DEFAULT"},
      {ElementType::BF16, 2051, 328, 392, 9, 9, F::Ends, false, false, true, false, "GELU_BIAS"},
      {ElementType::F16, 1203, 136, 200, 7, 4, F::Indptr, true, true, false, true, "RELU_BIAS"},
      {ElementType::BF16, 901, 200, 264, 5, 5, F::Ends, false, false, true, false,
       "GELU_AUX_BIAS"},
      {ElementType::BF16, 6 * 203, 136, 264, 6, 6, F::Masked, false, false, true, false,
       "GELU_BIAS"},
      {ElementType::F16, 4 * 64, 72, 96, 4, 4, F::Masked, false, false, false, false, "DEFAULT"},
      // Many groups' ends inside 128-row tiles (slices stored through the TMA buffers by the
      // threads, below the group's end) and N past the last full line, in both consumer forms.
      {ElementType::BF16, 3001, 200, 392, 23, 23, F::Ends, false, false, true, false,
       "GELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, "
       "epilogue = <store = tma>>"},
      {ElementType::F16, 3001, 200, 392, 23, 23, F::Ends, false, false, true, false,
       "GELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4, pingpong = "
       "true>, epilogue = <store = tma>>"},
      // Groups of ~20 rows: most tiles' second slice lies wholly past its group's end and skips
      // its epilog, unit after unit, over more k-steps than twice the stages, in each store
      // form and with two slices a consumer.
      {ElementType::BF16, 2000, 1544, 264, 97, 97, F::Ends, false, false, true, false,
       "GELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 3>, "
       "epilogue = <store = registers>>"},
      {ElementType::BF16, 2000, 1544, 264, 97, 97, F::Ends, false, false, true, false, "DEFAULT",
       "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 3>, "
       "epilogue = <store = tma>>"},
      {ElementType::F16, 2500, 1032, 200, 41, 41, F::Lengths, false, false, false, true,
       "GELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4>, "
       "epilogue = <store = tma>>"},
      // TMA stores from 128 x 192 tiles (N = 392: a last tile column of 8) over 37 groups, and
      // from 128 x 256 tiles with MN-major B (weights [W, K, N]) through weight indices.
      {ElementType::BF16, 3001, 200, 392, 37, 37, F::Ends, false, false, true, false,
       "GELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [128, 192, 64], mainloop = <stages = 4>, "
       "epilogue = <store = tma>>"},
      {ElementType::F16, 2500, 264, 520, 29, 11, F::Indptr, true, true, false, false, "DEFAULT",
       "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, "
       "epilogue = <store = tma>>"},
      // The short-K ping-pong forms (shortGroupedForm): 64 x 256 and 128 x 128 with six stages,
      // many groups ending inside tiles, N past the last full line.
      {ElementType::BF16, 3003, 392, 1544, 23, 23, F::Ends, false, false, true, false,
       "GELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 4, pingpong = "
       "true>, epilogue = <store = tma>>"},
      {ElementType::F16, 2000, 200, 1032, 97, 97, F::Ends, false, false, true, false, "DEFAULT",
       "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = "
       "true>, epilogue = <store = tma>>"},
  };
  cases.insert(cases.end(), std::begin(part), std::end(part));
}

/// The grouped cases in clusters along N (multicast = a).
void addGroupedClusterCases(std::vector<GroupedCase> &cases) {
  using F = mepi::GroupForm;
  const GroupedCase part[] = {
      // Clusters along N (a tile row's pair of tile columns shares A's tile): an odd number of
      // tile columns (the last pair's second right of D: N = 1544, 1032, 520 in 256 or 128
      // columns), many groups ending inside tiles, MN-major B through weight indices, the
      // masked layout, ping-pong consumers, staged stores, an aux output.
      {ElementType::BF16, 3001, 392, 1544, 23, 23, F::Ends, false, false, true, false,
       "GELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2, "
       "multicast = a>, epilogue = <store = tma>>"},
      {ElementType::F16, 2503, 264, 520, 29, 11, F::Indptr, true, true, false, false, "DEFAULT",
       "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2, "
       "multicast = a>, epilogue = <store = tma>>"},
      {ElementType::BF16, 2000, 264, 1032, 97, 97, F::Ends, false, false, true, false,
       "GELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4, pingpong = "
       "true, cluster = 2, multicast = a>, epilogue = <store = tma>>"},
      {ElementType::BF16, 6 * 203, 136, 264, 6, 6, F::Masked, false, false, true, false,
       "GELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, cluster = 2, "
       "multicast = a>, epilogue = <store = tma>>"},
      {ElementType::F16, 3001, 200, 392, 37, 11, F::Lengths, false, true, false, true,
       "RELU_BIAS",
       "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, cluster = 2, "
       "multicast = a>>"},
      {ElementType::BF16, 2500, 200, 1032, 41, 41, F::Ends, false, false, false, false,
       "GELU_AUX_BIAS",
       "#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 3, cluster = 2, "
       "multicast = a>>"},
  };
  cases.insert(cases.end(), std::begin(part), std::end(part));
}

using Run = std::function<std::string(double &err, std::string &config)>;
/// Runs one case (its line selected): PASS or FAIL with its configuration and error.
using Report = std::function<void(const std::string &line, const Run &run)>;

/// The grouped FP8 cases: per-group scales, the masked layout, an e4m3 D with GELU_AUX_BIAS's
/// aux (bf16 or 8-bit with its scale and amax), the promoted tiles forced, fast accumulation,
/// clusters along N.
void runGroupedFp8Cases(const Device &dev, std::mt19937 &rng, const Report &report) {
  for (auto [perGroupScalar, masked] : {std::pair{false, false}, {true, false}, {false, true}})
    report(std::string("grouped fp8 e4m3 T=1000 K=528 N=264 S=5 ") +
               (masked ? "masked " : "ends ") + "sA=[T] sB=" +
               (perGroupScalar ? "[S] fast" : "[S, N]") + " GELU_BIAS",
           [&, perGroupScalar = perGroupScalar, masked = masked](double &err,
                                                                std::string &config) {
             return runGroupedFp8Case(dev, rng, perGroupScalar, masked, "", err, config);
           });
  // An e4m3 D with its scale beside GELU_AUX_BIAS's bf16 gelu_aux (ragged groups, an empty one).
  report("grouped fp8 e4m3 T=1000 K=528 N=264 S=5 ends sA=[T] sB=[S, N] GELU_AUX_BIAS D=e4m3 sD",
         [&](double &err, std::string &config) {
           return runGroupedFp8Case(dev, rng, false, false, "", err, config, /*fp8D=*/true);
         });
  // nvmath's aux_type: an 8-bit gelu_aux holding z times aux_quantization_scale (e4m3, e5m2),
  // and the amaxes of D and of the aux (grouped kernels' atomic maxima).
  for (ElementType zType : {ElementType::F8E4M3FN, ElementType::F8E5M2})
    report(std::string("grouped fp8 e4m3 T=1000 K=528 N=264 S=5 ends sA=[T] sB=[S, N] "
                       "GELU_AUX_BIAS D=e4m3 sD amax aux=") +
               elementTypeName(zType) + " scale amax",
           [&, zType](double &err, std::string &config) {
             return runGroupedFp8Case(dev, rng, false, false, "", err, config, /*fp8D=*/true,
                                      zType);
           });
  // The promoted tiles that large and decode-like grouped FP8 problems take, forced here:
  // 128 x 192 (N = 264: a second tile column of 72) and 64 x 128 with TMA stores, with group
  // ends and the masked layout.
  for (const char *forced : {"#mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = "
                             "<stages = 4, promote = 1>, epilogue = <store = tma>>",
                             "#mepi.kernel_config<wgmma, tile = [64, 128, 128], mainloop = "
                             "<stages = 8, promote = 1>, epilogue = <store = tma>>"})
    for (bool masked : {false, true})
      report(std::string("grouped fp8 e4m3 T=1000 K=528 N=264 S=5 ") +
                 (masked ? "masked" : "ends") + " sA=[T] sB=[S, N] GELU_BIAS forced " + forced,
             [&, masked, forced](double &err, std::string &config) {
               return runGroupedFp8Case(dev, rng, false, masked, forced, err, config);
             });
  // Fast accumulation (unpromoted) on 128 x 256 tiles with TMA stores, alone and in clusters
  // along N (N = 264: one pair of tile columns); promoted 128 x 192 in such clusters.
  for (const char *cluster : {"", ", cluster = 2, multicast = a"})
    report(std::string("grouped fp8 e4m3 T=1000 K=528 N=264 S=5 ends sA=[T] sB=[S] fast "
                       "GELU_BIAS forced 128x256 tma") +
               cluster,
           [&, cluster](double &err, std::string &config) {
             return runGroupedFp8Case(dev, rng, true, false,
                                      std::string("#mepi.kernel_config<wgmma, tile = [128, 256, "
                                                  "128], mainloop = <stages = 4") +
                                          cluster + ">, epilogue = <store = tma>>",
                                      err, config);
           });
  report("grouped fp8 e4m3 T=1000 K=528 N=264 S=5 masked sA=[T] sB=[S, N] GELU_BIAS forced "
         "128x192 promoted cluster along N",
         [&](double &err, std::string &config) {
           return runGroupedFp8Case(dev, rng, false, true,
                                    "#mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop "
                                    "= <stages = 4, promote = 1, cluster = 2, multicast = a>, "
                                    "epilogue = <store = tma>>",
                                    err, config);
         });
}
} // namespace

void runGroupedCases(const Device &dev, std::mt19937 &rng,
                     const std::function<bool(const std::string &)> &selected, int &passed,
                     int &failed) {
  std::vector<GroupedCase> cases;
  addGroupedFormCases(cases);
  addGroupedClusterCases(cases);
  Report report = [&](const std::string &line, const Run &run) {
    if (selected(line))
      reportCase(line, run, passed, failed);
  };
  runGroupedFp8Cases(dev, rng, report);
  report("grouped cuda-graph replay with new sizes", [&](double &err, std::string &config) {
    return runGraphCase(dev, rng, err, config);
  });
  for (bool transposeB : {false, true})
    report(std::string("grouped columns (3-D x 2-D) bf16 S=6 M=77 K=136 N=1003") +
               (transposeB ? " tB" : "") + " GELU",
           [&](double &err, std::string &config) {
             return runColumnGroupsCase(dev, rng, transposeB, err, config);
           });
  for (const GroupedCase &c : cases)
    report(describe(c), [&](double &err, std::string &config) {
      return runCase(dev, c, rng, err, config);
    });
}
} // namespace gputest