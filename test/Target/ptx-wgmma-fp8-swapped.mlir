// The swapped wgmma kernel on 8-bit operands (Dᵀ = B Aᵀ, for at most 64 rows of D): B's 64
// rows per consumer are each wgmma's m side and A's 16 rows its n side (m64n16k32, B's type
// first: e5m2 x e4m3 here); A's TMA box holds 16 rows of one 128-byte line (128 elements of K),
// B's 64. Without fast accumulation each k-step's sums are promoted into f32 (add.rn.f32); the
// scales (tensor-wise of A, row-wise of B: D's columns) are multiplied in the epilog region,
// stored from the transposed fragments; with fast accumulation and a bf16 D, through
// stmatrix.trans and TMA stores. ptxas assembles both without spills or serialized wgmmas.
// REQUIRES: ptxas
// RUN: mepi-opt %s --split-input-file --mepi-generate-kernels | FileCheck %s --check-prefix=IR
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config=chip=sm_90a | FileCheck %s --check-prefix=CONFIG

// IR-LABEL: func.func @promoted
// IR: mepi.tensor_map %arg0 box [128, 16] swizzle 128
// IR: mepi.tensor_map %arg1 box [128, 64] swizzle 128
// IR-LABEL: func.func @fast
// IR: mepi.tensor_map %arg0 box [128, 32] swizzle 128
// IR: mepi.tensor_map %arg1 box [128, 128] swizzle 128

// The configurations given stay (the heuristic fills in none).
// CONFIG-LABEL: func.func @promoted
// CONFIG: tile = [16, 64, 128], mainloop = <stages = 16, promote = 1>, swapped = true
// CONFIG-LABEL: func.func @fast
// CONFIG: tile = [32, 128, 128], mainloop = <stages = 8>, epilogue = <store = tma>, swapped = true

// CHECK-LABEL: .entry promoted_matmul_0(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e4m3
// CHECK-DAG: add.rn.f32
// CHECK-DAG: st.global.b16
// CHECK-LABEL: .entry fast_matmul_0(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta
// PTXAS-NOT: warning
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @promoted(%a: memref<13x4112xf8E4M3FN> {mepi.alignment = 16 : i64},
                    %b: memref<1000x4112xf8E5M2> {mepi.alignment = 16 : i64},
                    %sa: memref<f32>, %sb: memref<1000xf32>,
                    %d: memref<13x1000xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<13x4112xf8E4M3FN>, memref<1000x4112xf8E5M2>)
      inputs(%sa as scalar : memref<f32>, %sb as col : memref<1000xf32>)
      outs(%d : memref<13x1000xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [16, 64, 128], mainloop = <stages = 16, promote = 1>, swapped = true>} epilog {
  ^bb0(%acc: f32, %a_scale: f32, %b_scale: f32, %row: index, %col: index):
    %x = arith.mulf %acc, %a_scale : f32
    %y = arith.mulf %x, %b_scale : f32
    %r = arith.truncf %y : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

// -----

func.func @fast(%a: memref<30x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                %b: memref<2048x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                %d: memref<30x2048xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<30x4096xf8E4M3FN>, memref<2048x4096xf8E4M3FN>)
      outs(%d : memref<30x2048xbf16>)
      attributes {transpose_b, fast_accumulation, config = #mepi.kernel_config<wgmma, tile = [32, 128, 128], mainloop = <stages = 8>, epilogue = <store = tma>, swapped = true>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
