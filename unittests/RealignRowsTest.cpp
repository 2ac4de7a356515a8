// The pre-pass that pads rows to 16 bytes for TMA, without a GPU: its launch arithmetic and
// its module lowering to PTX for sm_90a.
#include "Runtime/Planner.h"
#include "Runtime/RealignRows.h"

#include <gtest/gtest.h>

#include <regex>

using namespace mepi::runtime;

TEST(RealignRows, ChunksGridAndParameters) {
  // 44522 rows of 1837 bf16 elements padded to 1840: 230 chunks a row.
  RealignCopy copy{2, 44522, 1837, 1837, 1840};
  EXPECT_EQ(copy.chunks(), 44522 * 230);
  EXPECT_EQ(copy.grid(), unsigned((44522 * 230 + 1023) / 1024));
  std::vector<int64_t> p = copy.parameters(0x1002, 0x2000);
  // Source [rows, cols] with its pitch, then the copy as 16-byte chunks.
  EXPECT_EQ(p, (std::vector<int64_t>{0x1002, 0x1002, 0, 44522, 1837, 1837, 1, 0x2000, 0x2000, 0,
                                     44522 * 230, 1}));
  // 8-bit rows: 16 elements a chunk; an empty operand still gets one block.
  EXPECT_EQ((RealignCopy{1, 3, 33, 35, 48}).chunks(), 9);
  EXPECT_EQ((RealignCopy{1, 0, 33, 35, 48}).grid(), 1u);
}

TEST(RealignRows, LowersToPtx) {
  for (unsigned bytes : {1u, 2u}) {
    std::string ir = realignKernelIR(bytes);
    llvm::Expected<CompiledModule> compiled = compileKernelModule(ir, "sm_90a");
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError()) << "\n" << ir;
    EXPECT_NE(compiled->ptx.find(".entry mepi_realign_rows"), std::string::npos);
    // Loads at the element's own alignment, one 16-byte store a chunk.
    std::regex load(bytes == 2 ? R"(ld\.global(\.nc)?\.[ub]16)" : R"(ld\.global(\.nc)?\.[ub]8)");
    EXPECT_TRUE(std::regex_search(compiled->ptx, load)) << compiled->ptx;
    EXPECT_TRUE(std::regex_search(compiled->ptx, std::regex(R"(st\.global\.v2\.[ub]64)")))
        << compiled->ptx;
    EXPECT_FALSE(compiled->cubin.empty());
  }
}
