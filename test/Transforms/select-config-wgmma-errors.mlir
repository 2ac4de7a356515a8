// Forcing the wgmma family on a problem it cannot run is an error, as is an unknown family.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics --mepi-select-kernel-config="strategy=wgmma"
// RUN: not mepi-opt %s --mepi-select-kernel-config="strategy=tensor" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: expected strategy simt or wgmma, got 'tensor'

func.func @f32(%a: memref<256x256xf32> {mepi.alignment = 16 : i64},
               %b: memref<256x256xf32> {mepi.alignment = 16 : i64}, %d: memref<256x256xf32>) {
  // f32 B given as [K, N]: wgmma reads 32-bit operands K-major only.
  // expected-error @+1 {{cannot use the wgmma family: it needs 16-bit A and B (or f32 or an fp8 pair, K-major and TMA-addressable, strict f32 unbatched) with contiguous rows and static shapes}}
  mepi.matmul ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%d : memref<256x256xf32>)
      epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    mepi.yield %acc : f32
  }
  return
}
