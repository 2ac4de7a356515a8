// The unfused sequence's second kernel, as a user would write it: bias + GELU applied in place
// to a column-major M x N bf16 matrix that a cuBLASLt matmul wrote (bias: one value per row).
// Eight elements (16 bytes) per thread when M keeps them in one column, a grid-stride loop.
#include <cuda_bf16.h>

__device__ __forceinline__ float gelu(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

extern "C" __global__ void bias_gelu_bf16(__nv_bfloat16 *d, const __nv_bfloat16 *bias,
                                          long long m, long long total) {
  long long stride = 8ll * gridDim.x * blockDim.x;
  bool vector = m % 8 == 0;
  for (long long base = 8ll * (blockIdx.x * (long long)blockDim.x + threadIdx.x); base < total;
       base += stride) {
    if (vector) {
      uint4 packed = *reinterpret_cast<const uint4 *>(d + base);
      __nv_bfloat16 *v = reinterpret_cast<__nv_bfloat16 *>(&packed);
      long long row = base % m;
#pragma unroll
      for (int i = 0; i < 8; ++i)
        v[i] = __float2bfloat16(gelu(__bfloat162float(v[i]) + __bfloat162float(bias[row + i])));
      *reinterpret_cast<uint4 *>(d + base) = packed;
    } else {
      for (long long e = base; e < base + 8 && e < total; ++e)
        d[e] = __float2bfloat16(gelu(__bfloat162float(d[e]) + __bfloat162float(bias[e % m])));
    }
  }
}
