// The kernel combining rows of partial reductions (a distributed matmul's column and scalar
// reductions), without a GPU: its parameters and its module lowering to PTX for sm_90a.
#include "Runtime/CombineRows.h"
#include "Runtime/Planner.h"

#include <gtest/gtest.h>

#include <regex>

using namespace mepi::runtime;

TEST(CombineRows, GridAndParameters) {
  EXPECT_EQ(CombineRows::grid(1), 1u);
  EXPECT_EQ(CombineRows::grid(257), 2u);
  // The rows [G, W] row-major, then the result [W].
  EXPECT_EQ(CombineRows::parameters(0x1000, 3, 700, 0x9000),
            (std::vector<int64_t>{0x1000, 0x1000, 0, 3, 700, 700, 1, 0x9000, 0x9000, 0, 700, 1}));
}

TEST(CombineRows, LowersToPtx) {
  struct Want {
    CombineRows kind;
    const char *op, *store;
  };
  // Sums and maxima in f32; stores of f32, or of the value rounded to bf16 / f16.
  for (const Want &w :
       {Want{{false, ElementType::F32}, R"(add\.(rn\.)?f32)", R"(st\.global\.[bf]32)"},
        Want{{true, ElementType::BF16}, R"(max\.NaN\.f32)", R"(cvt\.rn\.bf16\.f32)"},
        Want{{false, ElementType::F16}, R"(add\.(rn\.)?f32)", R"(cvt\.rn\.f16\.f32)"}}) {
    std::string ir = combineRowsKernelIR(w.kind);
    llvm::Expected<CompiledModule> compiled = compileKernelModule(ir, "sm_90a");
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError()) << "\n" << ir;
    EXPECT_NE(compiled->ptx.find(".entry mepi_combine_rows"), std::string::npos);
    EXPECT_TRUE(std::regex_search(compiled->ptx, std::regex(w.op))) << compiled->ptx;
    EXPECT_TRUE(std::regex_search(compiled->ptx, std::regex(w.store))) << compiled->ptx;
    EXPECT_FALSE(compiled->cubin.empty());
  }
}
