// Folding a broadcast B's batch into the rows (see FoldBatch.h).
#include "Runtime/FoldBatch.h"

#include <algorithm>
#include <array>
#include <string>

using namespace mepi::runtime;

std::optional<OperandLayout> mepi::runtime::mergedLeading(const OperandLayout &layout,
                                                          size_t count) {
  if (count == 0 || layout.shape.size() <= count)
    return std::nullopt;
  std::vector<int64_t> strides =
      layout.strides.empty() ? rowMajorStrides(layout.shape) : layout.strides;
  int64_t rows = layout.shape[count], stride = strides[count];
  // From the innermost merged dimension outwards: each steps over whole instances of the ones
  // inside it.
  for (size_t i = count; i-- > 0;) {
    if (layout.shape[i] != 1 && strides[i] != rows * stride)
      return std::nullopt;
    rows *= layout.shape[i];
  }
  OperandLayout merged{layout.type, {rows}, {stride}};
  merged.shape.insert(merged.shape.end(), layout.shape.begin() + count + 1, layout.shape.end());
  merged.strides.insert(merged.strides.end(), strides.begin() + count + 1, strides.end());
  return merged;
}

namespace {
/// B as one matrix for every batch element: 2-D, or batch dimensions of stride 0 (dropped).
std::optional<OperandLayout> broadcastMatrix(const OperandLayout &b) {
  if (b.shape.size() == 2)
    return b;
  if (b.strides.size() != b.shape.size())
    return std::nullopt;
  size_t batchDims = b.shape.size() - 2;
  for (size_t i = 0; i < batchDims; ++i)
    if (b.strides[i] != 0 && b.shape[i] != 1)
      return std::nullopt;
  return OperandLayout{b.type, {b.shape.end() - 2, b.shape.end()},
                       {b.strides.end() - 2, b.strides.end()}};
}

/// Built-in epilogs whose only operands beside A, B, C and D are a bias per row of D and FP8
/// scales: no aux matrix, no operand sums, no gradient (the activations without a bias are
/// left out only as not measured).
bool foldableEpilog(const std::string &epilog) {
  static const std::array<const char *, 6> kFoldable = {"DEFAULT", "RELU",      "GELU",
                                                        "BIAS",    "RELU_BIAS", "GELU_BIAS"};
  return std::find(kFoldable.begin(), kFoldable.end(), epilog) != kFoldable.end();
}

/// Whether `layout` has D's batch dimensions (`batchDims` of them) in full: a dimension of 1
/// that broadcasts against D's would merge into fewer rows than D's.
bool hasBatchOf(const OperandLayout &layout, const OperandLayout &d, size_t batchDims) {
  return layout.shape.size() > batchDims &&
         std::equal(d.shape.begin(), d.shape.begin() + batchDims, layout.shape.begin());
}

/// A bias that is one [M] for every batch element of D: [M], or no more batch dimensions than
/// D's, all of which broadcast (size 1 or stride 0); as [M], or nullopt. Its length is checked
/// here: folded, the verifier sees only a cyclic input whose length divides D's rows.
std::optional<OperandLayout> sharedBias(const OperandLayout &bias, const OperandLayout &d) {
  size_t batchDims = bias.shape.size() - 1;
  if (bias.shape.empty() || batchDims > d.shape.size() - 2 ||
      bias.shape.back() != d.shape[d.shape.size() - 2])
    return std::nullopt;
  for (size_t i = 0; i < batchDims; ++i)
    if (bias.shape[i] != 1 && (bias.strides.empty() || bias.strides[i] != 0))
      return std::nullopt;
  std::vector<int64_t> strides = bias.strides.empty() ? rowMajorStrides(bias.shape) : bias.strides;
  return OperandLayout{bias.type, {bias.shape.back()}, {strides.back()}};
}

/// A built-in input in the folded problem: the bias merged with the batch ([batch..., M] ->
/// [batch * M]); scalars unchanged, and B's scale per column ([N]). Anything else (A's scale
/// per row, block scales) cannot follow the folded rows. A bias shared by the elements is
/// foldedBatch's (a cyclic one).
std::optional<OperandLayout> foldedInput(const NamedLayout &input, const OperandLayout &d,
                                         size_t batchDims) {
  const OperandLayout &layout = input.layout;
  if (layout.shape.empty() || (input.key == "b_scale" && layout.shape.size() == 1))
    return layout;
  if (input.key == "bias" && layout.shape.size() == batchDims + 1 &&
      hasBatchOf(layout, d, batchDims))
    return mergedLeading(layout, batchDims);
  return std::nullopt;
}
} // namespace

std::optional<MatmulProblem> mepi::runtime::foldedBatch(const MatmulProblem &problem) {
  size_t rank = problem.a.shape.size();
  if (rank < 3 || problem.transposeA || problem.groups || problem.mirrors != 0 ||
      problem.userEpilog || !problem.userInputs.empty() || problem.mxScales ||
      !foldableEpilog(problem.epilog) || problem.d.shape.size() != rank ||
      problem.a.shape[rank - 2] % kWholeTileRows == 0 ||
      !hasBatchOf(problem.a, problem.d, rank - 2))
    return std::nullopt;
  size_t batchDims = rank - 2;
  MatmulProblem folded = problem;
  std::optional<OperandLayout> b = broadcastMatrix(problem.b);
  std::optional<OperandLayout> a = mergedLeading(problem.a, batchDims);
  std::optional<OperandLayout> d = mergedLeading(problem.d, batchDims);
  if (!b || !a || !d)
    return std::nullopt;
  folded.a = *a, folded.b = *b, folded.d = *d;
  if (problem.c) {
    std::optional<OperandLayout> c =
        problem.c->shape.size() == rank && hasBatchOf(*problem.c, problem.d, batchDims)
            ? mergedLeading(*problem.c, batchDims)
            : std::nullopt;
    if (!c)
      return std::nullopt;
    folded.c = *c;
  }
  for (NamedLayout &input : folded.builtinInputs) {
    std::optional<OperandLayout> layout = foldedInput(input, problem.d, batchDims);
    // One bias for every element: cyclic where the folded rows hold more than one element.
    if (!layout && input.key == "bias" && (layout = sharedBias(input.layout, problem.d)))
      folded.cyclicBias = folded.d.shape[0] != problem.d.shape[rank - 2];
    if (!layout)
      return std::nullopt;
    input.layout = *layout;
  }
  return folded;
}
