// The C++ API's checks: every bad input is a mepi::Error naming the operand, expected and actual
// values, raised before anything is launched (no GPU needed: the pointers are never touched).
#include "ApiTestSupport.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "mepi/GroupedMatmul.h"
#include "mepi/Log.h"

#include <gtest/gtest.h>

namespace {
using apitest::errorOf;

mepi::Tensor tensor(std::vector<int64_t> shape, mepi::DType dtype = mepi::DType::Float16,
                    uintptr_t offset = 0) {
  return apitest::fakeTensor(std::move(shape), dtype, offset);
}
} // namespace

// nvmath-python's epilog names, both ways: every Epilog has one and is found by it.
TEST(MatmulApi, EpilogNamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(mepi::Epilog::BGradB); ++i) {
    auto epilog = static_cast<mepi::Epilog>(i);
    EXPECT_EQ(mepi::epilogNamed(mepi::epilogName(epilog)), epilog) << mepi::epilogName(epilog);
  }
  EXPECT_STREQ(mepi::epilogName(mepi::Epilog::GeluAuxBias), "GELU_AUX_BIAS");
  EXPECT_EQ(mepi::epilogNamed("gelu_bias"), std::nullopt); // names are upper case
  EXPECT_EQ(mepi::epilogNamed(""), std::nullopt);
}

TEST(MatmulApi, MismatchedKNamesBothOperands) {
  std::string e = errorOf([] { mepi::Matmul mm(tensor({8, 16}), tensor({12, 8})); });
  EXPECT_NE(e.find("expected op(a) and op(b) to agree on K, got 16 and 12"), std::string::npos)
      << e;
}

TEST(MatmulApi, UnsupportedDtypeCombination) {
  std::string e = errorOf(
      [] { mepi::Matmul mm(tensor({8, 8}), tensor({8, 8}, mepi::DType::BFloat16)); });
  EXPECT_NE(e.find("unsupported operand element types 'f16' x 'bf16'"), std::string::npos) << e;
}

TEST(MatmulApi, NullPointer) {
  mepi::Tensor a = tensor({8, 8});
  a.data = nullptr;
  EXPECT_EQ(errorOf([&] { mepi::Matmul mm(a, tensor({8, 8})); }),
            "operand a: null device pointer");
}

TEST(MatmulApi, MisalignedPointer) {
  std::string e = errorOf([] { mepi::Matmul mm(tensor({8, 8}), tensor({8, 8}, {}, 1)); });
  EXPECT_NE(e.find("operand b: pointer"), std::string::npos) << e;
  EXPECT_NE(e.find("is not aligned to its 2-byte elements"), std::string::npos) << e;
}

TEST(MatmulApi, InconsistentStrides) {
  mepi::Tensor a = tensor({8, 8});
  a.strides = {8};
  EXPECT_EQ(errorOf([&] { mepi::Matmul mm(a, tensor({8, 8})); }),
            "operand a: expected 2 strides (one per dimension), got 1");
  a.strides = {8, -1};
  EXPECT_EQ(errorOf([&] { mepi::Matmul mm(a, tensor({8, 8})); }),
            "operand a: expected positive strides, got [8, -1] for shape [8, 8]");
}

TEST(MatmulApi, OperandsOnAnotherDeviceThanA) {
  mepi::Tensor a = tensor({8, 16}), b = tensor({16, 4}), c = tensor({8, 4});
  b.device = 1;
  EXPECT_EQ(errorOf([&] { mepi::Matmul(a, b); }),
            "operand b: expected memory on device 0 (operand a's), got device 1");
  b.device = 0;
  c.device = 2;
  EXPECT_EQ(errorOf([&] { mepi::Matmul(a, b, c, 1.0f, 0.5f); }),
            "operand c: expected memory on device 0 (operand a's), got device 2");
}

TEST(MatmulApi, BetaAndC) {
  EXPECT_EQ(errorOf([] { mepi::Matmul mm(tensor({8, 8}), tensor({8, 8}), tensor({8, 8})); }),
            "operand c: beta is required with c");
  EXPECT_EQ(errorOf([] {
              mepi::Matmul mm(tensor({8, 8}), tensor({8, 8}), std::nullopt, 1.0f, 0.5f);
            }),
            "beta given without operand c");
}

