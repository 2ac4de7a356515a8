// The seeded random sweep (see Sweep.h).
#include "Sweep.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace bench;

namespace {
/// log-uniform in [lo, hi], rounded to an integer.
int64_t logUniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
  std::uniform_real_distribution<double> u(std::log(double(lo)), std::log(double(hi)));
  return std::clamp<int64_t>(std::llround(std::exp(u(rng))), lo, hi);
}

int64_t roundUp64(int64_t v) { return (v + 63) / 64 * 64; }

bool withinBounds(int64_t m, int64_t n, int64_t k) {
  return n * k <= (int64_t(1) << 28) && m * n <= (int64_t(1) << 30) &&
         m * k <= (int64_t(1) << 31) && 2 * m * n * k <= (int64_t(1) << 46);
}
} // namespace

std::vector<SweepProblem> bench::sweepProblems(uint64_t seed, int count, int batched,
                                               std::vector<std::string> &names) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution coin(0.5);
  std::vector<SweepProblem> problems;
  names.reserve(count + batched); // Shape::name points into it
  for (int i = 0; i < count + batched; ++i) {
    SweepProblem p;
    bool isBatched = i >= count;
    int64_t m, n, k, batch = 1;
    do {
      if (isBatched) {
        batch = logUniform(rng, 2, 128);
        m = roundUp64(logUniform(rng, 64, 4096));
        n = roundUp64(logUniform(rng, 64, 4096));
        k = roundUp64(logUniform(rng, 64, 4096));
      } else {
        m = logUniform(rng, 1, 65536);
        n = logUniform(rng, 64, 65536);
        k = logUniform(rng, 64, 65536);
        if (i % 2 == 0) {
          m = roundUp64(m);
          n = roundUp64(n);
          k = roundUp64(k);
        }
      }
    } while (!withinBounds(m, n, k));
    p.aligned = isBatched || i % 2 == 0;
    p.bf16 = coin(rng);
    p.geluBias = coin(rng);
    names.push_back("sw" + std::to_string(i));
    p.shape = Shape{m, n, k, names.back().c_str(), batch, isBatched && i % 4 == 0};
    problems.push_back(p);
  }
  return problems;
}
