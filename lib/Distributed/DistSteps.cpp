// mepi::dist::Matmul's execution of its schedule's steps: the peer copies and local copies,
// the flags raised and awaited by stream memory operations, the NCCL steps and the GEMMs.
#include "Distributed/DistMatmulState.h"
#include "Distributed/Nccl.h"
#include "Distributed/Timeline.h"

#include <cstdio>

using namespace mepi;
using namespace mepi::dist;
using namespace mepi::dist::detail;
using mepi::api::check;
using mepi::runtime::checkCuda;
using plan::Step;

static ncclDataType_t ncclTypeOf(DType type) {
  return type == DType::BFloat16 ? ncclBfloat16
         : type == DType::Float16 ? ncclFloat16
                                  : ncclFloat32;
}

/// An NCCL step on the compute stream. Slabs with a remainder differ in size, which NCCL's
/// reduce-scatter and all-gather do not allow: one reduce or broadcast per rank then.
void dist::Matmul::State::collective(const Step &step, CUstream stream) const {
  const Nccl &n = *group->nccl;
  DType type = typeOf(step.from.buffer);
  ncclDataType_t nt = ncclTypeOf(type);
  auto cs = reinterpret_cast<cudaStream_t>(stream);
  size_t bytes = bytesOf(step.from.buffer);
  auto from = reinterpret_cast<const char *>(local(step.from.buffer) + step.from.offset() * bytes);
  auto to = reinterpret_cast<char *>(local(step.to.buffer) + step.to.offset() * bytes);
  int64_t width = step.from.cols, P = plan.ranks;
  bool even = true;
  for (const plan::Range &c : plan.chunks)
    even &= c.size == plan.chunks[0].size;
  llvm::Error error = llvm::Error::success();
  if (step.kind == Step::Kind::NcclAllReduce) {
    error = checkNccl(
        n.ncclAllReduce(from, to, step.from.rows * width, nt, ncclSum, group->comm, cs),
        "ncclAllReduce");
  } else if (even && step.kind == Step::Kind::NcclReduce) {
    error = checkNccl(n.ncclReduceScatter(from, to, plan.chunks[0].size * width, nt, ncclSum,
                                          group->comm, cs),
                      "ncclReduceScatter");
  } else if (even) {
    error = checkNccl(
        n.ncclAllGather(from, to, plan.chunks[0].size * width, nt, group->comm, cs),
        "ncclAllGather");
  } else {
    error = checkNccl(n.ncclGroupStart(), "ncclGroupStart");
    for (int q = 0; q < P && !error; ++q) {
      const plan::Range &rows = plan.chunks[q];
      size_t count = rows.size * width, at = rows.offset * width * bytes;
      error = step.kind == Step::Kind::NcclReduce
                  ? checkNccl(n.ncclReduce(from + at, to, count, nt, ncclSum, q, group->comm, cs),
                              "ncclReduce")
                  : checkNccl(n.ncclBroadcast(from, to + at, count, nt, q, group->comm, cs),
                              "ncclBroadcast");
    }
    if (llvm::Error end = checkNccl(n.ncclGroupEnd(), "ncclGroupEnd"))
      error = llvm::joinErrors(std::move(error), std::move(end));
  }
  check(std::move(error), "mepi::dist::Matmul::execute");
}

void dist::Matmul::State::reduceGradient(CUstream stream) const {
  if (!gradient.allReduce)
    return;
  const Nccl &n = *group->nccl;
  ncclDataType_t nt = ncclTypeOf(dType);
  auto *vector = reinterpret_cast<void *>(aux.vectorData());
  check(checkNccl(n.ncclAllReduce(vector, vector, aux.vectorLength(), nt, ncclSum, group->comm,
                                  reinterpret_cast<cudaStream_t>(stream)),
                  "ncclAllReduce(bias gradient)"),
        "mepi::dist::Matmul::execute");
}

void dist::Matmul::State::raise(CUstream st, int rank, int index, uint32_t epoch) const {
  // The default flags fence the stream's earlier writes (copies, GEMM stores) before it.
  checked(driver(), driver().cuStreamWriteValue32(st, flagAddress(rank, index), epoch, 0),
          "cuStreamWriteValue32");
}

void dist::Matmul::State::await(CUstream st, int index, uint32_t epoch) const {
  checked(driver(), driver().cuStreamWaitValue32(st, flagAddress(plan.rank, index), epoch,
                                                 CU_STREAM_WAIT_VALUE_GEQ),
          "cuStreamWaitValue32");
}

