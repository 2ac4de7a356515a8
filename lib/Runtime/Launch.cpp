// Module load and kernel launch through the driver API.
#include "Runtime/Launch.h"

#include <utility>

using namespace mepi::runtime;

llvm::Expected<LoadedKernel> LoadedKernel::load(const CompiledKernel &kernel) {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver)
    return driver.takeError();
  LoadedKernel loaded;
  if (llvm::Error e = checkCuda(driver->cuModuleLoadData(&loaded.module, kernel.cubin.data()),
                                "cuModuleLoadData"))
    return std::move(e);
  if (llvm::Error e = checkCuda(driver->cuModuleGetFunction(&loaded.function, loaded.module,
                                                            kernel.kernelName.c_str()),
                                "cuModuleGetFunction(" + kernel.kernelName + ")"))
    return std::move(e);
  return std::move(loaded);
}

LoadedKernel::LoadedKernel(LoadedKernel &&other) noexcept
    : module(std::exchange(other.module, nullptr)),
      function(std::exchange(other.function, nullptr)) {}

LoadedKernel &LoadedKernel::operator=(LoadedKernel &&other) noexcept {
  std::swap(module, other.module);
  std::swap(function, other.function);
  return *this;
}

LoadedKernel::~LoadedKernel() {
  if (!module)
    return;
  if (auto driver = cudaDriver())
    driver->cuModuleUnload(module);
  else
    llvm::consumeError(driver.takeError());
}

namespace {
/// Kernel parameters in the order and form of the generated kernel's signature. Every memref is
/// MLIR's expanded descriptor: allocated and aligned pointers, offset, sizes, strides.
class ParameterPack {
public:
  void addMemref(CUdeviceptr ptr, const OperandLayout &layout) {
    addWord(static_cast<int64_t>(ptr));
    addWord(static_cast<int64_t>(ptr));
    addWord(0);
    for (int64_t size : layout.shape)
      addWord(size);
    std::vector<int64_t> strides =
        layout.strides.empty() ? rowMajorStrides(layout.shape) : layout.strides;
    for (int64_t stride : strides)
      addWord(stride);
  }
  void addFloat(float value) {
    floats.push_back(value);
    slots.push_back({true, floats.size() - 1});
  }
  /// Pointers to each parameter, valid while this pack lives and is not modified.
  std::vector<void *> pointers() {
    std::vector<void *> result;
    for (auto [isFloat, index] : slots)
      result.push_back(isFloat ? static_cast<void *>(&floats[index])
                               : static_cast<void *>(&words[index]));
    return result;
  }

private:
  void addWord(int64_t value) {
    words.push_back(value);
    slots.push_back({false, words.size() - 1});
  }
  std::vector<int64_t> words;
  std::vector<float> floats;
  std::vector<std::pair<bool, size_t>> slots;
};
} // namespace

llvm::Error LoadedKernel::launch(const CompiledKernel &kernel, const MatmulProblem &problem,
                                 const LaunchArguments &args, CUstream stream) const {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver)
    return driver.takeError();
  const std::vector<int64_t> &dShape = problem.d.shape;
  int64_t m = dShape[dShape.size() - 2], n = dShape.back();
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < dShape.size(); ++i)
    batch *= dShape[i];
  if (m == 0 || n == 0 || batch == 0)
    return llvm::Error::success(); // nothing to write

  ParameterPack pack;
  pack.addMemref(args.a, problem.a);
  pack.addMemref(args.b, problem.b);
  pack.addFloat(args.alpha);
  if (problem.c) {
    pack.addMemref(args.c, *problem.c);
    pack.addFloat(args.beta);
  }
  if (problem.bias)
    pack.addMemref(args.bias, *problem.bias);
  pack.addMemref(args.d, problem.d);
  std::vector<void *> params = pack.pointers();

  auto [tileM, tileN] = kernel.tile;
  unsigned gridX = static_cast<unsigned>((n + tileN - 1) / tileN);
  unsigned gridY = static_cast<unsigned>((m + tileM - 1) / tileM);
  return checkCuda(driver->cuLaunchKernel(function, gridX, gridY, static_cast<unsigned>(batch),
                                          static_cast<unsigned>(tileN),
                                          static_cast<unsigned>(tileM), 1, 0, stream,
                                          params.data(), nullptr),
                   "cuLaunchKernel(" + kernel.kernelName + ")");
}
