// A user epilog's column and scalar reductions in a distributed matmul (DistReductions.h).
#include "Distributed/DistReductions.h"

#include "Distributed/Nccl.h"

#include "Runtime/ApiSupport.h"

using namespace mepi;
using namespace mepi::dist::detail;
using runtime::CombineRows;

namespace {
void planCheck(CUresult r, const char *what) {
  api::check(runtime::checkCuda(r, what), "mepi::dist::Matmul::plan");
}
void executeCheck(CUresult r, const char *what) {
  api::check(runtime::checkCuda(r, what), "mepi::dist::Matmul::execute");
}
size_t elementBytes(DType t) { return runtime::elementTypeBytes(api::elementType(t)); }
} // namespace

void DistReductions::reset(int64_t c, int finals, bool replicatedD) {
  cols = c;
  finalGemms = finals;
  replicated = replicatedD;
  outputs.clear(); // freed by release()
}

bool DistReductions::declare(const UserEpilogOutput &out) {
  using Kind = UserEpilogOutput::Kind;
  if (out.kind != Kind::ColReduction && out.kind != Kind::ScalarReduction)
    return false;
  Output o;
  o.key = out.key;
  o.dtype = out.dtype;
  o.max = out.combiner == UserEpilogOutput::Combiner::Max;
  o.scalar = out.kind == Kind::ScalarReduction;
  outputs.push_back(o);
  return true;
}

UserEpilog DistReductions::widened(UserEpilog epilog) const {
  for (UserEpilogOutput &out : epilog.outputs)
    for (const Output &o : outputs)
      if (out.key == o.key)
        out.dtype = DType::Float32; // the partials: combined in f32
  return epilog;
}

CUfunction DistReductions::load(const runtime::CudaDriver &driver, CombineRows kind,
                                const std::string &arch) {
  std::string ir = runtime::combineRowsKernelIR(kind);
  CUmodule &module = modules[ir];
  if (!module) {
    auto cubin = api::check(runtime::combineRowsKernelCubin(kind, arch),
                            "mepi::dist::Matmul::plan");
    planCheck(driver.cuModuleLoadData(&module, cubin->data()), "cuModuleLoadData(combine)");
  }
  CUfunction f = nullptr;
  planCheck(driver.cuModuleGetFunction(&f, module, runtime::combineRowsKernelName),
            "cuModuleGetFunction(combine)");
  return f;
}

void DistReductions::allocate(const runtime::CudaDriver &driver, int device,
                              const std::string &arch) {
  for (Output &o : outputs) {
    int64_t w = width(o);
    o.device = device;
    planCheck(driver.cuMemAlloc(&o.partials, std::max(finalGemms, 1) * w * sizeof(float)),
              "cuMemAlloc(partial reductions)");
    planCheck(driver.cuMemAlloc(&o.result, w * elementBytes(o.dtype)),
              "cuMemAlloc(reduction)");
    if (replicated && o.dtype != DType::Float32)
      planCheck(driver.cuMemAlloc(&o.f32, w * sizeof(float)), "cuMemAlloc(reduction, f32)");
    o.toF32 = load(driver, {o.max, runtime::ElementType::F32}, arch);
    o.toResult = load(driver, {o.max, api::elementType(o.dtype)}, arch);
  }
}

Tensor DistReductions::vector(const Output &o, CUdeviceptr at, DType dtype) const {
  Tensor t;
  t.data = reinterpret_cast<void *>(at);
  t.device = o.device;
  t.dtype = dtype;
  if (!o.scalar) { // a scalar reduction is a rank-0 tensor
    t.shape = {cols};
    t.strides = {1};
  }
  return t;
}

void DistReductions::writeInPlace(mepi::Matmul &gemm, int index) const {
  for (const Output &o : outputs) {
    gemm.setAuxOutput(o.key, vector(o, o.partials + index * width(o) * sizeof(float),
                                    DType::Float32));
  }
}

void DistReductions::launch(const runtime::CudaDriver &driver, CUfunction f, CUdeviceptr rows,
                            int64_t g, int64_t w, CUdeviceptr result, CUstream stream) const {
  std::vector<int64_t> words = CombineRows::parameters(rows, g, w, result);
  std::vector<void *> params(words.size());
  for (size_t i = 0; i < words.size(); ++i)
    params[i] = &words[i];
  executeCheck(driver.cuLaunchKernel(f, CombineRows::grid(w), 1, 1, CombineRows::block, 1, 1,
                                     0, stream, params.data(), nullptr),
               "cuLaunchKernel(combine)");
}

void DistReductions::combine(const Group &group, CUstream stream) const {
  const runtime::CudaDriver &driver = *group.driver;
  for (const Output &o : outputs) {
    int64_t w = width(o);
    if (!replicated) {
      launch(driver, o.toResult, o.partials, finalGemms, w, o.result, stream);
      continue;
    }
    CUdeviceptr f32 = o.dtype == DType::Float32 ? o.result : o.f32;
    launch(driver, o.toF32, o.partials, finalGemms, w, f32, stream);
    auto *v = reinterpret_cast<void *>(f32);
    api::check(checkNccl(group.nccl->ncclAllReduce(v, v, w, ncclFloat32,
                                                   o.max ? ncclMax : ncclSum, group.comm,
                                                   reinterpret_cast<cudaStream_t>(stream)),
                         "ncclAllReduce(user epilog reduction)"),
               "mepi::dist::Matmul::execute");
    if (f32 != o.result) // one row: its values in the output's dtype
      launch(driver, o.toResult, f32, 1, w, o.result, stream);
  }
}

void DistReductions::publish(std::map<std::string, Tensor> &into) const {
  for (const Output &o : outputs) {
    into[o.key] = vector(o, o.result, o.dtype);
  }
}

void DistReductions::release(const runtime::CudaDriver &driver) {
  for (Output &o : outputs)
    for (CUdeviceptr *p : {&o.partials, &o.result, &o.f32})
      if (*p)
        driver.cuMemFree(*p), *p = 0;
  for (auto &[ir, module] : modules)
    if (module)
      driver.cuModuleUnload(module);
  modules.clear();
}
