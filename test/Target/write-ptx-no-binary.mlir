// mepi-write-ptx fails on a module whose kernels were not compiled to PTX yet.
// RUN: not mepi-opt %s --mepi-write-ptx 2>&1 | FileCheck %s

// CHECK: error: expected gpu.binary objects in PTX form (run gpu-module-to-binary{format=isa})
module attributes {gpu.container_module} {
  gpu.module @mepi_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
