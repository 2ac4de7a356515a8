// The fp16 8192^3 RELU_AUX_BIAS problem as the runtime plans it (A M x K, B N x K, bias per row,
// the ReLU mask column-major with rows of 1024 bytes), for reading the wgmma kernel's ptxas
// report and SASS with the bitmask packing in its epilog: scripts/device-run.sh sass.
func.func @gemm(%a: memref<8192x8192xf16> {mepi.alignment = 16 : i64},
                %b: memref<8192x8192xf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                %bias: memref<8192xf16>, %d: memref<8192x8192xf16> {mepi.alignment = 16 : i64},
                %mask: memref<1024x8192xi8, strided<[1, 1024]>>) {
  mepi.matmul ins(%a, %b : memref<8192x8192xf16>, memref<8192x8192xf16>) alpha(%alpha)
      inputs(%bias as row : memref<8192xf16>) outs(%d : memref<8192x8192xf16>)
      aux(%mask as bitmask : memref<1024x8192xi8, strided<[1, 1024]>>)
      attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %bv: f16, %row: index, %col: index):
    %x = arith.extf %bv : f16 to f32
    %s = arith.addf %acc, %x : f32
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %s, %zero : f32
    %relu = arith.maximumf %s, %zero : f32
    %r = arith.truncf %relu : f32 to f16
    mepi.yield %r, %pos : f16, i1
  }
  return
}
