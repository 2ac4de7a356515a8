// The kernel configuration attribute parses, prints and verifies its tile.
// RUN: mepi-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics | FileCheck %s

// CHECK: "test.op"() {config = #mepi.kernel_config<simt, tile = [32, 8, 1]>}
"test.op"() {config = #mepi.kernel_config<simt, tile = [32, 8, 1]>} : () -> ()

// -----

// expected-error @below {{expected positive tile sizes, got [0, 16, 1]}}
"test.op"() {config = #mepi.kernel_config<simt, tile = [0, 16, 1]>} : () -> ()

// -----

// expected-error @below {{expected at most 1024 threads per simt block, got 2048}}
"test.op"() {config = #mepi.kernel_config<simt, tile = [64, 32, 1]>} : () -> ()

// -----

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 6, splits = 4, tma = false>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 6, splits = 4, tma = false>} : () -> ()

// -----

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], stages = 5, pingpong = true>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], stages = 5, pingpong = true>} : () -> ()

// -----

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4, cluster = 2, store = tma>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4, cluster = 2, store = tma>} : () -> ()

// -----

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 4, store = registers>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 4, store = registers>} : () -> ()

// -----

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4, cluster = 2, store = tma, streamk = true>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4, cluster = 2, store = tma, streamk = true>} : () -> ()

// The promoted accumulator policy prints after the other settings.
// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 32], stages = 6, store = tma, promote = 4>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 32], stages = 6, promote = 4, store = tma>} : () -> ()
