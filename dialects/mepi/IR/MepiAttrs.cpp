// Attributes of the mepi dialect: enum printing and kernel configuration checks.
#include "mepi/IR/MepiAttrs.h"
#include "mepi/IR/MepiDialect.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::mepi;

#include "mepi/IR/MepiEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "mepi/IR/MepiAttrs.cpp.inc"

/// Split-K beyond this many slices costs more in partial sums than it gains in blocks.
static constexpr int64_t kMaxSplits = 32;

namespace {
/// A message built by streaming, returned as the reason of a failed check.
struct Why {
  std::string text;
  template <typename T> Why &operator<<(const T &value) {
    llvm::raw_string_ostream(text) << value;
    return *this;
  }
  operator std::optional<std::string>() const { return text; }
};
} // namespace

namespace {
/// The settings of a kernel configuration, its parts flattened: what the verifier checks, and
/// what with...() copies change.
struct ConfigFields {
  KernelStrategy strategy;
  int64_t tileM, tileN, tileK;
  // The main loop.
  int64_t stages;
  bool tma, pingpong;
  int64_t cluster, promote;
  Multicast multicast;
  // The tile scheduler.
  TileSchedule schedule;
  int64_t splits;
  // The epilogue.
  DStore store;
  int64_t buffers;
  bool swapped;

  explicit ConfigFields(KernelConfigAttr c)
      : strategy(c.getStrategy()), tileM(c.getTileM()), tileN(c.getTileN()), tileK(c.getTileK()),
        stages(c.getMainloop().getStages()), tma(c.getMainloop().getTma()),
        pingpong(c.getMainloop().getPingpong()), cluster(c.getMainloop().getCluster()),
        promote(c.getMainloop().getPromote()), multicast(c.getMainloop().getMulticast()),
        schedule(c.getScheduler().getKind()),
        splits(c.getScheduler().getSplits()), store(c.getEpilogue().getStore()),
        buffers(c.getEpilogue().getBuffers()), swapped(c.getSwapped()) {}
  ConfigFields(KernelStrategy strategy, int64_t tileM, int64_t tileN, int64_t tileK,
               MainloopConfigAttr mainloop, SchedulerConfigAttr scheduler,
               EpilogueConfigAttr epilogue, bool swapped)
      : strategy(strategy), tileM(tileM), tileN(tileN), tileK(tileK), stages(mainloop.getStages()),
        tma(mainloop.getTma()), pingpong(mainloop.getPingpong()), cluster(mainloop.getCluster()),
        promote(mainloop.getPromote()), multicast(mainloop.getMulticast()),
        schedule(scheduler.getKind()),
        splits(scheduler.getSplits()), store(epilogue.getStore()),
        buffers(epilogue.getBuffers()), swapped(swapped) {}
  bool streamk() const { return schedule == TileSchedule::StreamK; }
  /// The attribute, or null where the combination is invalid (the verifier's rules).
  KernelConfigAttr get(MLIRContext *context) const;
};
} // namespace

/// Why the main loop's own settings are invalid, whatever the tile.
static std::optional<std::string> whyInvalidMainloop(int64_t stages, int64_t cluster,
                                                     int64_t promote, Multicast multicast) {
  if (stages < 1)
    return Why() << "expected at least 1 stage, got " << stages;
  // A cluster of 2 shares B between vertically adjacent tiles, each block loading half of it
  // (whole 64-row blocks when B is MN-major: tile_n a multiple of 128 then, which the
  // generator checks).
  // A cluster of 4 or 8 shares both: 2 tile rows by cluster / 2 tile columns.
  if (multicast == Multicast::AB) {
    if (cluster != 4 && cluster != 8)
      return Why() << "expected a cluster of 4 or 8 blocks with multicast = ab, got " << cluster;
    return whyInvalidMainloop(stages, 1, promote, Multicast::B);
  }
  if (cluster != 1 && cluster != 2)
    return Why() << "expected a cluster of 1 or 2 blocks (4 or 8 with multicast = ab), got "
                 << cluster;
  // Without a cluster nothing is shared: one spelling (the default) for it.
  if (cluster == 1 && multicast != Multicast::B)
    return Why() << "expected multicast = a only with a cluster of 2";
  if (promote < 0)
    return Why() << "expected promote 0 or more k-steps, got " << promote;
  return std::nullopt;
}

/// Why the tile scheduler's own settings are invalid.
static std::optional<std::string> whyInvalidScheduler(TileSchedule kind, int64_t splits) {
  if (kind == TileSchedule::SplitK && (splits < 2 || splits > kMaxSplits))
    return Why() << "expected 2 to " << kMaxSplits << " splits for split_k, got " << splits;
  if (kind != TileSchedule::SplitK && splits != 1)
    return Why() << "expected splits only with split_k, got " << splits << " with "
                 << stringifyTileSchedule(kind);
  return std::nullopt;
}

