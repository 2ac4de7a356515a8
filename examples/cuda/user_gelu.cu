// External epilog code for examples/cpp/external_epilog.cpp, compiled to LTO-IR by nvcc
// (nvcc -arch=lto_90a -dlto -ltoir -rdc=true). The C ABI: extern "C" __device__, scalars.
extern "C" __device__ float user_gelu(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}
