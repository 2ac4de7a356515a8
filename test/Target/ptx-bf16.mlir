// bf16 elements are loaded as 16-bit values and converted exactly to f32 (cvt.f32.bf16); the
// result is rounded to nearest back to bf16 (cvt.rn.bf16.f32) before a 16-bit store.
// RUN: mepi-opt %s --mepi-lower-to-ptx="ptx-file=-" -o /dev/null | FileCheck %s

// CHECK-LABEL: .visible .entry bf16_matmul_0(
// CHECK: ld.global.{{[bu]}}16 [[A:%rs[0-9]+]]
// CHECK: cvt.f32.bf16 {{%r[0-9]+}}, [[A]];
// CHECK: fma.rn.f32
// CHECK: cvt.rn.bf16.f32 [[OUT:%rs[0-9]+]], {{%r[0-9]+}};
// CHECK: st.global.{{[bu]}}16 [{{%rd[0-9]+}}], [[OUT]];
func.func @bf16(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>, %d: memref<64x48xbf16>) {
  mepi.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>) outs(%d : memref<64x48xbf16>)
      attributes {config = #mepi.kernel_config<simt, tile = [16, 48, 1]>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
