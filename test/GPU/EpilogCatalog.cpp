// GPU tests of the epilog catalog: every built-in epilog with aux outputs, aux inputs, bias
// gradients or result_amax against an fp64 host reference on random inputs and odd shapes, and
// the forward epilog's aux fed to the backward one (a layer's gradients by hand).
#include "EpilogCatalog.h"

#include "mepi-c/Matmul.h"

#include <cstdio>
#include <map>

namespace gputest {
namespace {

/// The epilog's aux matrices in nvmath-python's layout (column-major, rows padded).
int64_t maskBytesPerColumn(int64_t m) { return (((m + 7) / 8) + 15) / 16 * 16; }
int64_t geluRows(int64_t m) { return (m + 7) / 8 * 8; }

struct Run {
  std::vector<uint8_t> d;
  std::map<std::string, std::vector<uint8_t>> aux;
  std::string config;
};

/// Plans `epilog` for A ([m, k], or [k, m] with transposeA when `transA`) x B (as [n, k] with
/// transposeB when `kMajorB`, else [k, n]) with a forced kernel `config` unless empty,
/// executes twice on poisoned outputs (the second run also checks that the workspace counters
/// were left at zero) and downloads D and the aux outputs.
Run execute(const Device &dev, DeviceArena &arena, mepi::Epilog epilog, const HostTensor &a,
            const HostTensor &b, bool transA, bool kMajorB, const std::string &config,
            const mepi::EpilogInputs &inputs, bool amax, ElementType type) {
  const CudaDriver &d = *dev.d;
  mepi::Options options;
  options.resultAmax = amax;
  options.kernelConfig = config;
  mepi::Matmul mm(arena.toDevice(a), arena.toDevice(b), std::nullopt, 1.0f, std::nullopt,
                  mepi::Qualifiers{transA, kMajorB}, options);
  mm.plan(epilog, inputs);
  Run run;
  run.config = mm.kernelConfiguration();
  mepi::Tensor dT = mm.execute();
  int64_t dCount = dT.shape[0] * dT.shape[1];
  run.d.resize(dCount * elementTypeBytes(type));
  for (int round = 0; round < 2; ++round) {
    cu(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
    cu(d.cuMemsetD8(reinterpret_cast<CUdeviceptr>(dT.data), 0xFF, run.d.size()), "poison d");
    for (const auto &[key, t] : mm.auxOutputs()) {
      int64_t count = 1;
      for (size_t i = 0; i < t.shape.size(); ++i)
        count += (t.shape[i] - 1) * t.strides[i];
      size_t bytes = count * (t.dtype == mepi::DType::UInt8     ? 1
                              : t.dtype == mepi::DType::Float32 ? 4
                                                                : 2);
      run.aux[key].resize(bytes);
      cu(d.cuMemsetD8(reinterpret_cast<CUdeviceptr>(t.data), 0xFF, bytes), "poison aux");
    }
    mm.execute();
  }
  cu(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  cu(d.cuMemcpyDtoH(run.d.data(), reinterpret_cast<CUdeviceptr>(dT.data), run.d.size()), "DtoH");
  for (const auto &[key, t] : mm.auxOutputs())
    cu(d.cuMemcpyDtoH(run.aux[key].data(), reinterpret_cast<CUdeviceptr>(t.data),
                      run.aux[key].size()),
       "DtoH aux");
  return run;
}

/// ||out - ref|| / ||ref|| over the pairs, or a message when above `tol`.
std::string relativeError(const char *what, const std::vector<double> &out,
                          const std::vector<double> &ref, double tol, double &err) {
  double num = 0, den = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i]))
      return std::string(what) + ": non-finite value at " + std::to_string(i);
    num += (out[i] - ref[i]) * (out[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  double e = std::sqrt(num / std::max(den, 1e-300));
  err = std::max(err, e);
  if (!(e <= tol))
    return std::string(what) + ": relative error " + std::to_string(e) + " above " +
           std::to_string(tol);
  return "";
}

struct Shape {
  int64_t m, n, k;
  bool kMajorB;        // B given as [n, k] (transposeB), else [k, n]
  bool transA = false; // A given as [k, m] (transposeA), else [m, k]
  std::string config;  // a forced kernel configuration (e.g. the simt family)
};

/// One catalog case: returns "" or the failure; `err` the largest relative error seen.
std::string runCase(const Device &dev, const std::string &name, mepi::Epilog epilog, Shape s,
                    bool amax, std::mt19937 &rng, double &err, std::string &config) {
  const ElementType type = ElementType::BF16;
  const double tol = 1e-2;
  DeviceArena arena(*dev.d);
  int64_t m = s.m, n = s.n, k = s.k;
  HostTensor a = randomTensor(type, s.transA ? std::vector<int64_t>{k, m}
                                             : std::vector<int64_t>{m, k}, rng);
  HostTensor b = randomTensor(type, s.kMajorB ? std::vector<int64_t>{n, k}
                                              : std::vector<int64_t>{k, n}, rng);
  auto aAt = [&](int64_t i, int64_t kk) {
    return s.transA ? a.values[kk * m + i] : a.values[i * k + kk];
  };
  auto bAt = [&](int64_t kk, int64_t j) {
    return s.kMajorB ? b.values[j * k + kk] : b.values[kk * n + j];
  };
  bool hasBias = name.find("BIAS") != std::string::npos && name.find("BGRAD") == std::string::npos;
  bool dRelu = name.rfind("DRELU", 0) == 0, dGelu = name.rfind("DGELU", 0) == 0;
  mepi::EpilogInputs inputs;
  HostTensor bias, geluIn;
  std::vector<uint8_t> maskIn;
  int64_t maskLd = maskBytesPerColumn(m), geluLd = geluRows(m);
  if (hasBias) {
    bias = randomTensor(type, {m}, rng);
    inputs.bias = arena.toDevice(bias);
  }
  if (dRelu) { // random bits in the forward epilog's layout
    HostTensor mask;
    mask.layout = {ElementType::U8, {maskLd, n}, {1, maskLd}};
    mask.bytes.resize(maskLd * n);
    for (uint8_t &byte : mask.bytes)
      byte = static_cast<uint8_t>(rng());
    maskIn = mask.bytes;
    inputs.reluAux = arena.toDevice(mask);
  }
  if (dGelu) {
    geluIn = randomTensor(type, {n, geluLd}, rng); // column-major [geluLd, n] storage
    geluIn.layout = {type, {geluLd, n}, {1, geluLd}};
    inputs.geluAux = arena.toDevice(geluIn);
  }
  Run run = execute(dev, arena, epilog, a, b, s.transA, s.kMajorB, s.config, inputs, amax, type);
  config = run.config;

  // fp64 reference.
  std::vector<double> dRef(m * n), pre(m * n), dOut(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += aAt(i, kk) * bAt(kk, j);
      double x = acc + (hasBias ? bias.values[i] : 0.0);
      pre[i * n + j] = x;
      double y = x;
      if (name.rfind("RELU", 0) == 0)
        y = std::max(x, 0.0);
      else if (name.rfind("GELU", 0) == 0)
        y = geluRef(x);
      else if (dRelu)
        y = (maskIn[j * maskLd + i / 8] >> (i % 8)) & 1 ? x : 0.0;
      else if (dGelu)
        y = x * geluDerivativeRef(geluIn.values[j * geluLd + i]);
      dRef[i * n + j] = y;
      dOut[i * n + j] = readDevice(run.d, type, i * n + j);
    }
  std::string why = relativeError("d", dOut, dRef, tol, err);
  if (!why.empty())
    return why;

  if (run.aux.count("relu_aux")) {
    const std::vector<uint8_t> &mask = run.aux["relu_aux"];
    int64_t wrong = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < (m + 7) / 8 * 8; ++i) {
        bool bit = (mask[j * maskLd + i / 8] >> (i % 8)) & 1;
        if (i >= m) { // rows past M in the last byte are zero
          if (bit)
            return "relu_aux: bit of row " + std::to_string(i) + " >= M set";
          continue;
        }
        double x = pre[i * n + j];
        // Only a pre-activation within rounding of zero may go either way.
        if (bit != (x >= 0) && std::abs(x) > 1e-3)
          ++wrong;
      }
    if (wrong)
      return "relu_aux: " + std::to_string(wrong) + " bits differ from the reference";
  }
  if (run.aux.count("gelu_aux")) {
    std::vector<double> out(m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        out[i * n + j] = readDevice(run.aux["gelu_aux"], type, j * geluLd + i);
    why = relativeError("gelu_aux", out, pre, tol, err);
    if (!why.empty())
      return why;
  }
  for (const char *key : {"drelu_bgrad", "dgelu_bgrad"}) {
    if (!run.aux.count(key))
      continue;
    std::vector<double> out(m), ref(m, 0.0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j)
        ref[i] += dRef[i * n + j];
      out[i] = readDevice(run.aux[key], type, i);
    }
    why = relativeError(key, out, ref, tol, err);
    if (!why.empty())
      return why;
  }
  // The operand sums over K: of each row of op(A) (bgrada), of each column of op(B) (bgradb).
  for (bool ofA : {true, false}) {
    const char *key = ofA ? "bgrada" : "bgradb";
    bool wanted = name == (ofA ? "BGRADA" : "BGRADB");
    if (run.aux.count(key) != size_t(wanted))
      return std::string(key) + (wanted ? " missing from" : " unexpected in") + " the aux outputs";
    if (!wanted)
      continue;
    int64_t count = ofA ? m : n;
    std::vector<double> out(count), ref(count, 0.0);
    for (int64_t i = 0; i < count; ++i) {
      for (int64_t kk = 0; kk < k; ++kk)
        ref[i] += ofA ? aAt(i, kk) : bAt(kk, i);
      out[i] = readDevice(run.aux[key], type, i);
    }
    why = relativeError(key, out, ref, tol, err);
    if (!why.empty())
      return why;
  }
  if (amax) {
    if (!run.aux.count("result_amax"))
      return "result_amax missing from the aux outputs";
    double ref = 0;
    for (double y : dRef)
      ref = std::max(ref, std::abs(y));
    why = relativeError("result_amax", {readDevice(run.aux["result_amax"], ElementType::F32, 0)},
                        {ref}, tol, err);
    if (!why.empty())
      return why;
  }
  return "";
}

/// Forward RELU_AUX_BIAS (or GELU_AUX_BIAS), then the backward DRELU_BGRAD (DGELU_BGRAD) of the
/// next layer's gradient through it: D2 = (A2 @ B2) * act'(pre), bgrad = sum over columns,
/// against the same gradients written out by hand from the fp64 forward pass.
std::string runChain(const Device &dev, bool gelu, Shape s, int64_t k2, std::mt19937 &rng,
                     double &err) {
  const ElementType type = ElementType::BF16;
  DeviceArena arena(*dev.d);
  int64_t m = s.m, n = s.n, k = s.k;
  HostTensor w = randomTensor(type, {m, k}, rng), x = randomTensor(type, {k, n}, rng);
  HostTensor bias = randomTensor(type, {m}, rng);
  mepi::Matmul forward(arena.toDevice(w), arena.toDevice(x));
  mepi::EpilogInputs fin;
  fin.bias = arena.toDevice(bias);
  forward.plan(gelu ? mepi::Epilog::GeluAuxBias : mepi::Epilog::ReluAuxBias, fin);
  forward.execute();
  mepi::Tensor aux = forward.auxOutputs().at(gelu ? "gelu_aux" : "relu_aux");

  HostTensor w2 = randomTensor(type, {m, k2}, rng), g = randomTensor(type, {k2, n}, rng);
  mepi::Matmul backward(arena.toDevice(w2), arena.toDevice(g));
  mepi::EpilogInputs bin;
  (gelu ? bin.geluAux : bin.reluAux) = aux;
  backward.plan(gelu ? mepi::Epilog::DGeluBGrad : mepi::Epilog::DReluBGrad, bin);
  mepi::Tensor d2 = backward.execute();
  mepi::Tensor bgrad = backward.auxOutputs().at(gelu ? "dgelu_bgrad" : "drelu_bgrad");
  cu(dev.d->cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  std::vector<uint8_t> dBytes(m * n * 2), gBytes(m * 2);
  cu(dev.d->cuMemcpyDtoH(dBytes.data(), reinterpret_cast<CUdeviceptr>(d2.data), dBytes.size()),
     "DtoH");
  cu(dev.d->cuMemcpyDtoH(gBytes.data(), reinterpret_cast<CUdeviceptr>(bgrad.data),
                         gBytes.size()),
     "DtoH");

  std::vector<double> dRef(m * n), dOut(m * n), gRef(m, 0.0), gOut(m);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double t = bias.values[i], up = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        t += w.values[i * k + kk] * x.values[kk * n + j];
      for (int64_t kk = 0; kk < k2; ++kk)
        up += w2.values[i * k2 + kk] * g.values[kk * n + j];
      double grad = gelu ? up * geluDerivativeRef(t) : (t >= 0 ? up : 0.0);
      dRef[i * n + j] = grad;
      gRef[i] += grad;
      dOut[i * n + j] = readDevice(dBytes, type, i * n + j);
    }
    gOut[i] = readDevice(gBytes, type, i);
  }
  std::string why = relativeError("d", dOut, dRef, 1e-2, err);
  if (why.empty())
    why = relativeError("bgrad", gOut, gRef, 1e-2, err);
  return why;
}
} // namespace

