// Element type facts and row-major strides (no MLIR: also compiled into API-only programs).
#include "Runtime/Problem.h"

#include <cstdint>

using mepi::runtime::ElementType;

const char *mepi::runtime::elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F16: return "f16";
  case ElementType::BF16: return "bf16";
  case ElementType::F32: return "f32";
  case ElementType::F8E4M3FN: return "f8e4m3fn";
  case ElementType::F8E5M2: return "f8e5m2";
  case ElementType::U8: return "u8";
  case ElementType::I32: return "i32";
  case ElementType::I64: return "i64";
  }
  return "?";
}

const char *mepi::runtime::mlirTypeName(ElementType type) {
  switch (type) {
  case ElementType::F16: return "f16";
  case ElementType::BF16: return "bf16";
  case ElementType::F32: return "f32";
  case ElementType::F8E4M3FN: return "f8E4M3FN";
  case ElementType::F8E5M2: return "f8E5M2";
  case ElementType::U8: return "i8";
  case ElementType::I32: return "i32";
  case ElementType::I64: return "i64";
  }
  return "?";
}

unsigned mepi::runtime::elementTypeBytes(ElementType type) {
  switch (type) {
  case ElementType::F16:
  case ElementType::BF16: return 2;
  case ElementType::F32: return 4;
  case ElementType::F8E4M3FN:
  case ElementType::F8E5M2:
  case ElementType::U8: return 1;
  case ElementType::I32: return 4;
  case ElementType::I64: return 8;
  }
  return 0;
}

auto mepi::runtime::geluAuxType(const MatmulProblem &problem) -> ElementType {
  if (problem.auxType)
    return *problem.auxType;
  return elementTypeBytes(problem.d.type) == 1 ? ElementType::BF16 : problem.d.type;
}

auto mepi::runtime::gradientType(const MatmulProblem &problem) -> ElementType {
  return elementTypeBytes(problem.d.type) == 1 ? ElementType::BF16 : problem.d.type;
}

auto mepi::runtime::rowMajorStrides(const std::vector<int64_t> &shape)
    -> std::vector<int64_t> {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}


bool mepi::runtime::needsTmaStaging(const OperandLayout &layout, const void *address) {
  if (layout.shape.size() != 2 || layout.strides.size() != 2 || layout.strides[1] != 1 ||
      !(layout.type == ElementType::F16 || layout.type == ElementType::BF16 ||
        layout.type == ElementType::F8E4M3FN || layout.type == ElementType::F8E5M2))
    return false;
  int64_t pitchBytes = layout.strides[0] * elementTypeBytes(layout.type);
  return pitchBytes % 16 != 0 || reinterpret_cast<uintptr_t>(address) % 16 != 0;
}

auto mepi::runtime::stagedLayout(const OperandLayout &layout) -> OperandLayout {
  int64_t perChunk = 16 / elementTypeBytes(layout.type);
  int64_t pitch = (layout.shape[1] + perChunk - 1) / perChunk * perChunk;
  return {layout.type, layout.shape, {pitch, 1}};
}

bool mepi::runtime::isBlockScale(const MatmulProblem &problem, const std::string &key) {
  if ((key != "a_scale" && key != "b_scale") || problem.groups)
    return false;
  for (const NamedLayout &input : problem.builtinInputs)
    if (input.key == "a_scale")
      return input.layout.shape.size() == 2;
  return false;
}
