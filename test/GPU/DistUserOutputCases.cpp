// A user epilog's outputs in distributed matmuls on several GPUs against an fp64 reference,
// under every algorithm: each final GEMM writes those of its block of rows, assembled into
// this rank's (under all-reduce also from the peers' GEMMs); column and scalar reductions
// combined from the GEMMs' partials (under all-reduce also the ranks'). The epilog's outputs
// index this rank's D as a single GPU's would: a matrix (f32, with a term of the row and
// column), the sign bitmask, a row maximum (f32), a row sum (bf16), a column sum (f32) and
// max |s| (bf16). Part of mepi-dist-tests.
#include "DistUserOutputCases.h"

#include <cinttypes>
#include <cmath>
#include <cstring>

using namespace disttest;
using gputest::fromBF16;
using mepi::dist::Slab;
using Kind = mepi::UserEpilogOutput::Kind;

namespace {
struct OutputCase {
  const char *name;
  Distribution a, b, d;
  bool ta, tb;
  int64_t m, n, k;
  int pieces = 0;
  bool remote = false; // partial sums stored by the GEMMs into the next rank's buffer
  int mirrored = -1;   // all-reduce: pieces stored into the peers' D by their GEMMs
};

/// s = acc + bias; D = s; "pre" = s / 2 + (row % 7 - col % 5) / 4; "sign" = s >= 0;
/// "rowmax" = max of s over the row; "rowsum" its sum; "colsum" the column's sum; "amax" the
/// largest |s|.
const std::string kOutputsEpilog = kIndexTermMlir + R"(
func.func @outs(%acc: f32, %bias: bf16, %row: index, %col: index)
    -> (bf16, f32, i1, f32, f32, f32, f32) {
  %b = arith.extf %bias : bf16 to f32
  %s = arith.addf %acc, %b : f32
  %d = arith.truncf %s : f32 to bf16
  %h = arith.constant 0.5 : f32
  %o = func.call @index_term(%row, %col) : (index, index) -> f32
  %sh = arith.mulf %s, %h : f32
  %pre = arith.addf %sh, %o : f32
  %z = arith.constant 0.0 : f32
  %sign = arith.cmpf oge, %s, %z : f32
  %abs = math.absf %s : f32
  return %d, %pre, %sign, %s, %s, %s, %abs : bf16, f32, i1, f32, f32, f32, f32
}
)";

mepi::UserEpilog outputsEpilog() {
  mepi::UserEpilog e{kOutputsEpilog, "outs"};
  e.outputs = {{"pre", Kind::Matrix, mepi::DType::Float32},
               {"sign", Kind::Bitmask},
               {"rowmax", Kind::RowReduction, mepi::DType::Float32,
                mepi::UserEpilogOutput::Combiner::Max},
               {"rowsum", Kind::RowReduction, mepi::DType::BFloat16},
               {"colsum", Kind::ColReduction, mepi::DType::Float32},
               {"amax", Kind::ScalarReduction, mepi::DType::BFloat16,
                mepi::UserEpilogOutput::Combiner::Max}};
  return e;
}

template <typename T> std::vector<T> download(const mepi::Tensor &t, size_t count) {
  std::vector<T> host(count);
  cu(driver->cuMemcpyDtoH(host.data(), reinterpret_cast<CUdeviceptr>(t.data), count * sizeof(T)),
     "cuMemcpyDtoH(output)");
  return host;
}

/// The error allowed in a value x of s: the K-split algorithms add partial sums stored in
/// bf16, whose rounding scales with sqrt(K) (as DistCorrectness.cpp's tolerance).
double tolerance(double x, int64_t k) {
  return std::ldexp(1.0, -7) * (std::fabs(x) + std::sqrt(double(k)) / 2);
}

