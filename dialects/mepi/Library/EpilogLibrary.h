// The built-in epilogs (bias, ReLU, GELU and their combinations) as epilog region bodies.
//
// A built-in epilog is not a special kernel: it is a small region that fills a mepi.matmul's
// epilog exactly like a user epilog does, so every kernel family supports all of them.
#ifndef MEPI_LIBRARY_EPILOGLIBRARY_H
#define MEPI_LIBRARY_EPILOGLIBRARY_H

#include "mepi/IR/MepiOps.h"

#include <optional>

namespace mlir::mepi {

enum class BuiltinEpilog { Default, Bias, Relu, ReluBias, Gelu, GeluBias, Sigmoid, Tanh, Silu };

/// Parses "DEFAULT", "BIAS", "RELU", "RELU_BIAS", "GELU", "GELU_BIAS" (nvmath-python's names),
/// "SIGMOID", "TANH" and "SILU".
std::optional<BuiltinEpilog> parseBuiltinEpilog(llvm::StringRef name);
llvm::StringRef builtinEpilogName(BuiltinEpilog epilog);

/// Whether the epilog reads a bias. As in nvmath-python and cuBLASLt, the bias has one value per
/// row of D (length M, added to each column: `d += bias[:, None]`), declared `row`.
bool builtinEpilogHasBias(BuiltinEpilog epilog);

/// Fills the empty epilog region of `op`: creates its block arguments (acc, the op's epilog
/// inputs, row, col) and the body of `epilog`, ending in mepi.yield of a D element. The op must
/// have exactly the epilog inputs the epilog reads (the bias first, declared `row`).
void buildBuiltinEpilog(OpBuilder &builder, MatmulOp op, BuiltinEpilog epilog);

} // namespace mlir::mepi

#endif // MEPI_LIBRARY_EPILOGLIBRARY_H
