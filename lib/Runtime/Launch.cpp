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

void PreparedLaunch::addWord(int64_t value) {
  words.push_back(value);
  slots.push_back({false, words.size() - 1});
}

void PreparedLaunch::addMemref(CUdeviceptr ptr, const OperandLayout &layout) {
  addWord(static_cast<int64_t>(ptr)); // allocated pointer
  addWord(static_cast<int64_t>(ptr)); // aligned pointer
  addWord(0);                         // offset
  for (int64_t size : layout.shape)
    addWord(size);
  std::vector<int64_t> strides =
      layout.strides.empty() ? rowMajorStrides(layout.shape) : layout.strides;
  for (int64_t stride : strides)
    addWord(stride);
}

void PreparedLaunch::addFloat(float value) {
  floats.push_back(value);
  slots.push_back({true, floats.size() - 1});
}

PreparedLaunch::PreparedLaunch(CUfunction function, const CompiledKernel &kernel,
                               const MatmulProblem &problem, const LaunchArguments &args)
    : function(function) {
  addMemref(args.a, problem.a);
  addMemref(args.b, problem.b);
  addFloat(args.alpha);
  if (problem.c) {
    addMemref(args.c, *problem.c);
    addFloat(args.beta);
  }
  if (problem.bias)
    addMemref(args.bias, *problem.bias);
  for (size_t i = 0; i < problem.userInputs.size(); ++i)
    addMemref(i < args.userInputs.size() ? args.userInputs[i] : 0, problem.userInputs[i].layout);
  addMemref(args.d, problem.d);
  // Addresses only now: the vectors no longer grow.
  for (auto [isFloat, index] : slots)
    params.push_back(isFloat ? static_cast<void *>(&floats[index])
                             : static_cast<void *>(&words[index]));

  const std::vector<int64_t> &dShape = problem.d.shape;
  int64_t m = dShape[dShape.size() - 2], n = dShape.back();
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < dShape.size(); ++i)
    batch *= dShape[i];
  auto [tileM, tileN] = kernel.tile;
  grid[0] = static_cast<unsigned>((n + tileN - 1) / tileN);
  grid[1] = static_cast<unsigned>((m + tileM - 1) / tileM);
  grid[2] = static_cast<unsigned>(batch);
  block[0] = static_cast<unsigned>(tileN);
  block[1] = static_cast<unsigned>(tileM);
}

CUresult PreparedLaunch::launch(const CudaDriver &driver, CUstream stream) const {
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return CUDA_SUCCESS; // an empty output: nothing to write
  return driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                               0, stream, const_cast<void **>(params.data()), nullptr);
}

llvm::Error LoadedKernel::launch(const CompiledKernel &kernel, const MatmulProblem &problem,
                                 const LaunchArguments &args, CUstream stream) const {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver)
    return driver.takeError();
  PreparedLaunch prepared(function, kernel, problem, args);
  return checkCuda(prepared.launch(*driver, stream), "cuLaunchKernel(" + kernel.kernelName + ")");
}
