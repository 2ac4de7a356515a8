// FP8 on the wgmma family: e4m3 x e5m2 operands read through TMA as bytes (128-element lines of
// K), wgmma m64nNk32 with the pair's types, the tensor cores' sums promoted into f32 every
// k-step (the heuristic's choice without fast_accumulation: 128 x 64 tiles here, promote = 1), the
// scales multiplied in the epilog region, and D in e4m3 through cvt.rn.satfinite. With
// fast_accumulation nothing is promoted and the tile may be 256 wide. ptxas assembles both
// without spills and without serializing the wgmmas.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not="Potential Performance Loss"
// RUN: mepi-opt %s --split-input-file --mepi-select-kernel-config=chip=sm_90a | FileCheck %s --check-prefix=CONFIG

// CONFIG-LABEL: func.func @promoted_e4m3_e5m2
// CONFIG: config = #mepi.kernel_config<wgmma, tile = [128, 64, 128], {{.*}}promote = 1>
// CONFIG-LABEL: func.func @fast_e4m3
// CONFIG-NOT: promote
// CONFIG: config = #mepi.kernel_config<wgmma, tile = [{{128|256}}, {{128|256}}, 128]

// CHECK-LABEL: .entry promoted_e4m3_e5m2_matmul_0
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2
// CHECK-DAG: wgmma.wait_group.sync.aligned 0;
// CHECK-DAG: add.rn.f32
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-LABEL: .entry fast_e4m3_matmul_0
// CHECK: wgmma.mma_async.sync.aligned.m64n{{128|256}}k32.f32.e4m3.e4m3
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @promoted_e4m3_e5m2(%a: memref<1000x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                              %b: memref<520x4096xf8E5M2> {mepi.alignment = 16 : i64},
                              %sa: memref<f32>, %sb: memref<520xf32>, %sd: memref<f32>,
                              %d: memref<1000x520xf8E4M3FN> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<1000x4096xf8E4M3FN>, memref<520x4096xf8E5M2>)
      inputs(%sa as scalar : memref<f32>, %sb as col : memref<520xf32>, %sd as scalar : memref<f32>)
      outs(%d : memref<1000x520xf8E4M3FN>) attributes {transpose_b} epilog {
  ^bb0(%acc: f32, %a_scale: f32, %b_scale: f32, %d_scale: f32, %row: index, %col: index):
    %x = arith.mulf %acc, %a_scale : f32
    %y = arith.mulf %x, %b_scale : f32
    %z = arith.mulf %y, %d_scale : f32
    %t = arith.truncf %z : f32 to f8E4M3FN
    mepi.yield %t : f8E4M3FN
  }
  return
}

// -----

func.func @fast_e4m3(%a: memref<4096x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                     %b: memref<4096x4096xf8E4M3FN> {mepi.alignment = 16 : i64},
                     %d: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x4096xf8E4M3FN>, memref<4096x4096xf8E4M3FN>)
      outs(%d : memref<4096x4096xbf16>) attributes {transpose_b, fast_accumulation} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
