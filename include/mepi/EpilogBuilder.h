// mepi's epilog builder: an expression epilog built from nodes, in the spirit of CUTLASS's
// Epilogue Visitor Tree, fused into the matmul like any other epilog.
//
//   mepi::EpilogBuilder e;
//   auto x = e.mul(e.accumulator(), e.input("scale", mepi::InputKind::Col));
//   e.store(e.max(x, e.constant(0.0)));                  // D = relu(acc * scale[col])
//   e.reduction("col_max", x, mepi::ReductionKind::Col, mepi::UserEpilogOutput::Combiner::Max);
//   mm.plan(e, {{"scale", scale}});
//
// Every value is an f32 number, an index (the element's row or column) or a bool (a
// comparison); inputs are read and widened to f32, and the stored value is rounded to D's type.
// Misuse (a value of another builder, mismatched types, a key used twice) throws mepi::Error
// when the node is added, naming the node. plan() turns the expression into a user epilog in
// MLIR (EpilogBuilder::toUserEpilog), so it is inlined into the kernel like MLIR text is.
#ifndef MEPI_EPILOGBUILDER_H
#define MEPI_EPILOGBUILDER_H

#include "mepi/Matmul.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mepi {

/// The type of a builder value.
enum class ValueType { F32, Index, Bool };

/// A node of an EpilogBuilder, valid with that builder only.
class EpilogValue {
public:
  EpilogValue() = default;
  ValueType type() const { return valueType; }

private:
  friend class EpilogBuilder;
  EpilogValue(const void *owner, int32_t id, ValueType type)
      : owner(owner), id(id), valueType(type) {}
  const void *owner = nullptr;
  int32_t id = -1;
  ValueType valueType = ValueType::F32;
};

/// f32 -> f32 (math and arith ops). Round: to the nearest integer, ties to even.
enum class UnaryOp { Neg, Abs, Exp, Log, Sqrt, Rsqrt, Tanh, Erf, Floor, Ceil, Round };
/// Add, Sub, Mul, Min, Max: f32 or index operands of one type; Div, Pow: f32; And, Or: bool.
/// Min and Max of f32 propagate NaN.
enum class BinaryOp { Add, Sub, Mul, Div, Min, Max, Pow, And, Or };
/// Comparisons of two f32 (ordered: false when either is NaN, except Ne) or two index values.
enum class Predicate { Lt, Le, Gt, Ge, Eq, Ne };
/// How a reduction output combines the values of the elements: over each row of D, each
/// column, or all of D.
enum class ReductionKind { Row, Col, Scalar };

class EpilogBuilder {
public:
  EpilogBuilder();
  EpilogBuilder(const EpilogBuilder &);
  EpilogBuilder &operator=(const EpilogBuilder &);
  EpilogBuilder(EpilogBuilder &&) noexcept;
  EpilogBuilder &operator=(EpilogBuilder &&) noexcept;
  ~EpilogBuilder();

  // Inputs.
  /// alpha * op(A) * op(B) + beta * C at this element, in f32.
  EpilogValue accumulator();
  /// The element of the Matmul's operand C (plan() fails if it has none). The accumulator
  /// already holds beta * C; describe the Matmul with beta = 0 to use C only here.
  EpilogValue c();
  /// The element's row and column (index values).
  EpilogValue row();
  EpilogValue col();
  /// An epilog input by name, given to plan() as a tensor of any float type with the shape
  /// `kind` calls for (see InputKind). Reading a name again returns the same input; reading it
  /// with another kind throws.
  EpilogValue input(const std::string &name, InputKind kind);
  /// An f32 constant (index constants: indexConstant).
  EpilogValue constant(double value);
  EpilogValue indexConstant(int64_t value);