TEST(MatmulApi, BatchDimensionsMustBroadcast) {
  std::string e = errorOf([] { mepi::Matmul mm(tensor({3, 8, 8}), tensor({4, 8, 8})); });
  EXPECT_NE(e.find("operands a and b: batch dimensions 3 and 4 do not broadcast"),
            std::string::npos)
      << e;
}

TEST(MatmulApi, WrongBiasLength) {
  mepi::Matmul mm(tensor({8, 16}), tensor({16, 4}));
  std::string e = errorOf([&] { mm.plan(mepi::Epilog::Bias, {tensor({4})}); });
  EXPECT_NE(e.find("expected epilog input 0 (row) to have shape [batch..., 8]"), std::string::npos)
      << e;
}

TEST(MatmulApi, MissingBias) {
  mepi::Matmul mm(tensor({8, 16}), tensor({16, 4}));
  std::string e = errorOf([&] { mm.plan(mepi::Epilog::GeluBias); });
  EXPECT_NE(e.find("epilog GELU_BIAS expects epilog input 'bias'"), std::string::npos) << e;
}

TEST(MatmulApi, ExecuteBeforePlan) {
  mepi::Matmul mm(tensor({8, 16}), tensor({16, 4}));
  EXPECT_EQ(errorOf([&] { mm.execute(); }), "execute() called before plan()");
}

TEST(MatmulApi, ResetWithOtherShapesAndReleasedOperands) {
  mepi::Matmul mm(tensor({8, 16}), tensor({16, 4}));
  mm.plan(mepi::Epilog::Relu); // plans and compiles for sm_90a without a GPU
  EXPECT_EQ(errorOf([&] { mm.resetOperands(tensor({8, 16}), tensor({16, 5})); }),
            "resetOperands: operand b: expected shape [16, 4], got [16, 5]");
  EXPECT_EQ(errorOf([&] {
              mm.resetOperands(tensor({8, 16}), tensor({16, 4}, mepi::DType::Float32));
            }),
            "resetOperands: operand b: expected dtype f16, got f32");
  mm.releaseOperands();
  EXPECT_EQ(errorOf([&] { mm.execute(); }),
            "execute() after releaseOperands(): call resetOperands() first");
  EXPECT_EQ(errorOf([&] { mm.resetOperands(tensor({8, 16}), tensor({16, 4})); }), "");
}

TEST(MatmulApi, HostPointerIsRejectedBeforeLaunchWhenADriverIsPresent) {
  // Without a driver, execute() fails on loading it; with one, on the pointer check. Either way
  // the message is clear and nothing is launched.
  std::vector<float> host(64);
  mepi::Tensor a = tensor({8, 8}, mepi::DType::Float32), b = a;
  a.data = host.data();
  mepi::Matmul mm(a, b);
  mm.plan();
  std::string e = errorOf([&] { mm.execute(); });
  EXPECT_TRUE(e.find("cannot load the CUDA driver") != std::string::npos ||
              e.find("operand a: pointer") != std::string::npos)
      << e;
}

TEST(MatmulApi, ExternalEpilogFunctionWithoutItsCodeNamesTheSymbol) {
  const char *mlir = R"mlir(
    func.func private @user_gelu(f32) -> f32
    func.func @epilog(%acc: f32, %row: index, %col: index) -> f16 {
      %g = func.call @user_gelu(%acc) : (f32) -> f32
      %t = arith.truncf %g : f32 to f16
      return %t : f16
    })mlir";
  mepi::Matmul mm(tensor({8, 16}), tensor({16, 4}));
  std::string e = errorOf([&] { mm.plan(mepi::UserEpilog{mlir, "epilog"}); });
  EXPECT_NE(e.find("nvJitLink link failed"), std::string::npos) << e;
  EXPECT_NE(e.find("Undefined reference to 'user_gelu'"), std::string::npos) << e;
  try {
    mm.plan(mepi::UserEpilog{mlir, "epilog"});
    ADD_FAILURE() << "planned without user_gelu's code";
  } catch (const mepi::Error &error) {
    EXPECT_EQ(error.status(), mepi::Status::CompileFailed);
    EXPECT_STREQ(mepi::statusName(error.status()), "compile failed");
  }
}

