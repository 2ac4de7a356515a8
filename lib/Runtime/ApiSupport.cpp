// What the C++ API's implementation files share (see ApiSupport.h).
#include "Runtime/ApiSupport.h"
#include "Runtime/Log.h"
#include "Runtime/MxScaling.h"
#include "mepi/IR/BlockScaling.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mepi;
using namespace mepi::runtime;

namespace mepi::api {

[[noreturn]] void fail(const std::string &message) { throw Error(message); }

void check(llvm::Error error, const std::string &context) {
  if (error)
    throwAsApiError(std::move(error), context);
}

std::string dims(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

ElementType elementType(DType dtype) {
  switch (dtype) {
  case DType::Float16: return ElementType::F16;
  case DType::BFloat16: return ElementType::BF16;
  case DType::Float32: return ElementType::F32;
  case DType::UInt8: return ElementType::U8;
  case DType::Int32: return ElementType::I32;
  case DType::Int64: return ElementType::I64;
  case DType::Float8E4M3FN: return ElementType::F8E4M3FN;
  case DType::Float8E5M2: return ElementType::F8E5M2;
  }
  return ElementType::F32;
}

DType dtypeOf(ElementType type) {
  switch (type) {
  case ElementType::F16: return DType::Float16;
  case ElementType::BF16: return DType::BFloat16;
  case ElementType::U8: return DType::UInt8;
  case ElementType::I32: return DType::Int32;
  case ElementType::I64: return DType::Int64;
  case ElementType::F8E4M3FN: return DType::Float8E4M3FN;
  case ElementType::F8E5M2: return DType::Float8E5M2;
  default: return DType::Float32;
  }
}

std::vector<std::pair<const char *, const Tensor *>>
namedInputs(const EpilogInputs &inputs, const QuantizationScales &scales) {
  std::vector<std::pair<const char *, const Tensor *>> named;
  if (inputs.bias)
    named.push_back({"bias", &*inputs.bias});
  if (inputs.reluAux)
    named.push_back({"relu_aux", &*inputs.reluAux});
  if (inputs.geluAux)
    named.push_back({"gelu_aux", &*inputs.geluAux});
  // After the epilog's own inputs: the planner appends them to its signature in this order.
  if (scales.a)
    named.push_back({"a_scale", &*scales.a});
  if (scales.b)
    named.push_back({"b_scale", &*scales.b});
  if (scales.c)
    named.push_back({"c_scale", &*scales.c});
  if (scales.d)
    named.push_back({"d_scale", &*scales.d});
  if (inputs.auxQuantizationScale)
    named.push_back({"aux_quantization_scale", &*inputs.auxQuantizationScale});
  return named;
}

Tensor builtinInputTensor(const char *key, const Tensor &t) {
  Tensor given = t;
  if (std::string(key) == "aux_quantization_scale" && given.shape == std::vector<int64_t>{1})
    given.shape.clear(), given.strides.clear();
  return given;
}

namespace {
/// The shapes a quantization scale may have, by key: one value, then what else ("a": one per
/// row of D; "b": one per column, or grouped, one per group or per group and column).
struct ScaleShapes {
  std::vector<std::vector<int64_t>> allowed; // besides [] and [1]
  std::string text;                          // " or [64] (M: one per row of D)"
};

ScaleShapes scaleShapes(char key, const MatmulProblem &p) {
  int64_t m = p.d.shape[p.d.shape.size() - 2], n = p.d.shape.back();
  int64_t groups = !p.groups ? 0
                   : p.groups->bounds.shape[0] -
                         (p.groups->form == runtime::GroupForm::Indptr ? 1 : 0);
  // Block scales (1 x 128 blocks of op(A), 128 x 128 of op(B)): 2-D problems only.
  using mlir::mepi::kScaleBlockElements;
  int64_t k = p.a.shape[p.a.shape.size() - (p.transposeA ? 2 : 1)];
  int64_t blocksK = llvm::divideCeil(k, kScaleBlockElements);
  bool plain = !groups && p.d.shape.size() == 2;
  if (key == 'a' && plain)
    return {{{m}, {m, blocksK}},
            llvm::formatv(" or [{0}] (M: one per row of D) or [{0}, {1}] (M, ceil(K / {2}): "
                          "one per row and block of {2} elements of K)",
                          m, blocksK, kScaleBlockElements)
                .str()};
  if (key == 'b' && plain)
    return {{{n}, {int64_t(llvm::divideCeil(n, kScaleBlockElements)), blocksK}},
            llvm::formatv(" or [{0}] (N: one per column of D) or [{1}, {2}] (ceil(N / {3}), "
                          "ceil(K / {3}): one per block of {3} x {3} elements of op(B))",
                          n, llvm::divideCeil(n, kScaleBlockElements), blocksK,
                          kScaleBlockElements)
                .str()};
  if (key == 'a')
    return {{{m}}, llvm::formatv(" or [{0}] (M: one per row of D)", m).str()};
  if (key == 'b' && groups)
    return {{{groups}, {groups, n}},
            llvm::formatv(" or [{0}] (one per group) or [{0}, {1}] (one per group and column "
                          "of D)",
                          groups, n)
                .str()};
  if (key == 'b')
    return {{{n}}, llvm::formatv(" or [{0}] (N: one per column of D)", n).str()};
  return {{}, ""};
}
} // namespace

QuantizationScales validatedScales(const QuantizationScales &scales, const MatmulProblem &p,
                                   int device) {
  if (!scales.a && !scales.b && !scales.c && !scales.d)
    return scales;
  if (elementTypeBytes(p.a.type) != 1)
    fail(llvm::formatv("quantization scales: expected 8-bit A and B (fp8), got {0} x {1}",
                       elementTypeName(p.a.type), elementTypeName(p.b.type)));
  if (scales.c && !p.c)
    fail("quantization scale c: given without an operand c (it scales C)");
  QuantizationScales normalized;
  for (auto [given, out, key] : {std::tuple{&scales.a, &normalized.a, 'a'},
                                 std::tuple{&scales.b, &normalized.b, 'b'},
                                 std::tuple{&scales.c, &normalized.c, 'c'},
                                 std::tuple{&scales.d, &normalized.d, 'd'}}) {
    if (!*given)
      continue;
    const Tensor &t = **given;
    std::string name = std::string("quantization scale ") + key;
    if (t.dtype != DType::Float32)
      fail(llvm::formatv("{0}: expected f32, got {1}", name, elementTypeName(elementType(t.dtype))));
    if (t.device != device)
      fail(llvm::formatv("{0}: expected memory on device {1} (operand a's), got device {2}",
                         name, device, t.device));
    ScaleShapes shapes = scaleShapes(key, p);
    bool scalar = t.shape.empty() || t.shape == std::vector<int64_t>{1};
    if (!scalar && llvm::find(shapes.allowed, t.shape) == shapes.allowed.end())
      fail(llvm::formatv("{0}: expected shape [] or [1]{1}, got {2}", name, shapes.text,
                         dims(t.shape)));
    validated(t, name, 0); // strides
    Tensor copy = t;
    if (scalar) // one value: a rank-0 tensor
      copy.shape.clear(), copy.strides.clear();
    *out = copy;
  }
  // Block scales come in pairs, and each block's sums are promoted to be scaled.
  using mlir::mepi::kScaleBlockElements;
  bool aBlocks = normalized.a && normalized.a->shape.size() == 2;
  bool bBlocks = normalized.b && normalized.b->shape.size() == 2 && !p.groups;
  if (aBlocks != bBlocks)
    fail(llvm::formatv("quantization scales: block scales of {0} need block scales of {1} "
                       "(1 x {2} blocks of A with {2} x {2} blocks of B), got {1} of shape {3}",
                       aBlocks ? "a" : "b", aBlocks ? "b" : "a", kScaleBlockElements,
                       (aBlocks ? normalized.b : normalized.a)
                           ? dims((aBlocks ? normalized.b : normalized.a)->shape)
                           : std::string("(none)")));
  if (aBlocks && p.fastAccumulation)
    fail("quantization scales: block scales need promoted sums, got fastAccumulation");
  return normalized;
}

std::pair<Tensor, Tensor> validatedMxScales(const QuantizationScales &scales,
                                            const MatmulProblem &p, int device) {
  if (elementTypeBytes(p.a.type) != 1 || elementTypeBytes(p.b.type) != 1)
    fail(llvm::formatv("block scaling (MXFP8): expected 8-bit A and B, got {0} x {1}",
                       elementTypeName(p.a.type), elementTypeName(p.b.type)));
  if (p.a.shape.size() != 2 || p.b.shape.size() != 2 || p.groups || p.c)
    fail("block scaling (MXFP8): expected 2-D A and B without an operand c or groups");
  if (elementTypeBytes(p.d.type) == 1 || scales.d)
    fail("block scaling (MXFP8): expected D of 16 or 32 bits and no scale d (an 8-bit D's "
         "block scales are not produced yet)");
  int64_t m = p.d.shape[0], n = p.d.shape[1];
  int64_t blocks = runtime::mxBlocksK(p.a.shape[p.transposeA ? 0 : 1]);
  auto check = [&](const std::optional<Tensor> &t, char key, int64_t rows) {
    std::string name = std::string("quantization scale ") + key;
    int64_t bytes = runtime::mxScaleBytes(rows, blocks);
    if (!t)
      fail(name + ": block scaling (MXFP8) needs the e8m0 scales of both A and B");
    if (t->dtype != DType::UInt8)
      fail(llvm::formatv("{0}: expected uint8 (e8m0) scales with block scaling, got {1}", name,
                         elementTypeName(elementType(t->dtype))));
    if (t->shape != std::vector<int64_t>{bytes} || (!t->strides.empty() && t->strides[0] != 1))
      fail(llvm::formatv("{0}: expected {1} contiguous bytes (cuBLASLt's interleaved layout of "
                         "{2} rows x {3} blocks of 32 elements of K, padded to 128 x 4), got "
                         "shape {4}",
                         name, bytes, rows, blocks, dims(t->shape)));
    if (t->device != device)
      fail(llvm::formatv("{0}: expected memory on device {1} (operand a's), got device {2}",
                         name, device, t->device));
    validated(*t, name, 1);
    return *t;
  };
  return {check(scales.a, 'a', m), check(scales.b, 'b', n)};
}

int64_t spanBytes(const OperandLayout &layout, const std::string &name) {
  // The element count and the bytes spanned fit in 63 bits (the runtime's sizes are int64).
  bool overflow = false;
  int64_t count = 1, last = 0, step = 0;
  for (size_t i = 0; i < layout.shape.size() && !overflow; ++i)
    overflow = llvm::MulOverflow(count, layout.shape[i], count) ||
               llvm::MulOverflow(layout.strides[i], layout.shape[i] - 1, step) ||
               llvm::AddOverflow(last, step, last);
  int64_t byteSpan = 0;
  if (overflow || llvm::MulOverflow(std::max(count, last + 1),
                                    int64_t(elementTypeBytes(layout.type)), byteSpan))
    fail(llvm::formatv("{0}: shape {1} with strides {2} spans more than 2^63 bytes", name,
                       dims(layout.shape), dims(layout.strides)));
  return byteSpan;
}

OperandLayout validated(const Tensor &t, const std::string &name, size_t minRank) {
  if (t.shape.size() < minRank)
    fail(llvm::formatv("operand {0}: expected rank >= {1}, got {2}", name, minRank,
                       t.shape.size()));
  for (int64_t d : t.shape)
    if (d < 1)
      fail(llvm::formatv("operand {0}: expected every dimension >= 1, got shape {1}", name,
                         dims(t.shape)));
  OperandLayout layout{elementType(t.dtype), t.shape,
                       t.strides.empty() ? rowMajorStrides(t.shape) : t.strides};
  if (layout.strides.size() != t.shape.size())
    fail(llvm::formatv("operand {0}: expected {1} strides (one per dimension), got {2}", name,
                       t.shape.size(), layout.strides.size()));
  for (size_t i = 0; i < t.shape.size(); ++i)
    if (layout.strides[i] < 0 || (layout.strides[i] == 0 && t.shape[i] > 1))
      fail(llvm::formatv("operand {0}: expected positive strides, got {1} for shape {2}", name,
                         dims(layout.strides), dims(t.shape)));
  if (!t.data)
    fail(llvm::formatv("operand {0}: null device pointer", name));
  unsigned bytes = elementTypeBytes(layout.type);
  spanBytes(layout, "operand " + name);
  if (reinterpret_cast<uintptr_t>(t.data) % bytes != 0)
    fail(llvm::formatv("operand {0}: pointer {1} is not aligned to its {2}-byte elements", name,
                       t.data, bytes));
  return layout;
}

std::vector<int64_t> broadcastBatch(const std::vector<int64_t> &a,
                                    const std::vector<int64_t> &b) {
  size_t ra = a.size() - 2, rb = b.size() - 2, r = std::max(ra, rb);
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i + ra >= r ? a[i + ra - r] : 1;
    int64_t db = i + rb >= r ? b[i + rb - r] : 1;
    if (da != db && da != 1 && db != 1)
      fail(llvm::formatv("operands a and b: batch dimensions {0} and {1} do not broadcast "
                         "(shapes {2} and {3})",
                         da, db, dims(a), dims(b)));
    out[i] = std::max(da, db);
  }
  return out;
}

void expectSameLayout(const Tensor &now, const OperandLayout &planned, const std::string &name,
                      const std::string &call) {
  OperandLayout got = validated(now, name, planned.shape.size());
  if (got.type != planned.type)
    fail(llvm::formatv("{3}: operand {0}: expected dtype {1}, got {2}", name,
                       elementTypeName(planned.type), elementTypeName(got.type), call));
  if (got.shape != planned.shape)
    fail(llvm::formatv("{3}: operand {0}: expected shape {1}, got {2}", name,
                       dims(planned.shape), dims(got.shape), call));
  if (got.strides != planned.strides)
    fail(llvm::formatv("{3}: operand {0}: expected strides {1}, got {2}", name,
                       dims(planned.strides), dims(got.strides), call));
}

void checkDevicePointer(const CudaDriver &driver, const Tensor &t, const std::string &name,
                        int device) {
  if (t.device != device)
    fail(llvm::formatv("operand {0}: expected memory on device {1} (operand a's), got device {2}",
                       name, device, t.device));
  int ordinal = -1;
  CUresult r = driver.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                            reinterpret_cast<CUdeviceptr>(t.data));
  if (r != CUDA_SUCCESS) {
    const char *code = "?";
    driver.cuGetErrorName(r, &code);
    fail(llvm::formatv("operand {0}: pointer {1} is not memory CUDA knows ({2})", name, t.data,
                       code));
  }
  if (ordinal != t.device)
    fail(llvm::formatv("operand {0}: expected memory on device {1}, got device {2}", name,
                       t.device, ordinal));
}

