// D's TMA stores carry L2's evict-first policy where D is at least L2's size (50 MiB on sm_90a's
// reference part) and the main loop at most 4 k-steps long (Sm90Spec::streamsD): 8192 x 4096
// bf16 (64 MiB) at K = 128 streams; 4096 x 4096 (32 MiB) does not, so that a later kernel may
// still find D in L2; nor does 8192 x 4096 at K = 512 (8 k-steps).
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s
// RUN: mepi-opt %s --mepi-generate-kernels | FileCheck %s --check-prefix=FITS
// RUN: mepi-opt %s --mepi-lower-to-ptx="chip=sm_90a ptx-file=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=PTX
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// CHECK-LABEL: gpu.func @streams_matmul_0
// CHECK: %[[POLICY:.*]] = llvm.inline_asm asm_dialect = att "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l"  : () -> i64
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] l2_cache_hint = %[[POLICY]]
// CHECK-LABEL: gpu.func @fits_matmul_0
// FITS-LABEL: gpu.func @fits_matmul_0
// FITS-NOT: createpolicy
// FITS-NOT: l2_cache_hint
// FITS: gpu.return
// FITS-LABEL: gpu.func @long_k_matmul_0
// FITS-NOT: createpolicy
// FITS-NOT: l2_cache_hint
// FITS: gpu.return

// PTX-LABEL: .entry streams_matmul_0
// PTX: createpolicy.fractional.L2::evict_first.b64 %[[P:rd[0-9]+]], 1.0;
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint [{{.*}}], [{{.*}}], %[[P]];
// PTX-LABEL: .entry fits_matmul_0
// PTX-NOT: cache_hint
// PTX-LABEL: .entry long_k_matmul_0
// PTX-NOT: cache_hint
func.func @streams(%a: memref<8192x128xbf16>, %b: memref<4096x128xbf16>,
                   %d: memref<8192x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x128xbf16>, memref<4096x128xbf16>)
      outs(%d : memref<8192x4096xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @fits(%a: memref<4096x128xbf16>, %b: memref<4096x128xbf16>,
                %d: memref<4096x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<4096x128xbf16>, memref<4096x128xbf16>)
      outs(%d : memref<4096x4096xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}

func.func @long_k(%a: memref<8192x512xbf16>, %b: memref<4096x512xbf16>,
                  %d: memref<8192x4096xbf16> {mepi.alignment = 16 : i64}) {
  mepi.matmul ins(%a, %b : memref<8192x512xbf16>, memref<4096x512xbf16>)
      outs(%d : memref<8192x4096xbf16>)
      attributes {transpose_b, config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>} epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %r = arith.truncf %acc : f32 to bf16
    mepi.yield %r : bf16
  }
  return
}
