// Module load and kernel launch through the driver API.
#include "Runtime/Launch.h"
#include "Runtime/OperandSumsPass.h"
#include "mepi/Sm90/L2Sectors.h"
#include "mepi/Sm90/PersistentGrid.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

using namespace mepi::runtime;

/// The kernel's module: its cubin, or its PTX compiled by the driver as one whole program
/// (CompiledKernel::loadFromPtx says when), with the compiler's error log in the error.
/// MEPI_LOAD_FROM=cubin loads nvJitLink's cubin always: for comparing the two, and a way back
/// should a driver's JIT fail on a kernel.
static llvm::Error loadModule(const CudaDriver &driver, const CompiledKernel &kernel,
                              CUmodule &module) {
  static const bool cubinOnly = [] {
    const char *from = std::getenv("MEPI_LOAD_FROM");
    return from && std::string(from) == "cubin";
  }();
  if (!kernel.loadFromPtx || kernel.ptx.empty() || cubinOnly)
    return checkCuda(driver.cuModuleLoadData(&module, kernel.cubin.data()), "cuModuleLoadData");
  std::string log(16 * 1024, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(), reinterpret_cast<void *>(log.size())};
  llvm::Error error = checkCuda(
      driver.cuModuleLoadDataEx(&module, kernel.ptx.c_str(), 2, options, values),
      "cuModuleLoadDataEx(" + kernel.kernelName + " from PTX)");
  log.resize(std::strlen(log.c_str()));
  if (!error || log.empty())
    return error;
  // The compiler's log joins the message; the CUDA code (the API's status) stays.
  std::error_code code;
  std::string message;
  llvm::handleAllErrors(std::move(error), [&](const llvm::ErrorInfoBase &e) {
    code = e.convertToErrorCode();
    message = e.message();
  });
  return llvm::createStringError(code, message + "\n" + log);
}

llvm::Expected<LoadedKernel> LoadedKernel::load(const CompiledKernel &kernel) {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver)
    return driver.takeError();
  LoadedKernel loaded;
  if (llvm::Error e = loadModule(*driver, kernel, loaded.module))
    return std::move(e);
  if (llvm::Error e = checkCuda(driver->cuModuleGetFunction(&loaded.function, loaded.module,
                                                            kernel.kernelName.c_str()),
                                "cuModuleGetFunction(" + kernel.kernelName + ")"))
    return std::move(e);
  // Above 48 KiB, dynamic shared memory needs the kernel's consent.
  if (kernel.sharedBytes > 48 * 1024)
    if (llvm::Error e = checkCuda(
            driver->cuFuncSetAttribute(loaded.function,
                                       CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       static_cast<int>(kernel.sharedBytes)),
            "cuFuncSetAttribute(max dynamic shared memory)"))
      return std::move(e);
  return std::move(loaded);
}

llvm::Expected<std::shared_ptr<const LoadedKernel>>
LoadedKernel::shared(std::shared_ptr<const CompiledKernel> kernel) {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver)
    return driver.takeError();
  CUcontext context = nullptr;
  if (llvm::Error e = checkCuda(driver->cuCtxGetCurrent(&context), "cuCtxGetCurrent"))
    return std::move(e);
  using Key = std::pair<const CompiledKernel *, CUcontext>;
  static std::mutex mutex;
  static std::map<Key, std::weak_ptr<const LoadedKernel>> modules;
  std::lock_guard<std::mutex> lock(mutex);
  Key key{kernel.get(), context};
  if (auto it = modules.find(key); it != modules.end())
    if (std::shared_ptr<const LoadedKernel> live = it->second.lock())
      return live;
  llvm::Expected<LoadedKernel> loaded = load(*kernel);
  if (!loaded)
    return loaded.takeError();
  auto result = std::make_shared<LoadedKernel>(std::move(*loaded));
  result->compiled = std::move(kernel);
  for (auto it = modules.begin(); it != modules.end();)
    it = it->second.expired() ? modules.erase(it) : std::next(it);
  modules[key] = result;
  return std::shared_ptr<const LoadedKernel>(std::move(result));
}

LoadedKernel::LoadedKernel(LoadedKernel &&other) noexcept
    : module(std::exchange(other.module, nullptr)),
      function(std::exchange(other.function, nullptr)),
      compiled(std::move(other.compiled)) {}

LoadedKernel &LoadedKernel::operator=(LoadedKernel &&other) noexcept {
  std::swap(module, other.module);
  std::swap(function, other.function);
  std::swap(compiled, other.compiled);
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
  slots.push_back({Slot::Word, words.size() - 1});
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
  slots.push_back({Slot::Float, floats.size() - 1});
}

