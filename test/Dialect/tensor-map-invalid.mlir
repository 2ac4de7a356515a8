// mepi.tensor_map verifies that TMA can describe its source.
// RUN: mepi-opt %s --split-input-file --verify-diagnostics

func.func @pitch(%a: memref<64x100xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{expected a row pitch that is a multiple of 16 bytes, got 200}}
  %m = mepi.tensor_map %a box [64, 64] swizzle 128 : memref<64x100xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @box(%a: memref<64x128xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{expected a box of 2 sizes in [1, 256]}}
  %m = mepi.tensor_map %a box [64, 512] swizzle 128 : memref<64x128xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @swizzle_span(%a: memref<64x128xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{expected the box's inner extent (256 bytes) within the 128-byte swizzle}}
  %m = mepi.tensor_map %a box [128, 64] swizzle 128 : memref<64x128xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @column_major(%a: memref<64x128xbf16, strided<[1, 64]>>) -> !llvm.ptr {
  // expected-error @+1 {{expected a source with unit stride in its last dimension}}
  %m = mepi.tensor_map %a box [64, 64] swizzle 128 : memref<64x128xbf16, strided<[1, 64]>> -> !llvm.ptr
  return %m : !llvm.ptr
}

// -----

func.func @rank(%a: memref<2x64x128xbf16>) -> !llvm.ptr {
  // expected-error @+1 {{expected a 2-D source, got rank 3}}
  %m = mepi.tensor_map %a box [64, 64] swizzle 128 : memref<2x64x128xbf16> -> !llvm.ptr
  return %m : !llvm.ptr
}
