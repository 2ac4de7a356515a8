// autotune()'s ranked candidates (rankedKernelConfigs): the heuristic's choice first, the cost
// model's order after it, and the forms the model was not fitted on after its choice.
#include "PlannerProblems.h"
#include "Runtime/Planner.h"
#include "mepi/IR/MepiDialect.h"
#include "mepi/Sm90/Sm90CostModel.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <tuple>

using namespace mepi::runtime;

namespace {
// The candidates after the heuristic's choice come fastest first by the cost model (autotune()
// times the first 16 by default), and the heuristic's choice stays first.
TEST(Planner, CandidatesAfterTheChoiceAreInTheCostModelsOrder) {
  mlir::MLIRContext context;
  context.loadDialect<mlir::mepi::MepiDialect>();
  mlir::mepi::TargetInfo target = mlir::mepi::TargetInfo::forChip("sm_90a", 0);
  for (auto [m, n, k] : {std::array<int64_t, 3>{1000, 2304, 1032}, {4096, 4096, 4096},
                         {256, 768, 832}, {64, 8192, 8192}}) {
    MatmulProblem p = problem(ElementType::BF16, m, n, k, "DEFAULT", false, true);
    p.addressAlignment = 16;
    llvm::Expected<std::vector<std::string>> ranked = rankedKernelConfigs(p, "sm_90a");
    ASSERT_TRUE(bool(ranked)) << llvm::toString(ranked.takeError());
    ASSERT_GT(ranked->size(), 16u) << m << "x" << n << "x" << k;
    llvm::Expected<CompiledKernel> chosen = describeLaunch(p, "sm_90a");
    ASSERT_TRUE(bool(chosen)) << llvm::toString(chosen.takeError());
    EXPECT_EQ(ranked->front(), chosen->config);
    mlir::mepi::Sm90Problem sp;
    sp.m = m, sp.n = n, sp.k = k;
    double previous = 0;
    for (size_t i = 1; i < ranked->size(); ++i) {
      auto config = llvm::dyn_cast_or_null<mlir::mepi::KernelConfigAttr>(
          mlir::parseAttribute((*ranked)[i], &context));
      ASSERT_TRUE(bool(config)) << (*ranked)[i];
      double predicted = mlir::mepi::predictMicroseconds(sp, config, target, false);
      EXPECT_GE(predicted, previous) << m << "x" << n << "x" << k << " candidate " << i << " "
                                     << (*ranked)[i];
      previous = predicted;
    }
  }
}

// autotune()'s candidates hold the swapped form with its height fitted to the wave (cuBLASLt's
// tiles there): 11520 x 256 in 176-row tiles of two consumers is 66 x 2 = 132 tiles, one whole
// wave, which the heuristic takes through TMA stores (WgmmaHeuristic::fittedHeight); 4800 x 128
// in 80-row tiles of one consumer 60 x 2 = 120, which it does not take (one consumer): it takes
// 100 tiles of 48 rows and two consumers there (WgmmaHeuristic::lowSplitHeight).
TEST(Planner, SwappedHeightsFittedToTheWaveAmongCandidates) {
  for (auto [m, n, k, fitted] : std::vector<std::tuple<int64_t, int64_t, int64_t, const char *>>{
           {11520, 256, 37312, "tile = [176, 128, 64], mainloop = <stages = 5>, swapped = true>"},
           {4800, 128, 8064, "tile = [80, 64, 64], mainloop = <stages = 11>, swapped = true>"}}) {
    MatmulProblem p = problem(ElementType::BF16, m, n, k, "DEFAULT", false, true);
    p.addressAlignment = 16;
    llvm::Expected<std::vector<std::string>> ranked = rankedKernelConfigs(p, "sm_90a");
    ASSERT_TRUE(bool(ranked)) << llvm::toString(ranked.takeError());
    std::string config = std::string("#mepi.kernel_config<wgmma, ") + fitted;
    EXPECT_NE(std::find(ranked->begin(), ranked->end(), config), ranked->end()) << config;
    EXPECT_EQ(ranked->front(), m == 11520 ? "#mepi.kernel_config<wgmma, tile = [176, 128, 64], "
                                            "mainloop = <stages = 5>, epilogue = <store = tma>, "
                                            "swapped = true>"
                                          : "#mepi.kernel_config<wgmma, tile = [48, 128, 64], "
                                            "mainloop = <stages = 8>, epilogue = <store = tma>, "
                                            "swapped = true>");
  }
}

// The swapped form's TMA-store variants come after the cost model's choice (it was not fitted
// on them): on 64-row GELU_BIAS problems of the sweep it had taken them, and they ran 10 %
// slower (64 x 18240 x 768 0.952 -> 0.848 of cuBLASLt, H100). The choices stay the earlier ones.
TEST(Planner, SwappedTmaStoresAreNotTheModelsChoice) {
  for (auto [m, n, k, expected] : std::vector<std::tuple<int64_t, int64_t, int64_t, const char *>>{
           {64, 18240, 768, "tile = [64, 64, 64], mainloop = <stages = 8>, epilogue = <store = tma>>"},
           {64, 19072, 128, "tile = [64, 64, 64], mainloop = <stages = 8>, epilogue = <store = tma>>"},
           {64, 16576, 832,
            "tile = [64, 128, 64], mainloop = <stages = 8>, epilogue = <store = tma>>"}}) {
    MatmulProblem p = problem(ElementType::F16, m, n, k, "GELU_BIAS", false, true);
    p.addressAlignment = 16;
    llvm::Expected<std::vector<std::string>> ranked = rankedKernelConfigs(p, "sm_90a");
    ASSERT_TRUE(bool(ranked)) << llvm::toString(ranked.takeError());
    EXPECT_EQ(ranked->front(), std::string("#mepi.kernel_config<wgmma, ") + expected)
        << m << "x" << n << "x" << k;
  }
}
// FP8 tiles that fit one wave: autotune's candidates end with their forms in clusters sharing
// both operands (8 blocks for 64-column tiles, 4 for wider), which the heuristic never takes
// first; past one wave there are none.
TEST(Planner, Fp8SharedClustersLastForOneWave) {
  auto ranked = [](int64_t m, int64_t n, int64_t k) {
    MatmulProblem p = problem(ElementType::F8E4M3FN, m, n, k, "DEFAULT", false, true);
    p.d = layout(ElementType::BF16, {m, n});
    p.addressAlignment = 16;
    llvm::Expected<std::vector<std::string>> list = rankedKernelConfigs(p, "sm_90a");
    EXPECT_TRUE(bool(list)) << llvm::toString(list.takeError());
    return list ? *list : std::vector<std::string>();
  };
  std::vector<std::string> oneWave = ranked(656, 1184, 2224);
  ASSERT_FALSE(oneWave.empty());
  EXPECT_EQ(oneWave.front().find("multicast = ab"), std::string::npos) << oneWave.front();
  auto shared = std::find_if(oneWave.begin(), oneWave.end(), [](const std::string &c) {
    return c.find("multicast = ab") != std::string::npos;
  });
  ASSERT_NE(shared, oneWave.end());
  EXPECT_NE(shared->find("tile = [128, 64, 128], mainloop = <stages = 8, cluster = 8, "
                         "promote = 1, multicast = ab>"),
            std::string::npos)
      << *shared;
  EXPECT_TRUE(std::all_of(shared, oneWave.end(), [](const std::string &c) {
    return c.find("multicast = ab") != std::string::npos;
  }));
  for (const std::string &c : ranked(8192, 8192, 8192))
    EXPECT_EQ(c.find("multicast = ab"), std::string::npos) << c;
}
} // namespace
