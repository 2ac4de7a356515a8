// Assembling a distributed matmul's aux outputs from its final GEMMs' (DistAux.h).
#include "Distributed/DistAux.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/MathExtras.h"

using namespace mepi;
using namespace mepi::dist::detail;

void DistAux::reset(const runtime::CudaDriver &driver, int64_t r, int64_t c, int finals) {
  release(driver);
  rows = r;
  cols = c;
  finalGemms = finals;
}

/// The layout of a single GPU's output for a D of rows x cols: the ReLU mask is bytes of 8
/// rows, ceil(rows / 8) rounded up to 16 a column; other outputs (the GELU input) hold rows
/// rounded up to 8 a column.
void DistAux::allocate(const runtime::CudaDriver &driver, const std::string &key, DType dtype,
                       int device) {
  if (finalGemms <= 1)
    return; // the one final GEMM's outputs are returned as they are
  bool mask = dtype == DType::UInt8;
  int64_t height = mask ? llvm::alignTo(llvm::divideCeil(rows, 8), 16) : llvm::alignTo(rows, 8);
  size_t bytes = height * cols * runtime::elementTypeBytes(api::elementType(dtype));
  CUdeviceptr &memory = owned[key];
  api::check(runtime::checkCuda(driver.cuMemAlloc(&memory, bytes), "cuMemAlloc(aux output)"),
             "mepi::dist::Matmul::plan");
  if (mask)
    api::check(runtime::checkCuda(driver.cuMemsetD8(memory, 0, bytes), "cuMemsetD8(aux output)"),
               "mepi::dist::Matmul::plan");
  Tensor t;
  t.data = reinterpret_cast<void *>(memory);
  t.device = device;
  t.dtype = dtype;
  t.shape = {height, cols};
  t.strides = {1, height};
  assembled[key] = t;
}

void DistAux::gather(const runtime::CudaDriver &driver, const mepi::Matmul &gemm, int64_t row,
                     int64_t count, CUstream stream) {
  for (const auto &[key, piece] : gemm.auxOutputs()) {
    if (finalGemms == 1) {
      assembled[key] = piece;
      continue;
    }
    auto it = assembled.find(key);
    if (it == assembled.end() || it->second.dtype != piece.dtype)
      api::fail("mepi::dist: internal: no assembled aux output '" + key + "'");
    Tensor &all = it->second;
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

void DistAux::allocateVector(const runtime::CudaDriver &driver, const std::string &key,
                             DType dtype, int device, int64_t length, int64_t mineOffset,
                             int64_t mineSize) {
  vectorKey = key;
  vectorSize = length;
  vectorElement = runtime::elementTypeBytes(api::elementType(dtype));
  CUdeviceptr &memory = owned[key];
  api::check(runtime::checkCuda(driver.cuMemAlloc(&memory, std::max<int64_t>(length, 1) *
                                                               vectorElement),
                                "cuMemAlloc(bias gradient)"),
             "mepi::dist::Matmul::plan");
  vector = memory;
  Tensor t;
  t.data = reinterpret_cast<void *>(memory + mineOffset * vectorElement);
  t.device = device;
  t.dtype = dtype;
  t.shape = {mineSize};
  t.strides = {1};
  assembled[key] = t;
}

void DistAux::clearVector(const runtime::CudaDriver &driver, CUstream stream) const {
  api::check(runtime::checkCuda(driver.cuMemsetD8Async(vector, 0, vectorSize * vectorElement,
                                                       stream),
                                "cuMemsetD8Async(bias gradient)"),
             "mepi::dist::Matmul::execute");
}

void DistAux::gatherVector(const runtime::CudaDriver &driver, const mepi::Matmul &gemm,
                           int64_t offset, CUstream stream) const {
  auto it = gemm.auxOutputs().find(vectorKey);
  if (it == gemm.auxOutputs().end())
    api::fail("mepi::dist: internal: a GEMM without the bias gradient '" + vectorKey + "'");
  const Tensor &piece = it->second;
  size_t bytes = piece.shape.empty() ? 0 : piece.shape[0] * vectorElement;
  if (bytes > 0)
    api::check(runtime::checkCuda(
                   driver.cuMemcpyDtoDAsync(vector + offset * vectorElement,
                                            reinterpret_cast<CUdeviceptr>(piece.data), bytes,
                                            stream),
                   "cuMemcpyDtoDAsync(bias gradient)"),
               "mepi::dist::Matmul::execute");
}

void DistAux::release(const runtime::CudaDriver &driver) {
  for (auto &[key, memory] : owned)
    if (memory)
      driver.cuMemFree(memory);
  owned.clear();
  assembled.clear();
  vectorKey.clear();
  vector = 0;
  vectorSize = 0;
}
