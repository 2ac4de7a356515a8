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

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, tma = false>, scheduler = <split_k, splits = 4>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, tma = false>, scheduler = <split_k, splits = 4>>} : () -> ()

// -----

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 5, pingpong = true>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [64, 256, 64], mainloop = <stages = 5, pingpong = true>>} : () -> ()

// -----

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = tma>>} : () -> ()

// -----

// A cluster along N (the blocks share A's tile) prints its multicast operand; B's is the default.
// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>, epilogue = <store = tma>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [64, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>, epilogue = <store = tma>>} : () -> ()
// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, cluster = 2>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = b>>} : () -> ()

// -----

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4>, epilogue = <store = registers>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 4>, epilogue = <store = registers>>} : () -> ()

// -----

// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <stream_k>, epilogue = <store = tma>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, scheduler = <stream_k>, epilogue = <store = tma>>} : () -> ()

// One TMA store buffer a consumer: printed where it is not the default two.
// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma, buffers = 1>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [256, 128, 128], mainloop = <stages = 4, promote = 1>, epilogue = <store = tma, buffers = 1>>} : () -> ()
// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma, buffers = 2>>} : () -> ()

// -----

// The promoted accumulator policy prints after the other settings.
// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = <stages = 6, promote = 4>, epilogue = <store = tma>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = <stages = 6, promote = 4>, epilogue = <store = tma>>} : () -> ()

// -----

// Parts left at their defaults are not printed, and a part may be written whole.
// CHECK: "test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>>}
"test.op"() {config = #mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = #mepi.mainloop<stages = 4, tma = true>, scheduler = <data_parallel>, epilogue = <store = staged>>} : () -> ()

// -----

// CHECK: "test.op"() {part = #mepi.scheduler<split_k, splits = 3>}
"test.op"() {part = #mepi.scheduler<split_k, splits = 3>} : () -> ()
