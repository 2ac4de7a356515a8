/* mepi's C API: D = gelu(0.5 * A^T·B + 2 * C), fused, on the GPU, checked on the host. */
#include <mepi-c/Matmul.h>

#include <cuda.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    CUresult r = (call);                                                                       \
    if (r != CUDA_SUCCESS) {                                                                   \
      fprintf(stderr, "%s failed: %d\n", #call, (int)r);                                       \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

static int fail(const char *what, MepiError error) {
  MepiStringRef message = mepiErrorGetMessage(error);
  fprintf(stderr, "%s: %.*s\n", what, (int)message.length, message.data);
  mepiErrorDestroy(error);
  return 1;
}

static double gelu(double x) {
  return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

int main(void) {
  enum { M = 77, N = 130, K = 65 };
  if (mepiGetApiVersion() != MEPI_C_API_VERSION) {
    fprintf(stderr, "mepi C API version mismatch\n");
    return 1;
  }
  CUdevice device;
  CUcontext context;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));

  static float a[K * M], b[K * N], c[M * N], d[M * N]; /* A is stored K x M (transposed) */
  srand(7);
  for (int i = 0; i < K * M; ++i) a[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)rand() / RAND_MAX - 0.5f;
  for (int i = 0; i < M * N; ++i) c[i] = (float)rand() / RAND_MAX - 0.5f;
  CUdeviceptr dA, dB, dC;
  CHECK(cuMemAlloc(&dA, sizeof a));
  CHECK(cuMemAlloc(&dB, sizeof b));
  CHECK(cuMemAlloc(&dC, sizeof c));
  CHECK(cuMemcpyHtoD(dA, a, sizeof a));
  CHECK(cuMemcpyHtoD(dB, b, sizeof b));
  CHECK(cuMemcpyHtoD(dC, c, sizeof c));

  int64_t aShape[] = {K, M}, bShape[] = {K, N}, cShape[] = {M, N};
  MepiTensor ta = {(void *)dA, 0, MEPI_DTYPE_F32, 2, aShape, NULL};
  MepiTensor tb = {(void *)dB, 0, MEPI_DTYPE_F32, 2, bShape, NULL};
  MepiTensor tc = {(void *)dC, 0, MEPI_DTYPE_F32, 2, cShape, NULL};
  float beta = 2.0f;
  MepiError error;
  MepiMatmul mm = mepiMatmulCreate(&ta, &tb, &tc, 0.5f, &beta, /*transposeA=*/true,
                                   /*transposeB=*/false, &error);
  if (mepiMatmulIsNull(mm))
    return fail("create", error);
  if (mepiLogicalResultIsFailure(mepiMatmulPlan(mm, MEPI_EPILOG_GELU, NULL, &error)))
    return fail("plan", error);
  MepiTensor result;
  if (mepiLogicalResultIsFailure(mepiMatmulExecute(mm, NULL, &result, &error)))
    return fail("execute", error);
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(d, (CUdeviceptr)result.data, sizeof d));
  mepiMatmulDestroy(mm);

  double num = 0, den = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = 0;
      for (int k = 0; k < K; ++k)
        acc += (double)a[k * M + i] * b[k * N + j];
      double ref = gelu(0.5 * acc + 2.0 * c[i * N + j]);
      num += (d[i * N + j] - ref) * (d[i * N + j] - ref);
      den += ref * ref;
    }
  double err = sqrt(num / den);
  printf("linear_gelu_c: %dx%dx%d f32 GELU with alpha, beta*C, A transposed: relative error "
         "%.2e: %s\n",
         M, N, K, err, err <= 1e-5 ? "OK" : "FAILED");
  cuMemFree(dA);
  cuMemFree(dB);
  cuMemFree(dC);
  return err <= 1e-5 ? 0 : 1;
}