unsigned commonAlignment(const void *a, const void *b) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b) | 16;
  return static_cast<unsigned>(bits & (~bits + 1));
}

std::string deviceArch(int device) {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver) {
    llvm::consumeError(driver.takeError());
    return "sm_90a"; // no driver: plan for Hopper
  }
  CUdevice dev;
  int major = 0, minor = 0;
  check(checkCuda(driver->cuDeviceGet(&dev, device), "cuDeviceGet"), "plan");
  driver->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  driver->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
  // The arch-specific variant unlocks wgmma/setmaxnreg on Hopper.
  return llvm::formatv("sm_{0}{1}{2}", major, minor, major >= 9 ? "a" : "");
}

int64_t deviceMultiprocessors(int device) {
  llvm::Expected<const CudaDriver &> driver = cudaDriver();
  if (!driver) {
    llvm::consumeError(driver.takeError());
    return 0;
  }
  CUdevice dev;
  int count = 0;
  if (driver->cuDeviceGet(&dev, device) != CUDA_SUCCESS ||
      driver->cuDeviceGetAttribute(&count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) !=
          CUDA_SUCCESS)
    return 0;
  return count;
}

} // namespace mepi::api

void mepi::setLogSink(LogSink sink) {
  if (!sink) {
    runtime::replaceLogSink(nullptr);
    return;
  }
  // What the sink throws stops here: the runtime that calls it is built without exceptions.
  runtime::replaceLogSink([sink = std::move(sink)](LogLevel level, const std::string &message) {
    try {
      sink(level, message);
    } catch (...) {
    }
  });
}
