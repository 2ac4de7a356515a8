// The heuristic's cost model (see Sm90CostModel.h).
#include "mepi/Sm90/Sm90CostModel.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::mepi;

namespace {
/// The model's constants, fitted on the H200 to autotune()'s times of every candidate of the
/// 224 problems of the sweep 20261123 (bench/results/sweep-autotune.json): a random search
/// that minimised the measured time of each problem's predicted-fastest candidate over its
/// measured fastest (plus a little of the spread of the predictions' errors). They are a fit,
/// not machine facts: only their ratios rank kernels, and some (clusterB above 1) say that the
/// fit found clusters rarely fastest among the sweep's problems rather than how multicast
/// works. preferModelChoice says where the heuristic uses it.
struct Constants {
  double mmaPerArea = 1.840113832225323e-05;  // us per k-line per tile row x column
  double mmaMinExtent = 32;                   // a tile side below this costs as much as this
  double loadPerRow = 0.0015293451131659064;  // us per k-line per loaded row of A or B
  double unitPrologue = 0.018206162063513116; // us per work unit
  double epilogPerElement = 0.0004633466412312184;
  double costlyEpilogFactor = 0.4878246356669427;  // extra epilog cost of GELU and the like
  double splitPerElement = 0.0010132000277489558;  // split-K partial sums, us per element
  double launch = 21.898579396999374;              // us a kernel (only its ratio to the rest)
  double dramPerByte = 2.393177752848582e-07;      // us per operand byte
  double pingpongEpilog = 0.8823487161118154;      // the share of the epilog left exposed
  double clusterB = 1.3358855142075727;            // shared loads in clusters of 2 (multicast)
  double streamKWaves = 1.2111978616406514;        // stream-K's waves over whole units
  double stagedStore = 1.2815725989488953;         // D staged through shared memory
  double loadLatency = 1.480528869913947;          // us the stages in flight must cover
  double cluster64Rows = 1.0205212598295104;       // clusters of 64-row tiles
  double streamKFixed = 8.191377149709732;         // us of stream-K's records
  double pingpongMainloop = 1.097207611965666;     // ping-pong's main-loop factor
  double swappedStep = 0.9922017295743915;         // the swapped form's k-step factor
};
constexpr Constants kC;
} // namespace

double mlir::mepi::predictMicroseconds(const Sm90Problem &p, KernelConfigAttr config,
                                       const TargetInfo &target, bool costlyEpilog) {
  const double tm = config.getTileM(), tn = config.getTileN();
  const int64_t splits = config.getScheduler().getSplits();
  int64_t kLines = llvm::divideCeil(p.k, p.atom().lineElements());
  int64_t tiles = p.batch * llvm::divideCeil(p.m, config.getTileM()) *
                  llvm::divideCeil(p.n, config.getTileN());
  int64_t steps = llvm::divideCeil(kLines, splits), units = tiles * splits;
  double mma = kC.mmaPerArea * std::max(tm, kC.mmaMinExtent) * std::max(tn, kC.mmaMinExtent);
  // The fit saw clusters along M only (B shared); a cluster along N takes the same factor for A.
  auto shared = [&](int64_t blocks) { return blocks == 2 ? kC.clusterB : 1.0; };
  double load = kC.loadPerRow * (tm * shared(Sm90Spec::clusterColumns(config)) +
                                 tn * shared(Sm90Spec::clusterRows(config)));
  double step = std::max(
      {mma, load, kC.loadLatency / std::max<int64_t>(config.getMainloop().getStages() - 1, 1)});
  if (config.getSwapped())
    step *= kC.swappedStep;
  double epilog = kC.epilogPerElement * tm * tn * (1 + (costlyEpilog ? kC.costlyEpilogFactor : 0)) *
                  (config.getEpilogue().getStore() == DStore::Staged ? kC.stagedStore : 1.0);
  double unit =
      config.getMainloop().getPingpong()
          ? steps * step * kC.pingpongMainloop + kC.unitPrologue + epilog * kC.pingpongEpilog
          : steps * step + kC.unitPrologue + epilog;
  if (splits > 1)
    unit += kC.splitPerElement * tm * tn;
  if (Sm90Spec::clusterRows(config) == 2 && config.getTileM() == 64)
    unit *= kC.cluster64Rows;
  double walkers = double(target.multiprocessors);
  double waves = config.getScheduler().isStreamK()
                     ? std::max(units / walkers * kC.streamKWaves, 1.0)
                     : double(llvm::divideCeil(units, target.multiprocessors));
  double time =
      waves * unit + kC.launch + (config.getScheduler().isStreamK() ? kC.streamKFixed : 0);
  double bytes = double(p.elementBytes) * p.batch * (p.m * p.k + p.n * p.k) + 2.0 * p.batch * p.m * p.n;
  return std::max(time, bytes * kC.dramPerByte);
}
