// The runtime's error paths under driver failures, without a GPU: a fake driver that answers
// every call and fails the one a test names (CudaDriver.h, setCudaDriverForTesting). The
// kernels are compiled for sm_90a as usual; nothing runs them.
#include "Runtime/CudaDriver.h"
#include "mepi/GroupedMatmul.h"

#include <gtest/gtest.h>

#include <set>

using namespace mepi::runtime;

namespace {
/// The fake driver's state: allocations live, and the cuMemAlloc call (counted from 1) that
/// fails with CUDA_ERROR_OUT_OF_MEMORY (0: none).
struct FakeState {
  std::set<CUdeviceptr> live;
  CUdeviceptr next = 0x7e0000000000;
  int allocations = 0, failAllocation = 0;
  int launches = 0;
  CUdevice contextDevice = 0; // the current context's device (cuCtxGetDevice)
  CUresult launchResult = CUDA_SUCCESS, loadResult = CUDA_SUCCESS;
  std::vector<std::pair<CUdeviceptr, CUstream>> zeroed; // cuMemsetD8Async's buffers, streams
  std::vector<CUstream> launchStreams;
  std::vector<bool> programmatic; // per launch: with programmatic stream serialization
  /// cuMemsetD32Async's buffer, value, count and stream, with the launches made before it.
  struct Set32 {
    CUdeviceptr p;
    unsigned value;
    size_t count;
    CUstream stream;
    int launchesBefore;
  };
  std::vector<Set32> set32;
  std::vector<std::string> loads; // "cubin", or "ptx" with the first line that names a target
  int unloads = 0;
};
FakeState fake;
/// Addresses from here on are device 1's, below device 0's.
constexpr CUdeviceptr kDevice1 = 0x7f1000000000;

CudaDriver fakeDriver() {
  CudaDriver d;
  d.cuGetErrorName = [](CUresult, const char **s) { *s = "CUDA_ERROR_FAKE"; return CUDA_SUCCESS; };
  d.cuGetErrorString = [](CUresult, const char **s) { *s = "fake"; return CUDA_SUCCESS; };
  d.cuCtxGetCurrent = [](CUcontext *c) { *c = reinterpret_cast<CUcontext>(1); return CUDA_SUCCESS; };
  d.cuCtxGetDevice = [](CUdevice *dev) { *dev = fake.contextDevice; return CUDA_SUCCESS; };
  d.cuDeviceGet = [](CUdevice *dev, int ordinal) { *dev = ordinal; return CUDA_SUCCESS; };
  d.cuDeviceGetAttribute = [](int *v, CUdevice_attribute, CUdevice) { *v = 132; return CUDA_SUCCESS; };
  d.cuPointerGetAttribute = [](void *v, CUpointer_attribute, CUdeviceptr p) {
    *static_cast<int *>(v) = p >= kDevice1 ? 1 : 0; // the device of the address
    return CUDA_SUCCESS;
  };
  d.cuModuleLoadData = [](CUmodule *m, const void *) {
    *m = reinterpret_cast<CUmodule>(2);
    fake.loads.push_back("cubin");
    return fake.loadResult;
  };
  d.cuModuleLoadDataEx = [](CUmodule *m, const void *image, unsigned, CUjit_option *, void **) {
    *m = reinterpret_cast<CUmodule>(2);
    std::string text(static_cast<const char *>(image));
    size_t at = text.find(".target");
    fake.loads.push_back("ptx " + text.substr(at, text.find('\n', at) - at));
    return fake.loadResult;
  };
  d.cuModuleGetFunction = [](CUfunction *f, CUmodule, const char *) {
    *f = reinterpret_cast<CUfunction>(3);
    return CUDA_SUCCESS;
  };
  d.cuModuleUnload = [](CUmodule) {
    ++fake.unloads;
    return CUDA_SUCCESS;
  };
  d.cuFuncSetAttribute = [](CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; };
  d.cuOccupancyMaxActiveClusters = [](int *n, CUfunction, const CUlaunchConfig *) { *n = 66; return CUDA_SUCCESS; };
  d.cuTensorMapEncodeTiled = [](CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
    return CUDA_SUCCESS;
  };
  d.cuMemAlloc = [](CUdeviceptr *p, size_t) {
    if (++fake.allocations == fake.failAllocation)
      return CUDA_ERROR_OUT_OF_MEMORY;
    *p = fake.next += 1 << 20;
    fake.live.insert(*p);
    return CUDA_SUCCESS;
  };
  d.cuMemFree = [](CUdeviceptr p) { return fake.live.erase(p) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; };
  d.cuMemsetD8Async = [](CUdeviceptr p, unsigned char, size_t, CUstream stream) {
    fake.zeroed.push_back({p, stream});
    return CUDA_SUCCESS;
  };
  d.cuMemsetD32Async = [](CUdeviceptr p, unsigned value, size_t count, CUstream stream) {
    fake.set32.push_back({p, value, count, stream, fake.launches});
    return CUDA_SUCCESS;
  };
  d.cuMemcpy2DAsync = [](const CUDA_MEMCPY2D *, CUstream) { return CUDA_SUCCESS; };
  d.cuLaunchKernel = [](CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream stream, void **, void **) {
    ++fake.launches;
    fake.launchStreams.push_back(stream);
    fake.programmatic.push_back(false);
    return fake.launchResult;
  };
  d.cuLaunchKernelEx = [](const CUlaunchConfig *config, CUfunction, void **, void **) {
    ++fake.launches;
    fake.launchStreams.push_back(config->hStream);
    bool programmatic = false;
    for (unsigned i = 0; i < config->numAttrs; ++i)
      programmatic |= config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
                      config->attrs[i].value.programmaticStreamSerializationAllowed;
    fake.programmatic.push_back(programmatic);
    return fake.launchResult;
  };
  return d;
}

struct Fault : ::testing::Test {
  Fault() {
    fake = FakeState();
    setCudaDriverForTesting(&driver);
  }
  ~Fault() override { setCudaDriverForTesting(nullptr); }
  CudaDriver driver = fakeDriver();
};

mepi::Tensor tensor(std::vector<int64_t> shape, uintptr_t address) {
  mepi::Tensor t;
  t.data = reinterpret_cast<void *>(address);
  t.dtype = mepi::DType::BFloat16;
  t.shape = std::move(shape);
  return t;
}

/// A 256 x `n` x 512 bf16 matmul with a ReLU, planned for `options` and executed once.
std::unique_ptr<mepi::Matmul> executedRelu(int64_t n, const mepi::Options &options) {
  auto mm = std::make_unique<mepi::Matmul>(tensor({256, 512}, 0x7f0000000000),
                                           tensor({512, n}, 0x7f0000400000), std::nullopt, 1.0f,
                                           std::nullopt, mepi::Qualifiers{}, options);
  mm->plan(mepi::Epilog::Relu);
  mm->execute();
  return mm;
}
} // namespace

