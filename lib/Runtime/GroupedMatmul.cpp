// The C++ API's GroupedMatmul: a Matmul whose problem has groups (mepi/GroupedMatmul.h).
#include "mepi/GroupedMatmul.h"

#include "Runtime/MatmulState.h"
#include "Runtime/Planner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mepi;
using namespace mepi::api;

namespace {
runtime::GroupForm groupForm(GroupForm form) {
  switch (form) {
  case GroupForm::Ends: return runtime::GroupForm::Ends;
  case GroupForm::Indptr: return runtime::GroupForm::Indptr;
  case GroupForm::Lengths: return runtime::GroupForm::Lengths;
  case GroupForm::Masked: return runtime::GroupForm::Masked;
  }
  return runtime::GroupForm::Ends;
}

/// A 1-D Int32 or Int64 device tensor on `device`.
runtime::OperandLayout indexVector(const Tensor &t, const char *name, int device) {
  runtime::OperandLayout layout = validated(t, name, 1);
  if (t.shape.size() != 1 || (t.dtype != DType::Int32 && t.dtype != DType::Int64))
    fail(llvm::formatv("operand {0}: expected a 1-D int32 or int64 tensor, got {1} of rank {2}",
                       name, runtime::elementTypeName(layout.type), t.shape.size()));
  if (t.device != device)
    fail(llvm::formatv("operand {0}: expected memory on device {1} (operand a's), got device {2}",
                       name, device, t.device));
  return layout;
}
/// Rows a grouped kernel indexes with 32-bit integers (Sm90Spec's kMaxIndex).
constexpr int64_t kMaxRows = (int64_t(1) << 31) - 1;

/// The masked form's A [S, R, K] as the [S R, K] rows the kernel reads (its first two
/// dimensions must merge); other forms' A as given.
Tensor rowsOfA(const Tensor &a, const Groups &groups, bool transposeA) {
  if (groups.form != GroupForm::Masked)
    return a;
  if (a.shape.size() != 3 || transposeA)
    fail(llvm::formatv("operand a: the masked form expects A [S, R, K] (not transposed), got "
                       "shape {0}{1}",
                       dims(a.shape), transposeA ? " with transposeA" : ""));
  if (groups.bounds.shape.size() == 1 && a.shape[0] != groups.bounds.shape[0])
    fail(llvm::formatv("operand a: expected {0} groups of rows (groups.bounds' length), got shape "
                       "{1}",
                       groups.bounds.shape[0], dims(a.shape)));
  if (!a.strides.empty() && (a.strides.size() != 3 || a.strides[0] != a.shape[1] * a.strides[1]))
    fail(llvm::formatv("operand a: the masked form expects each group's rows to follow the "
                       "previous group's (strides [R * s, s, 1]), got strides {0}",
                       dims(a.strides)));
  int64_t count = 0;
  if (llvm::MulOverflow(a.shape[0], a.shape[1], count) || count > kMaxRows)
    fail(llvm::formatv("operand a: the masked form's S x R rows ({0} x {1}) exceed 2^31 - 1",
                       a.shape[0], a.shape[1]));
  Tensor rows = a;
  rows.shape = {count, a.shape[2]};
  if (!a.strides.empty())
    rows.strides = {a.strides[1], a.strides[2]};
  return rows;
}

/// The operands as the kernel takes them (groups of rows of A, one matrix of B each) and D as
/// the caller sees it.
struct Arranged {
  Tensor a, b;
  Qualifiers qualifiers;
  std::optional<std::vector<int64_t>> resultShape, resultStrides;
};

/// A [S, M, K] by B [K, N] with the groups cutting N (torch._grouped_mm's 3-D x 2-D) is the
/// transposed problem: D^T [N, M] has groups of rows, A' = B^T (B read as [K, N] transposed)
/// and B' = A^T (A's matrices read as [M, K] transposed); D is handed out as D^T's transposed
/// view [M, N] (strides [1, M]). The masked form's A merges its groups' rows; other forms keep
/// their operands.
Arranged arrange(const Tensor &a, const Tensor &b, const Groups &groups, Qualifiers q) {
  if (groups.form == GroupForm::Masked) {
    Arranged r{rowsOfA(a, groups, q.transposeA), b, q, {}, {}};
    if (b.shape.size() == 3) // else the rank check names b
      r.resultShape = std::vector<int64_t>{a.shape[0], a.shape[1],
                                           q.transposeB ? b.shape[1] : b.shape[2]};
    return r;
  }
  if (a.shape.size() != 3 || b.shape.size() != 2)
    return {a, b, q, {}, {}};
  // The transposed problem reads B as its A, which grouped kernels take K-major only.
  if (!q.transposeB)
    fail("operand b: groups of columns (3-D x 2-D) need b as [N, K] read transposed "
         "(transposeB, e.g. w.t() of a row-major [N, K] w); b given as [K, N] is not supported "
         "yet");
  Arranged r{b, a, {!q.transposeB, !q.transposeA}, {}, {}};
  int64_t m = q.transposeA ? a.shape[2] : a.shape[1];
  int64_t n = q.transposeB ? b.shape[0] : b.shape[1];
  r.resultShape = std::vector<int64_t>{m, n};
  r.resultStrides = std::vector<int64_t>{1, m};
  return r;
}
/// torch._grouped_mm's 2-D x 2-D (A [M, K], B [K, N], the bounds cutting K; the weight
/// gradient of a mixture-of-experts layer): what the kernels grouped along K take.
void checkGroupsAlongK(const Tensor &a, const Tensor &b, const Groups &groups) {
  for (auto [t, name] : {std::pair<const Tensor &, const char *>{a, "a"}, {b, "b"}})
    if (t.dtype != DType::BFloat16 && t.dtype != DType::Float16)
      fail(llvm::formatv("operand {0}: groups along K (2-D x 2-D) take bfloat16 or float16, "
                         "got {1}",
                         name, runtime::elementTypeName(elementType(t.dtype))));
  if (groups.form != GroupForm::Ends && groups.form != GroupForm::Indptr)
    fail("groups.form: groups along K (2-D x 2-D) take the Ends or Indptr form");
  if (groups.weightIndices)
    fail("groups.weightIndices: groups along K (2-D x 2-D) take none (group g is D[g])");
}

/// The groups S that `groups.bounds` gives.
int64_t groupCount(const Groups &groups) {
  int64_t length = groups.bounds.shape.empty() ? 0 : groups.bounds.shape[0];
  return std::max<int64_t>(groups.form == GroupForm::Indptr ? length - 1 : length, 0);
}
} // namespace