/// RELU_AUX_BIAS with result_amax through the C API (options, built-in inputs, aux outputs)
/// gives the bytes the C++ API gives on the same inputs: D, the mask and the amax.
std::string runCApiCase(const Device &dev, std::mt19937 &rng) {
  const ElementType type = ElementType::BF16;
  const int64_t m = 257, n = 131, k = 96;
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(type, {m, k}, rng), b = randomTensor(type, {n, k}, rng);
  HostTensor bias = randomTensor(type, {m}, rng);
  mepi::EpilogInputs inputs;
  inputs.bias = arena.toDevice(bias);
  Run cpp = execute(dev, arena, mepi::Epilog::ReluAuxBias, a, b, false, true, "", inputs, true, type);

  mepi::Tensor aT = arena.toDevice(a), bT = arena.toDevice(b);
  auto cTensor = [](const mepi::Tensor &t) {
    return MepiTensor{t.data, 0, MEPI_DTYPE_BF16, static_cast<int>(t.shape.size()),
                      t.shape.data(), t.strides.empty() ? nullptr : t.strides.data()};
  };
  MepiTensor ca = cTensor(aT), cb = cTensor(bT), cbias = cTensor(*inputs.bias);
  MepiMatmulOptions options = {true, {nullptr, 0}};
  MepiError error;
  auto failure = [&](const char *what) {
    MepiStringRef message = mepiErrorGetMessage(error);
    std::string why = std::string(what) + ": " + std::string(message.data, message.length);
    mepiErrorDestroy(error);
    return why;
  };
  MepiMatmul mm = mepiMatmulCreateWithOptions(&ca, &cb, nullptr, 1.0f, nullptr, false, true,
                                              &options, &error);
  if (mepiMatmulIsNull(mm))
    return failure("create");
  MepiEpilogInputs cInputs = {&cbias, nullptr, nullptr};
  MepiTensor d;
  std::string why;
  if (mepiLogicalResultIsFailure(
          mepiMatmulPlanWithInputs(mm, MEPI_EPILOG_RELU_AUX_BIAS, &cInputs, &error)))
    why = failure("plan");
  else if (mepiLogicalResultIsFailure(mepiMatmulExecute(mm, nullptr, &d, &error)))
    why = failure("execute");
  std::vector<uint8_t> bytes;
  auto fetch = [&](const void *ptr, size_t size) {
    bytes.resize(size);
    cu(dev.d->cuCtxSynchronize(), "synchronize");
    cu(dev.d->cuMemcpyDtoH(bytes.data(), reinterpret_cast<CUdeviceptr>(ptr), size), "DtoH");
    return bytes;
  };
  if (why.empty() && fetch(d.data, cpp.d.size()) != cpp.d)
    why = "D differs from the C++ API's";
  int count = mepiMatmulGetNumAuxOutputs(mm);
  if (why.empty() && count != static_cast<int>(cpp.aux.size()))
    why = "expected " + std::to_string(cpp.aux.size()) + " aux outputs, got " +
          std::to_string(count);
  for (int i = 0; why.empty() && i < count; ++i) {
    MepiStringRef key;
    MepiTensor t;
    if (mepiLogicalResultIsFailure(mepiMatmulGetAuxOutput(mm, i, &key, &t, &error))) {
      why = failure("aux output");
      break;
    }
    std::string name(key.data, key.length);
    const std::vector<uint8_t> &expected = cpp.aux[name];
    std::vector<uint8_t> got = fetch(t.data, expected.size());
    // Mask bits past M are padding (and the C++ run poisoned them): compare rows < M only.
    std::vector<uint8_t> want = expected;
    if (name == "relu_aux") {
      std::vector<uint8_t> gotBits, wantBits;
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
          int64_t byte = j * maskBytesPerColumn(m) + i / 8;
          gotBits.push_back((got[byte] >> (i % 8)) & 1);
          wantBits.push_back((want[byte] >> (i % 8)) & 1);
        }
      got = std::move(gotBits);
      want = std::move(wantBits);
    }
    if (got != want)
      why = "aux output '" + name + "' differs from the C++ API's";
  }
  mepiMatmulDestroy(mm);
  return why;
}