// GELU_AUX_BIAS with result_amax: two outputs besides D. The second one's allocation fails:
// nothing of the first may stay half-recorded, and the retry gives both.
TEST_F(Fault, AFailedAuxAllocationLeavesNothingBehind) {
  mepi::Options options;
  options.arch = "sm_90a";
  options.resultAmax = true;
  mepi::Matmul mm(tensor({256, 128}, 0x7f0000000000), tensor({128, 192}, 0x7f0000100000),
                  std::nullopt, 1.0f, std::nullopt, {}, options);
  mm.plan(mepi::Epilog::GeluAuxBias, {tensor({256}, 0x7f0000200000)});
  fake.failAllocation = 3; // D, gelu_aux, then result_amax
  EXPECT_THROW(mm.execute(), mepi::Error);
  size_t afterFailure = fake.live.size(); // D (kept for the retry) and nothing else
  EXPECT_EQ(afterFailure, 1u);
  EXPECT_TRUE(mm.auxOutputs().empty());
  mm.execute();
  EXPECT_EQ(mm.auxOutputs().size(), 2u);
  EXPECT_TRUE(mm.auxOutputs().count("gelu_aux"));
  EXPECT_TRUE(mm.auxOutputs().count("result_amax"));
  for (const auto &[key, t] : mm.auxOutputs())
    EXPECT_TRUE(fake.live.count(reinterpret_cast<CUdeviceptr>(t.data))) << key;
  mm.free();
  EXPECT_TRUE(fake.live.empty()) << "free() releases every allocation";
}

