// Staged operands: padded copies and split parts (see StagedOperand.h).
#include "Runtime/StagedOperand.h"

#include <array>
#include <utility>

using namespace mepi::runtime;

namespace {
size_t bytesOf(const OperandLayout &layout) {
  // Row-major with padded rows: the outermost dimension's extent covers everything.
  return size_t(layout.shape[0] * layout.strides[0]) * elementTypeBytes(layout.type);
}

/// The pre-pass's parameters in the kernel ABI (each memref an expanded descriptor: allocated
/// and aligned pointer, offset, sizes, strides): source and copy as rank 3, then with MX
/// scales their 1-D bytes (SplitOperand.cpp).
std::vector<int64_t> splitParameters(const SplitPlan &plan, CUdeviceptr source,
                                     CUdeviceptr split, CUdeviceptr scales) {
  const std::vector<int64_t> &shape = plan.source.shape, &strides = plan.source.strides;
  size_t r = shape.size();
  int64_t width = plan.parts * plan.paddedK;
  auto src = static_cast<int64_t>(source), dst = static_cast<int64_t>(split);
  std::vector<int64_t> words = {src, src, 0, plan.batch, shape[r - 2], shape[r - 1],
                                plan.batchStride, strides[r - 2], strides[r - 1],
                                dst, dst, 0, plan.batch, plan.rows, width, plan.rows * width,
                                width, 1};
  if (plan.mxScaleBytes) {
    auto sc = static_cast<int64_t>(scales);
    words.insert(words.end(), {sc, sc, 0, plan.mxScaleBytes, 1});
  }
  return words;
}
} // namespace

auto StagedOperand::padded(const OperandLayout &source, const OperandLayout &staged,
                           llvm::StringRef arch) -> llvm::Expected<StagedOperand> {
  RealignCopy realign{elementTypeBytes(source.type), source.shape[0], source.shape[1],
                      source.strides[0], staged.strides[0]};
  // The kernel counts chunks in 32 bits.
  if (realign.chunks() >= (int64_t(1) << 31))
    return llvm::createStringError("an operand of " + std::to_string(realign.chunks()) +
                                   " 16-byte chunks is too large to stage (at most 2^31)");
  llvm::Expected<std::shared_ptr<const std::vector<char>>> cubin =
      realignKernelCubin(realign.elementBytes, arch);
  if (!cubin)
    return cubin.takeError();
  StagedOperand operand;
  operand.source = source;
  operand.staged = staged;
  operand.realign = realign;
  operand.cubin = std::move(*cubin);
  return operand;
}

auto StagedOperand::split(const SplitPlan &plan, llvm::StringRef arch)
    -> llvm::Expected<StagedOperand> {
  llvm::Expected<std::shared_ptr<const std::vector<char>>> cubin = splitKernelCubin(plan, arch);
  if (!cubin)
    return cubin.takeError();
  StagedOperand operand;
  operand.source = plan.source;
  operand.staged = plan.split;
  operand.plan = plan;
  operand.cubin = std::move(*cubin);
  return operand;
}

StagedOperand StagedOperand::copyForAnotherStream() const {
  StagedOperand operand;
  operand.source = source;
  operand.staged = staged;
  operand.plan = plan;
  operand.realign = realign;
  operand.cubin = cubin;
  return operand;
}

StagedOperand::StagedOperand(StagedOperand &&other) noexcept { *this = std::move(other); }

StagedOperand &StagedOperand::operator=(StagedOperand &&other) noexcept {
  std::swap(source, other.source);
  std::swap(staged, other.staged);
  std::swap(plan, other.plan);
  std::swap(realign, other.realign);
  std::swap(cubin, other.cubin);
  std::swap(module, other.module);
  std::swap(function, other.function);
  std::swap(copy, other.copy);
  return *this;
}

StagedOperand::~StagedOperand() { release(); }

void StagedOperand::release() {
  if (!module && !copy)
    return;
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver) {
    llvm::consumeError(driver.takeError());
    return;
  }
  if (copy)
    driver->cuMemFree(copy);
  if (module)
    driver->cuModuleUnload(module);
  copy = 0;
  module = nullptr;
}

llvm::Error StagedOperand::prepare(const CudaDriver &driver, llvm::StringRef name) {
  if (!copy)
    if (llvm::Error e = checkCuda(driver.cuMemAlloc(&copy, bytesOf(staged)),
                                  ("cuMemAlloc(staged " + name + ")").str()))
      return e;
  if (cubin && !module) {
    if (llvm::Error e = checkCuda(driver.cuModuleLoadData(&module, cubin->data()),
                                  ("cuModuleLoadData(staged " + name + ")").str()))
      return e;
    const char *kernel = plan ? plan->kernelName() : realignKernelName;
    if (llvm::Error e = checkCuda(driver.cuModuleGetFunction(&function, module, kernel),
                                  ("cuModuleGetFunction(staged " + name + ")").str()))
      return e;
  }
  return llvm::Error::success();
}

CUresult StagedOperand::refresh(const CudaDriver &driver, CUdeviceptr from, CUdeviceptr scales,
                                CUstream stream) const {
  if (realign && realign->chunks() == 0)
    return CUDA_SUCCESS;
  std::vector<int64_t> words = plan ? splitParameters(*plan, from, copy, scales)
                                    : realign->parameters(from, copy);
  std::vector<void *> params(words.size());
  for (size_t i = 0; i < words.size(); ++i)
    params[i] = &words[i];
  std::array<unsigned, 3> grid =
      plan ? plan->grid() : std::array<unsigned, 3>{realign->grid(), 1, 1};
  std::array<unsigned, 3> block =
      plan ? SplitPlan::block : std::array<unsigned, 3>{RealignCopy::block, 1, 1};
  return driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1],
                               block[2], 0, stream, params.data(), nullptr);
}
