// The GPU suite's mirror cases (Options::mirrors: D stored again, each copy checked equal to D).
#include "GpuCases.h"

#include <array>
#include <tuple>

void gputest::addMirrorCases(std::vector<Case> &cases) {
  auto swapped = swappedCase;
  // Mirrors (D stored again to each, bytes equal to D's): each store form (tma, registers,
  // staged), clusters, split-K's and stream-K's last arrivals, the swapped form, the SIMT
  // kernel and the heuristic's own choice; odd shapes, C with f32 D.
  auto mirrored = [&](Case c, const std::string &form, int mirrors) {
    c.config = form.empty() ? form : "#mepi.kernel_config<" + form + ">";
    c.mirrors = mirrors;
    cases.push_back(c);
  };
  Case odd{ElementType::BF16, {1000, 520}, {1032, 520}, {1000, 1032}, false, true, "GELU_BIAS"};
  mirrored(odd, "wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, epilogue = <store = tma>", 2);
  mirrored(odd, "wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>, "
                "epilogue = <store = tma>", 1);
  mirrored(odd, "wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, "
                "epilogue = <store = registers>", 3);
  mirrored(odd, "wgmma, tile = [128, 128, 64], mainloop = <stages = 6>", 1);
  mirrored(odd, "wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, "
                "scheduler = <split_k, splits = 3>, epilogue = <store = tma>", 1);
  mirrored(odd, "wgmma, tile = [128, 256, 64], mainloop = <stages = 4>, "
                "scheduler = <stream_k>, epilogue = <store = tma>", 1);
  mirrored(odd, "", 1);
  Case gelu{ElementType::F16, {300, 777}, {777, 264}, {300, 264}, false, false, "GELU"};
  mirrored(gelu, "", 2);
  Case withC{ElementType::F16, {127, 264}, {136, 264}, {127, 136}, false, true, "RELU_BIAS",
             true, 0.5f, 2.0f, false, ElementType::F32};
  mirrored(withC, "wgmma, tile = [128, 128, 64], mainloop = <stages = 6>, "
                  "epilogue = <store = tma>", 1);
  mirrored(withC, "simt, tile = [16, 32, 1]", 2);
  Case swappedMirror = swapped(ElementType::BF16, {13, 1000, 1000}, "BIAS",
                               "[16, 128, 64], mainloop = <stages = 12>");
  swappedMirror.mirrors = 1;
  cases.push_back(swappedMirror);
  swappedMirror.mirrors = 3;
  cases.push_back(swappedMirror);
  // A distributed all-reduce's mirrored last pieces on 4 ranks (C = the partial sums, three
  // peers): 32 and 109 rows, the heuristic's tiles.
  for (auto [m, withC, mirrors] : {std::tuple{32, true, 3}, {32, false, 3}, {32, true, 1},
                                    {109, true, 3}})
    mirrored(Case{ElementType::BF16, {m, 128}, {384, 128}, {m, 384}, false, true, "BIAS", withC,
                  1.0f, 1.0f},
             "", mirrors);
}