// An epilog input on another device than A: found before anything is launched (the kernel
// would read it in A's context).
TEST_F(Fault, AnEpilogInputOnAnotherDeviceIsRefusedBeforeLaunch) {
  mepi::Options options;
  options.arch = "sm_90a";
  mepi::Matmul mm(tensor({256, 128}, 0x7f0000000000), tensor({128, 192}, 0x7f0000100000),
                  std::nullopt, 1.0f, std::nullopt, {}, options);
  mepi::Tensor bias = tensor({256}, kDevice1); // device 1's memory, declared as such
  bias.device = 1;
  mm.plan(mepi::Epilog::Bias, {bias});
  try {
    mm.execute();
    ADD_FAILURE() << "executed with a bias on device 1";
  } catch (const mepi::Error &e) {
    EXPECT_STREQ(e.what(), "operand bias: expected memory on device 0 (operand a's), got device 1");
  }
  EXPECT_EQ(fake.launches, 0);
}

// Each driver failure has its status: out of memory, a failed launch, any other call.
TEST_F(Fault, DriverFailuresHaveTheirStatus) {
  auto statusOf = [](auto &&call) {
    try {
      call();
    } catch (const mepi::Error &e) {
      return e.status();
    }
    return mepi::Status::Internal; // no error at all
  };
  mepi::Options options;
  options.arch = "sm_90a";
  auto planned = [&] {
    mepi::Matmul mm(tensor({256, 128}, 0x7f0000000000), tensor({128, 192}, 0x7f0000100000),
                    std::nullopt, 1.0f, std::nullopt, {}, options);
    mm.plan(mepi::Epilog::Relu);
    return mm;
  };
  fake.failAllocation = 1;
  EXPECT_EQ(statusOf([&] { planned().execute(); }), mepi::Status::AllocationFailed);
  fake = FakeState();
  fake.launchResult = CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  EXPECT_EQ(statusOf([&] { planned().execute(); }), mepi::Status::LaunchFailed);
  fake = FakeState();
  fake.loadResult = CUDA_ERROR_INVALID_IMAGE;
  EXPECT_EQ(statusOf([&] { planned().execute(); }), mepi::Status::CudaError);
  // The thread's current context is another device's than the operands': refused, nothing
  // loaded, allocated or launched there (issue 24).
  fake = FakeState();
  fake.contextDevice = 1;
  mepi::Matmul elsewhere = planned();
  try {
    elsewhere.execute();
    ADD_FAILURE() << "executed in device 1's context";
  } catch (const mepi::Error &e) {
    EXPECT_NE(std::string(e.what()).find("execute: the thread's current CUDA context is device "
                                         "1's, the operands are on device 0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(fake.launches, 0);
  EXPECT_EQ(fake.allocations, 0);
}

// A kernel whose cubin spills because nvJitLink ignored setmaxnreg loads from its PTX, which
// the driver compiles as one whole program; the others load their cubin (Planner.h,
// CompiledKernel::loadFromPtx).
TEST_F(Fault, KernelsThatSpillInTheCubinLoadFromPtx) {
  mepi::Options options;
  options.arch = "sm_90a";
  mepi::Matmul dense(tensor({256, 1024}, 0x7f0000000000), tensor({1024, 192}, 0x7f0000400000),
                     std::nullopt, 1.0f, std::nullopt, {}, options);
  dense.plan(mepi::Epilog::Relu);
  dense.execute();
  ASSERT_EQ(fake.loads.size(), 1u);
  EXPECT_EQ(fake.loads[0], "cubin");
  // Promoted 128 x 192 FP8 tiles: two sets of 64 x 192 accumulators need setmaxnreg's 232.
  options.kernelConfig = "#mepi.kernel_config<wgmma, tile = [128, 192, 128], mainloop = <stages = "
                         "4, promote = 1>, epilogue = <store = tma>>";
  mepi::Tensor a = tensor({256, 1024}, 0x7f0000000000), b = tensor({384, 1024}, 0x7f0000400000);
  a.dtype = b.dtype = mepi::DType::Float8E4M3FN;
  mepi::Qualifiers transposeB{false, true};
  options.resultType = mepi::DType::BFloat16;
  mepi::Matmul fp8(a, b, std::nullopt, 1.0f, std::nullopt, transposeB, options);
  fp8.plan();
  fp8.execute();
  ASSERT_EQ(fake.loads.size(), 2u);
  EXPECT_EQ(fake.loads[1], "ptx .target sm_90a");
}

// Plans of one problem share its kernel (KernelCache) and so one module of it in the context,
// which unloads with the last of them; a plan of another problem loads its own.
TEST_F(Fault, PlansOfOneProblemShareOneModule) {
  mepi::Options options;
  options.arch = "sm_90a";
  auto plan = [&](int64_t n) { return executedRelu(n, options); };
  auto first = plan(192), second = plan(192);
  EXPECT_EQ(fake.loads.size(), 1u);
  auto other = plan(320);
  EXPECT_EQ(fake.loads.size(), 2u);
  first.reset();
  EXPECT_EQ(fake.unloads, 0);
  second->execute();
  second.reset();
  EXPECT_EQ(fake.unloads, 1);
  auto third = plan(192);
  EXPECT_EQ(fake.loads.size(), 3u);
  other.reset();
  third.reset();
  EXPECT_EQ(fake.unloads, 3);
  EXPECT_EQ(fake.launches, 5);
}

// The wgmma kernels wait for the grid before them (griddepcontrol.wait) before touching global
// memory, so they launch with programmatic stream serialization; the SIMT kernel (another
// chip's) does not wait and launches plainly.
TEST_F(Fault, WgmmaKernelsLaunchProgrammatically) {
  mepi::Options options;
  options.arch = "sm_90a";
  auto wgmma = executedRelu(192, options);
  options.arch = "sm_80";
  auto simt = executedRelu(192, options);
  EXPECT_EQ(fake.programmatic, (std::vector<bool>{true, false}));
}

// A split-K kernel keeps counters and partial sums in its workspace: each stream gets its own,
// zeroed in its own order, so that two streams never share them.
TEST_F(Fault, EachStreamHasItsOwnWorkspace) {
  mepi::Options options;
  options.arch = "sm_90a";
  options.kernelConfig = "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = "
                         "6>, scheduler = <split_k, splits = 2>>";
  mepi::Matmul mm(tensor({256, 1024}, 0x7f0000000000), tensor({1024, 192}, 0x7f0000400000),
                  std::nullopt, 1.0f, std::nullopt, {}, options);
  mm.plan();
  auto one = reinterpret_cast<CUstream>(0x51), two = reinterpret_cast<CUstream>(0x52);
  mm.execute(one);
  mm.execute(one);
  EXPECT_EQ(fake.live.size(), 2u); // D and stream one's workspace
  mm.execute(two);
  EXPECT_EQ(fake.live.size(), 3u); // and stream two's
  ASSERT_EQ(fake.zeroed.size(), 2u);
  EXPECT_NE(fake.zeroed[0].first, fake.zeroed[1].first);
  EXPECT_EQ(fake.zeroed[0].second, one);
  EXPECT_EQ(fake.zeroed[1].second, two);
  EXPECT_EQ(fake.launchStreams, (std::vector<CUstream>{one, one, two}));
  mm.free();
  EXPECT_TRUE(fake.live.empty());
}

// A grouped matmul plans for sm_90a (no TMA stores, clusters or split-K: rows past a group's
// end belong to the next) and launches once per execute with its bounds; a user epilog reads
// per-group inputs and the group argument. Bad group operands are refused before any plan.
// A grouped matmul's amax is combined atomically by its slices (the tiles' count is on the
// device): before every launch, in its stream, the runtime sets it to -inf, the maximum's
// identity; a dense one finishes by its last arrival and is not set.
TEST_F(Fault, GroupedAmaxIsSetToMinusInfinityBeforeEachLaunch) {
  mepi::Options options;
  options.arch = "sm_90a";
  options.resultAmax = true;
  options.resultType = mepi::DType::BFloat16;
  mepi::Tensor bounds = tensor({4}, 0x7f0000800000);
  bounds.dtype = mepi::DType::Int32;
  mepi::Tensor x = tensor({1000, 512}, 0x7f0000000000), w = tensor({4, 256, 512}, 0x7f0001000000);
  x.dtype = w.dtype = mepi::DType::Float8E4M3FN;
  mepi::GroupedMatmul mm(x, w, {bounds}, 1.0f, {false, true}, options);
  mm.plan(mepi::Epilog::Gelu);
  CUstream stream = reinterpret_cast<CUstream>(0x5);
  mm.execute(stream);
  mm.execute(stream);
  ASSERT_EQ(fake.set32.size(), 2u);
  CUdeviceptr amax = reinterpret_cast<CUdeviceptr>(mm.auxOutputs().at("result_amax").data);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(fake.set32[i].p, amax);
    EXPECT_EQ(fake.set32[i].value, 0xff800000u); // f32 -inf
    EXPECT_EQ(fake.set32[i].count, 1u);
    EXPECT_EQ(fake.set32[i].stream, stream);
    EXPECT_EQ(fake.set32[i].launchesBefore, i); // before its launch
  }
  mepi::Matmul dense(tensor({1000, 512}, 0x7f0000000000), tensor({512, 256}, 0x7f0001000000),
                     std::nullopt, 1.0f, std::nullopt, {}, options);
  dense.plan(mepi::Epilog::Gelu);
  dense.execute();
  EXPECT_EQ(fake.set32.size(), 2u);
}

TEST_F(Fault, GroupedMatmulPlansAndLaunches) {
  mepi::Options options;
  options.arch = "sm_90a";
  mepi::Tensor bounds = tensor({8}, 0x7f0000800000);
  bounds.dtype = mepi::DType::Int32;
  mepi::GroupedMatmul mm(tensor({4096, 1024}, 0x7f0000000000),
                         tensor({8, 1024, 2048}, 0x7f0001000000), {bounds}, 1.0f, {}, options);
  mm.plan(mepi::Epilog::Gelu);
  std::string config = mm.kernelConfiguration();
  // TMA stores for the slices inside their group (the runtime promises D's alignment).
  EXPECT_NE(config.find("store = tma"), std::string::npos) << config;
  EXPECT_EQ(config.find("cluster"), std::string::npos) << config;
  mm.execute();
  EXPECT_EQ(fake.launches, 1);

  mepi::Tensor scale = tensor({8}, 0x7f0000900000), bias = tensor({8, 2048}, 0x7f0000a00000);
  scale.dtype = mepi::DType::Float32;
  mepi::UserEpilog user{R"(
func.func @f(%acc: f32, %scale: f32, %bias: bf16, %row: index, %col: index, %g: index) -> bf16 {
  %s = arith.mulf %acc, %scale : f32
  %b = arith.extf %bias : bf16 to f32
  %r = arith.addf %s, %b : f32
  %t = arith.truncf %r : f32 to bf16
  return %t : bf16
})", "f", {}, {}, nullptr};
  mm.plan(user, {{scale, mepi::InputKind::Scalar}, {bias, mepi::InputKind::Col}});
  mm.execute();
  EXPECT_EQ(fake.launches, 2);
  // Resets keep the planned device: the kernel, D and the workspace live there (issue 24).
  auto resetError = [&](const mepi::Tensor &a, const mepi::Groups &g) {
    try {
      mm.resetOperands(a, tensor({8, 1024, 2048}, 0x7f0001000000), g);
    } catch (const mepi::Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  mepi::Tensor elsewhere = tensor({4096, 1024}, kDevice1);
  elsewhere.device = 1;
  EXPECT_NE(resetError(elsewhere, {bounds}).find("resetOperands: operand a: expected memory on "
                                                 "device 0 (the planned one), got device 1"),
            std::string::npos);
  mepi::Tensor otherBounds = bounds;
  otherBounds.device = 1;
  EXPECT_NE(resetError(tensor({4096, 1024}, 0x7f0000000000), {otherBounds})
                .find("operand groups.bounds: expected memory on device 0"),
            std::string::npos);

  mm.free();

  // torch._grouped_mm's 3-D x 2-D: groups of D's columns, planned as the transposed problem
  // and handed out as a transposed view.
  mepi::Tensor ends6 = tensor({6}, 0x7f0000800000);
  ends6.dtype = mepi::DType::Int32;
  mepi::GroupedMatmul columns(tensor({6, 77, 136}, 0x7f0000000000),
                              tensor({1003, 136}, 0x7f0001000000), {ends6}, 1.0f,
                              {false, true}, options);
  columns.plan(mepi::Epilog::Gelu);
  mepi::Tensor d = columns.execute();
  EXPECT_EQ(d.shape, (std::vector<int64_t>{77, 1003}));
  EXPECT_EQ(d.strides, (std::vector<int64_t>{1, 77}));
  columns.free();

  auto refused = [&](const mepi::Tensor &a, const mepi::Tensor &b, const mepi::Groups &g) {
    try {
      mepi::GroupedMatmul bad(a, b, g, 1.0f, {}, options);
    } catch (const mepi::Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // b as [K, N]: its transposed problem would read it MN-major as A, not taken yet.
  EXPECT_NE(refused(tensor({6, 77, 136}, 0x7f0000000000), tensor({136, 1003}, 0x7f0001000000),
                    {ends6})
                .find("operand b: groups of columns (3-D x 2-D) need b as [N, K] read "
                      "transposed"),
            std::string::npos);
  mepi::Tensor floats = bounds;
  floats.dtype = mepi::DType::Float32;
  EXPECT_NE(refused(tensor({4096, 1024}, 0x7f0000000000), tensor({8, 1024, 2048}, 0x7f0001000000),
                    {floats})
                .find("operand groups.bounds: expected a 1-D int32 or int64 tensor, got f32"),
            std::string::npos);
  EXPECT_NE(refused(tensor({4096, 1024}, 0x7f0000000000), tensor({7, 1024, 2048}, 0x7f0001000000),
                    {bounds})
                .find("expected b to have one matrix per group (8) without weight_indices, got 7"),
            std::string::npos);
  EXPECT_NE(refused(tensor({4096, 1024}, 0x7f0000000000), tensor({1024}, 0x7f0001000000),
                    {bounds})
                .find("operand b: expected rank >= 3, got 1"),
            std::string::npos);
}

// Groups along K (torch._grouped_mm's 2-D x 2-D): the weight gradient dW [S, M, N] from dY
// given as [K, M] and X as [K, N] plans a cooperative data-parallel kernel for sm_90a and
// launches once; what it does not take is refused before any plan.
TEST_F(Fault, GroupsAlongKPlanAndLaunch) {
  mepi::Options options;
  options.arch = "sm_90a";
  mepi::Tensor ends = tensor({8}, 0x7f0000800000);
  ends.dtype = mepi::DType::Int32;
  mepi::Tensor dy = tensor({16336, 4096}, 0x7f0000000000), x = tensor({16336, 1024}, 0x7f0010000000);
  mepi::GroupedMatmul mm(dy, x, {ends}, 1.0f, {true, false}, options);
  mm.plan();
  std::string config = mm.kernelConfiguration();
  for (const char *absent : {"pingpong", "cluster", "split", "stream_k"})
    EXPECT_EQ(config.find(absent), std::string::npos) << config;
  mepi::Tensor d = mm.execute();
  EXPECT_EQ(d.shape, (std::vector<int64_t>{8, 4096, 1024}));
  EXPECT_EQ(fake.launches, 1);
  mm.free();

  auto refused = [&](const mepi::Tensor &a, const mepi::Tensor &b, const mepi::Groups &g) {
    try {
      mepi::GroupedMatmul bad(a, b, g, 1.0f, {true, false}, options);
    } catch (const mepi::Error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(refused(dy, x, {ends, mepi::GroupForm::Lengths})
                .find("groups.form: groups along K (2-D x 2-D) take the Ends or Indptr form"),
            std::string::npos);
  EXPECT_NE(refused(dy, x, {ends, mepi::GroupForm::Ends, ends})
                .find("groups.weightIndices: groups along K (2-D x 2-D) take none"),
            std::string::npos);
  mepi::Tensor f32 = x;
  f32.dtype = mepi::DType::Float32;
  EXPECT_NE(refused(dy, f32, {ends})
                .find("operand b: groups along K (2-D x 2-D) take bfloat16 or float16, got f32"),
            std::string::npos);
  EXPECT_NE(refused(dy, tensor({16000, 1024}, 0x7f0010000000), {ends})
                .find("expected op(a) and op(b) to agree on K, got 16336 and 16000"),
            std::string::npos);
}
