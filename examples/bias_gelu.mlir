// Sample problem: a bf16 matmul with bias and GELU fused into its epilog (nvmath-python's
// GELU_BIAS): D[1000 x 4096] = gelu(A[1000 x 1024] * B[1024 x 4096] + bias[:, None]), one bias
// value per row of D as in nvmath-python and cuBLASLt, and
// gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the tanh form cuBLASLt uses.
// `mepi-gpu-tests --sample` runs this problem through the API on the GPU.
func.func @linear_bias_gelu(%a: memref<1000x1024xbf16>, %b: memref<1024x4096xbf16>,
                            %bias: memref<1000xbf16>, %d: memref<1000x4096xbf16>) {
  mepi.matmul ins(%a, %b : memref<1000x1024xbf16>, memref<1024x4096xbf16>)
      inputs(%bias as row : memref<1000xbf16>)
      outs(%d : memref<1000x4096xbf16>) epilog {
  ^bb0(%acc: f32, %bias_elt: bf16, %row: index, %col: index):
    %bias_f32 = arith.extf %bias_elt : bf16 to f32
    %x = arith.addf %acc, %bias_f32 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.7978845608028654 : f32
    %k1 = arith.constant 0.044715 : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %inner = math.fma %k1, %x3, %x : f32
    %scaled = arith.mulf %k0, %inner : f32
    %t = math.tanh %scaled : f32
    %onep = arith.addf %one, %t : f32
    %hx = arith.mulf %half, %x : f32
    %y = arith.mulf %hx, %onep : f32
    %out = arith.truncf %y : f32 to bf16
    mepi.yield %out : bf16
  }
  return
}