Matmul::Matmul(const Tensor &givenA, const Tensor &givenB, const Groups &groups, float alpha,
               Qualifiers givenQualifiers, Options options)
    : state(std::make_unique<State>()) {
  State &s = *state;
  if (options.mirrors != 0)
    fail(llvm::formatv("options.mirrors: a grouped matmul stores no mirrors of D, got {0}",
                       options.mirrors));
  bool alongK = givenA.shape.size() == 2 && givenB.shape.size() == 2;
  if (alongK)
    checkGroupsAlongK(givenA, givenB, groups);
  Arranged arranged = arrange(givenA, givenB, groups, givenQualifiers);
  const Tensor &a = arranged.a, &b = arranged.b;
  Qualifiers qualifiers = arranged.qualifiers;
  s.problem.a = validated(a, "a", 2);
  s.problem.b = validated(b, "b", alongK ? 2 : 3);
  if (a.shape.size() != 2 || b.shape.size() != (alongK ? 2u : 3u))
    fail(llvm::formatv("grouped matmul: expected a of rank 2 ([T, K]) and b of rank 3 ([W, K, "
                       "N]), a of rank 3 ([S, M, K]) and b of rank 2 ([K, N], groups of "
                       "columns), or both of rank 2 ([M, K] and [K, N], groups along K), got "
                       "ranks {0} and {1}",
                       givenA.shape.size(), givenB.shape.size()));
  if (b.device != a.device)
    fail(llvm::formatv("operand b: expected memory on device {0} (operand a's), got device {1}",
                       a.device, b.device));
  runtime::GroupOperands operands;
  operands.form = groupForm(groups.form);
  operands.alongK = alongK;
  operands.bounds = indexVector(groups.bounds, "groups.bounds", a.device);
  if (groups.weightIndices)
    operands.weightIndices = indexVector(*groups.weightIndices, "groups.weightIndices", a.device);
  s.problem.groups = operands;
  s.problem.transposeA = qualifiers.transposeA;
  s.problem.transposeB = qualifiers.transposeB;
  s.problem.kernelConfig = options.kernelConfig;
  s.problem.fastAccumulation = options.fastAccumulation;
  int64_t t = qualifiers.transposeA ? a.shape[1] : a.shape[0];
  // B's last two dimensions: [K, N], or [N, K] read transposed.
  int64_t n = b.shape[b.shape.size() - (qualifiers.transposeB ? 2 : 1)];
  // Groups along K: D[g] is group g's product.
  std::vector<int64_t> dShape =
      alongK ? std::vector<int64_t>{groupCount(groups), t, n} : std::vector<int64_t>{t, n};
  s.problem.d = {elementType(options.resultType.value_or(a.dtype)), dShape,
                 runtime::rowMajorStrides(dShape)};
  s.resultShape = arranged.resultShape;
  s.resultStrides = arranged.resultStrides;
  s.problem.addressAlignment = commonAlignment(a.data, b.data);
  s.a = a;
  s.b = b;
  s.groupBounds = groups.bounds;
  s.weightIndices = groups.weightIndices;
  s.alpha = alpha;
  s.givenQualifiers = givenQualifiers;
  if (options.blockScaling)
    fail("block scaling (MXFP8): not taken by grouped matmuls yet");
  options.quantizationScales = validatedScales(options.quantizationScales, s.problem, a.device);
  s.options = std::move(options);
  // The verifier checks K, the groups' form and size, B's matrices: fail here, before a plan.
  check(runtime::planModule(s.problem).takeError(), "invalid grouped matmul");
}

