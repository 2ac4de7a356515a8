// dist::Matmul's constructor arguments: this rank's own checks, and the word it says in the
// constructor's agreement (DistArguments.h).
#include "Distributed/DistArguments.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>

using namespace mepi;
using namespace mepi::dist;
using mepi::api::fail;

namespace {
const char *dtypeName(DType t) { return runtime::elementTypeName(api::elementType(t)); }

void checkMatrix(const Tensor &t, const char *name) {
  if (t.shape.size() != 2)
    fail(llvm::formatv("operand {0}: expected this rank's part as a matrix (rank 2), got rank "
                       "{1}",
                       name, t.shape.size()));
  if (!t.strides.empty() && (t.strides.size() != 2 || t.strides[1] != 1 ||
                             t.strides[0] != t.shape[1]))
    fail(llvm::formatv("operand {0}: expected a contiguous row-major part (strides [{1}, 1]), "
                       "got strides {2}",
                       name, t.shape[1], api::dims(t.strides)));
}

std::string dtypeOf(int64_t v) { return v < 0 ? "none" : dtypeName(DType(v)); }
int64_t bitsOf(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

} // namespace

/// The constructor's checks of this rank's arguments alone.
void detail::checkLocal(const Tensor &a, const Tensor &b, const std::optional<Tensor> &c,
                const std::vector<Distribution> &distributions, std::optional<float> beta,
                const dist::Options &options) {
  checkMatrix(a, "a");
  checkMatrix(b, "b");
  if (c)
    checkMatrix(*c, "c");
  if (c && !beta)
    fail("operand c given without beta");
  if (distributions.size() != 3)
    fail(llvm::formatv("distributions: expected 3 (A, B, D), got {0}", distributions.size()));
  if (a.dtype != b.dtype)
    fail(llvm::formatv("operands a and b: expected one dtype, got {0} and {1}",
                       dtypeName(a.dtype), dtypeName(b.dtype)));
  if (a.dtype != DType::BFloat16 && a.dtype != DType::Float16 && a.dtype != DType::Float32)
    throw Error(std::string("mepi::dist: operand a: ") + dtypeName(a.dtype) +
                    " is not supported yet in distributed matmuls (bf16, f16, f32)",
                Status::NotSupported);
  const QuantizationScales &scales = options.local.quantizationScales;
  if (scales.a || scales.b || scales.c || scales.d || options.local.resultAmax)
    throw Error("mepi::dist: FP8 scales and result_amax are not supported yet in distributed "
                "matmuls",
                Status::NotSupported);
  if (options.tailPieces < -1 || options.tailPieces > 2)
    fail(llvm::formatv("options.tailPieces: expected -1 (chosen), 0, 1 or 2, got {0}",
                       options.tailPieces));
}


/// What every rank must give alike at construction; its own shapes travel as data.
detail::Agreement detail::constructorWord(const Tensor &a, const Tensor &b, const std::optional<Tensor> &c,
                          const std::vector<Distribution> &distributions, float alpha,
                          std::optional<float> beta, Qualifiers qualifiers,
                          const dist::Options &options) {
  Agreement say;
  for (size_t i = 0; i < 3; ++i) {
    const char *names[] = {"A's distribution", "B's distribution", "D's distribution"};
    const Distribution *d = i < distributions.size() ? &distributions[i] : nullptr;
    say.fact(names[i], d ? (int64_t)d->kind : -1, [](int64_t v) {
      const char *kinds[] = {"Slab.X", "Slab.Y", "BlockCyclic", "Replicated"};
      return v < 0 || v > 3 ? std::string("none") : std::string(kinds[v]);
    });
    // A block-cyclic distribution's grid and blocks (zeros for the others).
    const char *grids[][4] = {
        {"A's grid rows", "A's grid columns", "A's block rows", "A's block columns"},
        {"B's grid rows", "B's grid columns", "B's block rows", "B's block columns"},
        {"D's grid rows", "D's grid columns", "D's block rows", "D's block columns"}};
    bool bc = d && d->kind == Distribution::Kind::BlockCyclic;
    say.fact(grids[i][0], bc ? d->grid.rows : 0)
        .fact(grids[i][1], bc ? d->grid.cols : 0)
        .fact(grids[i][2], bc ? d->blockRows : 0)
        .fact(grids[i][3], bc ? d->blockCols : 0);
  }
  say.fact("op(A) transposed", qualifiers.transposeA)
      .fact("op(B) transposed", qualifiers.transposeB)
      .fact("operand c given", c.has_value())
      .fact("a's dtype", (int64_t)a.dtype, dtypeOf)
      .fact("the result type", options.local.resultType ? (int64_t)*options.local.resultType : -1,
            dtypeOf)
      .fact("alpha's bits", bitsOf(alpha))
      .fact("beta's bits", beta ? bitsOf(*beta) : -1)
      .fact("options.pieces", options.pieces)
      .fact("options.bands", options.bands)
      .fact("options.remoteStores", options.remoteStores)
      .fact("options.mirroredPieces", options.mirroredPieces)
      .fact("options.tailPieces", options.tailPieces);
  int64_t shapes[4] = {};
  for (int i = 0; i < 2; ++i) {
    shapes[i] = a.shape.size() == 2 ? a.shape[i] : 0;
    shapes[2 + i] = b.shape.size() == 2 ? b.shape[i] : 0;
  }
  say.data(shapes, sizeof(shapes));
  return say;
}