void dist::Matmul::State::push(const Step &step, uint32_t epoch) const {
  const runtime::CudaDriver &d = driver();
  if (step.gemm >= 0)
    checked(d, d.cuStreamWaitEvent(copy, gemmEvents[step.gemm], 0), "cuStreamWaitEvent");
  copyBlock(step, copy);
  pushAux(step, copy);
  if (step.flag >= 0) // a copy of several raises the flag after its last
    raise(copy, step.peer, step.flag, epoch);
}

void dist::Matmul::State::pushAux(const Step &step, CUstream st) const {
  if (step.gemm < 0 || !plan.gemms[step.gemm].final || !aux.replicates())
    return;
  const plan::Gemm &g = plan.gemms[step.gemm];
  aux.pushTo(driver(), gemms[step.gemm], g.dRows.offset, g.dRows.size, step.peer, st);
}

void dist::Matmul::State::copyBlock(const Step &step, CUstream st) const {
  const runtime::CudaDriver &d = driver();
  size_t bytes = bytesOf(step.from.buffer);
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = local(step.from.buffer) + step.from.offset() * bytes;
  c.srcPitch = step.from.pitch * bytes;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = on(step.to.buffer, step.peer) + step.to.offset() * bytes;
  c.dstPitch = step.to.pitch * bytes;
  c.WidthInBytes = step.from.cols * bytes;
  c.Height = step.from.rows;
  if (c.Height > 0 && c.WidthInBytes > 0)
    checked(d, d.cuMemcpy2DAsync(&c, st), "cuMemcpy2DAsync");
}

void dist::Matmul::State::run(const Step &step, CUstream stream, uint32_t epoch) {
  const runtime::CudaDriver &d = driver();
  switch (step.kind) {
  case Step::Kind::Ready:
    for (int q = 0; q < plan.ranks; ++q)
      raise(copy, q, plan.rank, epoch);
    break;
  case Step::Kind::Fork:
    checked(d, d.cuEventRecord(fork, stream), "cuEventRecord");
    checked(d, d.cuStreamWaitEvent(copy, fork, 0), "cuStreamWaitEvent");
    break;
  case Step::Kind::WaitReady: await(copy, step.peer, epoch); break;
  case Step::Kind::ComputeWaitReady: await(stream, step.peer, epoch); break;
  case Step::Kind::Push: push(step, epoch); break;
  case Step::Kind::LocalCopy: copyBlock(step, stream); break;
  case Step::Kind::Signal:
    pushAux(step, stream);
    raise(stream, step.peer, step.flag, epoch);
    break;
  case Step::Kind::WaitArrived: // through the waiter stream (DistMatmulState.h)
    await(waiter, step.flag, epoch);
    checked(d, d.cuEventRecord(arrivalEvents[step.flag], waiter), "cuEventRecord");
    checked(d, d.cuStreamWaitEvent(stream, arrivalEvents[step.flag], 0), "cuStreamWaitEvent");
    break;
  case Step::Kind::Gemm: {
    gemms[step.gemm].execute(stream);
    if (CUevent e = gemmEvents[step.gemm])
      checked(d, d.cuEventRecord(e, stream), "cuEventRecord");
    const plan::Gemm &g = plan.gemms[step.gemm];
    if (g.final)
      aux.gather(gemms[step.gemm]);
    if (gradient.computes[step.gemm])
      aux.gatherVector(d, gemms[step.gemm], gradient.at[step.gemm].offset, stream);
    break;
  }
  case Step::Kind::Join:
    checked(d, d.cuEventRecord(join, copy), "cuEventRecord");
    checked(d, d.cuStreamWaitEvent(stream, join, 0), "cuStreamWaitEvent");
    break;
  case Step::Kind::NcclReduce:
  case Step::Kind::NcclAllReduce:
  case Step::Kind::NcclAllGather:
    collective(step, stream);
    break;
  }
}

CUstream dist::Matmul::State::streamOf(const Step &step, CUstream stream) const {
  switch (step.kind) {
  case Step::Kind::Fork:
  case Step::Kind::Ready:
  case Step::Kind::WaitReady:
  case Step::Kind::Push: return copy;
  default: return stream;
  }
}

void dist::Matmul::State::runTraced(CUstream stream, uint32_t epoch) {
  Timeline timeline(driver(), plan.steps.size());
  timeline.start(stream);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    run(plan.steps[i], stream, epoch);
    timeline.mark(i, streamOf(plan.steps[i], stream));
  }
  std::string report =
      timeline.report(plan.rank, [&](size_t i) { return plan.stepStr(i); });
  std::fprintf(stderr, "%s", report.c_str());
}