/// How much TMA's reads pull into L2 around each line they miss: 256 bytes, unless the rows
/// do not start on L2 sectors (L2Sectors.h: an 8-bit operand of K = 16 mod 32, a 16-bit one of
/// K = 8 mod 16); then 128. Pulling 256 bytes around each of their ~4x requests took the
/// misaligned problem from 0.82 of cuBLASLt to 0.65 (H100, bench/NOTES.md). 256 bytes
/// measured better for decode shapes (16 x 14336 x 4096 bf16: 0.93 against 0.87 with 128).
static CUtensorMapL2promotion l2Promotion(cuuint64_t rowPitchBytes) {
  return mlir::mepi::sm90::rowsStartOnSectors(static_cast<int64_t>(rowPitchBytes))
             ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
             : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
}

llvm::Error PreparedLaunch::addTensorMap(const TensorMapSpec &spec, CUdeviceptr ptr,
                                         const OperandLayout &layout) {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver)
    return driver.takeError();
  // 8-bit floats travel as bytes: TMA copies them without reading them.
  CUtensorMapDataType type = layout.type == ElementType::BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                             : layout.type == ElementType::F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                             : elementTypeBytes(layout.type) == 1
                                 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  CUtensorMapSwizzle swizzle = spec.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                               : spec.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                               : spec.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                    : CU_TENSOR_MAP_SWIZZLE_NONE;
  std::vector<int64_t> strides =
      layout.strides.empty() ? rowMajorStrides(layout.shape) : layout.strides;
  // Innermost dimension first: the matrix's columns and rows, then its batch dimensions, one
  // element of them per box. Reads outside the operand fill zeros (the residue tiles).
  size_t rank = layout.shape.size();
  if (rank < 2 || rank > 5)
    return llvm::createStringError("a TMA descriptor takes 2 to 5 dimensions, argument " +
                                   std::to_string(spec.argument) + " has " +
                                   std::to_string(rank));
  cuuint64_t dims[5], byteStrides[4];
  cuuint32_t box[5], elementStrides[5];
  int64_t bytes = elementTypeBytes(layout.type);
  for (size_t i = 0; i < rank; ++i) {
    size_t dim = rank - 1 - i;
    dims[i] = static_cast<cuuint64_t>(layout.shape[dim]);
    box[i] = i < 2 ? static_cast<cuuint32_t>(spec.box[i]) : 1;
    elementStrides[i] = 1;
    if (i == 0)
      continue;
    // A broadcast dimension (of one element) is never stepped: any stride TMA accepts will do.
    int64_t stride = strides[dim] * bytes;
    if (layout.shape[dim] == 1)
      stride = (static_cast<int64_t>(i == 1 ? dims[0] * bytes
                                            : byteStrides[i - 2] * dims[i - 1]) + 15) / 16 * 16;
    byteStrides[i - 1] = static_cast<cuuint64_t>(stride);
  }
  CUtensorMap map;
  CUresult r = driver->cuTensorMapEncodeTiled(
      &map, type, static_cast<cuuint32_t>(rank), reinterpret_cast<void *>(ptr), dims,
      byteStrides, box, elementStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2Promotion(byteStrides[0]),
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (llvm::Error e = checkCuda(r, "cuTensorMapEncodeTiled(argument " +
                                       std::to_string(spec.argument) + ")"))
    return e;
  tensorMaps.push_back(map);
  slots.push_back({Slot::TensorMap, tensorMaps.size() - 1});
  return llvm::Error::success();
}

/// CUDA's grid limits: 2^31 - 1 blocks along x, 65535 along y and z.
static constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1, kMaxGridYZ = 65535;

/// A launch of `grid` blocks of `block` threads and `sharedBytes` of dynamic shared memory on
/// `stream`, with no attributes yet.
static CUlaunchConfig launchConfig(const unsigned (&grid)[3], const unsigned (&block)[3],
                                   unsigned sharedBytes, CUstream stream) {
  CUlaunchConfig config = {};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = sharedBytes;
  config.hStream = stream;
  return config;
}

