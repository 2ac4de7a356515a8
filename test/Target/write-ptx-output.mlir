// mepi-write-ptx writes the assembly text of the module's gpu.binary objects to its output.
// RUN: mepi-opt %s --mepi-write-ptx="output=%t.ptx" -o /dev/null
// RUN: FileCheck %s --input-file=%t.ptx

// CHECK: .version 8.0
// CHECK-NEXT: .target sm_90a
// CHECK-NEXT: .visible .entry k()
module attributes {gpu.container_module} {
  gpu.binary @mepi_kernels [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A.target sm_90a\0A.visible .entry k()\0A{\0A\09ret;\0A}\0A">]
}