TEST(MatmulApi, RefusedOperandsAndCallsAreInvalidValues) {
  for (auto call : std::vector<std::function<void()>>{
           [] { mepi::Matmul(tensor({8, 16}), tensor({12, 8})); },
           [] { mepi::Matmul(tensor({8, 16}), tensor({16, 4})).execute(); },
           [] { mepi::Matmul(tensor({8, 16}), tensor({16, 4})).plan(mepi::Epilog::Bias); }}) {
    try {
      call();
      ADD_FAILURE() << "no error";
    } catch (const mepi::Error &error) {
      EXPECT_EQ(error.status(), mepi::Status::InvalidValue) << error.what();
    }
  }
}

TEST(MatmulApi, UserEpilogSignatureMismatch) {
  const char *mlir = R"mlir(
    func.func @epilog(%acc: f32, %row: index, %col: index) -> f32 {
      return %acc : f32
    })mlir";
  mepi::Matmul mm(tensor({8, 16}), tensor({16, 4}));
  std::string e = errorOf([&] { mm.plan(mepi::UserEpilog{mlir, "epilog"}); });
  EXPECT_NE(e.find("user epilog @epilog: expected type (f32, index, index) -> f16 for this "
                   "problem, got (f32, index, index) -> f32"),
            std::string::npos)
      << e;
}

// A plan made for an aligned C loads C's element pairs at once: a later C must keep that
// alignment, and a C given before the first plan decides what the plan promises.
TEST(MatmulApi, ResetKeepsCsAlignment) {
  mepi::Qualifiers tb{false, true};
  mepi::Matmul mm(tensor({64, 32}), tensor({48, 32}), tensor({64, 48}), 1.0f, 1.0f, tb);
  mm.plan();
  std::string error = errorOf([&] {
    mm.resetOperands(tensor({64, 32}), tensor({48, 32}), tensor({64, 48}, mepi::DType::Float16, 2));
  });
  EXPECT_NE(error.find("resetOperands: operand c: the planned kernel needs a 16-byte aligned "
                       "address, got "),
            std::string::npos)
      << error;
  mepi::Matmul fresh(tensor({64, 32}), tensor({48, 32}), tensor({64, 48}), 1.0f, 1.0f, tb);
  auto offC = [] { return tensor({64, 48}, mepi::DType::Float16, 2); };
  EXPECT_EQ(errorOf([&] { fresh.resetOperands(tensor({64, 32}), tensor({48, 32}), offC()); }), "");
  EXPECT_EQ(errorOf([&] { fresh.plan(); }), "");
  EXPECT_EQ(errorOf([&] { fresh.resetOperands(tensor({64, 32}), tensor({48, 32}), offC()); }), "");
}

// A plan made for 16-byte aligned a and b may read them with TMA: later operands must keep it.
TEST(MatmulApi, ResetKeepsTheAlignmentThePlanAssumed) {
  mepi::Qualifiers tb{false, true};
  mepi::Matmul mm(tensor({64, 32}), tensor({48, 32}), std::nullopt, 1.0f, std::nullopt, tb);
  mm.plan();
  // Few tiles and a single k-step: the smallest wgmma tile (the heuristic's small-tile rule).
  EXPECT_EQ(mm.kernelConfiguration(), "#mepi.kernel_config<wgmma, tile = [64, 32, 64], "
                                      "mainloop = <stages = 8>>");
  std::string error = errorOf([&] {
    mm.resetOperands(tensor({64, 32}, mepi::DType::Float16, 2), tensor({48, 32}));
  });
  EXPECT_NE(error.find("resetOperands: operand a: the planned kernel needs 16-byte aligned "
                       "addresses, got "),
            std::string::npos)
      << error;
  EXPECT_EQ(errorOf([&] {
              mm.resetOperands(tensor({64, 32}, mepi::DType::Float16, 32), tensor({48, 32}));
            }),
            "");
}

TEST(MatmulApi, KernelConfigurationBeforePlan) {
  mepi::Matmul mm(tensor({8, 16}), tensor({16, 4}));
  EXPECT_EQ(errorOf([&] { mm.kernelConfiguration(); }),
            "kernelConfiguration() called before plan()");
}

