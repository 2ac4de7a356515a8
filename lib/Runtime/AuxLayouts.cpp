// The aux matrices' layouts and nvmath's epilog preferences for them (AuxLayouts.h).
#include "Runtime/AuxLayouts.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mepi::runtime;

namespace {
/// A column-major [batch..., rows, N] matrix of `type`, batches row-major around it: the
/// layout of cuBLASLt's epilog aux matrices, which nvmath-python returns.
OperandLayout columnMajor(ElementType type, const OutputShape &out, int64_t rows) {
  OperandLayout layout{type, out.batch, {}};
  layout.shape.push_back(rows);
  layout.shape.push_back(out.n);
  layout.strides = rowMajorStrides(out.batch);
  for (int64_t &stride : layout.strides)
    stride *= rows * out.n;
  layout.strides.push_back(1);
  layout.strides.push_back(rows);
  return layout;
}

/// Rows of "gelu_aux" a column's length is a multiple of: 8, or 16 bytes' worth where that is
/// more (an 8-bit aux's 16), so that the kernels' 16-byte stores of a column never straddle it.
int64_t geluAuxGranule(const MatmulProblem &p) {
  return std::max<int64_t>(8, 16 / elementTypeBytes(geluAuxType(p)));
}
} // namespace

OperandLayout mepi::runtime::auxLayout(llvm::StringRef key, const MatmulProblem &p) {
  OutputShape out(p);
  if (key == "relu_aux")
    return columnMajor(ElementType::U8, out, llvm::alignTo(llvm::divideCeil(out.m, 8), 16));
  return columnMajor(geluAuxType(p), out, llvm::alignTo(out.m, geluAuxGranule(p)));
}

// The column stride is in rows: bits of the mask, elements of the GELU input; a mask column is
// whole 16 bytes.
llvm::Expected<OperandLayout> mepi::runtime::auxOutputLayout(llvm::StringRef key,
                                                            const MatmulProblem &p) {
  OperandLayout layout = auxLayout(key, p);
  int64_t ld = p.auxLeadingDimension, rowsPerElement = key == "relu_aux" ? 8 : 1;
  if (ld == 0)
    return layout;
  int64_t granule = rowsPerElement == 8 ? 128 : geluAuxGranule(p);
  int64_t smallest = layout.shape[0] * rowsPerElement;
  if (ld < smallest || ld % granule != 0)
    return llvm::createStringError(llvm::formatv(
        "options.auxLeadingDimension: expected a multiple of {0} of at least {1} (M = {2} "
        "rounded up) for the aux output '{3}', got {4}",
        granule, smallest, OutputShape(p).m, key, ld));
  layout.strides = {1, ld / rowsPerElement};
  return layout;
}

// A block of rows of a larger aux matrix (cuBLASLt's EPILOGUE_AUX_LD), as a distributed
// matmul's GEMMs read theirs: the kernel reads it through the strides given.
bool mepi::runtime::auxInputFits(const OperandLayout &given, const OperandLayout &want) {
  if (given.type != want.type || given.shape != want.shape)
    return false;
  if (given.strides == want.strides)
    return true;
  return want.strides.size() == 2 && given.strides.size() == 2 && given.strides[0] == 1 &&
         given.strides[1] >= want.strides[1];
}


namespace {
bool isFloat(ElementType type) {
  return type == ElementType::F16 || type == ElementType::BF16 || type == ElementType::F32 ||
         type == ElementType::F8E4M3FN || type == ElementType::F8E5M2;
}
} // namespace

llvm::Error mepi::runtime::checkAuxPreferences(const MatmulProblem &p, bool writesGeluAux) {
  auto scale = std::find_if(p.builtinInputs.begin(), p.builtinInputs.end(),
                            [](const NamedLayout &in) { return in.key == "aux_quantization_scale"; });
  bool scaled = scale != p.builtinInputs.end();
  if (!p.auxType && !p.auxAmax && !scaled)
    return llvm::Error::success();
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(message.str());
  };
  if (!writesGeluAux)
    return error("options.auxType, options.auxAmax and the epilog input "
                 "'aux_quantization_scale' are for the gelu_aux that GELU_AUX and GELU_AUX_BIAS "
                 "write; epilog " + p.epilog + " writes none");
  ElementType aux = geluAuxType(p);
  if (!isFloat(aux))
    return error(llvm::formatv("options.auxType: expected a floating-point type, got {0}",
                               elementTypeName(aux)));
  if (aux != p.d.type && elementTypeBytes(p.a.type) != 1)
    return error(llvm::formatv("options.auxType: expected D's type {0} (other aux types need "
                               "8-bit A and B), got {1}",
                               elementTypeName(p.d.type), elementTypeName(aux)));
  bool eightBit = elementTypeBytes(aux) == 1;
  if (eightBit && !scaled)
    return error(llvm::formatv("options.auxType {0}: an 8-bit gelu_aux needs the epilog input "
                               "'aux_quantization_scale' (f32, one value)",
                               elementTypeName(aux)));
  if (!eightBit && scaled)
    return error(llvm::formatv("epilog input 'aux_quantization_scale': expected only with an "
                               "8-bit options.auxType, got gelu_aux of type {0}",
                               elementTypeName(aux)));
  if (p.auxAmax && !eightBit)
    return error(llvm::formatv("options.auxAmax: expected an 8-bit options.auxType (the amax of "
                               "a quantized gelu_aux), got gelu_aux of type {0}",
                               elementTypeName(aux)));
  if (scaled && (scale->layout.type != ElementType::F32 || !scale->layout.shape.empty()))
    return error(llvm::formatv("epilog input 'aux_quantization_scale': expected f32 of shape [] "
                               "or [1], got {0} of rank {1}",
                               elementTypeName(scale->layout.type), scale->layout.shape.size()));
  return llvm::Error::success();
}
