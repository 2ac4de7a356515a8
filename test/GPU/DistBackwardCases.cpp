// The distributed matmul's backward epilogs on several GPUs against an fp64 reference:
// DRELU and DGELU (reading this rank's aux matrix, made on the host in the forward epilog's
// layout from a global matrix Z), and the bias gradients of the global product (DRELU_BGRAD,
// DGELU_BGRAD: sums of D's rows; BGRADA: of op(A)'s rows; BGRADB: of op(B)'s columns), under
// every algorithm. Part of mepi-dist-tests (DistCorrectness.cpp runs them).
#include "DistBackwardCases.h"

#include <cinttypes>
#include <cmath>
#include <cstring>

using namespace disttest;
using gputest::fromBF16;
using mepi::dist::Slab;
using E = mepi::Epilog;

namespace {
struct BackwardCase {
  const char *name;
  Distribution a, b, d;
  bool ta, tb;
  int64_t m, n, k;
  E epilog;
  int pieces = 0;
  float alpha = 1.0f;
};

double geluDerivative(double z) {
  constexpr double c = 0.7978845608028654, a = 0.044715;
  double t = std::tanh(c * (z + a * z * z * z));
  return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * c * (1 + 3 * a * z * z);
}

bool readsMask(E e) { return e == E::DRelu || e == E::DReluBGrad; }
bool readsGelu(E e) { return e == E::DGelu || e == E::DGeluBGrad; }

const char *gradientKey(E e) {
  switch (e) {
  case E::DReluBGrad: return "drelu_bgrad";
  case E::DGeluBGrad: return "dgelu_bgrad";
  case E::BGradA: return "bgrada";
  case E::BGradB: return "bgradb";
  default: return nullptr;
  }
}

/// The global problem and its fp64 reference: D (every element of the global D) and the
/// operands, as every rank makes them.
struct Global {
  const BackwardCase &c;
  std::vector<uint16_t> A, B, Z; // Z: the forward epilog's input, [m, n]
  std::vector<double> D;
  double a(int64_t i, int64_t kk) const { return fromBF16(c.ta ? A[kk * c.m + i] : A[i * c.k + kk]); }
  double b(int64_t kk, int64_t j) const { return fromBF16(c.tb ? B[j * c.k + kk] : B[kk * c.n + j]); }

  explicit Global(const BackwardCase &bc) : c(bc) {
    A = c.ta ? randomMatrix(c.k, c.m, 1) : randomMatrix(c.m, c.k, 1);
    B = c.tb ? randomMatrix(c.n, c.k, 2) : randomMatrix(c.k, c.n, 2);
    Z = randomMatrix(c.m, c.n, 4);
    D.assign(c.m * c.n, 0.0);
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double acc = 0;
        for (int64_t kk = 0; kk < c.k; ++kk)
          acc += a(i, kk) * b(kk, j);
        double x = c.alpha * acc, z = fromBF16(Z[i * c.n + j]);
        D[i * c.n + j] = readsMask(c.epilog) ? (z >= 0 ? x : 0.0)
                         : readsGelu(c.epilog) ? x * geluDerivative(z)
                                               : x;
      }
  }
};

/// This rank's aux input in the forward epilog's layout (column-major, rows padded), from Z.
std::vector<uint8_t> maskOf(const Global &g, int64_t rows, int64_t cols, int64_t height,
                            const std::function<int64_t(int64_t)> &row,
                            const std::function<int64_t(int64_t)> &col) {
  std::vector<uint8_t> mask(height * cols, 0);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      if (fromBF16(g.Z[row(i) * g.c.n + col(j)]) >= 0)
        mask[j * height + i / 8] |= uint8_t(1u << (i % 8));
  return mask;
}

std::vector<uint16_t> geluInputOf(const Global &g, int64_t rows, int64_t cols, int64_t height,
                                  const std::function<int64_t(int64_t)> &row,
                                  const std::function<int64_t(int64_t)> &col) {
  std::vector<uint16_t> z(height * cols, 0);
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      z[j * height + i] = g.Z[row(i) * g.c.n + col(j)];
  return z;
}

