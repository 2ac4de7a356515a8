// Matmul's state, shared by the files that implement the C++ API's Matmul (Matmul.cpp,
// MatmulAutotune.cpp): operands, the plan, the loaded kernel, memory, per-stream resources.
#ifndef MEPI_RUNTIME_MATMULSTATE_H
#define MEPI_RUNTIME_MATMULSTATE_H

#include "Runtime/ApiSupport.h"
#include "Runtime/KernelCache.h"
#include "Runtime/Launch.h"
#include "Runtime/OperandSumsPass.h"
#include "Runtime/StagedOperand.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace mepi::api {
using runtime::checkCuda;
using runtime::cudaDriver;
using runtime::elementTypeBytes;
using runtime::KernelCache;
using runtime::LaunchArguments;
using runtime::LoadedKernel;
using runtime::MatmulProblem;
using runtime::NamedLayout;
using runtime::PreparedLaunch;
using runtime::StagedOperand;

/// autotune()'s choices, per problem (the kernel cache key of the problem planned without a
/// forced configuration), for the life of the process.
class TunedConfigs {
public:
  static TunedConfigs &global() {
    static TunedConfigs tuned;
    return tuned;
  }
  std::optional<std::string> find(const std::string &key) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = choices.find(key);
    return it == choices.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  void remember(const std::string &key, const std::string &config) {
    std::lock_guard<std::mutex> lock(mutex);
    choices[key] = config;
  }
  bool empty() {
    std::lock_guard<std::mutex> lock(mutex);
    return choices.empty();
  }

private:
  std::mutex mutex;
  std::map<std::string, std::string> choices;
};

/// The key of `planned` (its staged layouts, no forced configuration) for TunedConfigs.
std::string tunedKey(MatmulProblem planned, const std::string &arch,
                     llvm::ArrayRef<mlir::mepi::DeviceObject> objects);
} // namespace mepi::api

using namespace mepi::api;

struct mepi::Matmul::State {
  MatmulProblem problem; // without epilog/bias until plan()
  Tensor a, b;
  std::optional<Tensor> c;
  std::optional<Tensor> groupBounds, weightIndices; // grouped (GroupedMatmul)
  /// MX block scaling: A's and B's e8m0 scales, read by the staged operands' pre-passes.
  std::optional<Tensor> mxScaleA, mxScaleB;
  /// D's shape and strides as handed out, where they are not the problem's: the masked form's
  /// [S, R, N], the groups-of-columns form's transposed view (GroupedMatmul.cpp).
  std::optional<std::vector<int64_t>> resultShape, resultStrides;
  Qualifiers givenQualifiers; // grouped: as the caller gave them, before arrange()
  std::vector<Tensor> builtinInputs; // in the order of problem.builtinInputs
  std::vector<Tensor> userInputs;
  bool userInputReadsC = false; // the last user input is C (a builder epilog read it)
  const void *userData = nullptr; // the user epilog's UserEpilog::userData
  std::vector<mlir::mepi::DeviceObject> objects; // a user epilog's device code (re-plans)
  std::string arch;                              // the target the kernel was compiled for
  float alpha = 1.0f, beta = 0.0f;
  Options options;
  bool released = false;
  bool pointersChecked = false; // operands checked against the driver since the last reset
  KernelCache::Entry kernel;
  std::shared_ptr<const LoadedKernel> loaded; ///< shared with every plan of this kernel
  const CudaDriver *driver = nullptr;
  Tensor result; // D as execute() returns it
  CUdeviceptr d = 0;
  size_t dBytes = 0;
  bool dGiven = false; // d is the caller's (setResult): never freed here
  std::vector<CUdeviceptr> mirrors; // setMirrors: where D is also stored
  std::vector<NamedLayout> outputLayouts; // the epilog's outputs besides D (plan)
  /// Grouped: the scalar outputs (f32 maxima, such as an amax) that each slice combines in
  /// atomically: set to -inf before each launch (ReductionNodes.cpp, AtomicMaxNode). Planned.
  std::vector<size_t> atomicMaxOutputs;
  static std::vector<size_t> atomicMaxOutputsOf(const MatmulProblem &problem,
                                                const std::vector<NamedLayout> &layouts) {
    std::vector<size_t> scalars;
    if (problem.groups)
      for (auto [i, output] : llvm::enumerate(layouts))
        if (output.layout.shape.empty())
          scalars.push_back(i);
    return scalars;
  }
  std::vector<CUdeviceptr> outputs;       // allocated by the first execute after plan
  std::vector<CUdeviceptr> ownedOutputs;  // those of `outputs` this object allocated
  std::map<std::string, CUdeviceptr> givenOutputs; // setAuxOutput: the caller's, by key
  std::map<std::string, Tensor> aux;      // as auxOutputs() returns them
  // The problem the kernel was compiled for: `problem` with staged operands' layouts.
  MatmulProblem planned;
  // Operands the kernel reads from a copy refreshed before each launch: rows TMA cannot read in
  // place (needsTmaStaging), or strict f32 split into TF32 parts (splitProblem). What the plan
  // says; each stream has its own copies (StreamResources).
  std::optional<StagedOperand> stagedA, stagedB;
  /// 8-bit operands' bias gradient (BGRADA, BGRADB): a pass after the GEMM, its kernel loaded
  /// by the first execute.
  std::optional<runtime::OperandSumsPlan> sumsPlan;
  std::optional<runtime::OperandSumsPass> sumsPass;
  /// What one stream's executions use alone: the kernel's workspace (split-K and stream-K
  /// counters and partial sums), the staged copies, and the launch prepared with them. Two
  /// streams never share counters or copies, so a Matmul may run on several streams (D and the
  /// aux outputs are shared: each execute rewrites them).
  struct StreamResources {
    CUdeviceptr workspace = 0;
    size_t workspaceBytes = 0;
    // The kernel the workspace was last zeroed for: each kernel leaves its own counters at
    // zero, but another kernel's counters may lie where this one kept partial sums.
    const void *workspaceZeroedFor = nullptr;
    std::optional<StagedOperand> stagedA, stagedB;
    std::unique_ptr<PreparedLaunch> prepared; // for the current operands
    StreamResources() = default;
    StreamResources(const StreamResources &) = delete; // lives in `streams`, in place
    ~StreamResources() { freeDevice(workspace); }
  };
  std::map<CUstream, StreamResources> streams; // cleared by plan (before the module goes)
  int64_t maxUnitKSteps = 0; // split operands: what candidates may accumulate (StagedPlan)

