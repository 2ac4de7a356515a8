// The distributed matmul on several GPUs against an fp64 reference, run with
// `mpirun -np 2 mepi-dist-tests` (one GPU per rank). Every rank makes the same global bf16
// operands from one seed, passes its part under the case's distributions, and checks its part
// of D against the fp64 product (epilog applied) of the global operands. Every algorithm, both
// slab axes, block-cyclic (SUMMA) on 1 x P and P x 1 grids, every transpose, uneven
// remainders, an epilog per algorithm; then errors for bad distributions, refusals on one
// rank and differences between ranks before anything is launched, and finalize() with a plan
// alive. Prints "N passed, M failed" (rank 0, all ranks).
#include "DistBackwardCases.h"
#include "DistUserOutputCases.h"

#include "mepi/DistributedMPI.h"

#include <cinttypes>
#include <cstring>

using namespace gputest;
using mepi::dist::Distribution;
using mepi::dist::Slab;

using namespace disttest;

namespace {

struct Case {
  const char *name;
  Distribution a, b, d;
  bool ta, tb;
  int64_t m, n, k;
  mepi::Epilog epilog;
  int pieces = 0;
  float alpha = 1.0f;
  bool remote = false; // partial sums stored by the GEMMs into the next rank's buffer
  bool user = false;   // kUserEpilog (with the bias as its row input) instead of `epilog`
  int mirrored = -1;   // all-reduce: pieces stored into the peers' D by their GEMMs
  int bands = 0;       // all-reduce: rings over this many bands of D's rows in turn
};

/// A user epilog that reads a row input and both indices, which index this rank's D
/// (kIndexTermMlir).
const std::string kUserEpilog = kIndexTermMlir + R"(
func.func @tp_epilog(%acc: f32, %bias: bf16, %row: index, %col: index) -> bf16 {
  %b = arith.extf %bias : bf16 to f32
  %s = arith.addf %acc, %b : f32
  %t = math.tanh %s : f32
  %o = func.call @index_term(%row, %col) : (index, index) -> f32
  %y = arith.addf %t, %o : f32
  %r = arith.truncf %y : f32 to bf16
  return %r : bf16
}
)";

double userEpilogReference(double x, double bias, int64_t row, int64_t col) {
  return std::tanh(x + bias) + indexTerm(row, col);
}

bool hasBias(mepi::Epilog e) {
  return e == mepi::Epilog::Bias || e == mepi::Epilog::ReluBias || e == mepi::Epilog::GeluBias ||
         e == mepi::Epilog::ReluAuxBias || e == mepi::Epilog::GeluAuxBias;
}

/// The epilog of `x` (alpha * the product), the bias added first where it reads one.
double applyEpilog(mepi::Epilog e, double x, double bias) {
  using E = mepi::Epilog;
  double y = hasBias(e) ? x + bias : x;
  switch (e) {
  case E::Bias: return y;
  case E::Relu: case E::ReluBias: case E::ReluAux: case E::ReluAuxBias: return std::max(y, 0.0);
  case E::Gelu: case E::GeluBias: case E::GeluAux: case E::GeluAuxBias:
    return 0.5 * y * (1 + std::tanh(0.7978845608028654 * (y + 0.044715 * y * y * y)));
  case mepi::Epilog::Silu: return x / (1 + std::exp(-x));
  default: return x;
  }
}

/// The tolerance of an element whose exact value is `ref` on `ranks` ranks: bf16 D, and in the
/// reductions a bf16 partial sum rounded at each of ranks - 1 steps, each of the partials'
/// size (~sqrt(k) / 2 of random operands) whatever the sum's: 2^-8 of each (a near-zero sum
/// of 512 over 4 ranks measured 0.096 off: three rounded partials of ~16).
double tolerance(const Case &c, double ref, int ranks) {
  double partial = std::fabs(c.alpha) * std::sqrt(double(c.k)) / 2;
  return std::ldexp(1.0, -8) * (2 * std::fabs(ref) + std::max(ranks, 2) * partial);
}

