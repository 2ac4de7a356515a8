// The GPU suite's matrix cases (see GpuCases.h): the shared helpers and the list's order; each
// concept's cases are in its own file (BasicCases.cpp, KernelFormCases.cpp, SplitKCases.cpp, ...).
#include "GpuCases.h"

gputest::Case gputest::withCIntoF32(Case c) {
  c.withC = true;
  c.alpha = 0.5f;
  c.beta = -1.25f;
  c.outType = ElementType::F32;
  return c;
}

gputest::Case gputest::forced(Case c, const std::string &config) {
  c.config = config;
  return c;
}

gputest::Case gputest::kMajorCase(ElementType t, std::array<int64_t, 3> mnk, const char *epilog,
                                  const std::string &config) {
  auto [m, n, k] = mnk;
  Case c{t, {m, k}, {n, k}, {m, n}, false, true, epilog};
  c.config = config;
  return c;
}

gputest::Case gputest::swappedCase(ElementType t, std::array<int64_t, 3> mnk, const char *epilog,
                                   const std::string &tile) {
  return kMajorCase(t, mnk, epilog,
                    "#mepi.kernel_config<wgmma, tile = " + tile + ", swapped = true>");
}

// The order is the shards' (--shard I/N splits this list by index): keep it when adding.
std::vector<gputest::Case> gputest::allCases(bool quick) {
  std::vector<Case> cases;
  addBasicCases(cases, quick);
  addWgmmaShapeCases(cases, quick);
  addBatchedCases(cases);
  addF32Cases(cases);
  addPromotedCases(cases);
  addMnMajorCases(cases);
  addStagedRowCases(cases, quick);
  addTileCases(cases);
  addSplitKCases(cases, quick);
  addPingpongCases(cases);
  addTallTileCases(cases);
  addClusterBCases(cases);
  addClusterNCases(cases);
  addClusterABCases(cases);
  addStoreFormCases(cases);
  addWideTileCases(cases);
  addSplitWidthCases(cases);
  addStreamKCases(cases);
  addSwappedCases(cases);
  addOneTileCases(cases);
  addPairedSplitCases(cases);
  addSwappedHeightCases(cases);
  addFittedHeightCases(cases);
  addMirrorCases(cases);
  return cases;
}
