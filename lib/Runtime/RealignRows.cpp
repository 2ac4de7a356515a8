// The pre-pass into 16-byte rows (see RealignRows.h).
#include "Runtime/RealignRows.h"

#include "Runtime/Planner.h"

#include <algorithm>
#include <sstream>

using namespace mepi::runtime;

namespace {
constexpr int64_t kChunkBytes = 16, kWordBytes = 8;
/// Chunks each thread copies, about, before the grid's threads run out (grid-stride).
constexpr int64_t kChunksPerThread = 4;

/// One 8-byte word of chunk %i: elements [k0 + first, k0 + first + count) of row %r, each
/// shifted to its place (little-endian, as memory holds them), as %acc<w>_<count>.
void writeWord(std::ostringstream &os, int w, int64_t first, int64_t count, unsigned bits,
               const std::string &elt, const std::string &srcType) {
  std::string acc = "%acc" + std::to_string(w) + "_0";
  os << "        " << acc << " = arith.constant 0 : i64\n";
  for (int64_t t = 0; t < count; ++t) {
    std::string s = std::to_string(w) + "_" + std::to_string(t);
    os << "        %kk" << s << " = arith.addi %k0, %c" << first + t << " : index\n"
       << "        %in" << s << " = arith.cmpi ult, %kk" << s << ", %cols : index\n"
       << "        %kc" << s << " = arith.minui %kk" << s << ", %lastCol : index\n"
       << "        %x" << s << " = memref.load %src[%r, %kc" << s << "] : " << srcType << "\n"
       << "        %v" << s << " = arith.select %in" << s << ", %x" << s << ", %zero : " << elt
       << "\n"
       << "        %z" << s << " = arith.extui %v" << s << " : " << elt << " to i64\n"
       << "        %sh" << s << " = arith.constant " << bits * t << " : i64\n"
       << "        %p" << s << " = arith.shli %z" << s << ", %sh" << s << " : i64\n"
       << "        %acc" << w << "_" << t + 1 << " = arith.ori %acc" << s << ", %p" << s
       << " : i64\n";
  }
}
} // namespace

int64_t RealignCopy::chunks() const {
  return rows * stagedPitch * elementBytes / kChunkBytes;
}

unsigned RealignCopy::grid() const {
  int64_t perBlock = int64_t(block) * kChunksPerThread;
  return unsigned(std::max<int64_t>(1, (chunks() + perBlock - 1) / perBlock));
}

std::vector<int64_t> RealignCopy::parameters(uint64_t source, uint64_t staged) const {
  auto src = static_cast<int64_t>(source), dst = static_cast<int64_t>(staged);
  return {src, src, 0, rows, cols, sourcePitch, 1, dst, dst, 0, chunks(), 1};
}

std::string mepi::runtime::realignKernelIR(unsigned elementBytes) {
  unsigned bits = 8 * elementBytes;
  int64_t perChunk = kChunkBytes / elementBytes, perWord = kWordBytes / elementBytes;
  std::string elt = "i" + std::to_string(bits);
  std::string srcType = "memref<?x?x" + elt + ", strided<[?, 1]>>";
  std::ostringstream os;
  os << "module attributes {gpu.container_module} {\n"
     << "  gpu.module @mepi_realign {\n"
     << "    gpu.func @" << realignKernelName << "(%src: " << srcType
     << ", %dst: memref<?xvector<2xi64>>)\n"
     << "        kernel attributes {known_block_size = array<i32: " << RealignCopy::block
     << ", 1, 1>} {\n"
     << "      %zero = arith.constant 0 : " << elt << "\n"
     << "      %e0 = llvm.mlir.constant(0 : i32) : i32\n"
     << "      %e1 = llvm.mlir.constant(1 : i32) : i32\n";
  for (int64_t c = 0; c <= perChunk; ++c)
    os << "      %c" << c << " = arith.constant " << c << " : index\n";
  os << "      %perChunk = arith.constant " << perChunk << " : i32\n"
     << "      %rows = memref.dim %src, %c0 : " << srcType << "\n"
     << "      %cols = memref.dim %src, %c1 : " << srcType << "\n"
     << "      %lastCol = arith.subi %cols, %c1 : index\n"
     << "      %total = memref.dim %dst, %c0 : memref<?xvector<2xi64>>\n"
     // Chunks per row in i32: the host keeps the count of chunks under 2^31.
     << "      %totalI = arith.index_castui %total : index to i32\n"
     << "      %rowsI = arith.index_castui %rows : index to i32\n"
     << "      %perRow = arith.divui %totalI, %rowsI : i32\n"
     << "      %tx = gpu.thread_id x\n"
     << "      %bx = gpu.block_id x\n"
     << "      %bd = gpu.block_dim x\n"
     << "      %gd = gpu.grid_dim x\n"
     << "      %b0 = arith.muli %bx, %bd : index\n"
     << "      %first = arith.addi %b0, %tx : index\n"
     << "      %step = arith.muli %gd, %bd : index\n"
     << "      scf.for %i = %first to %total step %step {\n"
     << "        %iI = arith.index_castui %i : index to i32\n"
     << "        %rI = arith.divui %iI, %perRow : i32\n"
     << "        %cI = arith.remui %iI, %perRow : i32\n"
     << "        %k0I = arith.muli %cI, %perChunk : i32\n"
     << "        %r = arith.index_castui %rI : i32 to index\n"
     << "        %k0 = arith.index_castui %k0I : i32 to index\n";
  for (int w = 0; w < 2; ++w)
    writeWord(os, w, w * perWord, perWord, bits, elt, srcType);
  // One 16-byte store (a vector's alignment is its size).
  os << "        %u = llvm.mlir.undef : vector<2xi64>\n"
     << "        %h = llvm.insertelement %acc0_" << perWord << ", %u[%e0 : i32] : vector<2xi64>\n"
     << "        %chunk = llvm.insertelement %acc1_" << perWord
     << ", %h[%e1 : i32] : vector<2xi64>\n"
     << "        memref.store %chunk, %dst[%i] : memref<?xvector<2xi64>>\n"
     << "      }\n"
     << "      gpu.return\n"
     << "    }\n"
     << "  }\n"
     << "}\n";
  return os.str();
}

auto mepi::runtime::realignKernelCubin(unsigned elementBytes, llvm::StringRef arch)
    -> llvm::Expected<std::shared_ptr<const std::vector<char>>> {
  return cachedKernelCubin(realignKernelIR(elementBytes), arch);
}