// A problem whose last wave of units is short (2100 x 2000: 72 pair units of 128 x 256 on 66
// clusters, 16 k-steps each): the candidates add the stream-K form of its cooperative configurations, which
// plans; the heuristic's own choice (256 x 128 at this K) has no stream-K form.
TEST(MatmulApi, CandidateConfigurationsStreamK) {
  mepi::Qualifiers tb{false, true};
  mepi::Matmul mm(tensor({2100, 1024}), tensor({2000, 1024}), std::nullopt, 1.0f, std::nullopt,
                  tb);
  mm.plan(mepi::Epilog::Bias, {tensor({2100})});
  std::vector<std::string> candidates = mm.candidateConfigurations();
  EXPECT_EQ(mm.kernelConfiguration().find("stream_k"), std::string::npos);
  std::string streamK = "#mepi.kernel_config<wgmma, tile = [128, 256, 64], "
                        "mainloop = <stages = 4, cluster = 2>, "
                        "scheduler = <stream_k>, "
                        "epilogue = <store = tma>>";
  ASSERT_NE(std::find(candidates.begin(), candidates.end(), streamK), candidates.end());
  mepi::Options options;
  options.kernelConfig = streamK;
  mepi::Matmul forced(tensor({2100, 1024}), tensor({2000, 1024}), std::nullopt, 1.0f,
                      std::nullopt, tb, options);
  EXPECT_EQ(errorOf([&] { forced.plan(mepi::Epilog::Bias, {tensor({2100})}); }), "");
  EXPECT_EQ(forced.kernelConfiguration(), streamK);
  // With 4 k-steps a unit there is nothing to share: no stream-K candidates.
  mepi::Matmul shallow(tensor({2100, 256}), tensor({2000, 256}), std::nullopt, 1.0f,
                       std::nullopt, tb);
  shallow.plan(mepi::Epilog::Bias, {tensor({2100})});
  for (const std::string &config : shallow.candidateConfigurations())
    EXPECT_EQ(config.find("stream_k"), std::string::npos) << config;
}

// The ranked candidates: the heuristic's choice first, every one a configuration plan() accepts
// for the problem (each is compiled here, as autotune() would).
TEST(MatmulApi, CandidateConfigurationsAllPlan) {
  mepi::Qualifiers tb{false, true};
  mepi::Matmul mm(tensor({300, 1024}), tensor({520, 1024}), std::nullopt, 1.0f, std::nullopt,
                  tb);
  EXPECT_EQ(errorOf([&] { mm.candidateConfigurations(); }),
            "candidateConfigurations() called before plan()");
  mm.plan(mepi::Epilog::Bias, {tensor({300})});
  std::vector<std::string> candidates = mm.candidateConfigurations();
  ASSERT_GE(candidates.size(), 4u);
  EXPECT_EQ(candidates.front(), mm.kernelConfiguration());
  EXPECT_NE(std::find(candidates.begin(), candidates.end(),
                      "#mepi.kernel_config<wgmma, tile = [64, 256, 64], "
                      "mainloop = <stages = 5>>"),
            candidates.end());
  EXPECT_NE(std::find(candidates.begin(), candidates.end(),
                      "#mepi.kernel_config<wgmma, tile = [128, 256, 64], "
                      "mainloop = <stages = 4>, "
                      "scheduler = <split_k, splits = 2>, "
                      "epilogue = <store = tma>>"),
            candidates.end());
  EXPECT_NE(std::find(candidates.begin(), candidates.end(),
                      "#mepi.kernel_config<wgmma, tile = [128, 128, 64], "
                      "mainloop = <stages = 6, pingpong = true>, "
                      "epilogue = <store = tma>>"),
            candidates.end());
  EXPECT_NE(std::find(candidates.begin(), candidates.end(),
                      "#mepi.kernel_config<wgmma, tile = [128, 256, 64], "
                      "mainloop = <stages = 4, cluster = 2>, "
                      "epilogue = <store = tma>>"),
            candidates.end());
  // The 64-row tiles keep the staged stores, with TMA-store variants beside them.
  EXPECT_NE(std::find(candidates.begin(), candidates.end(),
                      "#mepi.kernel_config<wgmma, tile = [64, 128, 64], "
                      "mainloop = <stages = 8>, "
                      "epilogue = <store = tma>>"),
            candidates.end());
  // Split-K in clusters of 2 among them.
  EXPECT_TRUE(std::any_of(candidates.begin(), candidates.end(), [](const std::string &c) {
    return c.find("cluster = 2>, scheduler = <split_k, splits = 2>") != std::string::npos;
  }));
  // The heuristic's 64 x 32 (few tiles, 16 k-steps: the small-tile rule), the 4 wide tiles
  // and the narrow 128 x 64 and 64 x 64 (15 tiles of 128 x 128 leave multiprocessors idle),
  // each with 2 splits (16 k-steps: no more), 2 ping-pong tiles, 256 x 128, each one (split or
  // not) in a cluster of 2, TMA-store variants of the staged ones, and the cooperative
  // unclustered ones with fewer stages; then autotune's only: 128 x 192 with its 2 splits, each
  // in a cluster of 2 and the unclustered unsplit one with fewer stages (5), and the swapped
  // form's fitted heights for one and two consumers and its low heights (32, 48, 80; in 2
  // splits but 32 x 64's 90 tiles), the unsplit ones also with fewer stages, and all of those
  // through TMA stores (22).
  EXPECT_EQ(candidates.front(), "#mepi.kernel_config<wgmma, tile = [64, 32, 64], "
                                "mainloop = <stages = 8>>");
  EXPECT_EQ(candidates.size(), 86u);
  EXPECT_EQ(std::count_if(candidates.begin(), candidates.end(),
                          [](const std::string &c) {
                            return c.find("swapped = true") != std::string::npos;
                          }),
            22);
  for (const std::string &config : candidates) {
    mepi::Options options;
    options.kernelConfig = config;
    mepi::Matmul forced(tensor({300, 1024}), tensor({520, 1024}), std::nullopt, 1.0f,
                        std::nullopt, tb, options);
    EXPECT_EQ(errorOf([&] { forced.plan(mepi::Epilog::Bias, {tensor({300})}); }), "") << config;
    EXPECT_EQ(forced.kernelConfiguration(), config);
    if (config == candidates.back()) {
      EXPECT_EQ(errorOf([&] { forced.autotune(); }),
                "autotune: Options::kernelConfig forces the configuration '" + config + "'");
    }
  }
}

