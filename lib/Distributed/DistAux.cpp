// Assembling a distributed matmul's aux outputs from its final GEMMs' (DistAux.h).
#include "Distributed/DistAux.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/MathExtras.h"

using namespace mepi;
using namespace mepi::dist::detail;

static size_t elementBytes(DType t) {
  return runtime::elementTypeBytes(api::elementType(t));
}

void DistAux::reset(int64_t r, int64_t c, int finals, bool replicatedD) {
  rows = r;
  cols = c;
  finalGemms = finals;
  replicated = replicatedD;
  declared.clear();
  shared.clear(); // released collectively before (State::release)
}

void DistAux::declare(const std::string &key, DType dtype, AuxLayout layout) {
  declared.push_back({key, dtype, layout});
}

int64_t DistAux::height(AuxLayout layout) const {
  switch (layout) {
  case AuxLayout::Mask: return llvm::alignTo(llvm::divideCeil(rows, 8), 16);
  case AuxLayout::ColumnMajor: return llvm::alignTo(rows, 8);
  case AuxLayout::RowMajor:
  case AuxLayout::Rows: return rows;
  }
  return rows;
}

size_t DistAux::bytes(const Declared &d) const {
  int64_t width = d.layout == AuxLayout::Rows ? 1 : cols;
  return height(d.layout) * width * elementBytes(d.dtype);
}

/// The layout of a single GPU's output (mepi/Matmul.h).
Tensor DistAux::wholeAt(const Declared &d, CUdeviceptr memory, int device) const {
  Tensor t;
  t.data = reinterpret_cast<void *>(memory);
  t.device = device;
  t.dtype = d.dtype;
  int64_t h = height(d.layout);
  switch (d.layout) {
  case AuxLayout::Mask:
  case AuxLayout::ColumnMajor:
    t.shape = {h, cols};
    t.strides = {1, h};
    break;
  case AuxLayout::RowMajor:
    t.shape = {rows, cols};
    t.strides = {cols, 1};
    break;
  case AuxLayout::Rows:
    t.shape = {rows};
    t.strides = {1};
    break;
  }
  return t;
}

void DistAux::allocateLocal(const runtime::CudaDriver &driver, int device) {
  if (!assembles() || replicated)
    return; // one final GEMM's outputs are returned as they are; replicated ones are shared
  for (const Declared &d : declared) {
    CUdeviceptr &memory = owned[d.key];
    size_t size = std::max<size_t>(bytes(d), 1);
    api::check(runtime::checkCuda(driver.cuMemAlloc(&memory, size), "cuMemAlloc(aux output)"),
               "mepi::dist::Matmul::plan");
    if (d.layout == AuxLayout::Mask)
      api::check(runtime::checkCuda(driver.cuMemsetD8(memory, 0, size),
                                    "cuMemsetD8(aux output)"),
                 "mepi::dist::Matmul::plan");
    assembled[d.key] = wholeAt(d, memory, device);
  }
}

void DistAux::allocateShared(const Group &group) {
  if (!replicated)
    return;
  for (const Declared &d : declared) {
    SymmetricBuffer &buffer = shared[d.key] = SymmetricBuffer::allocate(group, bytes(d));
    assembled[d.key] = wholeAt(d, buffer.local(), group.device);
  }
}

std::vector<SymmetricBuffer *> DistAux::sharedBuffers() {
  std::vector<SymmetricBuffer *> out;
  for (auto &[key, buffer] : shared)
    out.push_back(&buffer);
  return out;
}

const Tensor &DistAux::pieceOf(const mepi::Matmul &gemm, const Declared &d) const {
  auto it = gemm.auxOutputs().find(d.key);
  if (it == gemm.auxOutputs().end() || it->second.dtype != d.dtype)
    api::fail("mepi::dist: internal: a final GEMM without the aux output '" + d.key + "'");
  return it->second;
}

int64_t DistAux::rowOffset(AuxLayout layout, int64_t row) const {
  switch (layout) {
  case AuxLayout::Mask: return row / 8; // blocks start at multiples of 128 rows: whole bytes
  case AuxLayout::ColumnMajor:
  case AuxLayout::Rows: return row;
  case AuxLayout::RowMajor: return row * cols;
  }
  return 0;
}

void DistAux::place(const runtime::CudaDriver &driver, const Declared &d, const Tensor &piece,
                    int64_t row, int64_t count, CUdeviceptr base, CUstream stream) const {
  size_t element = elementBytes(d.dtype);
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = reinterpret_cast<CUdeviceptr>(piece.data);
  c.dstDevice = base + rowOffset(d.layout, row) * element;
  int64_t h = height(d.layout);
  switch (d.layout) {
  case AuxLayout::Mask:
  case AuxLayout::ColumnMajor: { // column j of the piece lands at row `row` of column j
    bool mask = d.layout == AuxLayout::Mask;
    c.srcPitch = piece.strides[1] * element;
    c.dstPitch = h * element;
    c.WidthInBytes = (mask ? llvm::divideCeil(count, 8) : count) * element;
    c.Height = cols;
    break;
  }
  case AuxLayout::RowMajor: // rows of the piece are rows `row`... of the whole
    c.srcPitch = piece.strides.empty() ? cols * element : piece.strides[0] * element;
    c.dstPitch = cols * element;
    c.WidthInBytes = cols * element;
    c.Height = count;
    break;
  case AuxLayout::Rows:
    c.srcPitch = c.dstPitch = c.WidthInBytes = count * element;
    c.Height = 1;
    break;
  }
  if (c.WidthInBytes > 0 && c.Height > 0)
    api::check(runtime::checkCuda(driver.cuMemcpy2DAsync(&c, stream), "cuMemcpy2DAsync(aux)"),
               "mepi::dist::Matmul::execute");
}

int64_t DistAux::leadingDimension() const {
  if (!assembles())
    return 0;
  for (const Declared &d : declared)
    if (d.layout == AuxLayout::Mask || d.layout == AuxLayout::ColumnMajor)
      return height(d.layout) * (d.layout == AuxLayout::Mask ? 8 : 1);
  return 0;
}

Tensor DistAux::block(const Declared &d, int64_t row, int64_t count) const {
  Tensor t = assembled.at(d.key);
  t.data = static_cast<char *>(t.data) + rowOffset(d.layout, row) * elementBytes(d.dtype);
  t.shape[0] = d.layout == AuxLayout::Mask          ? llvm::alignTo(llvm::divideCeil(count, 8), 16)
               : d.layout == AuxLayout::ColumnMajor ? llvm::alignTo(count, 8)
                                                    : count;
  return t;
}

void DistAux::writeInPlace(mepi::Matmul &gemm, int64_t row, int64_t count) const {
  if (!assembles())
    return;
  for (const Declared &d : declared)
    gemm.setAuxOutput(d.key, block(d, row, count));
}

void DistAux::gather(const mepi::Matmul &gemm) {
  if (assembles())
    return; // the GEMMs wrote in place
  for (const Declared &d : declared)
    assembled[d.key] = pieceOf(gemm, d);
}

void DistAux::pushTo(const runtime::CudaDriver &driver, const mepi::Matmul &gemm, int64_t row,
                     int64_t count, int peer, CUstream stream) const {
  for (const Declared &d : declared)
    place(driver, d, pieceOf(gemm, d), row, count, shared.at(d.key).on(peer), stream);
}

void DistAux::allocateVector(const runtime::CudaDriver &driver, const std::string &key,
                             DType dtype, int device, int64_t length, int64_t mineOffset,
                             int64_t mineSize) {
  vectorKey = key;
  vectorSize = length;
  vectorElement = elementBytes(dtype);
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