GroupedMatmul::GroupedMatmul(const Tensor &a, const Tensor &b, const Groups &groups, float alpha,
                             Qualifiers qualifiers, Options options)
    : matmul(a, b, groups, alpha, qualifiers, std::move(options)) {}

void GroupedMatmul::plan(Epilog epilog, const EpilogInputs &inputs) {
  matmul.plan(epilog, inputs);
}

void GroupedMatmul::plan(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs) {
  matmul.plan(epilog, inputs);
}

Tensor GroupedMatmul::execute(CUstream stream) { return matmul.execute(stream); }

void Matmul::resetGroupedOperands(const Tensor &a, const Tensor &b, const Groups &groups,
                                  const EpilogInputs &inputs) {
  if (!state)
    fail("resetOperands() after free()");
  State &s = *state;
  if (!s.problem.groups)
    fail("resetOperands: groups given, but this matmul has none");
  if (groupForm(groups.form) != s.problem.groups->form)
    fail("resetOperands: groups.form differs from the planned one");
  if (groups.weightIndices.has_value() != s.problem.groups->weightIndices.has_value())
    fail(groups.weightIndices ? "resetOperands: groups.weightIndices given, but the planned "
                                "matmul has none"
                              : "resetOperands: groups.weightIndices missing");
  indexVector(groups.bounds, "groups.bounds", s.a.device);
  expectSameLayout(groups.bounds, s.problem.groups->bounds, "groups.bounds");
  if (groups.weightIndices) {
    indexVector(*groups.weightIndices, "groups.weightIndices", s.a.device);
    expectSameLayout(*groups.weightIndices, *s.problem.groups->weightIndices,
                     "groups.weightIndices");
  }
  // The operands in the form planned (the same arrangement as the constructor's).
  Arranged arranged = arrange(a, b, groups, s.givenQualifiers);
  resetOperands(arranged.a, arranged.b, std::nullopt, inputs);
  s.groupBounds = groups.bounds;
  s.weightIndices = groups.weightIndices;
}

void GroupedMatmul::resetOperands(const Tensor &a, const Tensor &b, const Groups &groups,
                                  const EpilogInputs &inputs) {
  matmul.resetGroupedOperands(a, b, groups, inputs);
}
