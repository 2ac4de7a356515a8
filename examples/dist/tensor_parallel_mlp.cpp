// A tensor-parallel MLP block's forward pass on P GPUs with mepi's distributed matmul, one MPI
// process per GPU (mpirun -np 2 tensor_parallel_mlp):
//   Y = gelu(X W1^T): X [T, H] split by rows (sequence parallel), W1 [F, H] by rows, Y [T, F]
//     by columns: mepi gathers X while it multiplies (all-gather + GEMM, GELU fused);
//   Z = Y W2^T: W2 [H, F] split by columns, so the product sums over ranks, Z [T, H] by rows:
//     GEMM + reduce-scatter, fused.
// Each rank checks its rows of Z against a host reference and prints the relative error.
#include <mepi/DistributedMPI.h>

#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    CUresult r = (call);                                                                       \
    if (r != CUDA_SUCCESS) {                                                                   \
      const char *name = "";                                                                   \
      cuGetErrorName(r, &name);                                                                \
      std::fprintf(stderr, "%s failed: %s\n", #call, name);                                    \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                            \
    }                                                                                          \
  } while (0)

using mepi::dist::Slab;

namespace {
std::vector<float> random(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float &x : v)
    x = static_cast<float>(static_cast<_Float16>(dist(rng))); // exactly representable in f16
  return v;
}

/// Rows [r0, r0 + rows) and columns [c0, c0 + cols) of a row-major matrix of `ld` columns, on
/// the device as f16.
CUdeviceptr upload(const std::vector<float> &m, int64_t ld, int64_t r0, int64_t rows, int64_t c0,
                   int64_t cols) {
  std::vector<_Float16> part(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      part[i * cols + j] = static_cast<_Float16>(m[(r0 + i) * ld + c0 + j]);
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, part.size() * 2));
  CHECK(cuMemcpyHtoD(p, part.data(), part.size() * 2));
  return p;
}

mepi::Tensor tensor(CUdeviceptr p, int device, std::vector<int64_t> shape) {
  mepi::Tensor t;
  t.data = reinterpret_cast<void *>(p);
  t.device = device;
  t.dtype = mepi::DType::Float16;
  t.shape = std::move(shape);
  return t;
}

double gelu(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x))); }
} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, ranks, devices = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CHECK(cuInit(0));
  CHECK(cuDeviceGetCount(&devices));
  int device = rank % devices;
  CUdevice dev;
  CUcontext context;
  CHECK(cuDeviceGet(&dev, device));
  CHECK(cuDevicePrimaryCtxRetain(&context, dev));
  CHECK(cuCtxSetCurrent(context));

  const int64_t T = 1000, H = 512, F = 2048; // T does not divide evenly over 3 ranks on purpose
  auto X = random(T * H, 1), W1 = random(F * H, 2), W2 = random(H * F, 3);
  int status = 0;
  try {
    mepi::dist::initialize(device, MPI_COMM_WORLD);
    auto xShape = Slab::X.shape(rank, ranks, {T, H}), w1Shape = Slab::X.shape(rank, ranks, {F, H});
    auto w2Shape = Slab::Y.shape(rank, ranks, {H, F});
    int64_t t0 = 0, f0 = 0; // where this rank's rows of X and of W1 start
    for (int q = 0; q < rank; ++q) {
      t0 += Slab::X.shape(q, ranks, {T, H})[0];
      f0 += Slab::X.shape(q, ranks, {F, H})[0];
    }
    CUdeviceptr x = upload(X, H, t0, xShape[0], 0, H), w1 = upload(W1, H, f0, w1Shape[0], 0, H);
    CUdeviceptr w2 = upload(W2, F, 0, H, f0, w2Shape[1]);

    mepi::dist::Matmul up(tensor(x, device, xShape), tensor(w1, device, w1Shape), std::nullopt,
                          {Slab::X, Slab::X, Slab::Y}, 1.0f, std::nullopt, {false, true});
    up.plan(mepi::Epilog::Gelu);
    mepi::Tensor y = up.execute(); // [T, this rank's F columns]
    mepi::dist::Matmul down(y, tensor(w2, device, w2Shape), std::nullopt,
                            {Slab::Y, Slab::Y, Slab::X}, 1.0f, std::nullopt, {false, true});
    down.plan();
    mepi::Tensor z = down.execute(); // [this rank's T rows, H]
    CHECK(cuCtxSynchronize());
    std::vector<_Float16> got(z.shape[0] * z.shape[1]);
    CHECK(cuMemcpyDtoH(got.data(), reinterpret_cast<CUdeviceptr>(z.data), got.size() * 2));
    if (rank == 0)
      std::printf("up: %s, down: %s\n", mepi::dist::algorithmName(up.algorithm()),
                  mepi::dist::algorithmName(down.algorithm()));

    double errorSq = 0, refSq = 0;
    std::vector<double> hidden(F);
    for (int64_t i = 0; i < z.shape[0]; ++i) {
      const float *xi = &X[(t0 + i) * H];
      for (int64_t f = 0; f < F; ++f) {
        double acc = 0;
        for (int64_t h = 0; h < H; ++h)
          acc += double(xi[h]) * W1[f * H + h];
        hidden[f] = double(static_cast<_Float16>(gelu(acc))); // Y is stored in f16
      }
      for (int64_t h = 0; h < H; ++h) {
        double acc = 0;
        for (int64_t f = 0; f < F; ++f)
          acc += hidden[f] * W2[h * F + f];
        double e = double(got[i * H + h]) - acc;
        errorSq += e * e;
        refSq += acc * acc;
      }
    }
    double rel = std::sqrt(errorSq / refSq);
    std::printf("rank %d: Z rows %lld..%lld, relative error %.2e %s\n", rank, (long long)t0,
                (long long)(t0 + z.shape[0]), rel, rel < 1e-2 ? "OK" : "TOO LARGE");
    status = rel < 1e-2 ? 0 : 1;
    up.free();
    down.free();
    for (CUdeviceptr p : {x, w1, w2})
      cuMemFree(p);
    mepi::dist::finalize();
  } catch (const mepi::Error &e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
