// The kernel combining rows of partial reductions (see CombineRows.h).
#include "Runtime/CombineRows.h"

#include "Runtime/Planner.h"

#include <algorithm>
#include <sstream>

using namespace mepi::runtime;

std::vector<int64_t> CombineRows::parameters(uint64_t rows, int64_t g, int64_t w,
                                             uint64_t result) {
  auto in = static_cast<int64_t>(rows), out = static_cast<int64_t>(result);
  return {in, in, 0, g, w, w, 1, out, out, 0, w, 1};
}

std::string mepi::runtime::combineRowsKernelIR(const CombineRows &kind) {
  std::string out = kind.out == ElementType::BF16  ? "bf16"
                    : kind.out == ElementType::F16 ? "f16"
                                                   : "f32";
  std::ostringstream os;
  os << "module attributes {gpu.container_module} {\n"
     << "  gpu.module @mepi_combine {\n"
     << "    gpu.func @" << combineRowsKernelName
     << "(%rows: memref<?x?xf32>, %result: memref<?x" << out << ">)\n"
     << "        kernel attributes {known_block_size = array<i32: " << CombineRows::block
     << ", 1, 1>} {\n"
     << "      %c0 = arith.constant 0 : index\n"
     << "      %c1 = arith.constant 1 : index\n"
     << "      %g = memref.dim %rows, %c0 : memref<?x?xf32>\n"
     << "      %w = memref.dim %rows, %c1 : memref<?x?xf32>\n"
     << "      %tx = gpu.thread_id x\n"
     << "      %bx = gpu.block_id x\n"
     << "      %bd = gpu.block_dim x\n"
     << "      %b0 = arith.muli %bx, %bd : index\n"
     << "      %j = arith.addi %b0, %tx : index\n"
     << "      %inside = arith.cmpi ult, %j, %w : index\n"
     << "      scf.if %inside {\n"
     << "        %first = memref.load %rows[%c0, %j] : memref<?x?xf32>\n"
     << "        %all = scf.for %i = %c1 to %g step %c1 iter_args(%acc = %first) -> (f32) {\n"
     << "          %v = memref.load %rows[%i, %j] : memref<?x?xf32>\n"
     << "          %next = " << (kind.max ? "arith.maximumf" : "arith.addf")
     << " %acc, %v : f32\n"
     << "          scf.yield %next : f32\n"
     << "        }\n";
  if (out == "f32")
    os << "        memref.store %all, %result[%j] : memref<?xf32>\n";
  else
    os << "        %t = arith.truncf %all : f32 to " << out << "\n"
       << "        memref.store %t, %result[%j] : memref<?x" << out << ">\n";
  os << "      }\n"
     << "      gpu.return\n"
     << "    }\n"
     << "  }\n"
     << "}\n";
  return os.str();
}

auto mepi::runtime::combineRowsKernelCubin(const CombineRows &kind, llvm::StringRef arch)
    -> llvm::Expected<std::shared_ptr<const std::vector<char>>> {
  return cachedKernelCubin(combineRowsKernelIR(kind), arch);
}