// Short M (29 rows): the swapped candidates stay swapped in every variant the ranking derives
// (clusters, TMA stores, fewer stages), and every candidate plans. The copies once rebuilt them
// as unswapped 32-row tiles, which no wgmma kernel has.
TEST(MatmulApi, CandidateConfigurationsSwappedStaySwapped) {
  mepi::Qualifiers tb{false, true};
  mepi::Matmul mm(tensor({29, 1024}), tensor({520, 1024}), std::nullopt, 1.0f, std::nullopt,
                  tb);
  mm.plan(mepi::Epilog::Bias, {tensor({29})});
  std::vector<std::string> candidates = mm.candidateConfigurations();
  EXPECT_EQ(candidates.front(), "#mepi.kernel_config<wgmma, tile = [32, 64, 64], "
                                "mainloop = <stages = 16>, "
                                "swapped = true>");
  int swapped = 0;
  for (const std::string &config : candidates) {
    bool shortTile = config.find("tile = [16,") != std::string::npos ||
                     config.find("tile = [32,") != std::string::npos;
    bool isSwapped = config.find("swapped = true") != std::string::npos;
    EXPECT_TRUE(!shortTile || isSwapped) << config;
    swapped += isSwapped;
    mepi::Options options;
    options.kernelConfig = config;
    mepi::Matmul forced(tensor({29, 1024}), tensor({520, 1024}), std::nullopt, 1.0f,
                        std::nullopt, tb, options);
    EXPECT_EQ(errorOf([&] { forced.plan(mepi::Epilog::Bias, {tensor({29})}); }), "") << config;
  }
  // 32 x 64 and 32 x 128, each with three quarters of its stages, each of those four through
  // TMA stores (after the cost model's choice), and those with fewer stages again (3 new).
  EXPECT_EQ(swapped, 11);
}

