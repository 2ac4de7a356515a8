// beta * C in the TMA-store epilog: where C's address is promised 4-byte aligned (the planner
// does when it is) and its rows are even, each thread loads C's element pairs as one 32-bit
// load, the next line's before this line's barrier; without the promise, 16-bit loads per
// element. A row-major matrix epilog input (C read by the epilog beside FP8 scales, a
// residual) is loaded the same way. ptxas assembles them without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK-LABEL: .entry aligned_matmul_0(
// CHECK: ld.global.{{(v2.b16|b32|u32)}}
// CHECK-NOT: ld.global.{{(b16|u16)}}
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-LABEL: .entry unaligned_matmul_0(
// CHECK: ld.global.{{(b16|u16)}}
// CHECK-LABEL: .entry residual_matmul_0(
// CHECK: ld.global.{{(v2.b16|b32|u32)}}
// CHECK-NOT: ld.global.{{(b16|u16)}}
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
func.func @aligned(%a: memref<1000x512xbf16> {mepi.alignment = 16 : i64},
                   %b: memref<768x512xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                   %c: memref<1000x768xbf16> {mepi.alignment = 4 : i64}, %beta: f32,
                   %d: memref<1000x768xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x512xbf16>, memref<768x512xbf16>) alpha(%alpha)
      c(%c : memref<1000x768xbf16>) beta(%beta) outs(%d : memref<1000x768xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @unaligned(%a: memref<1000x512xbf16> {mepi.alignment = 16 : i64},
                     %b: memref<768x512xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                     %c: memref<1000x768xbf16>, %beta: f32,
                     %d: memref<1000x768xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x512xbf16>, memref<768x512xbf16>) alpha(%alpha)
      c(%c : memref<1000x768xbf16>) beta(%beta) outs(%d : memref<1000x768xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @residual(%a: memref<1000x512xbf16> {mepi.alignment = 16 : i64},
                    %b: memref<768x512xbf16> {mepi.alignment = 16 : i64}, %alpha: f32,
                    %res: memref<1000x768xbf16> {mepi.alignment = 4 : i64}, %scale: f32,
                    %d: memref<1000x768xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x512xbf16>, memref<768x512xbf16>) alpha(%alpha)
      inputs(%res as matrix : memref<1000x768xbf16>, %scale as scalar : f32)
      outs(%d : memref<1000x768xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %r: bf16, %s: f32, %row: index, %col: index):
    %x = arith.extf %r : bf16 to f32
    %t = arith.mulf %s, %x : f32
    %y = arith.addf %acc, %t : f32
    %o = arith.truncf %y : f32 to bf16
    mepi.yield %o : bf16
  }
  return
}
