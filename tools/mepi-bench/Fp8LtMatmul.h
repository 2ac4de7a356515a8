// cuBLASLt's FP8 matmul, the anchor of mepi-bench --fp8 and of --grouped --fp8.
#ifndef MEPI_TOOLS_FP8LTMATMUL_H
#define MEPI_TOOLS_FP8LTMATMUL_H

#include "BenchSupport.h"

namespace bench {
/// How cuBLASLt scales A and B: scalars (with or without fast accumulation), per row of A and
/// column of B (OUTER_VEC_32F), or 1 x 128 blocks of A and 128 x 128 of B.
enum class Fp8LtScaling { Tensor, TensorFast, Row, Block };

/// cublasLtMatmul in FP8: D (bf16, column-major M x N) = sA sB op(A) op(B), A as K x M
/// column-major (op T), B as K x N (op N): row-major A [M, K] and B [N, K], the layout both
/// libraries need (FP8 is read K-major).
class Fp8LtMatmul : public LtMatmul {
public:
  Fp8LtMatmul(cublasLtHandle_t lt, int64_t m, int64_t n, int64_t k, Fp8LtScaling scaling,
              CUdeviceptr sA, CUdeviceptr sB)
      : LtMatmul(lt) {
    cublas(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
    cublasOperation_t opA = CUBLAS_OP_T, opB = CUBLAS_OP_N;
    set(CUBLASLT_MATMUL_DESC_TRANSA, opA, "TRANSA");
    set(CUBLASLT_MATMUL_DESC_TRANSB, opB, "TRANSB");
    int8_t fast = scaling == Fp8LtScaling::TensorFast;
    set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast, "FAST_ACCUM");
    void *a = reinterpret_cast<void *>(sA), *b = reinterpret_cast<void *>(sB);
    set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a, "A_SCALE_POINTER");
    set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b, "B_SCALE_POINTER");
    if (scaling == Fp8LtScaling::Row) {
      cublasLtMatmulMatrixScale_t vector = CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
      set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, vector, "A_SCALE_MODE");
      set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, vector, "B_SCALE_MODE");
    }
    if (scaling == Fp8LtScaling::Block) {
      cublasLtMatmulMatrixScale_t rows = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
      cublasLtMatmulMatrixScale_t blocks = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
      set(CUBLASLT_MATMUL_DESC_A_SCALE_MODE, rows, "A_SCALE_MODE");
      set(CUBLASLT_MATMUL_DESC_B_SCALE_MODE, blocks, "B_SCALE_MODE");
    }
    cublas(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, m, k), "layout A");
    cublas(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, n, k), "layout B");
    cublas(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, m, n, m), "layout D");
    chooseAlgorithm();
  }

private:
  template <typename T> void set(cublasLtMatmulDescAttributes_t what, const T &v, const char *n) {
    cublas(cublasLtMatmulDescSetAttribute(desc, what, &v, sizeof v), n);
  }
};
} // namespace bench

#endif // MEPI_TOOLS_FP8LTMATMUL_H