// The log sink hears the plan, the compile and, planning the same problem again, nothing
// compiled: the kernel cache's hit (debug). Without a sink, nothing but warnings is said.
TEST(MatmulApi, LogSinkHearsPlansCompilesAndCacheHits) {
  std::vector<std::pair<mepi::LogLevel, std::string>> heard;
  mepi::setLogSink([&](mepi::LogLevel level, const std::string &message) {
    heard.push_back({level, message});
  });
  auto said = [&](mepi::LogLevel level, const std::string &part) {
    return std::count_if(heard.begin(), heard.end(), [&](const auto &m) {
      return m.first == level && m.second.find(part) != std::string::npos;
    });
  };
  mepi::Matmul first(tensor({40, 24}), tensor({24, 56}));
  first.plan(mepi::Epilog::Sigmoid);
  EXPECT_EQ(said(mepi::LogLevel::Info, "plan: SIGMOID, a [40, 24], b [24, 56], d [40, 56]"), 1);
  EXPECT_EQ(said(mepi::LogLevel::Info, "kernel cache: compiled for sm_90a in ") +
                said(mepi::LogLevel::Info, "kernel cache: loaded from disk"),
            1);
  heard.clear();
  mepi::Matmul second(tensor({40, 24}), tensor({24, 56}));
  second.plan(mepi::Epilog::Sigmoid);
  EXPECT_EQ(said(mepi::LogLevel::Debug, "kernel cache: hit in memory"), 1);
  EXPECT_EQ(said(mepi::LogLevel::Info, "kernel cache: compiled"), 0);
  mepi::setLogSink(nullptr);
  heard.clear();
  mepi::Matmul third(tensor({40, 24}), tensor({24, 56}));
  third.plan(mepi::Epilog::Sigmoid);
  EXPECT_TRUE(heard.empty());
}

// Sizes whose products pass 2^63 are refused by name, not wrapped (issue 24).
TEST(MatmulApi, ShapesWhoseBytesOverflowAreRefused) {
  int64_t huge = int64_t(1) << 40;
  EXPECT_NE(errorOf([&] { mepi::Matmul mm(tensor({huge, huge}), tensor({huge, 4})); })
                .find("operand a: shape [1099511627776, 1099511627776] with strides "),
            std::string::npos);
  mepi::Tensor strided = tensor({8, 16});
  strided.strides = {int64_t(1) << 62, 1};
  EXPECT_NE(errorOf([&] { mepi::Matmul mm(strided, tensor({16, 4})); })
                .find("spans more than 2^63 bytes"),
            std::string::npos);
  // A [2^31, 1] and B [1, 2^31] are 4 GiB each; their D, 2^62 elements, spans 2^63 bytes.
  int64_t wide = int64_t(1) << 31;
  EXPECT_NE(errorOf([&] { mepi::Matmul mm(tensor({wide, 1}), tensor({1, wide})); })
                .find("result d: shape [2147483648, 2147483648] with strides [2147483648, 1] "
                      "spans more than 2^63 bytes"),
            std::string::npos);
}

// A sink that throws loses its message, nothing else: the cache and the plan go on.
TEST(MatmulApi, ASinkThatThrowsDoesNotBreakPlans) {
  mepi::setLogSink([](mepi::LogLevel, const std::string &) { throw std::runtime_error("no"); });
  for (int i = 0; i < 2; ++i) {
    mepi::Matmul mm(tensor({24, 40}), tensor({40, 24}));
    EXPECT_EQ(errorOf([&] { mm.plan(mepi::Epilog::Tanh); }), "");
  }
  mepi::setLogSink(nullptr);
}

// The masked form's rows: A must be [S, R, K], its S x R within 32 bits; B's rank is named.
TEST(MatmulApi, MaskedFormChecksItsShapes) {
  mepi::Tensor masked = tensor({4}, mepi::DType::Int32);
  mepi::Groups groups{masked, mepi::GroupForm::Masked, std::nullopt};
  EXPECT_NE(errorOf([&] {
              mepi::GroupedMatmul mm(tensor({4, int64_t(1) << 30, 16}), tensor({4, 16, 8}),
                                     groups);
            }).find("the masked form's S x R rows (4 x 1073741824) exceed 2^31 - 1"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { mepi::GroupedMatmul mm(tensor({4, 25, 16}), tensor({16}), groups); })
                .find("operand b"),
            std::string::npos);
}

