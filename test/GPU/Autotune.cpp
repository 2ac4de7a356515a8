// Matmul::autotune() on the device: it times the ranked candidates, plans the fastest (whose
// result must still match the fp64 reference), and a later Matmul of the same problem plans
// the remembered choice without tuning.
#include "Autotune.h"

#include <chrono>

namespace gputest {
namespace {
struct Shape {
  int64_t m, n, k;
};

std::string runCase(const Device &dev, const Shape &s, std::mt19937 &rng, double &err,
                    std::string &summary) {
  DeviceArena arena(*dev.d);
  HostTensor a = randomTensor(ElementType::BF16, {s.m, s.k}, rng);
  HostTensor b = randomTensor(ElementType::BF16, {s.n, s.k}, rng);
  HostTensor bias = randomTensor(ElementType::BF16, {s.m}, rng);
  mepi::Tensor aT = arena.toDevice(a), bT = arena.toDevice(b);
  mepi::EpilogInputs inputs;
  inputs.bias = arena.toDevice(bias);
  mepi::Matmul mm(aT, bT, std::nullopt, 1.0f, std::nullopt, {false, true});
  mm.plan(mepi::Epilog::GeluBias, inputs);
  std::string heuristic = mm.kernelConfiguration();
  std::vector<std::string> all = mm.candidateConfigurations();
  // By default bf16 problems time the cost model's first 16 (the heuristic's choice first).
  std::vector<std::string> candidates(all.begin(), all.begin() + std::min<size_t>(all.size(), 16));
  size_t compiledReports = 0, timedReports = 0;
  std::string progressError;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, double>> timed =
      mm.autotune(3, 0, nullptr, [&](const mepi::AutotuneProgress &p) {
        bool compiledStage = p.stage == mepi::AutotuneProgress::Stage::Compiled;
        size_t &seen = compiledStage ? compiledReports : timedReports;
        if (p.done != ++seen || p.total != candidates.size())
          progressError = "progress reported " + std::to_string(p.done) + " of " +
                          std::to_string(p.total) + ", expected " + std::to_string(seen) +
                          " of " + std::to_string(candidates.size());
        if (!compiledStage && compiledReports != candidates.size())
          progressError = "a candidate was timed before every candidate was compiled";
      });
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!progressError.empty())
    return progressError;
  if (compiledReports != candidates.size() || timedReports != candidates.size())
    return "progress: " + std::to_string(compiledReports) + " compiled and " +
           std::to_string(timedReports) + " timed reports for " +
           std::to_string(candidates.size()) + " candidates";
  if (timed.size() != candidates.size())
    return "timed " + std::to_string(timed.size()) + " of " + std::to_string(candidates.size()) +
           " candidates";
  for (size_t i = 1; i < timed.size(); ++i)
    if (timed[i].second < timed[i - 1].second)
      return "the timings are not sorted fastest first";
  if (mm.kernelConfiguration() != timed.front().first)
    return "planned " + mm.kernelConfiguration() + ", not the fastest " + timed.front().first;
  char line[512];
  std::snprintf(line, sizeof line,
                "%zu of %zu candidates in %.2f s, heuristic %.3f ms, chosen %s %.3f ms",
                timed.size(), all.size(), seconds,
                std::find_if(timed.begin(), timed.end(),
                             [&](const auto &t) { return t.first == heuristic; })
                    ->second,
                timed.front().first.c_str(), timed.front().second);
  summary = line;

  std::vector<double> y = referenceTN(a, b, s.m, s.n, s.k);
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j)
      y[i * s.n + j] = geluRef(y[i * s.n + j] + bias.values[i]);
  std::string why = compare("D", fetch(dev, executeTwice(dev, mm)), ElementType::BF16, y, 1e-2,
                            err);
  if (!why.empty())
    return why;
  // The choice is remembered for the problem: a new Matmul plans it without tuning.
  mepi::Matmul again(aT, bT, std::nullopt, 1.0f, std::nullopt, {false, true});
  again.plan(mepi::Epilog::GeluBias, inputs);
  if (again.kernelConfiguration() != timed.front().first)
    return "a new plan of the problem took " + again.kernelConfiguration() +
           ", not the tuned " + timed.front().first;
  return compare("D (new plan)", fetch(dev, executeTwice(dev, again)), ElementType::BF16, y,
                 1e-2, err);
}
} // namespace

int runAutotune(const Device &dev, std::mt19937 &rng,
                const std::function<bool(const std::string &)> &selected, int &passed,
                int &failed) {
  // A split-K candidate set (few tiles, long K) and a many-tile one with an odd M.
  for (Shape s : {Shape{200, 264, 2048}, Shape{1000, 1000, 1000}}) {
    char line[128];
    std::snprintf(line, sizeof line, "autotune GELU_BIAS bf16 %lldx%lldx%lld", (long long)s.m,
                  (long long)s.n, (long long)s.k);
    if (!selected(line))
      continue;
    double err = 0;
    std::string summary, why;
    try {
      why = runCase(dev, s, rng, err, summary);
    } catch (const mepi::Error &e) {
      why = std::string("error: ") + e.what();
    }
    bool ok = why.empty();
    (ok ? passed : failed)++;
    std::printf("%s %s relerr=%.2e %s%s%s\n", ok ? "PASS" : "FAIL", line, err, summary.c_str(),
                ok ? "" : "  ", why.c_str());
    std::fflush(stdout);
  }
  return failed;
}

} // namespace gputest
