// store = tma into a D whose rows TMA cannot address (1001 bf16 columns: 2002-byte rows): the
// epilog still writes each 128-byte line into the swizzled buffers (stmatrix), and the
// consumer's threads store the line to D themselves, 2 bytes a unit (the largest power of two
// dividing the row pitch). No tensor map of D, no TMA store; ptxas assembles it without
// spills. With 1002 columns (2004-byte rows) the units are 4 bytes. With C and 1001 columns
// the epilog tests a pair's second element on its own (an odd row's last pair has one).
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"

// IR-LABEL: func.func @odd
// IR: mepi.tensor_map %arg0 box [64, 128] swizzle 128
// IR: mepi.tensor_map %arg1 box [64, 128] swizzle 128
// IR-NOT: mepi.tensor_map
// IR: store = tma
// IR-LABEL: func.func @even

// CHECK-LABEL: .entry odd_matmul_0(
// CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ld.shared.b16
// CHECK: st.global.b16
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// CHECK-LABEL: .entry odd_c_matmul_0(
// CHECK: st.global.b16
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// CHECK-LABEL: .entry even_matmul_0(
// CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: ld.shared.b32
// CHECK: st.global.b32
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta

// PTXAS-NOT: warning
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @odd(%a: memref<1000x512xbf16> {mepi.alignment = 16 : i64},
               %b: memref<1001x512xbf16> {mepi.alignment = 16 : i64},
               %bias: memref<1001xbf16>,
               %d: memref<1000x1001xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x512xbf16>, memref<1001x512xbf16>)
      inputs(%bias as col : memref<1001xbf16>)
      outs(%d : memref<1000x1001xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %bi: bf16, %row: index, %col: index):
    %bf = arith.extf %bi : bf16 to f32
    %x = arith.addf %acc, %bf : f32
    %r = arith.truncf %x : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @odd_c(%a: memref<1000x512xbf16> {mepi.alignment = 16 : i64},
                 %b: memref<1001x512xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                 %c: memref<1000x1001xbf16>, %beta: f32,
                 %d: memref<1000x1001xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x512xbf16>, memref<1001x512xbf16>) alpha(%alpha)
      c(%c : memref<1000x1001xbf16>) beta(%beta) outs(%d : memref<1000x1001xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @even(%a: memref<1000x512xbf16> {mepi.alignment = 16 : i64},
                %b: memref<1002x512xbf16> {mepi.alignment = 16 : i64},
                %d: memref<1000x1002xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x512xbf16>, memref<1002x512xbf16>)
      outs(%d : memref<1000x1002xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
