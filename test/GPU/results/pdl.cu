// Does programmatic dependent launch shorten back-to-back launches of a persistent kernel of
// ~200 KiB shared memory a block, timed as mepi-bench times (an event pair around each launch)
// and as a stream of launches (two events around all)?
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>

__global__ void work(float *out, int iters, int wait, int trigger) {
  extern __shared__ float smem[];
  if (wait)
    asm volatile("griddepcontrol.wait;" ::: "memory");
  if (trigger == 1 && threadIdx.x == 0)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  float x = threadIdx.x, y = blockIdx.x;
  for (int i = 0; i < iters; ++i)
    x = fmaf(x, 1.0001f, y);
  smem[threadIdx.x] = x;
  __syncthreads();
  if (trigger == 2 && threadIdx.x == 0)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  out[blockIdx.x * blockDim.x + threadIdx.x] = smem[(threadIdx.x + 1) % blockDim.x];
}

static void launch(float *out, int iters, bool pdl, int trigger, int smem, cudaStream_t s) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(132);
  cfg.blockDim = dim3(384);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  cudaLaunchKernelEx(&cfg, work, out, iters, pdl ? 1 : 0, trigger);
}

int main() {
  int smem = 200 * 1024;
  cudaFuncSetAttribute(work, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  float *out;
  cudaMalloc(&out, 132 * 384 * 4);
  cudaStream_t s;
  cudaStreamCreate(&s);
  const int n = 200;
  std::vector<cudaEvent_t> ev(2 * n);
  for (auto &e : ev)
    cudaEventCreate(&e);
  for (int iters : {0, 1000, 4000, 16000}) {
    for (int variant = 0; variant < 4; ++variant) {
      bool pdl = variant > 0;
      int trigger = variant == 2 ? 1 : variant == 3 ? 2 : 0;
      for (int i = 0; i < 20; ++i)
        launch(out, iters, pdl, trigger, smem, s);
      cudaStreamSynchronize(s);
      // Pairs around each launch, as mepi-bench's medianMs.
      for (int i = 0; i < n; ++i) {
        cudaEventRecord(ev[2 * i], s);
        launch(out, iters, pdl, trigger, smem, s);
        cudaEventRecord(ev[2 * i + 1], s);
      }
      cudaStreamSynchronize(s);
      std::vector<float> t(n);
      for (int i = 0; i < n; ++i)
        cudaEventElapsedTime(&t[i], ev[2 * i], ev[2 * i + 1]);
      std::sort(t.begin(), t.end());
      // A stream of launches.
      cudaEventRecord(ev[0], s);
      for (int i = 0; i < n; ++i)
        launch(out, iters, pdl, trigger, smem, s);
      cudaEventRecord(ev[1], s);
      cudaStreamSynchronize(s);
      float all = 0;
      cudaEventElapsedTime(&all, ev[0], ev[1]);
      std::printf("iters %5d %-22s pairs median %7.2f us  stream %7.2f us/launch  %s\n", iters,
                  variant == 0   ? "plain"
                  : variant == 1 ? "pdl, implicit trigger"
                  : variant == 2 ? "pdl, trigger at start"
                                 : "pdl, trigger at end",
                  t[n / 2] * 1e3, all * 1e3 / n, cudaGetErrorString(cudaGetLastError()));
    }
  }
  return 0;
}