// Mirrors (D stored again to each): a 2-D D, as many as planned, D's layout, 16-byte aligned,
// given before execute.
TEST(MatmulApi, MirrorsAreCheckedBeforeAnyLaunch) {
  mepi::Options options;
  options.mirrors = 2;
  std::string e = errorOf([&] {
    mepi::Matmul mm(tensor({3, 64, 32}), tensor({3, 32, 48}), std::nullopt, 1.0f, std::nullopt,
                    {}, options);
  });
  EXPECT_EQ(e, "options.mirrors: expected 0 for a batched D (batch dimensions [3]), got 2");
  mepi::Matmul mm(tensor({64, 32}), tensor({32, 48}), std::nullopt, 1.0f, std::nullopt, {},
                  options);
  mm.plan();
  EXPECT_EQ(errorOf([&] { mm.execute(); }),
            "execute: the plan stores d to 2 mirrors (options.mirrors): call setMirrors() first");
  EXPECT_EQ(errorOf([&] { mm.setMirrors({tensor({64, 48})}); }),
            "setMirrors: expected 2 mirrors (options.mirrors), got 1");
  EXPECT_EQ(errorOf([&] { mm.setMirrors({tensor({64, 48}), tensor({64, 40})}); }),
            "setMirrors: operand mirror 1: expected shape [64, 48], got [64, 40]");
  EXPECT_EQ(errorOf([&] {
              mm.setMirrors({tensor({64, 48}, mepi::DType::BFloat16), tensor({64, 48})});
            }),
            "setMirrors: operand mirror 0: expected dtype f16, got bf16");
  e = errorOf([&] { mm.setMirrors({tensor({64, 48}), tensor({64, 48}, mepi::DType::Float16, 8)}); });
  EXPECT_NE(e.find("setMirrors: operand mirror 1: expected a 16-byte aligned address, got "),
            std::string::npos)
      << e;
  EXPECT_EQ(errorOf([&] { mm.setMirrors({tensor({64, 48}), tensor({64, 48})}); }), "");
  options.mirrors = -1;
  EXPECT_EQ(errorOf([&] {
              mepi::Matmul bad(tensor({64, 32}), tensor({32, 48}), std::nullopt, 1.0f,
                               std::nullopt, {}, options);
            }),
            "options.mirrors: expected 0 or more, got -1");
}

// The aux outputs into the caller's memory (setAuxOutput), and their column stride
// (options.auxLeadingDimension): checked at construction, plan and the call, naming the key.
TEST(MatmulApi, AuxOutputsGoWhereTheCallerSays) {
  mepi::Options options;
  options.auxLeadingDimension = 256;
  EXPECT_EQ(errorOf([&] {
              mepi::Matmul mm(tensor({3, 64, 32}), tensor({3, 32, 48}), std::nullopt, 1.0f,
                              std::nullopt, {}, options);
            }),
            "options.auxLeadingDimension: expected 0, or more for a 2-D D, got 256 (batch "
            "dimensions [3])");
  mepi::Matmul mm(tensor({100, 32}), tensor({32, 48}), std::nullopt, 1.0f, std::nullopt, {},
                  options);
  mepi::Tensor mask = tensor({16, 48}, mepi::DType::UInt8);
  mask.strides = {1, 32}; // 256 rows of bits a column
  EXPECT_EQ(errorOf([&] { mm.setAuxOutput("relu_aux", mask); }),
            "setAuxOutput() called before plan()");
  mm.plan(mepi::Epilog::ReluAux);
  EXPECT_EQ(errorOf([&] { mm.setAuxOutput("gelu_aux", mask); }),
            "setAuxOutput: the planned epilog has no aux output 'gelu_aux' (it has 'relu_aux')");
  mepi::Tensor narrow = mask;
  narrow.strides = {1, 16};
  EXPECT_EQ(errorOf([&] { mm.setAuxOutput("relu_aux", narrow); }),
            "setAuxOutput: operand aux output relu_aux: expected strides [1, 32], got [1, 16]");
  EXPECT_EQ(errorOf([&] { mm.setAuxOutput("relu_aux", mask); }), "");
  options.auxLeadingDimension = 100;
  mepi::Matmul odd(tensor({100, 32}), tensor({32, 48}), std::nullopt, 1.0f, std::nullopt, {},
                   options);
  EXPECT_NE(errorOf([&] { odd.plan(mepi::Epilog::GeluAux); })
                .find("options.auxLeadingDimension: expected a multiple of 8 of at least 104"),
            std::string::npos);
}