/// ||out - ref|| / ||ref||, and the worst element, of this rank's bias gradient.
std::string checkGradient(const Global &g, const mepi::dist::Matmul &mm, int64_t count,
                          const std::function<int64_t(int64_t)> &index, double &rel) {
  const char *key = gradientKey(g.c.epilog);
  const auto &outs = mm.auxOutputs();
  if (!key)
    return outs.empty() ? "" : "aux outputs for an epilog without them";
  auto it = outs.find(key);
  if (outs.size() != 1 || it == outs.end())
    return std::string("expected one aux output, ") + key;
  if (it->second.shape != std::vector<int64_t>{count})
    return std::string(key) + " of an unexpected shape";
  std::vector<uint16_t> host(count);
  cu(driver->cuMemcpyDtoH(host.data(), reinterpret_cast<CUdeviceptr>(it->second.data),
                          count * 2),
     "cuMemcpyDtoH(bias gradient)");
  const BackwardCase &c = g.c;
  double num = 0, den = 0;
  for (int64_t l = 0; l < count; ++l) {
    int64_t x = index(l); // a global row of D (of op(A)), or a column of op(B)
    double ref = 0;
    if (c.epilog == E::BGradA)
      for (int64_t kk = 0; kk < c.k; ++kk)
        ref += g.a(x, kk);
    else if (c.epilog == E::BGradB)
      for (int64_t kk = 0; kk < c.k; ++kk)
        ref += g.b(kk, x);
    else
      for (int64_t j = 0; j < c.n; ++j)
        ref += g.D[x * c.n + j];
    double v = fromBF16(host[l]);
    num += (v - ref) * (v - ref);
    den += ref * ref;
  }
  rel = std::sqrt(num / std::max(den, 1e-30));
  return rel <= 1e-2 ? "" : std::string(key) + " differs";
}

bool runBackwardCase(const BackwardCase &c, int rank, int ranks, int device, CUstream stream) {
  Global g(c);
  auto aStored = c.ta ? std::vector<int64_t>{c.k, c.m} : std::vector<int64_t>{c.m, c.k};
  auto bStored = c.tb ? std::vector<int64_t>{c.n, c.k} : std::vector<int64_t>{c.k, c.n};
  std::vector<int64_t> aShape, bShape;
  CUdeviceptr da = upload(localPart(g.A, aStored[0], aStored[1], c.a, rank, ranks, aShape));
  CUdeviceptr db = upload(localPart(g.B, bStored[0], bStored[1], c.b, rank, ranks, bShape));
  std::vector<int64_t> dShape = c.d.shape(rank, ranks, {c.m, c.n});
  auto dRow = [&](int64_t i) { return globalIndex(c.d, 0, rank, ranks, {c.m, c.n}, i); };
  auto dCol = [&](int64_t j) { return globalIndex(c.d, 1, rank, ranks, {c.m, c.n}, j); };
  int64_t rows = dShape[0], cols = dShape[1];
  int64_t maskHeight = ((rows + 7) / 8 + 15) / 16 * 16, geluHeight = (rows + 7) / 8 * 8;
  CUdeviceptr aux = 0;
  mepi::EpilogInputs inputs;
  if (readsMask(c.epilog)) {
    aux = upload(maskOf(g, rows, cols, maskHeight, dRow, dCol));
    mepi::Tensor t = tensor(aux, device, {maskHeight, cols});
    t.dtype = mepi::DType::UInt8;
    t.strides = {1, maskHeight};
    inputs.reluAux = t;
  } else if (readsGelu(c.epilog)) {
    aux = upload(geluInputOf(g, rows, cols, geluHeight, dRow, dCol));
    mepi::Tensor t = tensor(aux, device, {geluHeight, cols});
    t.strides = {1, geluHeight};
    inputs.geluAux = t;
  }
  bool ok = true;
  try {
    mepi::dist::Options options;
    options.pieces = c.pieces;
    mepi::dist::Matmul mm(tensor(da, device, aShape), tensor(db, device, bShape), std::nullopt,
                          {c.a, c.b, c.d}, c.alpha, std::nullopt, {c.ta, c.tb}, options);
    mm.plan(c.epilog, inputs);
    mepi::Tensor d;
    for (int i = 0; i < 3; ++i) // the gradient's all-reduce adds what each execute wrote anew
      d = mm.execute(stream);
    cu(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::vector<uint16_t> got(rows * cols);
    cu(driver->cuMemcpyDtoH(got.data(), reinterpret_cast<CUdeviceptr>(d.data), got.size() * 2),
       "cuMemcpyDtoH");
    double num = 0, den = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double ref = g.D[dRow(i) * c.n + dCol(j)], v = fromBF16(got[i * cols + j]);
        num += (v - ref) * (v - ref);
        den += ref * ref;
      }
    double rel = std::sqrt(num / std::max(den, 1e-30)), gradRel = 0;
    bool ofB = c.epilog == E::BGradB;
    std::string why = rel <= 1e-2 ? "" : "D differs";
    if (why.empty())
      why = checkGradient(g, mm, ofB ? cols : rows,
                          [&](int64_t l) { return ofB ? dCol(l) : dRow(l); }, gradRel);
    ok = why.empty();
    std::printf("%s rank %d: %s %s, D part [%" PRId64 ", %" PRId64 "], relative error %.3g, "
                "gradient %.3g%s%s\n",
                ok ? "PASS" : "FAIL", rank, c.name, mepi::dist::algorithmName(mm.algorithm()),
                rows, cols, rel, gradRel, why.empty() ? "" : ": ", why.c_str());
  } catch (const std::exception &e) {
    std::printf("FAIL rank %d: %s: %s\n", rank, c.name, e.what());
    ok = false;
  }
  for (CUdeviceptr p : {da, db, aux})
    if (p)
      driver->cuMemFree(p);
  return ok;
}