/// This rank's outputs against s (row-major [rows, cols], fp64): the reason they differ, or "".
std::string checkOutputs(const mepi::dist::Matmul &mm, const std::vector<double> &s,
                         int64_t rows, int64_t cols, int64_t k) {
  const auto &outs = mm.auxOutputs();
  for (const char *key : {"pre", "sign", "rowmax", "rowsum", "colsum", "amax"})
    if (!outs.count(key))
      return std::string("no output ") + key;
  const mepi::Tensor &pre = outs.at("pre"), &sign = outs.at("sign");
  int64_t height = sign.shape.size() == 2 ? sign.shape[0] : 0;
  if (pre.shape != std::vector<int64_t>{rows, cols} || sign.shape.size() != 2 ||
      sign.shape[1] != cols || sign.strides != std::vector<int64_t>{1, height} ||
      height < (rows + 7) / 8 || outs.at("rowmax").shape != std::vector<int64_t>{rows} ||
      outs.at("rowsum").shape != std::vector<int64_t>{rows} ||
      outs.at("colsum").shape != std::vector<int64_t>{cols} || !outs.at("amax").shape.empty())
    return "outputs of unexpected shapes";
  auto preHost = download<float>(pre, rows * cols);
  auto signHost = download<uint8_t>(sign, height * cols);
  auto maxHost = download<float>(outs.at("rowmax"), rows);
  auto sumHost = download<uint16_t>(outs.at("rowsum"), rows);
  auto colHost = download<float>(outs.at("colsum"), cols);
  auto amaxHost = download<uint16_t>(outs.at("amax"), 1);
  std::vector<double> colSum(cols, 0.0), colAllowed(cols, 0.0);
  double amax = 0;
  int64_t bad = 0;
  for (int64_t i = 0; i < rows; ++i) {
    double most = -INFINITY, sum = 0, allowed = 0;
    for (int64_t j = 0; j < cols; ++j) {
      double x = s[i * cols + j], want = x / 2 + indexTerm(i, j);
      bad += !(std::fabs(preHost[i * cols + j] - want) <= tolerance(x, k) / 2);
      bool bit = (signHost[j * height + i / 8] >> (i % 8)) & 1;
      bad += std::fabs(x) > tolerance(x, k) && bit != (x >= 0);
      most = std::max(most, x);
      sum += x;
      allowed += tolerance(x, k) / 8; // independent errors: far below their sum
      colSum[j] += x;
      colAllowed[j] += tolerance(x, k) / 8;
      amax = std::max(amax, std::fabs(x));
    }
    bad += !(std::fabs(maxHost[i] - most) <= tolerance(most, k));
    bad += !(std::fabs(fromBF16(sumHost[i]) - sum) <= std::ldexp(std::fabs(sum), -7) + allowed);
  }
  for (int64_t j = 0; j < cols; ++j)
    bad += !(std::fabs(colHost[j] - colSum[j]) <= 1e-5 * std::fabs(colSum[j]) + colAllowed[j]);
  bad += !(std::fabs(fromBF16(amaxHost[0]) - amax) <= std::ldexp(amax, -8) + tolerance(amax, k));
  return bad ? std::to_string(bad) + " output values differ" : "";
}

