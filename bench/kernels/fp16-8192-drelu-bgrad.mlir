// The fp16 8192^3 DRELU_BGRAD problem as the runtime plans it (A M x K, B N x K, the ReLU mask
// read column-major, the bias gradient a row reduction), for reading the wgmma kernel's ptxas
// report and SASS with the reduction in its epilog: scripts/device-run.sh sass.
func.func @gemm(%a: memref<8192x8192xf16> {mepi.alignment = 16 : i64},
                %b: memref<8192x8192xf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                %mask: memref<1024x8192xi8, strided<[1, 1024]>>,
                %d: memref<8192x8192xf16> {mepi.alignment = 16 : i64}, %grad: memref<8192xf16>) {
  mepi.matmul ins(%a, %b : memref<8192x8192xf16>, memref<8192x8192xf16>) alpha(%alpha)
      inputs(%mask as bitmask : memref<1024x8192xi8, strided<[1, 1024]>>)
      outs(%d : memref<8192x8192xf16>) reduce(%grad as row add : memref<8192xf16>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %on: i1, %row: index, %col: index):
    %zero = arith.constant 0.0 : f32
    %g = arith.select %on, %acc, %zero : f32
    %r = arith.truncf %g : f32 to f16
    mepi.yield %r, %g : f16, f32
  }
  return
}