std::vector<BackwardCase> backwardCases(int ranks) {
  Distribution rep = Distribution::replicated();
  auto bc = [](int r, int c, int64_t br, int64_t bcols) {
    return Distribution::blockCyclic({r, c}, br, bcols);
  };
  int P = ranks;
  // Remainders over 2 and 3 ranks; 1001 rows put a rank's rows inside a byte of the mask.
  std::vector<BackwardCase> cases = {
      {"allgather-a-drelu", Slab::X, Slab::X, Slab::Y, false, true, 1001, 704, 320, E::DRelu, 0, 0.5f},
      {"allgather-a-dgelu-bgrad-pieces", Slab::X, Slab::X, Slab::Y, false, true, 1024, 512, 256, E::DGeluBGrad, 2},
      {"allgather-a-bgradb", Slab::X, Slab::X, Slab::Y, false, true, 1001, 704, 320, E::BGradB},
      {"allgather-b-drelu-bgrad", Slab::X, Slab::X, Slab::X, false, true, 999, 640, 256, E::DReluBGrad},
      {"allgather-b-bgrada", Slab::X, Slab::Y, Slab::X, false, false, 600, 500, 128, E::BGradA},
      {"reduce-scatter-rows-dgelu", Slab::Y, Slab::Y, Slab::X, false, true, 1003, 512, 640, E::DGelu, 2},
      {"reduce-scatter-rows-drelu-bgrad", Slab::Y, Slab::Y, Slab::X, false, true, 2003, 512, 640, E::DReluBGrad, 2},
      {"reduce-scatter-rows-bgradb", Slab::X, Slab::X, Slab::X, true, false, 800, 320, 384, E::BGradB, 2},
      {"reduce-scatter-cols-dgelu-bgrad", Slab::Y, Slab::Y, Slab::Y, false, true, 700, 520, 512, E::DGeluBGrad, 2},
      {"reduce-scatter-cols-bgrada", Slab::Y, Slab::X, Slab::Y, false, false, 640, 300, 256, E::BGradA},
      {"reduce-scatter-cols-bgradb", Slab::Y, Slab::Y, Slab::Y, false, true, 700, 520, 512, E::BGradB, 2},
      {"all-reduce-drelu-bgrad", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::DReluBGrad, 2},
      {"all-reduce-dgelu-tt", Slab::X, Slab::Y, rep, true, true, 513, 256, 320, E::DGelu},
      {"all-reduce-bgrada", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::BGradA, 2},
      {"all-reduce-bgradb", Slab::X, Slab::Y, rep, true, true, 513, 256, 320, E::BGradB},
      {"summa-Px1-drelu-bgrad-pieces", bc(P, 1, 128, 96), bc(P, 1, 64, 96), bc(P, 1, 128, 64), false, true, 2600, 256, 384, E::DReluBGrad, 3},
      {"summa-1xP-dgelu", bc(1, P, 128, 96), bc(1, P, 96, 64), bc(1, P, 128, 64), false, false, 1000, 700, 900, E::DGelu},
      {"summa-1xP-bgrada", bc(1, P, 128, 96), bc(1, P, 96, 64), bc(1, P, 128, 64), false, false, 1000, 700, 900, E::BGradA},
      {"summa-1xP-tn-bgradb", bc(1, P, 96, 128), bc(1, P, 96, 64), bc(1, P, 128, 64), true, false, 1000, 700, 900, E::BGradB},
  };
  if (P == 4) { // a 2 x 2 grid
    cases.push_back({"summa-2x2-dgelu", bc(2, 2, 128, 96), bc(2, 2, 96, 64), bc(2, 2, 128, 64), false, false, 1000, 700, 900, E::DGelu});
    cases.push_back({"summa-2x2-bgrada", bc(2, 2, 128, 96), bc(2, 2, 96, 64), bc(2, 2, 128, 64), false, false, 1000, 700, 900, E::BGradA});
    cases.push_back({"summa-2x2-bgradb", bc(2, 2, 128, 96), bc(2, 2, 96, 64), bc(2, 2, 128, 64), false, false, 1000, 700, 900, E::BGradB});
  }
  return cases;
}
} // namespace

