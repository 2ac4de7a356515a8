// A broadcast B's batch folded into the rows (FoldBatch.h), without a GPU: which problems fold
// and the layouts the GEMM then reads.
#include "Runtime/FoldBatch.h"

#include <gtest/gtest.h>

using namespace mepi::runtime;

namespace {
using Dims = std::vector<int64_t>;

OperandLayout bf16(Dims shape, Dims strides = {}) {
  return {ElementType::BF16, shape, strides.empty() ? rowMajorStrides(shape) : strides};
}

/// A [batch..., M, K] @ B (transposed: [N, K]) -> D [batch..., M, N].
MatmulProblem problem(Dims a, Dims b, Dims d, std::string epilog = "DEFAULT") {
  MatmulProblem p;
  p.a = bf16(a);
  p.b = bf16(b);
  p.d = bf16(d);
  p.transposeB = true;
  p.epilog = epilog;
  return p;
}
} // namespace

TEST(FoldBatch, OneBForEveryElementIsOneGemmOfAllRows) {
  std::optional<MatmulProblem> f =
      foldedBatch(problem({71, 448, 2752}, {128, 2752}, {71, 448, 128}));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->a.shape, (Dims{71 * 448, 2752}));
  EXPECT_EQ(f->a.strides, (Dims{2752, 1}));
  EXPECT_EQ(f->b.shape, (Dims{128, 2752}));
  EXPECT_EQ(f->d.shape, (Dims{71 * 448, 128}));
  EXPECT_EQ(f->d.strides, (Dims{128, 1}));
  EXPECT_TRUE(f->transposeB);
  // Two batch dimensions, and B's batch given as stride-0 dimensions.
  MatmulProblem two = problem({2, 3, 5, 8}, {2, 3, 4, 8}, {2, 3, 5, 4});
  two.b.strides = {0, 0, 8, 1};
  f = foldedBatch(two);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->a.shape, (Dims{30, 8}));
  EXPECT_EQ(f->b.shape, (Dims{4, 8}));
  EXPECT_EQ(f->b.strides, (Dims{8, 1}));
  EXPECT_EQ(f->d.shape, (Dims{30, 4}));
}

TEST(FoldBatch, RowsThatFillWholeTilesKeepTheBatch) {
  EXPECT_FALSE(foldedBatch(problem({16, 1024, 1024}, {1024, 1024}, {16, 1024, 1024})));
  EXPECT_FALSE(foldedBatch(problem({2, 384, 64}, {64, 64}, {2, 384, 64})));
  EXPECT_TRUE(foldedBatch(problem({2, 320, 64}, {64, 64}, {2, 320, 64})));
}

TEST(FoldBatch, RowsThatDoNotFollowEachOtherKeepTheBatch) {
  // A's elements 40 rows apart, not 5: the rows between are not the problem's.
  MatmulProblem gaps = problem({3, 5, 8}, {4, 8}, {3, 5, 4});
  gaps.a.strides = {320, 8, 1};
  EXPECT_FALSE(foldedBatch(gaps).has_value());
  // A row pitch other than K folds (the rows keep it); a size-1 batch may have any stride.
  MatmulProblem pitch = problem({3, 5, 8}, {4, 8}, {3, 5, 4});
  pitch.a.strides = {80, 16, 1};
  std::optional<MatmulProblem> f = foldedBatch(pitch);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->a.strides, (Dims{16, 1}));
  MatmulProblem one = problem({1, 5, 8}, {4, 8}, {1, 5, 4});
  one.a.strides = {7, 8, 1};
  EXPECT_TRUE(foldedBatch(one).has_value());
  // B batched (one matrix per element), A transposed, or no batch at all: nothing to fold.
  EXPECT_FALSE(foldedBatch(problem({3, 5, 8}, {3, 4, 8}, {3, 5, 4})).has_value());
  MatmulProblem transposed = problem({3, 8, 5}, {4, 8}, {3, 5, 4});
  transposed.transposeA = true;
  EXPECT_FALSE(foldedBatch(transposed).has_value());
  EXPECT_FALSE(foldedBatch(problem({5, 8}, {4, 8}, {5, 4})).has_value());
}