/// Why the epilogue's own settings are invalid.
static std::optional<std::string> whyInvalidEpilogue(DStore store, int64_t buffers) {
  if (store == DStore::Tma && buffers != 1 && buffers != 2)
    return Why() << "expected 1 or 2 TMA store buffers, got " << buffers;
  // Other stores take no buffers: one spelling (the default) for them.
  if (store != DStore::Tma && buffers != 2)
    return Why() << "expected buffers only with store = tma, got " << buffers << " with store = "
                 << stringifyDStore(store);
  return std::nullopt;
}

/// Why the settings make no kernel configuration, or none where they do (the verifier's rules,
/// also applied to the copies that with...() make).
/// The swapped wgmma kernel's rules.
static std::optional<std::string> whyInvalidSwapped(const ConfigFields &f) {
  // Dᵀ = B Aᵀ: tile_m rows of D are each wgmma's n side (a multiple of 8 up to 256; A's tile
  // then spans whole 8-row swizzle atoms), 64 columns each consumer's m64 side.
  if (f.tileM < 16 || f.tileM > 256 || f.tileM % 8 != 0)
    return Why() << "expected tile_m a multiple of 8 from 16 to 256 for a swapped wgmma kernel, "
                    "got "
                 << f.tileM;
  if (f.tileN != 64 && f.tileN != 128)
    return Why() << "expected tile_n 64 or 128 for a swapped wgmma kernel (one "
                    "consumer per 64 columns), got "
                 << f.tileN;
  // One 128-byte line of K per stage row: 64 16-bit or 128 8-bit elements (tf32 is not
  // swapped; which of them, the operands' type decides: Sm90Spec).
  if (f.tileK != 64 && f.tileK != 128)
    return Why() << "expected tile_k 64 or 128 for a swapped wgmma kernel (one 128-byte line of "
                    "16- or 8-bit K), got "
                 << f.tileK;
  if (f.stages < 2 || f.stages > 16)
    return Why() << "expected 2 to 16 stages for a swapped wgmma kernel, got " << f.stages;
  // Split-K sums each consumer's fragments in fragment order, whichever way they map to D.
  // A cluster pairs two tile rows that share B's tile (multicast along M): B is the operand
  // the swapped form's few tile rows each read again.
  if (f.pingpong || f.store == DStore::Registers)
    return Why() << "expected no pingpong and no store other than tma for a swapped wgmma "
                    "kernel";
  if (f.cluster != 1 && (f.cluster != 2 || f.multicast != Multicast::B))
    return Why() << "expected no cluster or a cluster of 2 sharing B (multicast along M) for a "
                    "swapped wgmma kernel, got cluster " << f.cluster;
  return std::nullopt;
}

/// The (unswapped) wgmma kernels' rules.
static std::optional<std::string> whyInvalidWgmma(const ConfigFields &f) {
  auto [strategy, tileM, tileN, tileK, stages, tma, pingpong, cluster, promote, multicast,
        schedule, splits, store, buffers, swapped] = f;
  // One consumer warpgroup per 64 rows (wgmma m64), n a multiple of 8 up to 256, and one
  // 128-byte swizzle atom of 16-bit elements along K per stage.
  if (tileM != 64 && tileM != 128 && tileM != 192 && tileM != 256)
    return Why() << "expected tile_m 64, 128, 192 or 256 for wgmma, got " << tileM;
  // 192 rows: three consumers of one 64-row slice each, with 160 registers a thread (three
  // warpgroups of 232 would not fit beside the producer): at most 64 x 128 accumulators.
  if (tileM == 192 && (tileN > 128 || pingpong))
    return Why() << "expected tile_n at most 128 and no ping-pong for 192-row wgmma tiles "
                    "(three consumers of 160 registers), got tile_n "
                 << tileN << (pingpong ? " and ping-pong" : "");
  // 256 rows: two consumers of two 64-row slices each, whose accumulators must fit.
  if (tileM == 256 && (tileN > 128 || splits != 1))
    return Why() << "expected tile_n at most 128 and 1 split for 256-row wgmma tiles "
                    "(each consumer holds two 64-row slices), got tile_n "
                 << tileN << " and " << splits << " splits";
  if (tileN % 8 != 0 || tileN > 256)
    return Why() << "expected tile_n a multiple of 8 up to 256 for wgmma, got " << tileN;
  // One 128-byte swizzled line of K per stage row: 32 f32 (read as tf32), 64 16-bit or 128
  // 8-bit elements (which of them, the operands' type decides: Sm90Spec).
  if (tileK != 32 && tileK != 64 && tileK != 128)
    return Why() << "expected tile_k 32, 64 or 128 for wgmma (one 128-byte line of K), got "
                 << tileK;
  if (stages < 2 || stages > 8)
    return Why() << "expected 2 to 8 stages for wgmma, got " << stages;
  // A ping-pong consumer holds a whole tile's f32 accumulators: at most 128 registers.
  if (pingpong && tileM * tileN > 128 * 128)
    return Why() << "expected tile_m * tile_n at most 16384 for a ping-pong wgmma "
                    "kernel (one warpgroup holds the whole tile), got "
                 << tileM << " x " << tileN;
  if (pingpong && splits != 1)
    return Why() << "expected 1 split for a ping-pong wgmma kernel, got " << splits;
  if (cluster != 1 && !tma)
    return Why() << "expected a cluster only with TMA loads";
  // Both operands shared: the cooperative kernel's whole units (the walk of a split or a
  // ping-pong consumer's alternate tiles in 2-D clusters is not generated).
  if (multicast == Multicast::AB && (pingpong || schedule != TileSchedule::DataParallel))
    return Why() << "expected multicast = ab only for whole units of a cooperative wgmma "
                    "kernel (no ping-pong, split_k or stream_k)";
  if (store == DStore::Tma && !tma)
    return Why() << "expected store = tma only with TMA loads";
  return std::nullopt;
}