  static void freeDevice(CUdeviceptr &ptr) {
    if (!ptr)
      return;
    if (auto driver = cudaDriver())
      driver->cuMemFree(ptr);
    else
      llvm::consumeError(driver.takeError());
    ptr = 0;
  }
  void freeResult() {
    if (dGiven)
      d = 0;
    dGiven = false;
    freeDevice(d);
  }
  void freeOutputs() {
    for (CUdeviceptr &ptr : ownedOutputs)
      freeDevice(ptr);
    ownedOutputs.clear();
    outputs.clear();
    aux.clear();
  }
  void freeStaged() {
    streams.clear();
    stagedA.reset();
    stagedB.reset();
  }
  void freeAll() {
    freeResult();
    freeOutputs();
    freeStaged();
  }
  /// Allocates the epilog's outputs besides D (outputLayouts) but those the caller gave
  /// (setAuxOutput), and describes them in `aux`: all or, where an allocation fails, none
  /// (what it had allocated is freed before the error), so that a later execute() starts again
  /// from nothing.
  void allocateOutputs(const CudaDriver &driver, CUstream stream) {
    std::vector<CUdeviceptr> fresh, all;
    try {
      for (const NamedLayout &output : outputLayouts) {
        if (auto given = givenOutputs.find(output.key); given != givenOutputs.end()) {
          all.push_back(given->second);
          continue;
        }
        size_t bytes = spanBytes(output.layout, "aux output " + output.key);
        CUdeviceptr ptr = 0;
        check(checkCuda(driver.cuMemAlloc(&ptr, bytes), "cuMemAlloc(" + output.key + ")"),
              "execute");
        fresh.push_back(ptr);
        all.push_back(ptr);
        // A bitmask's padding bytes are never written: give them a defined value once.
        if (output.layout.type == ElementType::U8)
          check(checkCuda(driver.cuMemsetD8Async(ptr, 0, bytes, stream),
                          "cuMemsetD8Async(" + output.key + ")"),
                "execute");
      }
    } catch (...) {
      for (CUdeviceptr &ptr : fresh)
        freeDevice(ptr);
      throw;
    }
    freeOutputs();
    ownedOutputs = std::move(fresh);
    outputs = std::move(all);
    for (auto [output, ptr] : llvm::zip(outputLayouts, outputs))
      aux[output.key] = auxTensor(output.layout, ptr);
  }
  /// An aux output as auxOutputs() returns it (nvmath-python's batched bias gradients are
  /// [batch..., M, 1]).
  Tensor auxTensor(const OperandLayout &layout, CUdeviceptr ptr) const {
    Tensor t;
    t.data = reinterpret_cast<void *>(ptr);
    t.device = a.device;
    t.dtype = dtypeOf(layout.type);
    t.shape = layout.shape;
    t.strides = layout.strides;
    if (t.shape.size() > 1 && layout.type != ElementType::U8 &&
        t.shape.size() + 1 == problem.d.shape.size()) {
      t.shape.push_back(1);
      t.strides.push_back(1);
    }
    return t;
  }
  /// Makes a's device's primary context current on this thread where none is; a current one
  /// must be of a's device (else the kernel would load and D be allocated on another device
  /// than the operands').
  void enterContext(const CudaDriver &driver) const {
    CUcontext ctx = nullptr;
    check(checkCuda(driver.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent"), "execute");
    CUdevice dev;
    check(checkCuda(driver.cuDeviceGet(&dev, a.device), "cuDeviceGet"), "execute");
    if (ctx) {
      CUdevice current;
      check(checkCuda(driver.cuCtxGetDevice(&current), "cuCtxGetDevice"), "execute");
      if (current != dev)
        fail(llvm::formatv("execute: the thread's current CUDA context is device {0}'s, the "
                           "operands are on device {1}: make device {1} current first "
                           "(cudaSetDevice, torch.cuda.set_device)",
                           int(current), a.device));
      return;
    }
    check(checkCuda(driver.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain"),
          "execute");
    check(checkCuda(driver.cuCtxSetCurrent(ctx), "cuCtxSetCurrent"), "execute");
  }
  /// Every operand and input is memory of a's device (once per set of operands).
  void checkPointers(const CudaDriver &driver) {
    checkDevicePointer(driver, a, "a", a.device);
    checkDevicePointer(driver, b, "b", a.device);
    if (c)
      checkDevicePointer(driver, *c, "c", a.device);
    for (size_t i = 0; i < builtinInputs.size(); ++i)
      checkDevicePointer(driver, builtinInputs[i], problem.builtinInputs[i].key, a.device);
    for (size_t i = 0; i < userInputs.size(); ++i)
      checkDevicePointer(driver, userInputs[i], "epilog input " + std::to_string(i), a.device);
    if (groupBounds)
      checkDevicePointer(driver, *groupBounds, "groups.bounds", a.device);
    if (weightIndices)
      checkDevicePointer(driver, *weightIndices, "groups.weightIndices", a.device);
    if (mxScaleA)
      checkDevicePointer(driver, *mxScaleA, "quantization scale a", a.device);
    if (mxScaleB)
      checkDevicePointer(driver, *mxScaleB, "quantization scale b", a.device);
    pointersChecked = true;
  }
  /// Refreshes the stream's staged operands, then launches: the whole of one execution, in
  /// stream order.
  CUresult launch(const CudaDriver &driver, const StreamResources &res, CUstream stream) const {
    auto address = [](const void *p) { return reinterpret_cast<CUdeviceptr>(p); };
    for (auto [staged, tensor, scales] : {std::tuple{&res.stagedA, &a, &mxScaleA},
                                          std::tuple{&res.stagedB, &b, &mxScaleB}})
      if (*staged)
        if (CUresult r = (*staged)->refresh(driver, address(tensor->data),
                                            *scales ? address((*scales)->data) : 0, stream);
            r != CUDA_SUCCESS)
          return r;
    constexpr unsigned kMinusInfinity = 0xff800000u; // f32 -inf: the maximum's identity
    for (size_t i : atomicMaxOutputs)
      if (CUresult r = driver.cuMemsetD32Async(outputs[i], kMinusInfinity, 1, stream);
          r != CUDA_SUCCESS)
        return r;
    if (CUresult r = res.prepared->launch(driver, stream); r != CUDA_SUCCESS || !sumsPass)
      return r;
    return launchSums(driver, res, stream);
  }
  /// The operand sums' pass on the operand the GEMM read (its staged copy where there is one).
  CUresult launchSums(const CudaDriver &driver, const StreamResources &res,
                      CUstream stream) const {
    const runtime::OperandSumsPlan &plan = sumsPass->plan();
    const std::optional<StagedOperand> &staged = plan.ofA ? res.stagedA : res.stagedB;
    CUdeviceptr x = staged ? staged->buffer()
                           : reinterpret_cast<CUdeviceptr>(plan.ofA ? a.data : b.data);
    CUdeviceptr scale =
        plan.scaleInput ? reinterpret_cast<CUdeviceptr>(builtinInputs[*plan.scaleInput].data) : 0;
    return sumsPass->launch(driver, x, scale, outputs[plan.output], stream);
  }
  /// The stream's workspace, zeroed for the planned kernel, and its staged copies.
  void prepareStream(const CudaDriver &driver, StreamResources &res, CUstream stream) {
    if (kernel->workspaceBytes > static_cast<int64_t>(res.workspaceBytes)) {
      freeDevice(res.workspace);
      res.workspaceBytes = 0;
      res.workspaceZeroedFor = nullptr;
      check(checkCuda(driver.cuMemAlloc(&res.workspace, kernel->workspaceBytes),
                      "cuMemAlloc(workspace)"),
            "execute");
      res.workspaceBytes = kernel->workspaceBytes;
    }
    if (kernel->workspaceBytes > 0 && res.workspaceZeroedFor != kernel.get()) {
      // Zero before the first launch of this kernel that counts in it, in that launch's
      // stream order.
      check(checkCuda(driver.cuMemsetD8Async(res.workspace, 0, kernel->workspaceBytes, stream),
                      "cuMemsetD8Async(workspace)"),
            "execute");
      res.workspaceZeroedFor = kernel.get();
    }
    for (auto [planned, mine, name] : {std::tuple{&stagedA, &res.stagedA, "a"},
                                       std::tuple{&stagedB, &res.stagedB, "b"}}) {
      if (*planned && !*mine)
        *mine = (*planned)->copyForAnotherStream();
      if (*mine)
        check((*mine)->prepare(driver, name), "execute");
    }
  }
};

#endif // MEPI_RUNTIME_MATMULSTATE_H
