// Assembling a distributed matmul's aux outputs from its final GEMMs' (DistAux.h).
#include "Distributed/DistAux.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/MathExtras.h"

using namespace mepi;
using namespace mepi::dist::detail;

void DistAux::reset(int64_t r, int64_t c, int finals) {
  rows = r;
  cols = c;
  finalGemms = finals;
  assembled.clear();
}

/// The output for `key` over all of this rank's D, in the layout of `piece` (one final GEMM's):
/// the ReLU mask is bytes of 8 rows, ceil(rows / 8) rounded up to 16 a column; other outputs
/// (the GELU input) hold rows rounded up to 8 a column. Allocated by a plan's first execute
/// (a new plan's frees the last one's).
Tensor &DistAux::output(const runtime::CudaDriver &driver, const std::string &key,
                        const Tensor &piece) {
  auto it = assembled.find(key);
  if (it != assembled.end())
    return it->second;
  bool mask = piece.dtype == DType::UInt8;
  int64_t height = mask ? llvm::alignTo(llvm::divideCeil(rows, 8), 16) : llvm::alignTo(rows, 8);
  size_t bytes = height * cols * runtime::elementTypeBytes(api::elementType(piece.dtype));
  CUdeviceptr &memory = owned[key];
  if (memory) // a buffer of an earlier plan
    driver.cuMemFree(memory), memory = 0;
  api::check(runtime::checkCuda(driver.cuMemAlloc(&memory, bytes), "cuMemAlloc(aux output)"),
             "mepi::dist::Matmul::execute");
  Tensor t = piece;
  t.data = reinterpret_cast<void *>(memory);
  t.shape = {height, cols};
  t.strides = {1, height};
  return assembled[key] = t;
}

void DistAux::gather(const runtime::CudaDriver &driver, const mepi::Matmul &gemm, int64_t row,
                     int64_t count, CUstream stream) {
  for (const auto &[key, piece] : gemm.auxOutputs()) {
    if (finalGemms == 1) {
      assembled[key] = piece;
      continue;
    }
    Tensor &all = output(driver, key, piece);
    bool mask = piece.dtype == DType::UInt8;
    size_t element = runtime::elementTypeBytes(api::elementType(piece.dtype));
    // Column j of the piece lands at row `row` (byte row / 8) of column j of the whole.
    CUDA_MEMCPY2D c{};
    c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = reinterpret_cast<CUdeviceptr>(piece.data);
    c.srcPitch = piece.strides[1] * element;
    c.dstDevice = reinterpret_cast<CUdeviceptr>(all.data) + (mask ? row / 8 : row) * element;
    c.dstPitch = all.strides[1] * element;
    c.WidthInBytes = (mask ? llvm::divideCeil(count, 8) : count) * element;
    c.Height = cols;
    api::check(runtime::checkCuda(driver.cuMemcpy2DAsync(&c, stream), "cuMemcpy2DAsync(aux)"),
               "mepi::dist::Matmul::execute");
  }
}

void DistAux::release(const runtime::CudaDriver &driver) {
  for (auto &[key, memory] : owned)
    if (memory)
      driver.cuMemFree(memory);
  owned.clear();
  assembled.clear();
}