llvm::Error PreparedLaunch::computeGrid(const CompiledKernel &kernel,
                                        const MatmulProblem &problem) {
  const std::vector<int64_t> &dShape = problem.d.shape;
  int64_t m = dShape[dShape.size() - 2], n = dShape.back();
  int64_t batch = 1;
  for (size_t i = 0; i + 2 < dShape.size(); ++i)
    batch *= dShape[i];
  auto [tileM, tileN] = kernel.tile;
  if (tileM <= 0 || tileN <= 0)
    return llvm::createStringError("the kernel's tile is " + std::to_string(tileM) + " x " +
                                   std::to_string(tileN) + ": expected positive sizes");
  int64_t tilesN = (n + tileN - 1) / tileN, tilesM = (m + tileM - 1) / tileM;
  for (int i = 0; i < 3; ++i)
    block[i] = static_cast<unsigned>(kernel.block[i]);
  sharedBytes = static_cast<unsigned>(kernel.sharedBytes);
  programmatic = kernel.programmaticLaunch;
  if (!kernel.persistent) {
    // One block per tile: x along N, y along M, z over the batch.
    if (tilesN > kMaxGridX || tilesM > kMaxGridYZ || batch > kMaxGridYZ)
      return llvm::createStringError(
          "the kernel's grid of " + std::to_string(tilesN) + " x " + std::to_string(tilesM) +
          " x " + std::to_string(batch) + " blocks (tiles along N, along M, batch elements) " +
          "exceeds CUDA's limits of " + std::to_string(kMaxGridX) + " x " +
          std::to_string(kMaxGridYZ) + " x " + std::to_string(kMaxGridYZ));
    grid[0] = static_cast<unsigned>(tilesN);
    grid[1] = static_cast<unsigned>(tilesM);
    grid[2] = static_cast<unsigned>(batch);
    return llvm::Error::success();
  }
  // The persistent grid (PersistentGrid.h) for this device: its multiprocessors, or with
  // clusters as many as can run at once (the multiprocessors of a GPC that a cluster cannot
  // fill stay out).
  int multiprocessors = 1, clusters = 0;
  if (auto driver = cudaDriver()) {
    CUdevice device;
    if (driver->cuCtxGetDevice(&device) == CUDA_SUCCESS)
      driver->cuDeviceGetAttribute(&multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                   device);
    if (kernel.cluster > 1) {
      unsigned clusterGrid[3] = {static_cast<unsigned>(kernel.cluster * multiprocessors), 1, 1};
      CUlaunchConfig config = launchConfig(clusterGrid, block, sharedBytes, nullptr);
      if (driver->cuOccupancyMaxActiveClusters(&clusters, function, &config) != CUDA_SUCCESS)
        clusters = 0;
    }
  } else {
    llvm::consumeError(driver.takeError());
  }
  if (kernel.cluster > 1 && clusters <= 0)
    clusters = std::max(1, multiprocessors / static_cast<int>(kernel.cluster));
  grid[0] = static_cast<unsigned>(mlir::mepi::sm90::persistentGridBlocks(
      kernel.workUnits, kernel.cluster, multiprocessors, clusters));
  grid[1] = grid[2] = 1;
  return llvm::Error::success();
}

namespace {
/// The planned function's arguments in order (Planner.cpp), which the kernel's tensor maps
/// name by index; the scalars have no layout.
std::vector<std::pair<CUdeviceptr, const OperandLayout *>>
plannedArguments(const MatmulProblem &problem, const LaunchArguments &args) {
  std::vector<std::pair<CUdeviceptr, const OperandLayout *>> arguments = {
      {args.a, &problem.a}, {args.b, &problem.b}, {0, nullptr}};
  if (problem.c)
    arguments.insert(arguments.end(), {{args.c, &*problem.c}, {0, nullptr}});
  for (size_t i = 0; i < problem.builtinInputs.size(); ++i)
    arguments.push_back({i < args.builtinInputs.size() ? args.builtinInputs[i] : 0,
                         &problem.builtinInputs[i].layout});
  for (size_t i = 0; i < problem.userInputs.size(); ++i)
    arguments.push_back({i < args.userInputs.size() ? args.userInputs[i] : 0,
                         &problem.userInputs[i].layout});
  if (problem.userEpilog && problem.userEpilog->userData)
    arguments.push_back({0, nullptr});
  arguments.push_back({args.d, &problem.d});
  for (const auto &[ptr, layout] : args.outputs)
    arguments.push_back({ptr, &layout});
  if (problem.groups) // no tensor maps of the bounds and weight indices
    arguments.insert(arguments.end(), 1 + problem.groups->weightIndices.has_value(),
                     {0, nullptr});
  for (CUdeviceptr mirror : args.mirrors)
    arguments.push_back({mirror, &problem.d});
  return arguments;
}
} // namespace