static std::optional<std::string> whyInvalid(const ConfigFields &f) {
  auto [strategy, tileM, tileN, tileK, stages, tma, pingpong, cluster, promote, multicast,
        schedule, splits, store, buffers, swapped] = f;
  if (auto why = whyInvalidMainloop(stages, cluster, promote, multicast))
    return why;
  if (auto why = whyInvalidScheduler(schedule, splits))
    return why;
  if (auto why = whyInvalidEpilogue(store, buffers))
    return why;
  if (promote > 0 && strategy != KernelStrategy::Wgmma)
    return Why() << "expected promote 0, or > 0 for wgmma, got " << promote;
  // What the promoted sets take of a consumer's registers (the swapped form's one slice of
  // 64 x tile_m) is the target's to say (Sm90Spec::whyNot).
  if (tileM <= 0 || tileN <= 0 || tileK <= 0)
    return Why() << "expected positive tile sizes, got [" << tileM << ", " << tileN << ", " << tileK
                 << "]";
  // A SIMT block runs one thread per output element of its tile; CUDA caps a block at 1024.
  if (strategy == KernelStrategy::Simt && tileM * tileN > 1024)
    return Why() << "expected at most 1024 threads per simt block, got " << tileM * tileN;
  if (strategy == KernelStrategy::Simt && stages != 1)
    return Why() << "expected 1 stage for simt, got " << stages;
  if (strategy == KernelStrategy::Simt && schedule != TileSchedule::DataParallel)
    return Why() << "expected the data_parallel scheduler for simt, got "
                 << stringifyTileSchedule(schedule);
  if (strategy == KernelStrategy::Simt && !tma)
    return Why() << "expected no tma setting for simt";
  // Stream-K cuts the last wave of a cooperative kernel's units into even k ranges, one per
  // walker, each consumer holding one 64-row slice (its partials are split-K records).
  if (f.streamk() && (strategy != KernelStrategy::Wgmma || swapped || pingpong || tileM == 256))
    return Why() << "expected stream_k only for a cooperative wgmma kernel (not swapped or "
                    "ping-pong, tile_m 64 or 128)";
  if (strategy == KernelStrategy::Wgmma && swapped)
    return whyInvalidSwapped(f);
  if (swapped)
    return Why() << "expected swapped only for wgmma";
  if (strategy == KernelStrategy::Wgmma)
    return whyInvalidWgmma(f);
  if (pingpong || cluster != 1 || store != DStore::Staged)
    return Why() << "expected no pingpong, cluster or store setting for simt";
  return std::nullopt;
}

LogicalResult MainloopConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         int64_t stages, bool tma, bool pingpong, int64_t cluster,
                                         int64_t promote, Multicast multicast) {
  if (std::optional<std::string> why = whyInvalidMainloop(stages, cluster, promote, multicast))
    return emitError() << *why;
  return success();
}

LogicalResult SchedulerConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                          TileSchedule kind, int64_t splits) {
  if (std::optional<std::string> why = whyInvalidScheduler(kind, splits))
    return emitError() << *why;
  return success();
}

LogicalResult EpilogueConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                         DStore store, int64_t buffers) {
  if (std::optional<std::string> why = whyInvalidEpilogue(store, buffers))
    return emitError() << *why;
  return success();
}

LogicalResult KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       KernelStrategy strategy, int64_t tileM, int64_t tileN,
                                       int64_t tileK, MainloopConfigAttr mainloop,
                                       SchedulerConfigAttr scheduler, EpilogueConfigAttr epilogue,
                                       bool swapped) {
  if (!mainloop || !scheduler || !epilogue)
    return emitError() << "expected a mainloop, a scheduler and an epilogue";
  if (std::optional<std::string> why = whyInvalid(
          ConfigFields(strategy, tileM, tileN, tileK, mainloop, scheduler, epilogue, swapped)))
    return emitError() << *why;
  return success();
}

