// mepi-bench --dist (DistBench.h).
#include "DistBench.h"

#include "mepi/DistributedMPI.h"

#include "llvm/Support/FormatVariadic.h"

#include <nccl.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

using namespace bench;

namespace {
struct DistShape {
  int64_t t, h, f;
  std::string name;
};

void nccl(ncclResult_t r, const char *what) {
  if (r != ncclSuccess)
    throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

/// The largest of every rank's `ms` (the slowest rank sets the time of a collective step).
double slowest(double ms) {
  double out = 0;
  MPI_Allreduce(&ms, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

/// A bf16 tensor on this rank's device.
mepi::Tensor onDevice(CUdeviceptr p, int device, std::vector<int64_t> shape) {
  mepi::Tensor t = deviceTensor(p, mepi::DType::BFloat16, std::move(shape));
  t.device = device;
  return t;
}

/// Frees device buffers (0s skipped).
void freeAll(const std::vector<CUdeviceptr> &buffers) {
  for (CUdeviceptr p : buffers)
    if (p)
      driver->cuMemFree(p);
}

/// The inputs a built-in epilog reads for a D of [rows, cols] on this rank: a bias of one value
/// per row, or DRELU's / DGELU's aux matrix in the forward epilog's layout (column-major, rows
/// padded; its values do not change the time). Owns their memory.
struct EpilogOperands {
  mepi::EpilogInputs inputs;
  std::vector<CUdeviceptr> owned;
  EpilogOperands(mepi::Epilog e, int64_t rows, int64_t cols, int device, uint64_t seed);
  EpilogOperands(const EpilogOperands &) = delete;
  ~EpilogOperands() { freeAll(owned); }
};

/// Device buffers freed when a measurement ends, also by a refused plan (an epilog that a
/// distribution does not support).
struct Buffers {
  std::vector<CUdeviceptr> all;
  ~Buffers() { freeAll(all); }
};

EpilogOperands::EpilogOperands(mepi::Epilog e, int64_t rows, int64_t cols, int device,
                               uint64_t seed) {
  using E = mepi::Epilog;
  auto aux = [&](CUdeviceptr p, mepi::DType type, int64_t height) {
    owned.push_back(p);
    mepi::Tensor t = deviceTensor(p, type, {height, cols});
    t.device = device;
    t.strides = {1, height};
    return t;
  };
  if (e == E::Bias || e == E::ReluBias || e == E::ReluAuxBias || e == E::GeluBias ||
      e == E::GeluAuxBias) {
    owned.push_back(randomBuffer(rows, true, seed));
    inputs.bias = onDevice(owned.back(), device, {rows});
  } else if (e == E::DRelu || e == E::DReluBGrad) {
    int64_t height = ((rows + 7) / 8 + 15) / 16 * 16;
    CUdeviceptr p = 0;
    cu(driver->cuMemAlloc(&p, height * cols), "cuMemAlloc(relu_aux)");
    cu(driver->cuMemsetD8(p, 0x5a, height * cols), "cuMemsetD8(relu_aux)");
    inputs.reluAux = aux(p, mepi::DType::UInt8, height);
  } else if (e == E::DGelu || e == E::DGeluBGrad) {
    int64_t height = (rows + 7) / 8 * 8;
    inputs.geluAux = aux(randomBuffer(height * cols, true, seed), mepi::DType::BFloat16, height);
  }
}

struct Row {
  std::string shape, op;
  double ltLocal, unfused, mepiLocal, mepi;
  std::string algorithm;
};

/// Median times of `launches` (interleaved, after two warm-up rounds), each launch after the
/// ranks' streams were aligned by an all-reduce of one value: else an operation that waits for
/// its peer would be charged the skew the variant before it left (the ranks' GPUs finish the
/// same GEMM at slightly different times).
std::vector<double> timeAligned(const std::vector<std::function<void(int)>> &launches,
                                ncclComm_t comm, CUstream stream, int iterations) {
  for (auto &launch : launches)
    for (int i = 0; i < 2; ++i)
      launch(i);
  cu(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
  MPI_Barrier(MPI_COMM_WORLD);
  CUdeviceptr token = 0;
  cu(driver->cuMemAlloc(&token, sizeof(float)), "cuMemAlloc");
  cu(driver->cuMemsetD8(token, 0, sizeof(float)), "cuMemsetD8");
  auto align = [&] {
    nccl(ncclAllReduce(reinterpret_cast<void *>(token), reinterpret_cast<void *>(token), 1,
                       ncclFloat32, ncclSum, comm, reinterpret_cast<cudaStream_t>(stream)),
         "ncclAllReduce(align)");
  };
  std::vector<double> ms = interleavedMedianMs(stream, iterations, launches, align);
  driver->cuMemFree(token);
  return ms;
}

/// SUMMA's blocks in the benchmark: A [T, H] dealt in blocks of 128 rows x 1024 columns of H,
/// B [H, F] in blocks of 1024 x 256, D [T, F] in blocks of 128 x 256; "summa" on a 1 x P grid
/// (each rank holds every P-th block of K), "summa-2d" on the squarest grid of R > 1 rows.
constexpr int64_t kSummaKBlock = 1024, kSummaNBlock = 256, kSummaMBlock = 128;

/// SUMMA's process grid for `op` over `ranks`: 1 x P, or R x C with R the largest divisor of
/// P with R * R <= P.
mepi::dist::ProcessGrid summaGrid(const std::string &op, int ranks) {
  if (op != "summa-2d")
    return {1, ranks};
  int r = 1;
  for (int d = 2; d * d <= ranks; ++d)
    if (ranks % d == 0)
      r = d;
  return {r, ranks / r};
}

/// The communicators of the ranks in this rank's grid row and grid column (the unfused
/// SUMMA-2D's all-gathers), split from the world's.
struct GridComms {
  mepi::dist::ProcessGrid grid;
  ncclComm_t row = nullptr, col = nullptr;
};

/// The local GEMM of `op` on each rank: D [m, n] = A [m, k] x B (stored [n, k], or [k, n] for
/// SUMMA, whose B is W's columns as stored).
struct LocalGemm {
  int64_t m, n, k;
  bool nMajorB;
};

LocalGemm localGemm(const DistShape &s, const std::string &op, int ranks) {
  int64_t fr = s.f / ranks;
  if (op == "ag+gemm")
    return {s.t, fr, s.h, false};
  if (op == "summa" || op == "summa-2d") {
    mepi::dist::ProcessGrid g = summaGrid(op, ranks);
    return {s.t / g.rows, s.f / g.cols, s.h, true};
  }
  return {s.t, s.h, fr, false};
}

/// The distributions of A, B and D for `op`.
std::vector<mepi::dist::Distribution> distributionsFor(const std::string &op, int ranks) {
  using mepi::dist::Distribution;
  using mepi::dist::Slab;
  if (op == "ag+gemm")
    return {Slab::X, Slab::X, Slab::Y};
  if (op == "gemm+rs")
    return {Slab::Y, Slab::Y, Slab::X};
  if (op == "gemm+ar")
    return {Slab::Y, Slab::Y, Distribution::replicated()};
  mepi::dist::ProcessGrid g = summaGrid(op, ranks);
  return {Distribution::blockCyclic(g, kSummaMBlock, kSummaKBlock),
          Distribution::blockCyclic(g, kSummaKBlock, kSummaNBlock),
          Distribution::blockCyclic(g, kSummaMBlock, kSummaNBlock)};
}

/// The schedule's knobs for A/B runs, from the environment: MEPI_DIST_PIECES, _BANDS, _REMOTE,
/// _MIRRORS and _TAIL_PIECES (unset: the plan's own choice).
mepi::dist::Options distOptionsFromEnvironment() {
  mepi::dist::Options options;
  if (const char *pieces = std::getenv("MEPI_DIST_PIECES"))
    options.pieces = std::atoi(pieces);
  if (const char *bands = std::getenv("MEPI_DIST_BANDS"))
    options.bands = std::atoi(bands);
  if (const char *remote = std::getenv("MEPI_DIST_REMOTE"))
    options.remoteStores = std::atoi(remote) != 0;
  if (const char *mirrored = std::getenv("MEPI_DIST_MIRRORS"))
    options.mirroredPieces = std::atoi(mirrored);
  if (const char *tail = std::getenv("MEPI_DIST_TAIL_PIECES"))
    options.tailPieces = std::atoi(tail);
  return options;
}

/// One operation: tensor-parallel column-linear (all-gather of the sequence-split input, then
/// the GEMM with this rank's columns of W), row-linear (the GEMM with this rank's rows of W,
/// then reduce-scatter or all-reduce), or SUMMA over block-cyclic operands (A's blocks of K
/// gathered; unfused: NCCL's all-gather of the same bytes, then cuBLASLt, leaving out the
/// reordering of K that the gathered blocks would need).
Row measure(const DistShape &s, const std::string &op, int rank, int ranks, int device,
            cublasLtHandle_t lt, ncclComm_t comm, const GridComms &grid, CUstream stream,
            int iterations, mepi::Epilog epilog) {
  bool summa = op == "summa" || op == "summa-2d";
  bool gather = op == "ag+gemm" || summa;
  int64_t tr = s.t / ranks;
  Row row{s.name, op, 0, 0, 0, 0, ""};
  auto [m, n, k, nMajorB] = localGemm(s, op, ranks);
  // SUMMA: this rank's blocks of A sit at its grid column's place in the gathered rows of A
  // (its grid row's), its blocks of B at its grid row's place in B's gathered columns.
  mepi::dist::ProcessGrid g = summaGrid(op, ranks);
  int64_t bPart = (k / g.rows) * n;
  // Operands of the local GEMM: A [m, k] (gathered X, or this rank's Y columns) and B.
  CUdeviceptr a = randomBuffer(m * k, true, 11 + rank), b = randomBuffer(n * k, true, 23 + rank);
  CUdeviceptr d = 0, out = 0;
  cu(driver->cuMemAlloc(&d, m * n * 2), "cuMemAlloc");
  cu(driver->cuMemAlloc(&out, m * n * 2), "cuMemAlloc");
  Buffers buffers{{a, b, d, out}};
  LtMatmulSpec spec{m, n, k, true, false, nMajorB};
  LtMatmul ltmm(lt, spec);
  auto cs = reinterpret_cast<cudaStream_t>(stream);
  // This rank's part of the exchanged A: rows of X (ag+gemm) or blocks of K (SUMMA).
  int64_t part = summa ? m * (k / g.cols) : tr * k;
  int at = summa ? rank % g.cols : rank;
  auto unfused = [&](int) {
    if (summa && g.rows > 1) { // gathers within the grid's rows (A) and columns (B)
      nccl(ncclAllGather(reinterpret_cast<void *>(a + at * part * 2),
                         reinterpret_cast<void *>(a), part, ncclBfloat16, grid.row, cs),
           "ncclAllGather(grid row)");
      nccl(ncclAllGather(reinterpret_cast<void *>(b + (rank / g.cols) * bPart * 2),
                         reinterpret_cast<void *>(b), bPart, ncclBfloat16, grid.col, cs),
           "ncclAllGather(grid column)");
      ltmm.launch(a, b, d, stream);
    } else if (gather) {
      nccl(ncclAllGather(reinterpret_cast<void *>(a + at * part * 2),
                         reinterpret_cast<void *>(a), part, ncclBfloat16, comm, cs),
           "ncclAllGather");
      ltmm.launch(a, b, d, stream);
    } else if (op == "gemm+rs") {
      ltmm.launch(a, b, d, stream);
      nccl(ncclReduceScatter(reinterpret_cast<void *>(d), reinterpret_cast<void *>(out),
                             tr * n, ncclBfloat16, ncclSum, comm, cs),
           "ncclReduceScatter");
    } else {
      ltmm.launch(a, b, d, stream);
      nccl(ncclAllReduce(reinterpret_cast<void *>(d), reinterpret_cast<void *>(out), m * n,
                         ncclBfloat16, ncclSum, comm, cs),
           "ncclAllReduce");
    }
  };
  std::vector<int64_t> bShape = nMajorB ? std::vector<int64_t>{k, n} : std::vector<int64_t>{n, k};
  mepi::Matmul local(onDevice(a, device, {m, k}), onDevice(b, device, bShape), std::nullopt,
                     1.0f, std::nullopt, mepi::Qualifiers{false, !nMajorB});
  EpilogOperands localInputs(epilog, m, n, device, 31 + rank);
  local.plan(epilog, localInputs.inputs);
  std::vector<mepi::dist::Distribution> dists = distributionsFor(op, ranks);
  // The distributed A: X's rows of this rank (gather), its blocks of K (SUMMA), or the local
  // GEMM's A.
  std::vector<int64_t> aShape = summa    ? dists[0].shape(rank, ranks, {s.t, s.h})
                                : gather ? std::vector<int64_t>{tr, k}
                                         : std::vector<int64_t>{m, k};
  mepi::Tensor da = onDevice(gather ? a + at * part * 2 : a, device, aShape);
  mepi::Tensor dbDist = summa ? onDevice(b + (rank / g.cols) * bPart * 2, device,
                                         dists[1].shape(rank, ranks, {s.h, s.f}))
                              : onDevice(b, device, bShape);
  mepi::dist::Matmul mm(da, dbDist, std::nullopt, dists, 1.0f, std::nullopt,
                        mepi::Qualifiers{false, !nMajorB}, distOptionsFromEnvironment());
  std::vector<int64_t> dPart =
      dists[2].shape(rank, ranks, {s.t, op == "ag+gemm" || summa ? s.f : s.h});
  EpilogOperands distInputs(epilog, dPart[0], dPart[1], device, 37 + rank);
  mm.plan(epilog, distInputs.inputs);
  row.algorithm = mepi::dist::algorithmName(mm.algorithm());
  // Interleaved, so that clock and thermal drift spread over all four alike.
  std::vector<std::function<void(int)>> launches = {
      [&](int) { ltmm.launch(a, b, d, stream); }, unfused,
      [&](int) { local.execute(stream); }, [&](int) { mm.execute(stream); }};
  std::vector<double> ms = timeAligned(launches, comm, stream, iterations);
  row.ltLocal = slowest(ms[0]);
  row.unfused = slowest(ms[1]);
  row.mepiLocal = slowest(ms[2]);
  row.mepi = slowest(ms[3]);
  mm.free();
  return row;
}
/// --c-source: the GEMMs that finish a reduction (D = A B + C, C the received partial sums)
/// timed without C, with an aligned C (its element pairs loaded a line ahead) and with C two
/// bytes off alignment (one 16-bit load per element), interleaved in one process: the shapes
/// of the final GEMMs of GEMM+AR 16384x4096x14336 and GEMM+RS 8192x8192x28672 on 2 ranks.
void measureCSource(int rank, int device, CUstream stream, int iterations) {
  struct Shape {
    int64_t m, n, k;
  };
  if (rank == 0)
    std::printf("%-18s %9s %9s %9s %8s %8s\n", "M x N x K", "no-C", "C-pairs", "C-elems",
                "pairs/0", "elems/0");
  for (Shape s : {Shape{6144, 4096, 7168}, Shape{2048, 4096, 7168}, Shape{2048, 8192, 14336},
                  Shape{4096, 8192, 14336}}) {
    CUdeviceptr a = randomBuffer(s.m * s.k, true, 31), b = randomBuffer(s.n * s.k, true, 32);
    CUdeviceptr c = randomBuffer(s.m * s.n + 1, true, 33), d = 0;
    cu(driver->cuMemAlloc(&d, s.m * s.n * 2), "cuMemAlloc");
    mepi::Tensor ta = onDevice(a, device, {s.m, s.k}), tb = onDevice(b, device, {s.n, s.k});
    mepi::Matmul plain(ta, tb, std::nullopt, 1.0f, std::nullopt, {false, true});
    mepi::Matmul pairs(ta, tb, onDevice(c, device, {s.m, s.n}), 1.0f, 1.0f, {false, true});
    mepi::Matmul elems(ta, tb, onDevice(c + 2, device, {s.m, s.n}), 1.0f, 1.0f, {false, true});
    for (mepi::Matmul *mm : {&plain, &pairs, &elems})
      mm->plan();
    std::vector<std::function<void(int)>> launches = {[&](int) { plain.execute(stream); },
                                                      [&](int) { pairs.execute(stream); },
                                                      [&](int) { elems.execute(stream); }};
    for (auto &launch : launches)
      launch(0);
    std::vector<double> ms = interleavedMedianMs(stream, iterations, launches, [] {});
    if (rank == 0)
      std::printf("%-18s %9.3f %9.3f %9.3f %8.3f %8.3f\n",
                  llvm::formatv("{0}x{1}x{2}", s.m, s.n, s.k).str().c_str(), ms[0], ms[1],
                  ms[2], ms[1] / ms[0], ms[2] / ms[0]);
    for (mepi::Matmul *mm : {&plain, &pairs, &elems})
      mm->free();
    for (CUdeviceptr p : {a, b, c, d})
      driver->cuMemFree(p);
  }
}

/// --copy: the copy engine's bandwidth into a peer's IPC-mapped buffer (what the schedules'
/// pushes use): `bytes` in one copy on one stream, split over two streams, and on one stream
/// while a large GEMM runs on another. Ranks copy to each other at the same time.
void measureCopies(int rank, int ranks, int device, CUstream stream, int iterations) {
  size_t bytes = 32u << 20;
  CUdeviceptr mine = 0, src = randomBuffer(bytes / 2, true, 5);
  cu(driver->cuMemAlloc(&mine, bytes), "cuMemAlloc");
  CUipcMemHandle handle;
  cu(driver->cuIpcGetMemHandle(&handle, mine), "cuIpcGetMemHandle");
  std::vector<CUipcMemHandle> all(ranks);
  MPI_Allgather(&handle, sizeof handle, MPI_BYTE, all.data(), sizeof handle, MPI_BYTE,
                MPI_COMM_WORLD);
  int peer = (rank + 1) % ranks;
  CUdeviceptr theirs = 0;
  cu(driver->cuIpcOpenMemHandle(&theirs, all[peer], CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
     "cuIpcOpenMemHandle");
  CUstream second, gemmStream;
  cu(driver->cuStreamCreate(&second, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  cu(driver->cuStreamCreate(&gemmStream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUevent forked, joined;
  cu(driver->cuEventCreate(&forked, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  cu(driver->cuEventCreate(&joined, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  int64_t m = 8192, n = 8192, k = 8192;
  CUdeviceptr a = randomBuffer(m * k, true, 6), b = randomBuffer(n * k, true, 7), d = 0;
  cu(driver->cuMemAlloc(&d, m * n * 2), "cuMemAlloc");
  mepi::Matmul gemm(onDevice(a, device, {m, k}), onDevice(b, device, {n, k}), std::nullopt,
                    1.0f, std::nullopt, mepi::Qualifiers{false, true});
  gemm.plan();
  auto copy = [&](CUstream s, size_t offset, size_t size) {
    cu(driver->cuMemcpyDtoDAsync(theirs + offset, src + offset % (bytes / 2), size, s),
       "cuMemcpyDtoDAsync(peer)");
  };
  std::vector<std::function<void(int)>> variants = {
      [&](int) { copy(stream, 0, bytes); },
      [&](int) {
        cu(driver->cuEventRecord(forked, stream), "cuEventRecord");
        cu(driver->cuStreamWaitEvent(second, forked, 0), "cuStreamWaitEvent");
        copy(stream, 0, bytes / 2);
        copy(second, bytes / 2, bytes / 2);
        cu(driver->cuEventRecord(joined, second), "cuEventRecord");
        cu(driver->cuStreamWaitEvent(stream, joined, 0), "cuStreamWaitEvent");
      },
      [&](int) {
        cu(driver->cuEventRecord(forked, stream), "cuEventRecord");
        cu(driver->cuStreamWaitEvent(gemmStream, forked, 0), "cuStreamWaitEvent");
        gemm.execute(gemmStream);
        copy(stream, 0, bytes);
        cu(driver->cuEventRecord(joined, gemmStream), "cuEventRecord");
        cu(driver->cuStreamWaitEvent(stream, joined, 0), "cuStreamWaitEvent");
      },
      [&](int) { gemm.execute(stream); }};
  for (auto &v : variants)
    v(0);
  cu(driver->cuStreamSynchronize(stream), "cuStreamSynchronize");
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<double> ms = interleavedMedianMs(stream, iterations, variants);
  if (rank == 0)
    std::printf("copy of %zu MiB to the peer (both ranks at once): one stream %.3f ms (%.0f "
                "GB/s), two streams %.3f ms (%.0f GB/s); beside an 8192^3 GEMM: both %.3f ms, "
                "GEMM alone %.3f ms\n",
                bytes >> 20, ms[0], bytes / ms[0] / 1e6, ms[1], bytes / ms[1] / 1e6, ms[2],
                ms[3]);
  driver->cuIpcCloseMemHandle(theirs);
  for (CUdeviceptr p : {mine, src, a, b, d})
    driver->cuMemFree(p);
}
/// Every shape and op `filters` select, timed and printed (rank 0) a row at a time.
/// With `weak`, T grows with the ranks (T x ranks / 2: the 2-GPU shapes' tokens per GPU).
std::vector<Row> measureAll(const std::vector<std::string> &filters, int rank, int ranks,
                            int device, cublasLtHandle_t lt, ncclComm_t comm,
                            const GridComms &grid, CUstream stream, int iterations, bool weak,
                            mepi::Epilog epilog) {
  std::vector<DistShape> shapes = {{8192, 8192, 28672, "8192x8192x28672"},
                                   {16384, 4096, 14336, "16384x4096x14336"},
                                   {4096, 8192, 28672, "4096x8192x28672"},
                                   {128, 8192, 28672, "decode128x8192x28672"}};
  if (weak && ranks > 2)
    for (DistShape &s : shapes) {
      s.t = s.t * ranks / 2;
      s.name = (s.t <= 1024 ? "decode" : "") + std::to_string(s.t) + "x" + std::to_string(s.h) +
               "x" + std::to_string(s.f);
    }
  std::vector<Row> rows;
  if (rank == 0)
    std::printf("%-22s %-8s %-18s %9s %9s %6s %9s %9s %6s %6s\n", "T x H x F", "op",
                "algorithm", "lt-local", "unfused", "eff", "mepi-loc", "mepi", "eff",
                "vs-unf");
  for (const DistShape &s : shapes)
    for (const char *op : {"ag+gemm", "gemm+rs", "gemm+ar", "summa", "summa-2d"}) {
      if (!selectedLabel(filters, s.name + " " + op) ||
          (std::string(op) == "summa-2d" && !grid.row))
        continue;
      // SUMMA needs a block of D's rows on every grid row (decode on a 2-D grid has none).
      if (std::string(op).rfind("summa", 0) == 0 &&
          s.t < summaGrid(op, ranks).rows * kSummaMBlock) {
        if (rank == 0)
          std::printf("%-22s %-8s skipped: %lld rows of T leave a grid row without blocks of "
                      "%lld\n",
                      s.name.c_str(), op, (long long)s.t, (long long)kSummaMBlock);
        continue;
      }
      Row r;
      try {
        r = measure(s, op, rank, ranks, device, lt, comm, grid, stream, iterations, epilog);
      } catch (const mepi::Error &e) { // refused alike on every rank (mepi/Distributed.h)
        if (e.status() != mepi::Status::NotSupported)
          throw;
        if (rank == 0)
          std::printf("%-22s %-8s skipped: %s\n", s.name.c_str(), op, e.what());
        continue;
      }
      if (rank == 0)
        std::printf("%-22s %-8s %-18s %9.3f %9.3f %6.3f %9.3f %9.3f %6.3f %6.3f\n",
                    r.shape.c_str(), r.op.c_str(), r.algorithm.c_str(), r.ltLocal, r.unfused,
                    r.ltLocal / r.unfused, r.mepiLocal, r.mepi, r.mepiLocal / r.mepi,
                    r.unfused / r.mepi);
      rows.push_back(r);
    }
  return rows;
}

/// The rows as the set's JSON (writeJsonHeader's fields, the ranks, one object a row).
void writeDistJson(const std::string &path, const char *device, const std::string &command,
                   int ranks, const std::string &epilog, const std::vector<Row> &rows) {
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::ofstream json(path);
  writeJsonHeader(json, device, date, command,
                  "bf16, tensor-parallel MLP: ag+gemm = X [T, H] rows split, W [F, H] rows "
                  "split (columns of D); gemm+rs / gemm+ar = Y [T, F] columns split, W2 "
                  "[H, F] columns split; summa = X [T, H], W [H, F] and D block-cyclic on "
                  "a 1 x P grid (blocks of 128 rows of T, 1024 of H, 256 of F; its unfused "
                  "time omits reordering the gathered blocks of K), summa-2d on the "
                  "squarest grid R x C, R > 1 (unfused: all-gathers of A's blocks within "
                  "grid rows and B's within grid columns, then cuBLASLt)",
                  "times in ms, median of CUDA events, slowest rank, each launch after a "
                  "one-value NCCL all-reduce that aligns the ranks' streams (not timed); "
                  "eff = local GEMM / "
                  "whole (unfused: cuBLASLt local GEMM / NCCL+cuBLASLt; mepi: mepi local "
                  "GEMM / mepi distributed); vs_unfused = unfused / mepi; \"epilog\": what "
                  "mepi's local GEMM and distributed matmul both plan (cuBLASLt and the "
                  "unfused sequence stay DEFAULT)");
  json << "  \"ranks\": " << ranks << ",\n  \"epilog\": \"" << epilog
       << "\",\n  \"results\": [\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row &r = rows[i];
    json << llvm::formatv(
        "    {{\"shape\": \"{0}\", \"op\": \"{1}\", \"algorithm\": \"{2}\", "
        "\"cublaslt_local_ms\": {3:F4}, \"unfused_ms\": {4:F4}, \"unfused_eff\": {5:F4}, "
        "\"mepi_local_ms\": {6:F4}, \"mepi_ms\": {7:F4}, \"mepi_eff\": {8:F4}, "
        "\"vs_unfused\": {9:F4}}{10}\n",
        r.shape, r.op, r.algorithm, r.ltLocal, r.unfused, r.ltLocal / r.unfused, r.mepiLocal,
        r.mepi, r.mepiLocal / r.mepi, r.unfused / r.mepi, i + 1 < rows.size() ? "," : "")
                .str();
  }
  json << "  ]\n}\n";
}

/// mepi-bench --dist's arguments, and the command line the JSON records.
struct DistArgs {
  bool quick = false, copies = false, cSource = false, weak = false;
  std::string jsonPath, command, epilogName = "DEFAULT";
  std::vector<std::string> filters;
  DistArgs(int argc, char **argv, int ranks)
      : command("mpirun -np " + std::to_string(ranks) + " " + argv[0]) {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      command += " " + arg;
      bool *flag = arg == "--quick"      ? &quick
                   : arg == "--copy"     ? &copies
                   : arg == "--c-source" ? &cSource
                   : arg == "--weak"     ? &weak
                                         : nullptr;
      if (flag) {
        *flag = true;
        continue;
      }
      if (i + 1 >= argc)
        continue;
      if (arg == "--json")
        jsonPath = argv[++i];
      else if (arg == "--epilog")
        epilogName = argv[++i];
      else if (arg == "--filter")
        filters.push_back(argv[++i]);
      else
        continue;
      command += std::string(" ") + argv[i];
    }
  }
};

} // namespace

int bench::runDistBench(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  // Ungated: each rank's launches wait on its peers' (the all-reduces that align them), and
  // the distributed figures are times of those exchanges, not of launches a host falls behind.
  QueueGate::enabled = false;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  DistArgs args(argc, argv, ranks);
  std::optional<mepi::Epilog> epilog = mepi::epilogNamed(args.epilogName);
  if (!epilog) {
    std::printf("mepi-bench --dist: --epilog %s: expected a built-in epilog's name (BIAS, "
                "GELU_AUX_BIAS, DRELU_BGRAD, ...)\n",
                args.epilogName.c_str());
    MPI_Finalize();
    return 1;
  }
  auto loaded = mepi::runtime::cudaDriver();
  if (!loaded) {
    std::printf("mepi-bench --dist needs GPUs: %s\n", llvm::toString(loaded.takeError()).c_str());
    MPI_Finalize();
    return 1;
  }
  driver = &*loaded;
  int devices = 0, status = 0;
  driver->cuDeviceGetCount(&devices);
  int device = rank % std::max(devices, 1);
  char name[256] = {0};
  try {
    CUdevice dev;
    CUcontext ctx;
    cu(driver->cuDeviceGet(&dev, device), "cuDeviceGet");
    cu(driver->cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    cu(driver->cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    driver->cuDeviceGetName(name, sizeof name, dev);
    mepi::dist::initialize(device, MPI_COMM_WORLD);
    ncclUniqueId id;
    if (rank == 0)
      nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t comm;
    nccl(ncclCommInitRank(&comm, ranks, id, rank), "ncclCommInitRank");
    CUstream stream;
    cu(driver->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    cublasLtHandle_t lt;
    cublas(cublasLtCreate(&lt), "cublasLtCreate");
    if (args.copies || args.cSource) {
      if (args.copies)
        measureCopies(rank, ranks, device, stream, args.quick ? 5 : 20);
      else
        measureCSource(rank, device, stream, args.quick ? 5 : 20);
      ncclCommDestroy(comm);
      mepi::dist::finalize();
      MPI_Finalize();
      return 0;
    }
    GridComms grid{summaGrid("summa-2d", ranks)};
    if (grid.grid.rows > 1) { // a 2-D grid exists: SUMMA-2D's unfused gathers
      nccl(ncclCommSplit(comm, rank / grid.grid.cols, rank, &grid.row, nullptr), "ncclCommSplit");
      nccl(ncclCommSplit(comm, rank % grid.grid.cols, rank, &grid.col, nullptr), "ncclCommSplit");
    }
    std::vector<Row> rows =
        measureAll(args.filters, rank, ranks, device, lt, comm, grid, stream,
                   args.quick ? 5 : 20, args.weak, *epilog);
    for (ncclComm_t c : {grid.row, grid.col})
      if (c)
        ncclCommDestroy(c);
    if (rank == 0 && !args.jsonPath.empty())
      writeDistJson(args.jsonPath, name, args.command, ranks, args.epilogName, rows);
    ncclCommDestroy(comm);
    mepi::dist::finalize();
  } catch (const std::exception &e) {
    std::printf("rank %d: %s\n", rank, e.what());
    std::fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1); // the other ranks wait in collectives otherwise
  }
  MPI_Finalize();
  return status;
}
