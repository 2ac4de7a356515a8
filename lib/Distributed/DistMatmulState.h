// The state of a mepi::dist::Matmul (mepi/Distributed.h), shared by its planning and
// construction (DistMatmul.cpp) and its execution of the schedule's steps (DistSteps.cpp).
#ifndef MEPI_DISTRIBUTED_DISTMATMULSTATE_H
#define MEPI_DISTRIBUTED_DISTMATMULSTATE_H

#include "Distributed/Agreement.h"
#include "Distributed/BiasGradients.h"
#include "Distributed/DistAux.h"
#include "Distributed/DistPlan.h"
#include "Distributed/DistUserEpilog.h"
#include "Distributed/Group.h"
#include "Distributed/PeerMemory.h"

#include "Runtime/ApiSupport.h"

namespace mepi::dist {

struct Matmul::State : detail::Member {
  std::shared_ptr<detail::Group> group;
  plan::Request request; // planned again by plan(), which knows the epilog
  plan::DistPlan plan;
  Tensor a, b;
  std::optional<Tensor> c;
  float alpha = 1, beta = 0;
  Qualifiers qualifiers;
  Options options;
  DType dType = DType::Float32;
  detail::SymmetricBuffer gather, gatherB, recv, flags, dShared;
  CUdeviceptr partial = 0, d = 0;
  std::vector<mepi::Matmul> gemms;
  std::vector<CUevent> gemmEvents; // recorded after GEMMs whose output a push copies
  CUstream copy = nullptr; // the copy stream (Push, WaitReady)
  CUevent fork = nullptr, join = nullptr;
  /// The stream that awaits the peers' arrival flags, and per flag the event it records once
  /// the flag is up, which the compute stream waits for: a stream wait on a flag that is
  /// already up held the next GEMM back 7-15 us, an event wait 2-4 us (2x H200,
  /// bench/NOTES.md, Distributed).
  CUstream waiter = nullptr;
  std::vector<CUevent> arrivalEvents;
  /// Flags hold the epoch of the execute that raised them. 32 bits suffice: the stream wait
  /// compares cyclically ((int32_t)(*flag - epoch) >= 0, cuda.h), so the count may wrap while
  /// the flags follow it; it restarts at 0 with the zeroed flags of each plan() (every rank
  /// alike), since an epoch 2^31 ahead of a zero flag would pass the wait at once.
  uint32_t epoch = 0;
  /// The execute MEPI_DIST_TRACE asks to trace (0: none), read once per plan, not per execute.
  uint32_t tracedEpoch = 0;
  bool planned = false;
  Epilog epilog = Epilog::Default;
  EpilogInputs inputs;
  std::optional<detail::DistUserEpilog> user; // planned with a user epilog instead of `epilog`
  detail::DistAux aux;                 // the aux outputs, from the final GEMMs'
  detail::DistReductions reductions;   // a user epilog's column and scalar reductions
  plan::GradientPlan gradient;         // which GEMMs compute the bias gradient, if any