KernelConfigAttr ConfigFields::get(MLIRContext *context) const {
  if (whyInvalid(*this))
    return {};
  return KernelConfigAttr::get(
      context, strategy, tileM, tileN, tileK,
      MainloopConfigAttr::get(context, stages, tma, pingpong, cluster, promote, multicast),
      SchedulerConfigAttr::get(context, schedule, splits),
      EpilogueConfigAttr::get(context, store, buffers), swapped);
}

namespace {

/// The copy of `config` with `change` applied; null where `config` is (so that copies chain).
template <typename Change>
KernelConfigAttr copyWith(KernelConfigAttr config, Change change) {
  if (!config)
    return config;
  ConfigFields fields(config);
  change(fields);
  return fields.get(config.getContext());
}
} // namespace

KernelConfigAttr KernelConfigAttr::withMainloop(MainloopConfigAttr mainloop) const {
  if (!mainloop)
    return {};
  return copyWith(*this, [&](ConfigFields &f) {
    f.stages = mainloop.getStages();
    f.tma = mainloop.getTma();
    f.pingpong = mainloop.getPingpong();
    f.cluster = mainloop.getCluster();
    f.promote = mainloop.getPromote();
    f.multicast = mainloop.getMulticast();
  });
}
KernelConfigAttr KernelConfigAttr::withScheduler(SchedulerConfigAttr scheduler) const {
  if (!scheduler)
    return {};
  return copyWith(*this, [&](ConfigFields &f) {
    f.schedule = scheduler.getKind();
    f.splits = scheduler.getSplits();
  });
}
KernelConfigAttr KernelConfigAttr::withEpilogue(EpilogueConfigAttr epilogue) const {
  if (!epilogue)
    return {};
  return copyWith(*this, [&](ConfigFields &f) {
    f.store = epilogue.getStore();
    f.buffers = epilogue.getBuffers();
  });
}
KernelConfigAttr KernelConfigAttr::withStages(int64_t stages) const {
  return copyWith(*this, [&](ConfigFields &f) { f.stages = stages; });
}
KernelConfigAttr KernelConfigAttr::withTma(bool tma) const {
  return copyWith(*this, [&](ConfigFields &f) { f.tma = tma; });
}
KernelConfigAttr KernelConfigAttr::withPingpong(bool pingpong) const {
  return copyWith(*this, [&](ConfigFields &f) { f.pingpong = pingpong; });
}
KernelConfigAttr KernelConfigAttr::withCluster(int64_t cluster, Multicast multicast) const {
  return copyWith(*this, [&](ConfigFields &f) {
    f.cluster = cluster;
    f.multicast = multicast;
  });
}
KernelConfigAttr KernelConfigAttr::withPromote(int64_t promote) const {
  return copyWith(*this, [&](ConfigFields &f) { f.promote = promote; });
}
KernelConfigAttr KernelConfigAttr::withSplits(int64_t splits) const {
  return copyWith(*this, [&](ConfigFields &f) {
    f.splits = splits;
    // A stream-K scheduler stays one (and refuses splits); the others follow the count.
    if (f.schedule != TileSchedule::StreamK)
      f.schedule = splits > 1 ? TileSchedule::SplitK : TileSchedule::DataParallel;
  });
}
KernelConfigAttr KernelConfigAttr::withStreamk(bool streamk) const {
  return copyWith(*this, [&](ConfigFields &f) {
    if (streamk)
      f.schedule = TileSchedule::StreamK;
    else if (f.schedule == TileSchedule::StreamK)
      f.schedule = TileSchedule::DataParallel;
  });
}
KernelConfigAttr KernelConfigAttr::withStore(DStore store) const {
  return copyWith(*this, [&](ConfigFields &f) {
    f.store = store;
    if (store != DStore::Tma) // buffers are TMA stores' (whyInvalidEpilogue)
      f.buffers = 2;
  });
}
KernelConfigAttr KernelConfigAttr::withTmaBuffers(int64_t buffers) const {
  return copyWith(*this, [&](ConfigFields &f) { f.buffers = buffers; });
}
KernelConfigAttr KernelConfigAttr::withSwapped(bool swapped) const {
  return copyWith(*this, [&](ConfigFields &f) { f.swapped = swapped; });
}
KernelConfigAttr KernelConfigAttr::withDataParallel() const {
  return copyWith(*this, [&](ConfigFields &f) {
    f.schedule = TileSchedule::DataParallel;
    f.splits = 1;
    f.pingpong = false;
  });
}

void MepiDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "mepi/IR/MepiAttrs.cpp.inc"
      >();
}