namespace {
/// Whether the catalog leaves epilog `name` (with result_amax where `amax`) out on shape `s`:
/// where the main matrix covers it, or the kernel form takes no operand sums or reductions.
bool skipped(const std::string &name, const Shape &s, bool amax) {
  if ((name == "BIAS" || name == "GELU_BIAS") && !amax)
    return true; // covered by the main matrix; here for result_amax
  bool pingpong = s.config.find("pingpong") != std::string::npos;
  bool tall = s.config.find("tile = [256") != std::string::npos;
  if ((pingpong || tall) && (name == "BGRADA" || name == "BGRADB"))
    return true; // operand sums: the cooperative kernel of 64 or 128 rows only
  bool swapped = s.config.find("swapped") != std::string::npos;
  if (swapped && (amax || name.find("BGRAD") != std::string::npos))
    return true; // the swapped form takes no operand sums or reductions
  bool writesMore = amax || name.find("_AUX") != std::string::npos ||
                    name.find("_BGRAD") != std::string::npos;
  // TMA stores serve epilogs that write D only.
  return s.config.find("store = tma") != std::string::npos && writesMore;
}

/// A catalog case's line: its epilog, shape, operand orientations and kernel form.
std::string catalogLine(const std::string &name, const Shape &s, bool amax) {
  bool pingpong = s.config.find("pingpong") != std::string::npos;
  bool tall = s.config.find("tile = [256") != std::string::npos;
  bool swapped = s.config.find("swapped") != std::string::npos;
  char line[256];
  std::snprintf(line, sizeof line, "catalog %s%s bf16 %lldx%lldx%lld %s %s%s", name.c_str(),
                amax ? "+amax" : "", (long long)s.m, (long long)s.n, (long long)s.k,
                s.transA ? "A[k,m]" : "A[m,k]", s.kMajorB ? "B[n,k]" : "B[k,n]",
                s.config.empty()                                      ? ""
                : pingpong                                            ? " pingpong"
                : tall                                                ? " tall"
                : swapped                                             ? " swapped"
                : s.config.find("store = tma") != std::string::npos   ? " cluster tma"
                : s.config.find("cluster") != std::string::npos       ? " cluster"
                                                                      : " simt");
  return line;
}

/// The C API's catalog case and the forward-backward chains, each where `selected`.
void runCApiAndChains(const Device &dev, std::mt19937 &rng,
                      const std::function<bool(const std::string &)> &selected, int &passed,
                      int &failed) {
  if (std::string line = "catalog C API RELU_AUX_BIAS+amax bf16 257x131x96 B[n,k]";
      selected(line)) {
    std::string why;
    try {
      why = runCApiCase(dev, rng);
    } catch (const mepi::Error &e) {
      why = std::string("error: ") + e.what();
    }
    (why.empty() ? passed : failed)++;
    std::printf("%s %s%s%s\n", why.empty() ? "PASS" : "FAIL", line.c_str(),
                why.empty() ? "" : "  ", why.c_str());
  }
  for (bool gelu : {false, true}) {
    std::string line = std::string("catalog chain ") +
                       (gelu ? "GELU_AUX_BIAS -> DGELU_BGRAD" : "RELU_AUX_BIAS -> DRELU_BGRAD") +
                       " bf16 m=300 n=77 k=65 k2=129";
    if (!selected(line))
      continue;
    double err = 0;
    std::string why;
    try {
      why = runChain(dev, gelu, {300, 77, 65, false}, 129, rng, err);
    } catch (const mepi::Error &e) {
      why = std::string("error: ") + e.what();
    }
    bool ok = why.empty();
    (ok ? passed : failed)++;
    std::printf("%s %s relerr=%.2e%s%s\n", ok ? "PASS" : "FAIL", line.c_str(), err,
                ok ? "" : "  ", why.c_str());
  }
}

/// The catalog's shapes (more without `quick`): odd shapes on the wgmma family and the simt
/// family forced, split-K, ping-pong, 256-row tiles, clusters, the swapped form, TMA stores.
std::vector<Shape> catalogShapes(bool quick) {
  // Odd shapes on the wgmma family, every orientation of A and B (rows of 99, 300 and 30
  // elements are no multiple of 16 bytes: staged), and the simt family forced. K = 512 takes
  // TMA in place, and 200 x 260 x 4096 splits K (the reductions then run after the split-K
  // sum, and the operand sums are summed with the accumulators' partials).
  const std::string simt = "#mepi.kernel_config<simt, tile = [16, 32, 1]>";
  std::vector<Shape> shapes = {{100, 30, 64, false, false, simt},
                               {257, 131, 99, true},
                               {300, 200, 128, false, true}};
  if (!quick) {
    shapes.push_back({1000, 520, 300, true});
    shapes.push_back({777, 1000, 512, true});
    shapes.push_back({200, 260, 4096, true});
    shapes.push_back({256, 264, 520, true, true});
    shapes.push_back({64, 300, 1000, false, false});
    shapes.push_back({128, 136, 4096, false, true}); // split-K, A and B both MN-major
    // Split-K summed up a tree (13 splits of 128-row tiles, SplitTreeSum.cpp): the operand
    // sums ride up it in the records, the reductions and aux outputs run after the root's sum.
    shapes.push_back({300, 260, 20000, true, false,
                      "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = "
                      "6>, scheduler = <split_k, splits = 13>>"});
    // Ping-pong (each consumer both 64-row slices of a tile: the reductions' contributors are
    // the slices, whichever warpgroup computes them); it takes no operand sums (BGRADA/B).
    shapes.push_back({1000, 520, 300, true, false,
                      "#mepi.kernel_config<wgmma, tile = [128, 128, 64], "
                      "mainloop = <stages = 6, pingpong = true>>"});
    // 256-row tiles: two consumers, two slices each (no operand sums: BGRADA/B skipped).
    shapes.push_back(
        {700, 300, 256, true, false,
         "#mepi.kernel_config<wgmma, tile = [256, 128, 64], mainloop = <stages = 4>>"});
    // A cluster of 2 (B multicast): 5 tile rows, so the last pair's second tile lies below D
    // and neither stores nor counts itself into the reductions.
    shapes.push_back({520, 300, 256, true, false,
                      "#mepi.kernel_config<wgmma, tile = [128, 128, 64], "
                      "mainloop = <stages = 6, cluster = 2>>"});
    // The swapped form for short M (K-major A and B): element-wise epilogs, bitmask aux
    // outputs included (no operand sums or reductions: the BGRAD epilogs and amax skip it).
    // 13 rows leave a partial mask byte.
    shapes.push_back({13, 300, 520, true, false,
                      "#mepi.kernel_config<wgmma, tile = [16, 64, 64], "
                      "mainloop = <stages = 16>, swapped = true>"});
    shapes.push_back({29, 200, 256, true, false,
                      "#mepi.kernel_config<wgmma, tile = [32, 128, 64], "
                      "mainloop = <stages = 8>, swapped = true>"});
    // TMA stores of D in clusters of 2 (the heuristic's kernel for D-only epilogs at K > 4096
    // and for 65536 x 16384), with operand sums: the epilogs that write D only, without amax.
    shapes.push_back({520, 264, 256, true, false,
                      "#mepi.kernel_config<wgmma, tile = [128, 256, 64], "
                      "mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>"});
    // The heuristic's kernels for many tiles at K <= 4096 (289 tiles of 128 x 128): DGELU's
    // staged ping-pong 128 x 128 s4 (stagedPingpongForm), the other epilogs' wide tiles.
    shapes.push_back({2176, 2112, 320, true});
  }
  return shapes;
}
} // namespace

