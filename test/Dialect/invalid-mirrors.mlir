// Mirrors (D stored again to each) must have D's type, and D must be 2-D without groups.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @mirror_shape(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>, %d: memref<64x48xbf16>,
                        %m: memref<64x40xbf16>) {
  // expected-error @below {{expected mirror 0 to have d's type 'memref<64x48xbf16>', got 'memref<64x40xbf16>'}}
  mepi.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>)
      outs(%d : memref<64x48xbf16>) mirrors(%m : memref<64x40xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @mirror_layout(%a: memref<64x32xbf16>, %b: memref<32x48xbf16>, %d: memref<64x48xbf16>,
                         %m0: memref<64x48xbf16>, %m1: memref<64x48xbf16, strided<[64, 1]>>) {
  // expected-error @below {{expected mirror 1 to have d's type 'memref<64x48xbf16>', got 'memref<64x48xbf16, strided<[64, 1]>>'}}
  mepi.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x48xbf16>)
      outs(%d : memref<64x48xbf16>)
      mirrors(%m0, %m1 : memref<64x48xbf16>, memref<64x48xbf16, strided<[64, 1]>>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @mirror_batched(%a: memref<3x64x32xbf16>, %b: memref<3x32x48xbf16>,
                          %d: memref<3x64x48xbf16>, %m: memref<3x64x48xbf16>) {
  // expected-error @below {{mirrors take a 2-D d without groups, got d of type 'memref<3x64x48xbf16>'}}
  mepi.matmul ins(%a, %b : memref<3x64x32xbf16>, memref<3x32x48xbf16>)
      outs(%d : memref<3x64x48xbf16>) mirrors(%m : memref<3x64x48xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}

// -----

func.func @mirror_grouped(%a: memref<64x32xbf16>, %b: memref<4x32x48xbf16>, %offs: memref<4xi32>,
                          %d: memref<64x48xbf16>, %m: memref<64x48xbf16>) {
  // expected-error @below {{mirrors take a 2-D d without groups, got d of type 'memref<64x48xbf16>' with groups}}
  mepi.matmul ins(%a, %b : memref<64x32xbf16>, memref<4x32x48xbf16>)
      groups(%offs ends : memref<4xi32>)
      outs(%d : memref<64x48xbf16>) mirrors(%m : memref<64x48xbf16>) epilog {
  ^bb0(%acc: f32, %row: index, %col: index, %g: index):
    %t = arith.truncf %acc : f32 to bf16
    mepi.yield %t : bf16
  }
  return
}