/// A ReLU mask of the layout this rank's D of `local` rows and columns reads, at `p`.
mepi::EpilogInputs reluAuxOf(CUdeviceptr p, int device, const std::vector<int64_t> &local) {
  int64_t height = ((local[0] + 7) / 8 + 15) / 16 * 16;
  mepi::Tensor t = tensor(p, device, {height, local[1]});
  t.dtype = mepi::DType::UInt8;
  t.strides = {1, height};
  mepi::EpilogInputs in;
  in.reluAux = t;
  return in;
}

/// Refusals before anything runs, alike on every rank: no aux input, one of another layout,
/// and D's row sums on a Summa grid of several columns. Returns whether each error named it.
bool backwardErrors(int rank, int ranks, int device) {
  CUdeviceptr p = upload(std::vector<uint16_t>(1024 * 1024));
  bool ok = true;
  // The refusing rank names the problem, its peers say that it refused; some rank must name
  // it (every rank reaches the count, thrown or not).
  auto expect = [&](const char *what, const std::function<void()> &f, const char *needle) {
    std::string text;
    bool threw = false;
    try {
      f();
    } catch (const mepi::Error &e) {
      threw = true;
      text = e.what();
    }
    int named = text.find(needle) != std::string::npos, anyNamed = 0;
    MPI_Allreduce(&named, &anyNamed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    bool found = threw && anyNamed &&
                 (named || text.find("refused the problem") != std::string::npos);
    std::printf("%s rank %d: %s: %s\n", found ? "PASS" : "FAIL", rank, what,
                threw ? text.c_str() : "no error");
    ok &= found;
  };
  std::vector<int64_t> shape = Slab::X.shape(rank, ranks, {512, 256});
  mepi::dist::Matmul mm(tensor(p, device, shape), tensor(p, device, {256, 256}), std::nullopt,
                        {Slab::X, Slab::Y, Slab::X});
  expect("DRELU without relu_aux", [&] { mm.plan(E::DRelu); }, "input relu_aux: epilog DRELU");
  mepi::EpilogInputs wrong;
  wrong.geluAux = tensor(p, device, {shape[0], 256}); // row-major, unpadded
  expect("DGELU with a row-major gelu_aux", [&] { mm.plan(E::DGelu, wrong); },
         "input gelu_aux: expected this rank's");
  auto bc = Distribution::blockCyclic({1, ranks}, 128, 64);
  std::vector<int64_t> local = bc.shape(rank, ranks, {512, 512});
  mepi::dist::Matmul summa(tensor(p, device, local), tensor(p, device, local), std::nullopt,
                           {bc, bc, bc});
  expect("D's row sums on a grid of several columns", [&] { summa.plan(E::DReluBGrad, reluAuxOf(p, device, local)); },
         "columns");
  driver->cuMemFree(p);
  return ok;
}

void disttest::runBackwardCases(int rank, int ranks, int device, CUstream stream, int &passed,
                                int &failed) {
  std::vector<bool> results;
  for (const BackwardCase &c : backwardCases(ranks))
    results.push_back(runBackwardCase(c, rank, ranks, device, stream));
  if (ranks == 2)
    results.push_back(backwardErrors(rank, ranks, device));
  for (bool ok : results) {
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    all ? ++passed : ++failed;
  }
}