int runEpilogCatalog(const Device &dev, std::mt19937 &rng, bool quick,
                     const std::function<bool(const std::string &)> &selected, int &passed,
                     int &failed) {
  struct Entry {
    const char *name;
    mepi::Epilog epilog;
  };
  const Entry entries[] = {
      {"RELU_AUX", mepi::Epilog::ReluAux},         {"RELU_AUX_BIAS", mepi::Epilog::ReluAuxBias},
      {"GELU_AUX", mepi::Epilog::GeluAux},         {"GELU_AUX_BIAS", mepi::Epilog::GeluAuxBias},
      {"DRELU", mepi::Epilog::DRelu},              {"DRELU_BGRAD", mepi::Epilog::DReluBGrad},
      {"DGELU", mepi::Epilog::DGelu},              {"DGELU_BGRAD", mepi::Epilog::DGeluBGrad},
      {"BIAS", mepi::Epilog::Bias},                {"GELU_BIAS", mepi::Epilog::GeluBias},
      {"BGRADA", mepi::Epilog::BGradA},            {"BGRADB", mepi::Epilog::BGradB}};
  std::vector<Shape> shapes = catalogShapes(quick);
  for (const Entry &entry : entries)
    for (Shape s : shapes)
      for (bool amax : {false, true}) {
        std::string name = entry.name;
        if (skipped(name, s, amax))
          continue;
        std::string line = catalogLine(name, s, amax);
        if (!selected(line))
          continue;
        double err = 0;
        std::string config, why;
        try {
          why = runCase(dev, name, entry.epilog, s, amax, rng, err, config);
        } catch (const mepi::Error &e) {
          why = std::string("error: ") + e.what();
        }
        bool ok = why.empty();
        (ok ? passed : failed)++;
        std::printf("%s %s %s relerr=%.2e%s%s\n", ok ? "PASS" : "FAIL", line.c_str(),
                    config.c_str(), err, ok ? "" : "  ", why.c_str());
        std::fflush(stdout);
      }
  runCApiAndChains(dev, rng, selected, passed, failed);
  return failed;
}

} // namespace gputest