/// This rank's aux output against `pre`, the epilog's input (row-major [rows, cols]): the
/// ReLU mask's bits where rounding cannot flip the sign, the GELU input within tolerance.
/// Returns a reason, or "" when it matches.
std::string checkAux(const Case &c, const mepi::dist::Matmul &mm, const std::vector<double> &pre,
                     int64_t rows, int64_t cols, int ranks) {
  using E = mepi::Epilog;
  bool relu = c.epilog == E::ReluAux || c.epilog == E::ReluAuxBias;
  bool gelu = c.epilog == E::GeluAux || c.epilog == E::GeluAuxBias;
  const auto &outs = mm.auxOutputs();
  if (!relu && !gelu)
    return outs.empty() ? "" : "aux outputs for an epilog without them";
  auto it = outs.find(relu ? "relu_aux" : "gelu_aux");
  if (outs.size() != 1 || it == outs.end())
    return "expected one aux output, " + std::string(relu ? "relu_aux" : "gelu_aux");
  const mepi::Tensor &t = it->second;
  int64_t height = t.shape[0];
  if (t.shape[1] != cols || t.strides != std::vector<int64_t>{1, height} ||
      height < (relu ? (rows + 7) / 8 : rows))
    return "aux output of an unexpected layout";
  std::vector<uint8_t> host(height * cols * (relu ? 1 : 2));
  cu(driver->cuMemcpyDtoH(host.data(), reinterpret_cast<CUdeviceptr>(t.data), host.size()),
     "cuMemcpyDtoH(aux)");
  int64_t bad = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      double x = pre[i * cols + j];
      if (relu) {
        bool bit = (host[j * height + i / 8] >> (i % 8)) & 1;
        bad += std::fabs(x) > tolerance(c, x, ranks) && bit != (x >= 0);
      } else {
        uint16_t v;
        std::memcpy(&v, &host[2 * (j * height + i)], 2);
        bad += !(std::fabs(fromBF16(v) - x) <= tolerance(c, x, ranks));
      }
    }
  return bad ? std::to_string(bad) + " aux elements differ" : "";
}