bool runOutputCase(const OutputCase &c, int rank, int ranks, int device, CUstream stream) {
  auto aStored = c.ta ? std::vector<int64_t>{c.k, c.m} : std::vector<int64_t>{c.m, c.k};
  auto bStored = c.tb ? std::vector<int64_t>{c.n, c.k} : std::vector<int64_t>{c.k, c.n};
  auto A = randomMatrix(aStored[0], aStored[1], 11), B = randomMatrix(bStored[0], bStored[1], 12);
  auto biasAll = randomMatrix(1, c.m, 13);
  std::vector<int64_t> aShape, bShape, dShape = c.d.shape(rank, ranks, {c.m, c.n});
  CUdeviceptr da = upload(localPart(A, aStored[0], aStored[1], c.a, rank, ranks, aShape));
  CUdeviceptr db = upload(localPart(B, bStored[0], bStored[1], c.b, rank, ranks, bShape));
  auto dRow = [&](int64_t i) { return globalIndex(c.d, 0, rank, ranks, {c.m, c.n}, i); };
  auto dCol = [&](int64_t j) { return globalIndex(c.d, 1, rank, ranks, {c.m, c.n}, j); };
  int64_t rows = dShape[0], cols = dShape[1];
  CUdeviceptr dbias = uploadRowValues(biasAll, rows, dRow);
  bool ok = true;
  try {
    mepi::dist::Options options = caseOptions(c.pieces, c.remote, c.mirrored);
    mepi::dist::Matmul mm(tensor(da, device, aShape), tensor(db, device, bShape), std::nullopt,
                          {c.a, c.b, c.d}, 1.0f, std::nullopt, {c.ta, c.tb}, options);
    mm.plan(outputsEpilog(), {{tensor(dbias, device, {rows}), mepi::InputKind::Row}});
    mepi::Tensor d;
    for (int i = 0; i < 3; ++i) // later executes rewrite the outputs in place
      d = mm.execute(stream);
    cu(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::vector<uint16_t> got(rows * cols);
    cu(driver->cuMemcpyDtoH(got.data(), reinterpret_cast<CUdeviceptr>(d.data), got.size() * 2),
       "cuMemcpyDtoH");
    std::vector<double> s(rows * cols);
    int64_t bad = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        int64_t gi = dRow(i), gj = dCol(j);
        double acc = 0;
        for (int64_t kk = 0; kk < c.k; ++kk)
          acc += fromBF16(c.ta ? A[kk * c.m + gi] : A[gi * c.k + kk]) *
                 fromBF16(c.tb ? B[gj * c.k + kk] : B[kk * c.n + gj]);
        double x = acc + fromBF16(biasAll[gi]);
        s[i * cols + j] = x;
        bad += !(std::fabs(fromBF16(got[i * cols + j]) - x) <= tolerance(x, c.k));
      }
    std::string why = bad ? std::to_string(bad) + " elements of D differ"
                          : checkOutputs(mm, s, rows, cols, c.k);
    ok = why.empty();
    std::printf("%s rank %d: %s %s, D part [%" PRId64 ", %" PRId64 "]%s%s\n",
                ok ? "PASS" : "FAIL", rank, c.name, mepi::dist::algorithmName(mm.algorithm()),
                rows, cols, why.empty() ? "" : ": ", why.c_str());
  } catch (const std::exception &e) {
    std::printf("FAIL rank %d: %s: %s\n", rank, c.name, e.what());
    ok = false;
  }
  for (CUdeviceptr p : {da, db, dbias})
    driver->cuMemFree(p);
  return ok;
}

std::vector<OutputCase> outputCases(int ranks) {
  Distribution rep = Distribution::replicated();
  auto bc = [](int r, int c, int64_t br, int64_t bcols) {
    return Distribution::blockCyclic({r, c}, br, bcols);
  };
  int P = ranks;
  // Remainders over 2 and 3 ranks; the bitmask puts the blocks at multiples of 128 rows (an
  // unaligned all-gather is gathered whole first: one final GEMM, its outputs as they are).
  std::vector<OutputCase> cases = {
      {"allgather-a-outputs", Slab::X, Slab::X, Slab::Y, false, true, 1001, 704, 320},
      {"allgather-a-outputs-pieces", Slab::X, Slab::X, Slab::Y, false, true, 1024, 512, 256, 2},
      {"allgather-b-outputs", Slab::X, Slab::X, Slab::X, false, true, 999, 640, 256},
      {"reduce-scatter-rows-outputs", Slab::Y, Slab::Y, Slab::X, false, true, 2003, 512, 640, 2},
      {"reduce-scatter-cols-outputs-remote", Slab::Y, Slab::Y, Slab::Y, false, true, 700, 520, 512, 2, true},
      {"all-reduce-outputs", Slab::Y, Slab::Y, rep, false, true, 1000, 384, 512, 2},
      {"all-reduce-outputs-tt-mirrored", Slab::X, Slab::Y, rep, true, true, 1030, 256, 320, 3, false, 3},
      {"summa-Px1-outputs-pieces", bc(P, 1, 128, 96), bc(P, 1, 64, 96), bc(P, 1, 128, 64), false, true, 2600, 256, 384, 3},
  };
  return cases;
}
} // namespace

void disttest::runUserOutputCases(int rank, int ranks, int device, CUstream stream, int &passed,
                                  int &failed) {
  for (const OutputCase &c : outputCases(ranks)) {
    int mine = runOutputCase(c, rank, ranks, device, stream) ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    all ? ++passed : ++failed;
  }
}