  struct Operands {
    Tensor a, b;
    std::optional<Tensor> c;
    std::optional<float> beta;
  };
  /// A local GEMM's operand views over the current A, B, C and buffers.
  Operands operands(const plan::Gemm &gemm) const;
  /// Its epilog inputs: the rows of "bias" and of the aux matrices it writes (final GEMMs
  /// only).
  EpilogInputs gemmInputs(const plan::Gemm &gemm) const;
  /// The epilog GEMM `index` carries: the planned one where it completes D (final) or
  /// computes its block of the bias gradient, else none (a partial sum).
  Epilog gemmEpilog(size_t index) const;
  /// After the schedule: the ranks' bias-gradient vectors added, where they are partial.
  void reduceGradient(CUstream stream) const;
  DType typeOf(plan::Buffer buffer) const;
  plan::DistPlan makePlan() const { return makePlan(request); }
  /// The plan of `q`, or mepi's error (alike on every rank: the plans are).
  static plan::DistPlan makePlan(const plan::Request &q) {
    llvm::Expected<plan::DistPlan> planned = plan::makePlan(q);
    if (planned)
      return std::move(*planned);
    Status status = Status::InvalidValue;
    std::string message;
    llvm::handleAllErrors(planned.takeError(), [&](const llvm::ErrorInfoBase &e) {
      if (e.convertToErrorCode() == std::errc::not_supported)
        status = Status::NotSupported;
      message = e.message();
    });
    throw Error("mepi::dist::Matmul: " + message, status);
  }
  void collective(const plan::Step &step, CUstream stream) const;
  /// plan()'s collective steps once `say` holds the epilog's facts and checks: when every
  /// rank agrees (else nothing changes), the schedule for the epilog, the buffers, the local
  /// GEMMs.
  void planAgreed(detail::Agreement &say, Epilog builtin, const EpilogInputs &builtinInputs,
                  std::optional<detail::DistUserEpilog> userEpilog);
  /// The address of `rank`'s flag word `index`.
  CUdeviceptr flagAddress(int rank, int index) const {
    return flags.on(rank) + static_cast<CUdeviceptr>(index) * sizeof(uint32_t);
  }
  /// Sets `rank`'s flag `index` to `epoch` in `st`'s order.
  void raise(CUstream st, int rank, int index, uint32_t epoch) const;
  /// Holds `st` until our flag `index` reaches `epoch`.
  void await(CUstream st, int index, uint32_t epoch) const;
  /// A Push step: the copy into the peer's buffer, then its flag.
  void push(const plan::Step &step, uint32_t epoch) const;
  /// After a final GEMM's Push or Signal under all-reduce: its aux outputs' block into the
  /// peer's, on `st` before the flag (which then says both arrived).
  void pushAux(const plan::Step &step, CUstream st) const;
  /// The copy of a Push or LocalCopy step (`from` ours, `to` in `step.peer`'s buffer) on `st`.
  void copyBlock(const plan::Step &step, CUstream st) const;
  void run(const plan::Step &step, CUstream stream, uint32_t epoch);
  /// The stream `step` runs on (the caller's `stream` or the copy stream).
  CUstream streamOf(const plan::Step &step, CUstream stream) const;
  /// run() of every step, with the timeline of MEPI_DIST_TRACE (Timeline.h) printed.
  void runTraced(CUstream stream, uint32_t epoch);

  const runtime::CudaDriver &driver() const { return *group->driver; }
  size_t bytesOf(plan::Buffer buffer) const;
  CUdeviceptr local(plan::Buffer buffer) const;
  CUdeviceptr on(plan::Buffer buffer, int rank) const;
  Tensor tensor(const plan::View &v, DType dtype) const;
  /// Collective (every rank's plan at once): waits for this rank's work, unmaps the peers'
  /// memory, waits for every rank to do the same, then frees its own.
  void release();
  /// finalize(): the release above while the group can still agree on it.
  void releaseShared() override { release(); }
  /// Frees what is only ours; the shared buffers go to the group, for finalize() to free
  /// (a plan destroyed while an exception unwinds cannot wait for the other ranks).
  void abandon();
  ~State() override {
    if (group)
      group->leave(this);
  }
};

namespace detail {
inline const char *dtypeName(DType t) { return runtime::elementTypeName(api::elementType(t)); }

/// Epilogs whose final GEMMs write aux outputs (DistAux.h assembles them).
inline bool writesAux(Epilog e) {
  return e == Epilog::ReluAux || e == Epilog::ReluAuxBias || e == Epilog::GeluAux ||
         e == Epilog::GeluAuxBias;
}

/// Epilogs that read an aux matrix (the forward epilog's): "relu_aux" or "gelu_aux".
inline const char *readsAux(Epilog e) {
  if (e == Epilog::DRelu || e == Epilog::DReluBGrad)
    return "relu_aux";
  if (e == Epilog::DGelu || e == Epilog::DGeluBGrad)
    return "gelu_aux";
  return nullptr;
}

inline size_t dtypeBytes(DType t) {
  return runtime::elementTypeBytes(api::elementType(t));
}

/// A CUDA call of an execute: its failure becomes mepi's error.
inline void checked(const runtime::CudaDriver &, CUresult r, const char *what) {
  api::check(runtime::checkCuda(r, what), "mepi::dist::Matmul::execute");
}
} // namespace detail

} // namespace mepi::dist

#endif // MEPI_DISTRIBUTED_DISTMATMULSTATE_H
