// External epilog code reading its parameters through the user-data pointer
// (mepi::UserEpilog::userData): acc * scale + shift, the two f32 at `user`.
struct AffineParams {
  float scale, shift;
};

extern "C" __device__ float user_affine(float acc, const void *user) {
  const AffineParams *p = static_cast<const AffineParams *>(user);
  return acc * p->scale + p->shift;
}
