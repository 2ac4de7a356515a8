// A user device function for the LTO-IR link test (compiled by nvcc -dlto -ltoir in the test).
extern "C" __device__ float mepi_user_scale(float x) { return 2.0f * x; }
