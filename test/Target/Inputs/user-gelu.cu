// An external epilog function for the link tests: GELU (tanh form) with the documented C ABI,
// extern "C" __device__ float f(float acc, ...).
extern "C" __device__ float user_gelu(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}