auto PreparedLaunch::create(CUfunction function, const CompiledKernel &kernel,
                            const MatmulProblem &problem, const LaunchArguments &args)
    -> llvm::Expected<std::unique_ptr<PreparedLaunch>> {
  std::unique_ptr<PreparedLaunch> prepared(new PreparedLaunch(function));
  if (args.mirrors.size() != static_cast<size_t>(problem.mirrors))
    return llvm::createStringError("the kernel stores " + std::to_string(problem.mirrors) +
                                   " mirrors of d, got " + std::to_string(args.mirrors.size()));
  std::vector<std::pair<CUdeviceptr, const OperandLayout *>> arguments =
      plannedArguments(problem, args);
  for (const TensorMapSpec &spec : kernel.tensorMaps) {
    // TMA reads a and b and may write d: operands the runtime checked or allocated (a matrix,
    // or a batch of them; addTensorMap checks the rank).
    if (spec.argument >= arguments.size() || !arguments[spec.argument].second)
      return llvm::createStringError("the kernel wants a tensor map of argument " +
                                     std::to_string(spec.argument) + ", which is not an operand");
    auto [ptr, layout] = arguments[spec.argument];
    if (llvm::Error e = prepared->addTensorMap(spec, ptr, *layout))
      return std::move(e);
  }
  if (kernel.workspaceBytes) {
    if (!args.workspace)
      return llvm::createStringError("the kernel needs a workspace of " +
                                     std::to_string(kernel.workspaceBytes) + " bytes, got none");
    prepared->addWord(static_cast<int64_t>(args.workspace));
  }
  prepared->addOperands(problem, args);
  // Addresses only now: the vectors no longer grow.
  for (auto [slot, index] : prepared->slots)
    prepared->params.push_back(
        slot == Slot::Float    ? static_cast<void *>(&prepared->floats[index])
        : slot == Slot::Word   ? static_cast<void *>(&prepared->words[index])
                               : static_cast<void *>(&prepared->tensorMaps[index]));
  if (llvm::Error e = prepared->computeGrid(kernel, problem))
    return std::move(e);
  return std::move(prepared);
}

void PreparedLaunch::addOperands(const MatmulProblem &problem, const LaunchArguments &args) {
  addMemref(args.a, problem.a);
  addMemref(args.b, problem.b);
  addFloat(args.alpha);
  if (problem.c) {
    addMemref(args.c, *problem.c);
    addFloat(args.beta);
  }
  // The kernel's operands are the op's: block scales come after every other one.
  auto addBuiltinInputs = [&](bool blockScales) {
    for (size_t i = 0; i < problem.builtinInputs.size(); ++i)
      if (isBlockScale(problem, problem.builtinInputs[i].key) == blockScales)
        addMemref(i < args.builtinInputs.size() ? args.builtinInputs[i] : 0,
                  problem.builtinInputs[i].layout);
  };
  addBuiltinInputs(false);
  for (size_t i = 0; i < problem.userInputs.size(); ++i)
    addMemref(i < args.userInputs.size() ? args.userInputs[i] : 0,
              problem.userInputs[i].layout);
  if (problem.userEpilog && problem.userEpilog->userData)
    addWord(static_cast<int64_t>(args.userData));
  addMemref(args.d, problem.d);
  // 8-bit operands' sums are a pass of their own: the kernel does not take their output.
  std::optional<size_t> apart = sumsOutputApart(problem);
  for (auto [i, output] : llvm::enumerate(args.outputs))
    if (i != apart)
      addMemref(output.first, output.second);
  if (problem.groups) {
    addMemref(args.groupBounds, problem.groups->bounds);
    if (problem.groups->weightIndices)
      addMemref(args.weightIndices, *problem.groups->weightIndices);
  }
  addBuiltinInputs(true);
  for (CUdeviceptr mirror : args.mirrors)
    addMemref(mirror, problem.d);
}

CUresult PreparedLaunch::launch(const CudaDriver &driver, CUstream stream) const {
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return CUDA_SUCCESS; // an empty output: nothing to write
  void **kernelParams = const_cast<void **>(params.data());
  if (!programmatic)
    return driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1],
                                 block[2], sharedBytes, stream, kernelParams, nullptr);
  CUlaunchAttribute attribute = {};
  attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attribute.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config = launchConfig(grid, block, sharedBytes, stream);
  config.attrs = &attribute;
  config.numAttrs = 1;
  return driver.cuLaunchKernelEx(&config, function, kernelParams, nullptr);
}

llvm::Error LoadedKernel::launch(const CompiledKernel &kernel, const MatmulProblem &problem,
                                 const LaunchArguments &args, CUstream stream) const {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver)
    return driver.takeError();
  llvm::Expected<std::unique_ptr<PreparedLaunch>> prepared =
      PreparedLaunch::create(function, kernel, problem, args);
  if (!prepared)
    return prepared.takeError();
  return checkCuda((*prepared)->launch(*driver, stream),
                   "cuLaunchKernel(" + kernel.kernelName + ")");
}
