// The built-in epilogs (nvmath-python's catalog, plus SIGMOID, TANH and SILU) as epilog region
// bodies, with the inputs they read, the aux outputs they write and the reductions they declare.
//
// A built-in epilog is not a special kernel: it is a small region that fills a mepi.matmul's
// epilog exactly like a user epilog does, so every kernel family supports all of them.
#ifndef MEPI_LIBRARY_EPILOGLIBRARY_H
#define MEPI_LIBRARY_EPILOGLIBRARY_H

#include "mepi/IR/MepiOps.h"

#include <optional>

namespace mlir::mepi {

enum class BuiltinEpilog {
  Default, Relu, ReluAux, Bias, ReluBias, ReluAuxBias, DRelu, DReluBGrad,
  Gelu, GeluAux, GeluBias, GeluAuxBias, DGelu, DGeluBGrad, BGradA, BGradB, Sigmoid, Tanh, Silu
};

/// Parses nvmath-python's names ("DEFAULT", "RELU_AUX_BIAS", "DGELU_BGRAD", ...) and "SIGMOID",
/// "TANH", "SILU".
std::optional<BuiltinEpilog> parseBuiltinEpilog(llvm::StringRef name);
llvm::StringRef builtinEpilogName(BuiltinEpilog epilog);
/// The names parseBuiltinEpilog accepts, comma separated (for diagnostics).
std::string builtinEpilogNames();

/// One operand of an epilog: its nvmath-python key and how it is indexed.
struct EpilogOperand {
  llvm::StringRef key;
  BroadcastKind kind;
  Combiner combiner = Combiner::Add; ///< reductions only
};

/// What an epilog reads and writes besides D, in the order of the op's operands:
///   inputs: "bias" (row: one value per row of D, length M, added to each column, as in
///     nvmath-python and cuBLASLt; in a grouped matmul col: one value per output feature of
///     each group, [S, N], as a mixture-of-experts layer's bias), "relu_aux" (bitmask),
///     "gelu_aux" (matrix);
///   aux: "relu_aux" (bitmask: 1 where the ReLU's input was > 0), "gelu_aux" (matrix: the
///     GELU's input);
///   reductions: "drelu_bgrad" / "dgelu_bgrad" (row add: the bias gradient, the sum of each
///     row of D);
///   operand sums: "bgrada" (row: the sum of each row of op(A), the op's a_sums) and "bgradb"
///     (col: the sum of each column of op(B), b_sums).
struct EpilogSignature {
  SmallVector<EpilogOperand> inputs, aux, reductions, operandSums;
};
EpilogSignature getBuiltinEpilogSignature(BuiltinEpilog epilog, bool grouped = false);

/// The reduction that `result_amax` adds after the epilog's own: max |D| over all of D, taken
/// in f32 before D is rounded to its type.
inline constexpr EpilogOperand kResultAmax = {"result_amax", BroadcastKind::Scalar,
                                              Combiner::Max};
/// The reduction that `auxAmax` adds after result_amax: max |gelu_aux| over all of D, taken in
/// f32 before the aux's scale (nvmath's aux_amax).
inline constexpr EpilogOperand kGeluAuxAmax = {"gelu_aux_amax", BroadcastKind::Scalar,
                                               Combiner::Max};

/// Fills the empty epilog region of `op`: creates its block arguments (acc, the op's epilog
/// inputs, row, col) and the body of `epilog`, ending in mepi.yield. The op has exactly the
/// inputs, aux outputs and reductions of the epilog's signature in order, then the amax
/// reductions when `resultAmax` and `auxAmax`.
/// The FP8 quantization scales as epilog inputs, after the epilog's own (in this order, each
/// where given): "a_scale" (scalar, or row: one per row of D), "b_scale" (scalar, col: one per
/// column; grouped, with a leading dimension of S: per group), "c_scale" (scalar: C's, read
/// with kEpilogC), "d_scale" (scalar) and "aux_quantization_scale" (scalar: an 8-bit
/// gelu_aux's, nvmath's epilog input).
inline constexpr llvm::StringLiteral kScaleKeys[] = {"a_scale", "b_scale", "c_scale", "d_scale",
                                                     "aux_quantization_scale"};
/// `signature` with the given scales appended, each of its kind (kinds[i] for kScaleKeys[i]).
EpilogSignature withScaleInputs(EpilogSignature signature, ArrayRef<bool> given,
                                ArrayRef<BroadcastKind> kinds);

/// C read by the epilog, not added by the kernel before it: the op's acc is then alpha * A B
/// alone, and the epilog adds beta * c_scale * C after A's and B's scales, as
/// D = sD * epilog(alpha * sA * sB * A B + beta * sC * C) requires where sA and sB are epilog
/// inputs. "c" (matrix: C's element, 16 or 32 bits) and "beta" (scalar: an f32 value) are then
/// the epilog's first two inputs.
inline constexpr EpilogOperand kEpilogC = {"c", BroadcastKind::Matrix};
inline constexpr EpilogOperand kEpilogBeta = {"beta", BroadcastKind::Scalar};
EpilogSignature withEpilogC(EpilogSignature signature);

/// Builds `epilog`'s region into `op`, which takes `signature`'s inputs (C and beta where the
/// epilog reads C, the epilog's, then any scales): x = acc * a_scale * b_scale (+ beta *
/// c_scale * c), the epilog, max |x| as result_amax (before D's scale), then D = x * d_scale in
/// D's type. A GELU's aux z (its input) is written in the type of the
/// op's aux matrix: max |z| as gelu_aux_amax when `auxAmax`, then z * aux_quantization_scale.
void buildBuiltinEpilog(OpBuilder &builder, MatmulOp op, BuiltinEpilog epilog,
                        const EpilogSignature &signature, bool resultAmax, bool auxAmax = false);

} // namespace mlir::mepi

#endif // MEPI_LIBRARY_EPILOGLIBRARY_H