TEST(FoldBatch, EpilogOperandsMustFollowTheRows) {
  // A bias per element folds with the rows; one [M] bias for every element stays [M], read
  // at the row within the element (cyclic).
  MatmulProblem perElement = problem({3, 5, 8}, {4, 8}, {3, 5, 4}, "GELU_BIAS");
  perElement.builtinInputs = {{"bias", bf16({3, 5})}};
  std::optional<MatmulProblem> f = foldedBatch(perElement);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->builtinInputs.front().layout.shape, (Dims{15}));
  EXPECT_FALSE(f->cyclicBias);
  MatmulProblem shared = problem({3, 5, 8}, {4, 8}, {3, 5, 4}, "BIAS");
  shared.builtinInputs = {{"bias", bf16({5})}};
  f = foldedBatch(shared);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->cyclicBias);
  EXPECT_EQ(f->builtinInputs.front().layout.shape, (Dims{5}));
  EXPECT_EQ(f->d.shape, (Dims{15, 4}));
  // Batch dimensions that broadcast (size 1, or stride 0) are one bias for every element too.
  for (Dims strides : {Dims{5, 1}, Dims{0, 1}}) {
    MatmulProblem broadcast = problem({3, 5, 8}, {4, 8}, {3, 5, 4}, "RELU_BIAS");
    broadcast.builtinInputs = {{"bias", bf16({strides[0] ? 1 : 3, 5}, strides)}};
    f = foldedBatch(broadcast);
    ASSERT_TRUE(f.has_value());
    EXPECT_TRUE(f->cyclicBias);
    EXPECT_EQ(f->builtinInputs.front().layout.shape, (Dims{5}));
    EXPECT_EQ(f->builtinInputs.front().layout.strides, (Dims{1}));
  }
  // A bias of another length than M, or with more batch dimensions than D, keeps the batch
  // (whose verifier names it): folded, any length dividing the rows would pass as cyclic.
  for (Dims wrong : {Dims{1}, Dims{15}, Dims{1, 1, 5}}) {
    MatmulProblem bad = problem({3, 5, 8}, {4, 8}, {3, 5, 4}, "BIAS");
    bad.builtinInputs = {{"bias", bf16(wrong)}};
    EXPECT_FALSE(foldedBatch(bad).has_value()) << wrong.size() << " " << wrong.back();
  }
  // A batch of one element: the bias is its rows' own.
  MatmulProblem single = problem({1, 5, 8}, {4, 8}, {1, 5, 4}, "BIAS");
  single.builtinInputs = {{"bias", bf16({5})}};
  f = foldedBatch(single);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->cyclicBias);
  // A bias that varies along one batch dimension but not another follows neither.
  MatmulProblem partial = problem({2, 3, 5, 8}, {4, 8}, {2, 3, 5, 4}, "BIAS");
  partial.builtinInputs = {{"bias", bf16({2, 1, 5})}};
  EXPECT_FALSE(foldedBatch(partial).has_value());
  // C folds like D; a C for every element alike does not.
  MatmulProblem withC = problem({3, 5, 8}, {4, 8}, {3, 5, 4});
  withC.c = bf16({3, 5, 4});
  ASSERT_TRUE(foldedBatch(withC).has_value());
  EXPECT_EQ(foldedBatch(withC)->c->shape, (Dims{15, 4}));
  withC.c = bf16({5, 4});
  EXPECT_FALSE(foldedBatch(withC).has_value());
  // Operands whose batch dimension of 1 broadcasts against D's keep the batch: merged, they
  // would hold fewer rows than D.
  withC.c = bf16({1, 5, 4});
  EXPECT_FALSE(foldedBatch(withC).has_value());
  MatmulProblem oneA = problem({1, 5, 8}, {3, 4, 8}, {3, 5, 4});
  oneA.b.strides = {0, 8, 1};
  EXPECT_FALSE(foldedBatch(oneA).has_value());
  // Scalar scales and B's scale per column stay; A's per row does not follow the rows.
  MatmulProblem scaled = problem({3, 5, 8}, {4, 8}, {3, 5, 4});
  scaled.builtinInputs = {{"a_scale", {ElementType::F32, {}, {}}},
                          {"b_scale", {ElementType::F32, {4}, {1}}}};
  EXPECT_TRUE(foldedBatch(scaled).has_value());
  scaled.builtinInputs.front().layout = {ElementType::F32, {5}, {1}};
  EXPECT_FALSE(foldedBatch(scaled).has_value());
  // Aux matrices, operand sums and user epilogs keep the batch.
  for (const char *epilog : {"RELU_AUX", "GELU_AUX_BIAS", "BGRADA", "DGELU_BGRAD"})
    EXPECT_FALSE(foldedBatch(problem({3, 5, 8}, {4, 8}, {3, 5, 4}, epilog)).has_value())
        << epilog;
  MatmulProblem user = problem({3, 5, 8}, {4, 8}, {3, 5, 4});
  user.userEpilog = UserEpilogSource{"func.func @f() { return }", "f", {}, false};
  EXPECT_FALSE(foldedBatch(user).has_value());
}

TEST(FoldBatch, MergedLeadingDimensions) {
  std::optional<OperandLayout> m = mergedLeading(bf16({2, 3, 5, 7}), 2);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->shape, (Dims{30, 7}));
  EXPECT_EQ(m->strides, (Dims{7, 1}));
  EXPECT_FALSE(mergedLeading(bf16({2, 3, 5, 7}), 4).has_value());
  EXPECT_FALSE(mergedLeading(bf16({2, 3}, {1, 2}), 1).has_value());
}
