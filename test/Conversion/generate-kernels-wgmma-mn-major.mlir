// MN-major operands on the wgmma family: A given as [K, M] (transpose_a) and B as [K, N]. Each
// is loaded as 64-row blocks, one TMA box of 64 rows x 64 k-lines per block (coordinates row,
// then k), and read transposed by the wgmma (A col, B row); the PTX assembles without spills.
// REQUIRES: ptxas
// RUN: mepi-opt %s --mepi-select-kernel-config="chip=sm_90a" --mepi-generate-kernels | FileCheck %s
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PTX
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// CHECK-LABEL: func.func @mn_major
// CHECK: mepi.tensor_map %arg0 box [64, 64] swizzle 128 : memref<1024x1000xbf16>
// CHECK: mepi.tensor_map %arg1 box [64, 64] swizzle 128 : memref<1024x4000xbf16>
// CHECK: {mepi.config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>>}
// CHECK: nvvm.mbarrier.arrive.expect_tx
// 2 boxes of A (128 rows) and 2 of B (128 rows) per stage:
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 232
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]

// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning
func.func @mn_major(%a: memref<1024x1000xbf16> {mepi.alignment = 16 : i64},
                    %b: memref<1024x4000xbf16> {mepi.alignment = 16 : i64},
                    %bias: memref<1000xbf16>, %d: memref<1000x4000xbf16>) {
  mepi.matmul ins(%a, %b : memref<1024x1000xbf16>, memref<1024x4000xbf16>)
      inputs(%bias as row : memref<1000xbf16>) outs(%d : memref<1000x4000xbf16>)
      attributes {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>>,
                  transpose_a} epilog {
  ^bb0(%acc: f32, %bv: bf16, %row: index, %col: index):
    %bf = arith.extf %bv : bf16 to f32
    %s = arith.addf %acc, %bf : f32
    %r = arith.truncf %s : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