/// Runs one case; returns true when every element of this rank's D is within tolerance.
bool runCase(const Case &c, int rank, int ranks, int device, CUstream stream) {
  auto aStored = c.ta ? std::vector<int64_t>{c.k, c.m} : std::vector<int64_t>{c.m, c.k};
  auto bStored = c.tb ? std::vector<int64_t>{c.n, c.k} : std::vector<int64_t>{c.k, c.n};
  auto A = randomMatrix(aStored[0], aStored[1], 1), B = randomMatrix(bStored[0], bStored[1], 2);
  auto biasAll = randomMatrix(1, c.m, 3);
  std::vector<int64_t> aShape, bShape;
  auto aLocal = localPart(A, aStored[0], aStored[1], c.a, rank, ranks, aShape);
  auto bLocal = localPart(B, bStored[0], bStored[1], c.b, rank, ranks, bShape);
  CUdeviceptr da = upload(aLocal), db = upload(bLocal);
  // D's part on this rank (a bias follows its rows).
  std::vector<int64_t> dShape = c.d.shape(rank, ranks, {c.m, c.n});
  auto dRow = [&](int64_t i) { return globalIndex(c.d, 0, rank, ranks, {c.m, c.n}, i); };
  auto dCol = [&](int64_t j) { return globalIndex(c.d, 1, rank, ranks, {c.m, c.n}, j); };
  CUdeviceptr dbias = uploadRowValues(biasAll, dShape[0], dRow);
  bool ok = true;
  try {
    mepi::dist::Options options = caseOptions(c.pieces, c.remote, c.mirrored);
    options.bands = c.bands;
    mepi::dist::Matmul mm(tensor(da, device, aShape), tensor(db, device, bShape), std::nullopt,
                          {c.a, c.b, c.d}, c.alpha, std::nullopt, {c.ta, c.tb}, options);
    mepi::EpilogInputs inputs;
    if (hasBias(c.epilog))
      inputs.bias = tensor(dbias, device, {dShape[0]});
    if (c.user)
      mm.plan(mepi::UserEpilog{kUserEpilog, "tp_epilog"},
              {{tensor(dbias, device, {dShape[0]}), mepi::InputKind::Row}});
    else
      mm.plan(c.epilog, inputs);
    mepi::Tensor d;
    for (int i = 0; i < 3; ++i) // later executes reuse the buffers and flags
      d = mm.execute(stream);
    cu(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::vector<uint16_t> got(dShape[0] * dShape[1]);
    cu(driver->cuMemcpyDtoH(got.data(), reinterpret_cast<CUdeviceptr>(d.data), got.size() * 2),
       "cuMemcpyDtoH");
    double worst = 0;
    int64_t bad = 0;
    std::vector<double> pre(dShape[0] * dShape[1]); // the epilog's input, for the aux outputs
    for (int64_t i = 0; i < dShape[0]; ++i)
      for (int64_t j = 0; j < dShape[1]; ++j) {
        int64_t gi = dRow(i), gj = dCol(j);
        double acc = 0;
        for (int64_t kk = 0; kk < c.k; ++kk) {
          double x = fromBF16(c.ta ? A[kk * c.m + gi] : A[gi * c.k + kk]);
          double y = fromBF16(c.tb ? B[gj * c.k + kk] : B[kk * c.n + gj]);
          acc += x * y;
        }
        double ref = c.user ? userEpilogReference(c.alpha * acc, fromBF16(biasAll[gi]), i, j)
                            : applyEpilog(c.epilog, c.alpha * acc, fromBF16(biasAll[gi]));
        pre[i * dShape[1] + j] = c.alpha * acc + (hasBias(c.epilog) ? fromBF16(biasAll[gi]) : 0);
        double v = fromBF16(got[i * dShape[1] + j]);
        double tol = tolerance(c, ref, ranks);
        double err = std::fabs(v - ref);
        worst = std::max(worst, err);
        if (!(err <= tol) && bad++ < 3)
          std::printf("  rank %d %s: D[%" PRId64 ", %" PRId64 "] = %g, expected %g\n", rank,
                      c.name, gi, gj, v, ref);
      }
    std::string auxWhy = checkAux(c, mm, pre, dShape[0], dShape[1], ranks);
    ok = bad == 0 && auxWhy.empty();
    std::printf("%s rank %d: %s %s, D part [%" PRId64 ", %" PRId64 "], max error %.3g%s%s\n",
                ok ? "PASS" : "FAIL", rank, c.name,
                mepi::dist::algorithmName(mm.algorithm()), dShape[0], dShape[1], worst,
                auxWhy.empty() ? "" : ", ", auxWhy.c_str());
    if (rank == 0 && std::getenv("MEPI_DIST_SCHEDULE"))
      std::printf("%s", mm.schedule().c_str());
  } catch (const std::exception &e) {
    std::printf("FAIL rank %d: %s: %s\n", rank, c.name, e.what());
    ok = false;
  }
  for (CUdeviceptr p : {da, db, dbias})
    driver->cuMemFree(p);
  return ok;
}

/// Runs a call that must throw an error containing `needle`; prints PASS or FAIL and keeps
/// whether every one did.
struct Expect {
  int rank;
  bool ok = true;
  void operator()(const char *what, const std::function<void()> &f, const char *needle) {
    try {
      f();
      std::printf("FAIL rank %d: %s: no error\n", rank, what);
      ok = false;
    } catch (const mepi::Error &e) {
      bool found = std::string(e.what()).find(needle) != std::string::npos;
      std::printf("%s rank %d: %s: %s\n", found ? "PASS" : "FAIL", rank, what, e.what());
      ok &= found;
    }
  }
};

/// Construction: bad distributions, refusals on one rank, differences between ranks.
void constructorErrors(Expect &expect, int rank, int ranks, int device, CUdeviceptr p) {
  // Rank 0 holds 33 rows, rank 1 holds 31: Slab.X of 64 rows gives each 32.
  int64_t rows = rank == 0 ? 33 : 31;
  expect("uneven slab", [&] {
    mepi::dist::Matmul(tensor(p, device, {rows, 64}), tensor(p, device, {32, 64}), std::nullopt,
                       {Slab::X, Slab::X, Slab::Y}, 1.0f, std::nullopt, {false, true});
  }, "operand a (Slab.X): rank 0 holds [33, 64]; expected 32");
  expect("ranks disagree", [&] {
    mepi::dist::Matmul(tensor(p, device, {32, 64}), tensor(p, device, {32, 64}), std::nullopt,
                       {Slab::X, rank == 0 ? Slab::X : Slab::Y, Slab::Y}, 1.0f, std::nullopt,
                       {false, true});
  }, "describe different problems");
  expect("no algorithm", [&] {
    mepi::dist::Matmul(tensor(p, device, {32, 64}), tensor(p, device, {32, 64}), std::nullopt,
                       {Slab::X, Slab::X, Slab::Y}, 1.0f, std::nullopt, {false, false});
  }, "supported are");
  Distribution bc = Distribution::blockCyclic({1, ranks}, 32, 32),
               bcRows16 = Distribution::blockCyclic({1, ranks}, 16, 32);
  expect("block-cyclic blocks", [&] {
    mepi::dist::Matmul(tensor(p, device, {64, 32}), tensor(p, device, {64, 32}), std::nullopt,
                       {bcRows16, bc, bc}, 1.0f, std::nullopt, {false, false});
  }, "op(A)'s blocks of rows are 16 long and D's 32");
  expect("block-cyclic grids differ", [&] {
    mepi::dist::Matmul(tensor(p, device, {64, 32}), tensor(p, device, {64, 32}), std::nullopt,
                       {rank == 1 ? bcRows16 : bc, bc, bc}, 1.0f, std::nullopt, {false, false});
  }, "rank 1 gives A's block rows = 16, rank 0 gives 32");
  // A refusal on one rank or a difference between ranks throws on every rank, before any
  // collective allocation (a rank left behind would wait forever).
  expect("one rank refuses", [&] {
    std::vector<int64_t> aShape = rank == 1 ? std::vector<int64_t>{32, 64, 1}
                                            : std::vector<int64_t>{32, 64};
    mepi::dist::Matmul(tensor(p, device, aShape), tensor(p, device, {32, 64}), std::nullopt,
                       {Slab::X, Slab::X, Slab::Y}, 1.0f, std::nullopt, {false, true});
  }, rank == 1 ? "operand a: expected this rank's part as a matrix" : "rank 1 refused");
  expect("options differ", [&] {
    mepi::dist::Options o;
    o.pieces = rank + 1;
    mepi::dist::Matmul(tensor(p, device, {32, 64}), tensor(p, device, {32, 64}), std::nullopt,
                       {Slab::X, Slab::X, Slab::Y}, 1.0f, std::nullopt, {false, true}, o);
  }, "rank 1 gives options.pieces = 2, rank 0 gives 1");
  expect("dtypes differ", [&] {
    mepi::Tensor a = tensor(p, device, {32, 64}), b = tensor(p, device, {32, 64});
    if (rank == 1)
      a.dtype = b.dtype = mepi::DType::Float16;
    mepi::dist::Matmul(a, b, std::nullopt, {Slab::X, Slab::X, Slab::Y}, 1.0f, std::nullopt,
                       {false, true});
  }, "a's dtype = f16, rank 0 gives bf16");
  expect("empty part", [&] {
    mepi::dist::Matmul(tensor(p, device, {rank == 0 ? 1 : 0, 64}), tensor(p, device, {32, 64}),
                       std::nullopt, {Slab::X, Slab::X, Slab::Y}, 1.0f, std::nullopt,
                       {false, true});
  }, "operand a: rank 1's part is empty ([0, 64])");
}

/// plan() and resetOperands(): one rank's bias of the wrong length, epilogs that differ or are
/// refused; then both plan again and run.
void planErrors(Expect &expect, int rank, int device, CUdeviceptr p) {
  mepi::dist::Matmul mm(tensor(p, device, {32, 64}), tensor(p, device, {32, 64}), std::nullopt,
                        {Slab::X, Slab::X, Slab::Y}, 1.0f, std::nullopt, {false, true});
  mepi::EpilogInputs bad, good;
  bad.bias = tensor(p, device, {rank == 1 ? 63 : 64});
  good.bias = tensor(p, device, {64});
  expect("one rank's bias", [&] { mm.plan(mepi::Epilog::Bias, bad); },
         rank == 1 ? "plan: input bias: expected one value per row of this rank's D, [64]"
                   : "rank 1 refused");
  expect("epilogs differ", [&] { mm.plan(rank == 0 ? mepi::Epilog::Relu : mepi::Epilog::Gelu); },
         "the epilog = GELU, rank 0 gives RELU");
  expect("aux outputs with all-reduce over too few rows", [&] {
    mepi::dist::Matmul ar(tensor(p, device, {32, 32}), tensor(p, device, {32, 32}), std::nullopt,
                          {Slab::Y, Slab::Y, Distribution::replicated()}, 1.0f, std::nullopt,
                          {false, true});
    ar.plan(mepi::Epilog::ReluAux);
  }, "cuts D's rows at multiples of 128: M = 32 leaves rank 1 none");
  expect("a user epilog on one rank", [&] {
    if (rank == 0)
      mm.plan(mepi::UserEpilog{kUserEpilog, "tp_epilog"},
              {{tensor(p, device, {64}), mepi::InputKind::Row}});
    else
      mm.plan(mepi::Epilog::Relu);
  }, "rank 1 gives the epilog = RELU, rank 0 gives a user epilog");
  expect("a user epilog's input", [&] {
    mm.plan(mepi::UserEpilog{kUserEpilog, "tp_epilog"},
            {{tensor(p, device, {rank == 1 ? 32 : 64}), mepi::InputKind::Row}});
  }, rank == 1 ? "user epilog input 0 (row): expected [64]" : "rank 1 refused");
  mm.plan(mepi::Epilog::Bias, good);
  mm.execute();
  mepi::EpilogInputs wrong;
  wrong.bias = tensor(p, device, {65});
  expect("reset bias", [&] {
    mm.resetOperands(tensor(p, device, {32, 64}), tensor(p, device, {32, 64}), wrong);
  }, "resetOperands: input bias: expected one value per row of this rank's D, [64], got [65]");
  cu(driver->cuCtxSynchronize(), "execute after agreements");
}

/// Bad distributions are refused on every rank, with the operand named, before any launch.
bool runErrorCases(int rank, int ranks, int device) {
  Expect expect{rank};
  CUdeviceptr p = upload(std::vector<uint16_t>(64 * 64));
  constructorErrors(expect, rank, ranks, device, p);
  planErrors(expect, rank, device, p);
  driver->cuMemFree(p);
  return expect.ok;
}

/// finalize() with a plan alive: the plan gives its memory back and refuses to run; the group
/// can be joined again and used.
bool runFinalizeCase(int rank, int device, CUstream stream) {
  CUdeviceptr p = upload(std::vector<uint16_t>(64 * 64));
  mepi::dist::Matmul mm(tensor(p, device, {32, 64}), tensor(p, device, {32, 64}), std::nullopt,
                        {Slab::X, Slab::X, Slab::Y}, 1.0f, std::nullopt, {false, true});
  mm.plan();
  mm.execute(stream);
  cu(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
  mepi::dist::finalize();
  bool ok = false;
  try {
    mm.execute(stream);
    std::printf("FAIL rank %d: execute after finalize: no error\n", rank);
  } catch (const mepi::Error &e) {
    ok = std::string(e.what()).find("finalize() was called") != std::string::npos;
    std::printf("%s rank %d: execute after finalize: %s\n", ok ? "PASS" : "FAIL", rank,
                e.what());
  }
  mepi::dist::initialize(device, MPI_COMM_WORLD);
  driver->cuMemFree(p);
  return ok;
}
/// Every algorithm's cases on `ranks` ranks.
std::vector<Case> distCases(int ranks) {
  Distribution rep = Distribution::replicated();
  using E = mepi::Epilog;
  // Shapes with remainders over 2 and 3 ranks; K split cases have odd local K (staged rows).
  std::vector<Case> cases = {
      {"allgather-a", Slab::X, Slab::X, Slab::Y, false, true, 1001, 704, 320, E::GeluBias},
      {"allgather-a-nn", Slab::X, Slab::Y, Slab::Y, false, false, 515, 256, 192, E::Default, 0, 0.5f},
      {"allgather-a-tn", Slab::Y, Slab::X, Slab::Y, true, true, 777, 384, 128, E::Relu},
      {"allgather-a-pieces", Slab::X, Slab::X, Slab::Y, false, true, 2000, 512, 256, E::Silu, 3},
      {"allgather-b", Slab::X, Slab::X, Slab::X, false, true, 999, 640, 256, E::ReluBias},
      {"allgather-b-nn", Slab::X, Slab::Y, Slab::X, false, false, 600, 500, 128, E::Default},
      {"reduce-scatter-rows", Slab::Y, Slab::Y, Slab::X, false, true, 1003, 512, 640, E::GeluBias},
      {"reduce-scatter-rows-tn", Slab::X, Slab::X, Slab::X, true, false, 800, 320, 384, E::Bias, 2},
      {"reduce-scatter-cols", Slab::Y, Slab::Y, Slab::Y, false, true, 700, 520, 512, E::Silu},
      {"reduce-scatter-cols-nn", Slab::Y, Slab::X, Slab::Y, false, false, 640, 300, 256, E::Default},
      {"all-reduce", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::Bias, 2},
      {"all-reduce-tt", Slab::X, Slab::Y, rep, true, true, 513, 256, 320, E::Gelu},
      // Partial sums stored over NVLink by the GEMMs themselves.
      {"reduce-scatter-rows-remote", Slab::Y, Slab::Y, Slab::X, false, true, 1003, 512, 640, E::GeluBias, 2, 1.0f, true},
      {"reduce-scatter-cols-remote", Slab::Y, Slab::X, Slab::Y, false, false, 640, 300, 256, E::Silu, 0, 1.0f, true},
      {"all-reduce-remote", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::Bias, 2, 1.0f, true},
      // Finished rows stored into the peers' D by the final GEMMs (mirrors): the last piece,
      // every piece, a user epilog's.
      {"all-reduce-mirrored", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::Bias, 2, 1.0f, false, false, 1},
      {"all-reduce-tt-mirrored", Slab::X, Slab::Y, rep, true, true, 1030, 256, 320, E::Gelu, 3, 1.0f, false, false, 3},
      {"all-reduce-user-mirrored", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::Default, 2, 1.0f, false, true, 2},
      // Rings over bands of D's rows in turn, a band's finished rows copied between the next
      // band's ring copies: two and three bands, and a mirrored last piece.
      {"all-reduce-bands", Slab::Y, Slab::Y, rep, false, true, 2100, 384, 512, E::GeluBias, 2, 1.0f, false, false, -1, 2},
      {"all-reduce-tt-bands3", Slab::X, Slab::Y, rep, true, true, 3100, 256, 320, E::Gelu, 0, 1.0f, false, false, -1, 3},
      {"all-reduce-bands-mirrored", Slab::Y, Slab::Y, rep, false, true, 2100, 384, 512, E::Bias, 2, 1.0f, false, false, 1, 2},
      {"all-reduce-bands-mirrored-all", Slab::Y, Slab::Y, rep, false, true, 2100, 384, 512, E::Bias, 2, 1.0f, false, false, 2, 2},
      {"all-reduce-bands-mirrored-4200", Slab::Y, Slab::Y, rep, false, true, 4200, 384, 512, E::Bias, 2, 1.0f, false, false, 1, 2},
      {"all-reduce-mirrored-1152", Slab::Y, Slab::Y, rep, false, true, 1152, 384, 512, E::Bias, 2, 1.0f, false, false, 1, 1},
      // Few rows (decode): one GEMM after the gather, or one GEMM and an NCCL reduction.
      {"allgather-a-decode", Slab::X, Slab::X, Slab::Y, false, true, 127, 512, 384, E::GeluBias},
      {"allgather-a-decode-even", Slab::X, Slab::X, Slab::Y, false, true, 128, 512, 384, E::Relu},
      {"allgather-a-decode-tn", Slab::Y, Slab::X, Slab::Y, true, true, 96, 512, 384, E::Default},
      {"reduce-scatter-decode-even", Slab::Y, Slab::Y, Slab::X, false, true, 128, 384, 512, E::Default},
      {"reduce-scatter-decode", Slab::Y, Slab::Y, Slab::X, false, true, 129, 384, 512, E::Default},
      {"reduce-scatter-decode-bias", Slab::Y, Slab::Y, Slab::X, false, true, 129, 384, 512, E::ReluBias},
      {"all-reduce-decode", Slab::Y, Slab::Y, rep, false, true, 100, 256, 640, E::Default, 0, 2.0f},
      // User epilogs: indices and the row input of this rank's D, in every GEMM's block.
      {"allgather-a-user", Slab::X, Slab::X, Slab::Y, false, true, 1001, 704, 320, E::Default, 2, 1.0f, false, true},
      {"reduce-scatter-rows-user", Slab::Y, Slab::Y, Slab::X, false, true, 1003, 512, 640, E::Default, 2, 1.0f, false, true},
      {"reduce-scatter-cols-user", Slab::Y, Slab::Y, Slab::Y, false, true, 700, 520, 512, E::Default, 2, 1.0f, false, true},
      {"all-reduce-user", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::Default, 2, 1.0f, false, true},
      {"reduce-scatter-decode-user", Slab::Y, Slab::Y, Slab::X, false, true, 129, 384, 512, E::Default, 0, 1.0f, false, true},
  };
  // Block-cyclic (SUMMA) on grids of 1 x P and P x 1, remainders in every dimension; blocks of
  // op(A)'s rows and op(B)'s columns are D's.
  auto bc = [](int rows, int cols, int64_t br, int64_t bcols) {
    return Distribution::blockCyclic({rows, cols}, br, bcols);
  };
  int P = ranks;
  cases.push_back({"summa-1xP", bc(1, P, 128, 96), bc(1, P, 96, 64), bc(1, P, 128, 64), false,
                   false, 1000, 700, 900, E::GeluBias});
  cases.push_back({"summa-Px1-nt", bc(P, 1, 128, 96), bc(P, 1, 64, 96), bc(P, 1, 128, 64), false,
                   true, 1000, 700, 900, E::Bias});
  cases.push_back({"summa-1xP-tn-user", bc(1, P, 96, 128), bc(1, P, 96, 64), bc(1, P, 128, 64),
                   true, false, 1000, 700, 900, E::Default, 0, 1.0f, false, true});
  cases.push_back({"summa-Px1-tt-pieces", bc(P, 1, 64, 128), bc(P, 1, 32, 64), bc(P, 1, 128, 32),
                   true, true, 2600, 512, 640, E::Relu, 3, 0.5f});
  // A 2 x 2 grid (4 ranks): op(A)'s rows gathered within each grid row, op(B)'s columns
  // within each grid column.
  if (P == 4) {
    cases.push_back({"summa-2x2", bc(2, 2, 128, 96), bc(2, 2, 96, 64), bc(2, 2, 128, 64), false,
                     false, 1000, 700, 900, E::GeluBias});
    cases.push_back({"summa-2x2-tt-pieces", bc(2, 2, 64, 128), bc(2, 2, 32, 64),
                     bc(2, 2, 128, 32), true, true, 2600, 512, 640, E::Relu, 3, 0.5f});
    cases.push_back({"summa-2x2-user", bc(2, 2, 128, 96), bc(2, 2, 96, 64), bc(2, 2, 128, 64),
                     false, false, 1000, 700, 900, E::Default, 0, 1.0f, false, true});
  }
  // Aux outputs (the ReLU mask, the GELU input) of this rank's D, assembled from the final
  // GEMMs' (pieces at multiples of 128 rows; unaligned slabs gathered whole first).
  cases.push_back({"allgather-a-relu-aux-bias", Slab::X, Slab::X, Slab::Y, false, true, 1001, 704, 320, E::ReluAuxBias});
  cases.push_back({"allgather-a-gelu-aux-pieces", Slab::X, Slab::X, Slab::Y, false, true, 1024, 512, 256, E::GeluAux, 2});
  cases.push_back({"allgather-b-gelu-aux-bias", Slab::X, Slab::X, Slab::X, false, true, 999, 640, 256, E::GeluAuxBias});
  cases.push_back({"reduce-scatter-rows-relu-aux", Slab::Y, Slab::Y, Slab::X, false, true, 2003, 512, 640, E::ReluAux, 2});
  cases.push_back({"reduce-scatter-cols-gelu-aux", Slab::Y, Slab::Y, Slab::Y, false, true, 700, 520, 512, E::GeluAuxBias, 2});
  // All-reduce: each rank's final GEMMs write its chunk's aux rows, copied to every peer's
  // beside D's (by the copy engine; by the compute stream after a mirrored GEMM).
  cases.push_back({"all-reduce-relu-aux-bias", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::ReluAuxBias, 2});
  cases.push_back({"all-reduce-gelu-aux-tt", Slab::X, Slab::Y, rep, true, true, 1030, 256, 320, E::GeluAux, 3});
  cases.push_back({"all-reduce-gelu-aux-bias-remote", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::GeluAuxBias, 2, 1.0f, true});
  cases.push_back({"all-reduce-relu-aux-mirrored", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, E::ReluAux, 2, 1.0f, false, false, 1});
  cases.push_back({"all-reduce-relu-aux-one-piece", Slab::Y, Slab::Y, rep, false, true, 1001, 256, 384, E::ReluAux, 1});
  cases.push_back({"summa-Px1-relu-aux-pieces", bc(P, 1, 128, 96), bc(P, 1, 64, 96), bc(P, 1, 128, 64), false, true, 2600, 256, 384, E::ReluAuxBias, 3});
  return cases;
}

/// The error cases and the finalize case, written for 2 ranks (their shapes and the refusing
/// rank assume two); on other counts they are not run.
void runTwoRankCases(const Case &first, int rank, int ranks, int device, CUstream stream,
                     int &passed, int &failed) {
  if (ranks != 2) {
    std::printf("%d ranks: the error and finalize cases (written for 2 ranks) not run\n", ranks);
    return;
  }
  bool ok = runErrorCases(rank, ranks, device);
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  all ? ++passed : ++failed;
  ok = runFinalizeCase(rank, device, stream);
  ok &= runCase(first, rank, ranks, device, stream); // the group joined again works
  mine = ok ? 1 : 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  all ? ++passed : ++failed;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  auto loaded = mepi::runtime::cudaDriver();
  if (!loaded) {
    std::printf("mepi-dist-tests needs GPUs: %s\n", llvm::toString(loaded.takeError()).c_str());
    MPI_Finalize();
    return 1;
  }
  driver = &*loaded;
  int devices = 0;
  CUdevice dev;
  driver->cuDeviceGetCount(&devices);
  int device = rank % std::max(devices, 1);
  CUcontext ctx;
  cu(driver->cuDeviceGet(&dev, device), "cuDeviceGet");
  cu(driver->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  cu(driver->cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  mepi::dist::initialize(device, MPI_COMM_WORLD);
  CUstream stream;
  cu(driver->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  // --filter S (repeatable): only the cases whose names hold S, and none of the others.
  std::vector<std::string> filters;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--filter")
      filters.push_back(argv[++i]);
  auto selected = [&](const std::string &name) {
    return filters.empty() || llvm::any_of(filters, [&](const std::string &f) {
             return name.find(f) != std::string::npos;
           });
  };
  std::vector<Case> cases = distCases(ranks);
  int passed = 0, failed = 0;
  for (const Case &c : cases) {
    if (!selected(c.name))
      continue;
    bool ok = runCase(c, rank, ranks, device, stream);
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    all ? ++passed : ++failed;
  }
  if (filters.empty()) {
    runBackwardCases(rank, ranks, device, stream, passed, failed);
    runUserOutputCases(rank, ranks, device, stream, passed, failed);
    runTwoRankCases(cases[0], rank, ranks, device, stream, passed, failed);
  }
  if (rank == 0)
    std::printf("mepi-dist-tests on %d ranks: %d passed, %d failed\n", ranks, passed, failed);
  mepi::dist::finalize();
  MPI_Finalize();
  return failed ? 1 : 0;
}
