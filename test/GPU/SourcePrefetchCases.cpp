// The GPU suite's cases of C prefetched into L2 by the producer (prefetch_source, see
// GpuCases.h): every unit form that prefetches a tile's rows of C (whole units, clusters whose
// pair runs past D below or to the right, stream-K's shared ranges, split-K, ping-pong), units
// of fewer k-steps than the prefetch spreads over, and the heuristic's own choice; odd shapes,
// a C of another type than A and B (f32 into an f32 D). Prefetches change no value: each is
// checked against fp64 like the others.
#include "GpuCases.h"

using namespace mepi::runtime;

void gputest::addSourcePrefetchCases(std::vector<Case> &cases) {
  auto prefetched = [&](ElementType t, int64_t m, int64_t n, int64_t k, const char *epilog,
                        const std::string &form, bool f32D) {
    Case c{t, {m, k}, {n, k}, {m, n}, false, true, epilog, true, 0.75f, -1.5f};
    if (f32D)
      c.outType = ElementType::F32;
    if (!form.empty())
      c.config = "#mepi.kernel_config<wgmma, " + form + ">";
    cases.push_back(c);
  };
  const std::string fetch = "prefetch_source = true";
  prefetched(ElementType::BF16, 777, 776, 520, "GELU_BIAS",
             "tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, epilogue = <store = "
             "tma, " + fetch + ">",
             false);
  prefetched(ElementType::F16, 300, 776, 1000, "RELU_BIAS",
             "tile = [64, 128, 64], mainloop = <stages = 6, cluster = 2, multicast = a>, "
             "epilogue = <store = tma, " + fetch + ">",
             false);
  prefetched(ElementType::BF16, 1001, 776, 3000, "BIAS",
             "tile = [128, 256, 64], mainloop = <stages = 4>, scheduler = <stream_k>, "
             "epilogue = <store = tma, " + fetch + ">",
             false);
  prefetched(ElementType::F16, 257, 300, 3000, "RELU_BIAS",
             "tile = [128, 128, 64], mainloop = <stages = 6>, scheduler = <split_k, splits = "
             "3>, epilogue = <" + fetch + ">",
             true);
  prefetched(ElementType::BF16, 1000, 520, 1000, "GELU",
             "tile = [128, 128, 64], mainloop = <stages = 4, pingpong = true>, epilogue = "
             "<store = tma, " + fetch + ">",
             false);
  prefetched(ElementType::BF16, 300, 520, 130, "DEFAULT",
             "tile = [128, 128, 64], mainloop = <stages = 6>, epilogue = <store = registers, " +
                 fetch + ">",
             false);
  // The heuristic's choice (which prefetches an aligned C): a many-wave problem.
  prefetched(ElementType::BF16, 3000, 2056, 1000, "GELU_BIAS", "", false);
}
