// User epilogs on a distributed matmul's local GEMMs (DistUserEpilog.h).
#include "Distributed/DistUserEpilog.h"

#include "Runtime/ApiSupport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

using namespace mepi;
using namespace mepi::dist::detail;

namespace {
const char *typeName(DType t) { return runtime::mlirTypeName(api::elementType(t)); }

int64_t bytesOf(DType t) { return runtime::elementTypeBytes(api::elementType(t)); }

const char *kindName(InputKind kind) {
  switch (kind) {
  case InputKind::Row: return "row";
  case InputKind::Col: return "col";
  case InputKind::Scalar: return "scalar";
  case InputKind::Matrix: return "matrix";
  }
  return "?";
}
} // namespace

void DistUserEpilog::check(int64_t rows, int64_t cols) const {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor &t = inputs[i].tensor;
    std::vector<int64_t> want;
    switch (inputs[i].kind) {
    case InputKind::Row: want = {rows}; break;
    case InputKind::Col: want = {cols}; break;
    case InputKind::Scalar: break;
    case InputKind::Matrix: want = {rows, cols}; break;
    }
    if (t.shape != want)
      api::fail(llvm::formatv("plan: user epilog input {0} ({1}): expected {2} for this rank's "
                              "D of [{3}, {4}], got {5}",
                              i, kindName(inputs[i].kind), api::dims(want), rows, cols,
                              api::dims(t.shape)));
  }
}

int64_t DistUserEpilog::fingerprint() const {
  std::string all = epilog.mlir + '\0' + epilog.function + '\0' +
                    (epilog.userData ? "user data" : "") + '\0';
  for (const UserEpilogInput &in : inputs)
    all += std::string(kindName(in.kind)) + ':' + typeName(in.tensor.dtype) + ';';
  for (const DeviceCode &code : epilog.deviceCode)
    all += code.name + ':' + std::to_string(code.bytes.size()) + ';';
  for (const UserEpilogOutput &out : epilog.outputs) // each is a buffer every rank allocates
    all += llvm::formatv("{0}:{1}:{2}:{3};", out.key, int(out.kind), typeName(out.dtype),
                         int(out.combiner))
               .str();
  return static_cast<int64_t>(std::hash<std::string>()(all));
}

bool DistUserEpilog::writesBitmask() const {
  return llvm::any_of(epilog.outputs, [](const UserEpilogOutput &o) {
    return o.kind == UserEpilogOutput::Kind::Bitmask;
  });
}

void DistUserEpilog::declareOutputs(DistAux &aux, DistReductions &reductions) const {
  for (const UserEpilogOutput &out : epilog.outputs) {
    if (reductions.declare(out))
      continue;
    switch (out.kind) {
    case UserEpilogOutput::Kind::Matrix: aux.declare(out.key, out.dtype, AuxLayout::RowMajor); break;
    case UserEpilogOutput::Kind::Bitmask: aux.declare(out.key, DType::UInt8, AuxLayout::Mask); break;
    case UserEpilogOutput::Kind::RowReduction: aux.declare(out.key, out.dtype, AuxLayout::Rows); break;
    default: break; // column and scalar reductions: declared above
    }
  }
}

/// The MLIR type the function returns for `out` (mepi/Matmul.h, UserEpilogOutput).
static std::string resultType(const UserEpilogOutput &out) {
  switch (out.kind) {
  case UserEpilogOutput::Kind::Matrix: return typeName(out.dtype);
  case UserEpilogOutput::Kind::Bitmask: return "i1";
  default: return "f32";
  }
}

UserEpilog DistUserEpilog::forBlock(const plan::View &d, DType dType) const {
  // (f32 acc, one element per input..., [i64 user data,] index row, index col)
  //   -> (D's type, one value per output...).
  std::string params = "%acc: f32", args = "%acc", types = "f32";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const char *t = typeName(inputs[i].tensor.dtype);
    params += llvm::formatv(", %in{0}: {1}", i, t).str();
    args += llvm::formatv(", %in{0}", i).str();
    types += std::string(", ") + t;
  }
  if (epilog.userData) {
    params += ", %user: i64";
    args += ", %user";
    types += ", i64";
  }
  std::string results = typeName(dType), values = "%v#0";
  for (size_t i = 0; i < epilog.outputs.size(); ++i) {
    results += ", " + resultType(epilog.outputs[i]);
    values += llvm::formatv(", %v#{0}", i + 1).str();
  }
  UserEpilog out = epilog;
  out.function = "__mepi_dist_" + epilog.function;
  std::string wrapper = llvm::formatv(R"(
func.func @{0}({1}, %row: index, %col: index) -> ({2}) {
  %row0 = arith.constant {3} : index
  %col0 = arith.constant {4} : index
  %r = arith.addi %row, %row0 : index
  %c = arith.addi %col, %col0 : index
  %v:{8} = func.call @{5}({6}, %r, %c) : ({7}, index, index) -> ({2})
  func.return {9} : {2}
}
)",
                                      out.function, params, results, d.row, d.col,
                                      epilog.function, args, types,
                                      epilog.outputs.size() + 1, values)
                            .str();
  // Beside the user's function: inside its module where the text is one.
  size_t first = out.mlir.find_first_not_of(" \t\r\n");
  size_t close = out.mlir.rfind('}');
  if (first != std::string::npos && out.mlir.compare(first, 6, "module") == 0 &&
      close != std::string::npos)
    out.mlir.insert(close, wrapper);
  else
    out.mlir += wrapper;
  return out;
}

std::vector<UserEpilogInput> DistUserEpilog::inputsForBlock(const plan::View &d) const {
  std::vector<UserEpilogInput> out = inputs;
  for (UserEpilogInput &in : out) {
    Tensor &t = in.tensor;
    int64_t bytes = bytesOf(t.dtype);
    auto shift = [&](int64_t elements) {
      t.data = static_cast<char *>(t.data) + elements * bytes;
    };
    // Empty strides: row-major (mepi/Matmul.h's Tensor).
    int64_t inner = t.strides.empty() ? 1 : t.strides.back();
    int64_t outer = t.strides.size() == 2 ? t.strides[0] : t.shape.size() == 2 ? t.shape[1] : 0;
    switch (in.kind) {
    case InputKind::Row:
      shift(d.row * inner);
      t.shape = {d.rows};
      break;
    case InputKind::Col:
      shift(d.col * inner);
      t.shape = {d.cols};
      break;
    case InputKind::Matrix:
      shift(d.row * outer + d.col * inner);
      t.shape = {d.rows, d.cols};
      if (t.strides.empty())
        t.strides = {outer, 1};
      break;
    case InputKind::Scalar: break;
    }
  }
  return out;
}