  // Compute nodes.
  EpilogValue unary(UnaryOp op, EpilogValue x);
  EpilogValue binary(BinaryOp op, EpilogValue x, EpilogValue y);
  /// x * y + z in f32, with one rounding.
  EpilogValue fma(EpilogValue x, EpilogValue y, EpilogValue z);
  EpilogValue compare(Predicate predicate, EpilogValue x, EpilogValue y);
  /// cond ? x : y, for x and y of one type.
  EpilogValue select(EpilogValue cond, EpilogValue x, EpilogValue y);
  /// An f32 rounded to `dtype`'s precision and range (f16, bf16; f32: unchanged), still an
  /// f32 value; an index or a bool converted to an f32 number (`dtype` f32 only).
  EpilogValue cast(EpilogValue x, DType dtype);

  EpilogValue add(EpilogValue x, EpilogValue y) { return binary(BinaryOp::Add, x, y); }
  EpilogValue sub(EpilogValue x, EpilogValue y) { return binary(BinaryOp::Sub, x, y); }
  EpilogValue mul(EpilogValue x, EpilogValue y) { return binary(BinaryOp::Mul, x, y); }
  EpilogValue div(EpilogValue x, EpilogValue y) { return binary(BinaryOp::Div, x, y); }
  EpilogValue min(EpilogValue x, EpilogValue y) { return binary(BinaryOp::Min, x, y); }
  EpilogValue max(EpilogValue x, EpilogValue y) { return binary(BinaryOp::Max, x, y); }
  EpilogValue exp(EpilogValue x) { return unary(UnaryOp::Exp, x); }
  EpilogValue abs(EpilogValue x) { return unary(UnaryOp::Abs, x); }
  EpilogValue tanh(EpilogValue x) { return unary(UnaryOp::Tanh, x); }
  EpilogValue round(EpilogValue x) { return unary(UnaryOp::Round, x); }
  /// min(max(x, lo), hi).
  EpilogValue clamp(EpilogValue x, EpilogValue lo, EpilogValue hi) {
    return min(max(x, lo), hi);
  }

  /// Lets exp, log, tanh, sqrt, rsqrt, pow and division use the hardware's approximate
  /// instructions (MUFU: ex2.approx, tanh.approx.f32 with a relative error near 2^-11,
  /// div.approx), as the built-in epilogs do for GELU and SIGMOID; below the precision of a bf16
  /// or f16 D, not of an f32 one. It also lets a multiplication and an addition or subtraction
  /// of its product round once (one fma, as nvcc contracts by default and as the built-in
  /// epilogs add their bias to alpha's product). Off by default: libdevice's accurate
  /// functions, IEEE division, every operation rounded. Applies to the nodes added after the
  /// call.
  void setFastMath(bool enabled);

  // Outputs.
  /// The value stored to D (an f32, rounded to D's type). Exactly one store.
  void store(EpilogValue x);
  /// An aux matrix `key` (row-major [batch..., M, N] of `dtype`) from an f32 value, or a
  /// bitmask (cuBLASLt's ReLU-mask layout, `dtype` ignored) from a bool.
  void auxOutput(const std::string &key, EpilogValue x, DType dtype = DType::Float32);
  /// A reduction `key` of an f32 value over each row, column or all of D, stored as `dtype`.
  void reduction(const std::string &key, EpilogValue x, ReductionKind kind,
                 UserEpilogOutput::Combiner combiner = UserEpilogOutput::Combiner::Add,
                 DType dtype = DType::Float32);

  /// The inputs read, in the order the epilog function takes them.
  std::vector<std::pair<std::string, InputKind>> inputs() const;
  bool readsC() const;

  /// The expression as a user epilog: a func.func @mepi_builder_epilog in MLIR, of type
  /// (f32 acc, one element per input (the `inputTypes` of inputs(), then C's when readsC()),
  /// index row, index col) -> (D's element type, the outputs...). Throws without a store.
  UserEpilog toUserEpilog(DType resultType, const std::vector<DType> &inputTypes) const;

private:
  struct Node;
  struct Graph;
  struct Printer; // toUserEpilog's MLIR text
  std::unique_ptr<Graph> graph;
  EpilogValue addNode(const Node &node);
  void checkOwned(const EpilogValue &x, const char *node) const;
};

} // namespace mepi

#endif // MEPI_EPILOGBUILDER_H
