// The bf16 8192^3 GELU_BIAS problem as the runtime plans it (A M x K, B N x K, bias per row),
// for reading the wgmma kernel's ptxas report and SASS: scripts/device-run.sh sass.
func.func @gemm(%a: memref<8192x8192xbf16> {mepi.alignment = 16 : i64},
                %b: memref<8192x8192xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                %bias: memref<8192xbf16>, %d: memref<8192x8192xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x8192xbf16>, memref<8192x8192xbf16>) alpha(%alpha)
      inputs(%bias as row : memref<8192xbf16>) outs(%d : memref<8192x8192xbf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %bv: bf16, %row: index, %col: index):
    %x = arith.extf %bv : bf16 to f32
    %s = arith.addf %acc, %x : f32
    %c = arith.constant 0.7978845608 : f32
    %k = arith.constant 0.044715 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s2 = arith.mulf %s, %s : f32
    %s3 = arith.mulf %s2, %s : f32
    %t0 = arith.mulf %k, %s3 : f32
    %t1 = arith.addf %s, %t0 : f32
    %t2 = arith.mulf %c, %t1 : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %one, %t3 : f32
    %t5 = arith.mulf %h, %s : f32
    %g = arith.mulf %t5, %t4 : f32
    %r = arith.truncf %g : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
