// mepi::dist::Matmul: plans with DistPlan, then executes the schedule: local GEMMs
// (mepi::Matmul writing into views of this object's buffers) on the caller's stream, peer
// copies on a copy stream, flags raised and awaited by stream memory operations.
#include "Distributed/DistPlan.h"
#include "Distributed/PeerMemory.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace mepi;
using namespace mepi::dist;
using namespace mepi::dist::detail;
using mepi::api::check;
using mepi::api::fail;
using mepi::runtime::checkCuda;
using plan::Buffer;
using plan::Step;
using plan::View;

struct dist::Matmul::State {
  const Group *group = nullptr;
  plan::Request request; // planned again by plan(), which knows the epilog
  plan::DistPlan plan;
  Tensor a, b;
  std::optional<Tensor> c;
  float alpha = 1, beta = 0;
  Qualifiers qualifiers;
  Options options;
  DType dType = DType::Float32;
  SymmetricBuffer gather, recv, flags, dShared;
  CUdeviceptr partial = 0, d = 0;
  std::vector<mepi::Matmul> gemms;
  std::vector<CUevent> gemmEvents; // recorded after GEMMs whose output a push copies
  CUstream copy = nullptr;
  CUevent fork = nullptr, join = nullptr;
  uint32_t epoch = 0;
  bool planned = false;
  Epilog epilog = Epilog::Default;
  EpilogInputs inputs;

  struct Operands {
    Tensor a, b;
    std::optional<Tensor> c;
    std::optional<float> beta;
  };
  /// A local GEMM's operand views over the current A, B, C and buffers.
  Operands operands(const plan::Gemm &gemm) const;
  /// Its epilog inputs: the rows of "bias" it writes (final GEMMs only).
  EpilogInputs gemmInputs(const plan::Gemm &gemm) const;
  DType typeOf(Buffer buffer) const;
  plan::DistPlan makePlan() const {
    llvm::Expected<plan::DistPlan> planned = plan::makePlan(request);
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
  void collective(const Step &step, CUstream stream) const;
  /// The address of `rank`'s flag word `index`.
  CUdeviceptr flagAddress(int rank, int index) const {
    return flags.on(rank) + static_cast<CUdeviceptr>(index) * sizeof(uint32_t);
  }
  /// Sets `rank`'s flag `index` to `epoch` in `st`'s order.
  void raise(CUstream st, int rank, int index, uint32_t epoch) const;
  /// Holds `st` until our flag `index` reaches `epoch`.
  void await(CUstream st, int index, uint32_t epoch) const;
  /// A Push step: the copy into the peer's buffer, then its flag.
  void push(const Step &step, uint32_t epoch) const;
  void run(const Step &step, CUstream stream, uint32_t epoch);

  const runtime::CudaDriver &driver() const { return *group->driver; }
  size_t bytesOf(Buffer buffer) const;
  CUdeviceptr local(Buffer buffer) const;
  CUdeviceptr on(Buffer buffer, int rank) const;
  Tensor tensor(const View &v, DType dtype) const;
  void release();
};

namespace {
const char *dtypeName(DType t) { return runtime::elementTypeName(api::elementType(t)); }

size_t dtypeBytes(DType t) {
  return runtime::elementTypeBytes(api::elementType(t));
}

/// The problem's fixed facts every rank must agree on, exchanged at construction.
struct Announce {
  int64_t a[2], b[2];
  int32_t kinds[3];
  int32_t transposeA, transposeB, hasC;
};
} // namespace

size_t dist::Matmul::State::bytesOf(Buffer buffer) const {
  switch (buffer) {
  case Buffer::A: return dtypeBytes(a.dtype);
  case Buffer::B: return dtypeBytes(b.dtype);
  case Buffer::Gather:
    return dtypeBytes(plan.algorithm == Algorithm::AllGatherB ? b.dtype : a.dtype);
  default: return dtypeBytes(dType);
  }
}

CUdeviceptr dist::Matmul::State::local(Buffer buffer) const {
  switch (buffer) {
  case Buffer::A: return reinterpret_cast<CUdeviceptr>(a.data);
  case Buffer::B: return reinterpret_cast<CUdeviceptr>(b.data);
  case Buffer::C: return c ? reinterpret_cast<CUdeviceptr>(c->data) : 0;
  case Buffer::D: return plan.dSymmetric ? dShared.local() : d;
  case Buffer::Gather: return gather.local();
  case Buffer::Partial: return partial;
  case Buffer::Recv: return recv.local();
  }
  return 0;
}

CUdeviceptr dist::Matmul::State::on(Buffer buffer, int rank) const {
  switch (buffer) {
  case Buffer::Gather: return gather.on(rank);
  case Buffer::Recv: return recv.on(rank);
  case Buffer::D:
    if (plan.dSymmetric)
      return dShared.on(rank);
    [[fallthrough]];
  default:
    if (rank != plan.rank)
      fail(llvm::formatv("mepi::dist: internal: buffer {0} is not shared",
                         plan::bufferName(buffer)));
    return local(buffer);
  }
}

Tensor dist::Matmul::State::tensor(const View &v, DType dtype) const {
  Tensor t;
  CUdeviceptr base = v.rank >= 0 ? on(v.buffer, v.rank) : local(v.buffer);
  t.data = reinterpret_cast<void *>(base + v.offset() * bytesOf(v.buffer));
  t.device = group->device;
  t.dtype = dtype;
  t.shape = {v.rows, v.cols};
  t.strides = {v.pitch, 1};
  return t;
}

DType dist::Matmul::State::typeOf(Buffer buffer) const {
  if (buffer == Buffer::A || (buffer == Buffer::Gather && plan.algorithm == Algorithm::AllGatherA))
    return a.dtype;
  if (buffer == Buffer::B || buffer == Buffer::Gather)
    return b.dtype;
  return dType;
}

dist::Matmul::State::Operands dist::Matmul::State::operands(const plan::Gemm &gemm) const {
  Operands o;
  o.a = tensor(gemm.a, typeOf(gemm.a.buffer));
  o.b = tensor(gemm.b, typeOf(gemm.b.buffer));
  if (gemm.c) {
    o.c = tensor(*gemm.c, dType);
    o.beta = gemm.c->buffer == Buffer::C ? beta : gemm.beta;
  }
  return o;
}

EpilogInputs dist::Matmul::State::gemmInputs(const plan::Gemm &gemm) const {
  EpilogInputs in;
  if (gemm.final && inputs.bias) {
    Tensor bias = *inputs.bias;
    int64_t stride = bias.strides.empty() ? 1 : bias.strides[0];
    bias.data = static_cast<char *>(bias.data) +
                gemm.dRows.offset * stride * dtypeBytes(bias.dtype);
    bias.shape = {gemm.dRows.size};
    in.bias = bias;
  }
  return in;
}

/// An NCCL step on the compute stream. Slabs with a remainder differ in size, which NCCL's
/// reduce-scatter and all-gather do not allow: one reduce or broadcast per rank then.
void dist::Matmul::State::collective(const Step &step, CUstream stream) const {
  const Nccl &n = *group->nccl;
  DType type = typeOf(step.from.buffer);
  ncclDataType_t nt = type == DType::BFloat16 ? ncclBfloat16
                      : type == DType::Float16 ? ncclFloat16
                                               : ncclFloat32;
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

void dist::Matmul::State::release() {
  if (!group)
    return;
  const runtime::CudaDriver &d0 = driver();
  group->enter();
  gemms.clear();
  for (CUevent &e : gemmEvents)
    if (e)
      d0.cuEventDestroy(e);
  gemmEvents.clear();
  for (CUevent *e : {&fork, &join})
    if (*e)
      d0.cuEventDestroy(*e), *e = nullptr;
  if (copy)
    d0.cuStreamDestroy(copy), copy = nullptr;
  for (CUdeviceptr *p : {&partial, &d})
    if (*p)
      d0.cuMemFree(*p), *p = 0;
  gather.release();
  recv.release();
  flags.release();
  dShared.release();
  planned = false;
}

static void checkMatrix(const Tensor &t, const char *name) {
  if (t.shape.size() != 2)
    fail(llvm::formatv("operand {0}: expected this rank's part as a matrix (rank 2), got rank "
                       "{1}",
                       name, t.shape.size()));
  if (!t.strides.empty() && (t.strides.size() != 2 || t.strides[1] != 1 ||
                             t.strides[0] != t.shape[1]))
    fail(llvm::formatv("operand {0}: expected a contiguous row-major part (strides [{1}, 1]), "
                       "got strides {2}",
                       name, t.shape[1], api::dims(t.strides)));
}

dist::Matmul::Matmul(const Tensor &a, const Tensor &b, std::optional<Tensor> c,
                     const std::vector<Distribution> &distributions, float alpha,
                     std::optional<float> beta, Qualifiers qualifiers, Options options)
    : state(std::make_unique<State>()) {
  State &s = *state;
  s.group = &group();
  checkMatrix(a, "a");
  checkMatrix(b, "b");
  if (c)
    checkMatrix(*c, "c");
  if (c && !beta)
    fail("operand c given without beta");
  if (distributions.size() != 3)
    fail(llvm::formatv("distributions: expected 3 (A, B, D), got {0}", distributions.size()));
  if (a.dtype != b.dtype)
    fail(llvm::formatv("operands a and b: expected one dtype, got {0} and {1}",
                       dtypeName(a.dtype), dtypeName(b.dtype)));
  if (a.dtype != DType::BFloat16 && a.dtype != DType::Float16 && a.dtype != DType::Float32)
    throw Error(std::string("mepi::dist: operand a: ") + dtypeName(a.dtype) +
                    " is not supported yet in distributed matmuls (bf16, f16, f32)",
                Status::NotSupported);
  if (options.local.quantizationScales.a || options.local.quantizationScales.b ||
      options.local.quantizationScales.d || options.local.resultAmax)
    throw Error("mepi::dist: FP8 scales and result_amax are not supported yet in distributed "
                "matmuls",
                Status::NotSupported);
  s.a = a;
  s.b = b;
  s.c = c;
  s.alpha = alpha;
  s.beta = beta.value_or(0.0f);
  s.qualifiers = qualifiers;
  s.options = options;
  s.dType = options.local.resultType.value_or(a.dtype);
  const Group &g = *s.group;
  Announce mine{};
  for (int i = 0; i < 2; ++i)
    mine.a[i] = a.shape[i], mine.b[i] = b.shape[i];
  for (int i = 0; i < 3; ++i)
    mine.kinds[i] = static_cast<int32_t>(distributions[i].kind);
  mine.transposeA = qualifiers.transposeA;
  mine.transposeB = qualifiers.transposeB;
  mine.hasC = c.has_value();
  std::vector<char> all = g.allGather(&mine, sizeof(mine));
  plan::Request q;
  q.ranks = g.ranks;
  q.rank = g.rank;
  q.distributions = distributions;
  q.transposeA = qualifiers.transposeA;
  q.transposeB = qualifiers.transposeB;
  q.hasC = c.has_value();
  q.pieces = options.pieces;
  q.remoteStores = options.remoteStores;
  for (int r = 0; r < g.ranks; ++r) {
    Announce theirs;
    std::memcpy(&theirs, all.data() + r * sizeof(Announce), sizeof(Announce));
    if (std::memcmp(theirs.kinds, mine.kinds, sizeof(mine.kinds)) ||
        theirs.transposeA != mine.transposeA || theirs.transposeB != mine.transposeB ||
        theirs.hasC != mine.hasC)
      fail(llvm::formatv("rank {0} and rank {1} describe different problems (distributions, "
                         "qualifiers or operand c differ): every rank must pass the same",
                         g.rank, r));
    q.aShapes.push_back({theirs.a[0], theirs.a[1]});
    q.bShapes.push_back({theirs.b[0], theirs.b[1]});
  }
  s.request = q;
  s.plan = s.makePlan();
  if (c && (c->shape != s.plan.dLocal || c->dtype != s.dType))
    fail(llvm::formatv("operand c: expected this rank's part of D, {0} {1}, got {2} {3}",
                       dtypeName(s.dType), api::dims(s.plan.dLocal),
                       dtypeName(c->dtype), api::dims(c->shape)));
}

namespace {
/// Epilogs that act on each element of D alone, so that each chunk's GEMM applies them to its
/// own rows. Aux outputs and inputs (masks, GELU inputs, bias gradients) are not distributed
/// yet.
bool elementwise(Epilog e) {
  switch (e) {
  case Epilog::Default: case Epilog::Relu: case Epilog::Bias: case Epilog::ReluBias:
  case Epilog::Gelu: case Epilog::GeluBias: case Epilog::Sigmoid: case Epilog::Tanh:
  case Epilog::Silu:
    return true;
  default:
    return false;
  }
}

void checked(const runtime::CudaDriver &, CUresult r, const char *what) {
  check(checkCuda(r, what), "mepi::dist::Matmul::execute");
}
} // namespace

void dist::Matmul::plan(Epilog epilog, const EpilogInputs &inputs) {
  if (!state)
    fail("plan() after free()");
  State &s = *state;
  if (!elementwise(epilog))
    throw Error(std::string("mepi::dist: epilog ") + api::epilogName(epilog) +
                    " (aux outputs or inputs) is not supported yet in distributed matmuls",
                Status::NotSupported);
  if (inputs.reluAux || inputs.geluAux)
    fail("plan: relu_aux/gelu_aux inputs are for DRELU/DGELU epilogs only");
  if (inputs.bias && (inputs.bias->shape.size() != 1 ||
                      inputs.bias->shape[0] != s.plan.dLocal[0]))
    fail(llvm::formatv("plan: input bias: expected one value per row of this rank's D, [{0}], "
                       "got {1}",
                       s.plan.dLocal[0], api::dims(inputs.bias->shape)));
  s.release();
  s.request.identityEpilog = epilog == Epilog::Default && !inputs.bias;
  s.plan = s.makePlan();
  const Group &g = *s.group;
  const runtime::CudaDriver &d = s.driver();
  g.enter();
  const plan::DistPlan &p = s.plan;
  size_t dBytes = dtypeBytes(s.dType);
  if (!p.gatherShape.empty())
    s.gather = SymmetricBuffer::allocate(g, p.gatherShape[0] * p.gatherShape[1] *
                                                s.bytesOf(Buffer::Gather));
  if (p.slots > 0) {
    s.recv = SymmetricBuffer::allocate(g, p.slots * p.slotElements * dBytes);
    check(checkCuda(d.cuMemAlloc(&s.partial, p.slots * p.slotElements * dBytes),
                    "cuMemAlloc(partial sums)"),
          "plan");
  }
  s.flags = SymmetricBuffer::allocate(g, p.flags * sizeof(uint32_t));
  size_t dSize = p.dLocal[0] * p.dLocal[1] * dBytes;
  if (p.dSymmetric)
    s.dShared = SymmetricBuffer::allocate(g, dSize);
  else
    check(checkCuda(d.cuMemAlloc(&s.d, dSize), "cuMemAlloc(d)"), "plan");
  check(checkCuda(d.cuStreamCreate(&s.copy, CU_STREAM_NON_BLOCKING), "cuStreamCreate"), "plan");
  for (CUevent *e : {&s.fork, &s.join})
    check(checkCuda(d.cuEventCreate(e, CU_EVENT_DISABLE_TIMING), "cuEventCreate"), "plan");
  s.gemmEvents.assign(p.gemms.size(), nullptr);
  for (const Step &step : p.steps)
    if (step.kind == Step::Kind::Push && step.gemm >= 0 && !s.gemmEvents[step.gemm])
      check(checkCuda(d.cuEventCreate(&s.gemmEvents[step.gemm], CU_EVENT_DISABLE_TIMING),
                      "cuEventCreate"),
            "plan");
  mepi::Options local = s.options.local;
  local.resultType = s.dType;
  s.epilog = epilog;
  s.inputs = inputs;
  for (const plan::Gemm &gemm : p.gemms) {
    State::Operands o = s.operands(gemm);
    mepi::Matmul mm(o.a, o.b, o.c, s.alpha, o.beta, s.qualifiers, local);
    mm.plan(gemm.final ? epilog : Epilog::Default, s.gemmInputs(gemm));
    mm.setResult(s.tensor(gemm.d, s.dType));
    s.gemms.push_back(std::move(mm));
  }
  s.planned = true;
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
    checked(d, d.cuMemcpy2DAsync(&c, copy), "cuMemcpy2DAsync(peer)");
  raise(copy, step.peer, step.flag, epoch);
}

void dist::Matmul::State::run(const Step &step, CUstream stream, uint32_t epoch) {
  const runtime::CudaDriver &d = driver();
  switch (step.kind) {
  case Step::Kind::Ready:
    for (int q = 0; q < plan.ranks; ++q)
      raise(stream, q, plan.rank, epoch);
    break;
  case Step::Kind::Fork:
    checked(d, d.cuEventRecord(fork, stream), "cuEventRecord");
    checked(d, d.cuStreamWaitEvent(copy, fork, 0), "cuStreamWaitEvent");
    break;
  case Step::Kind::WaitReady: await(copy, step.peer, epoch); break;
  case Step::Kind::ComputeWaitReady: await(stream, step.peer, epoch); break;
  case Step::Kind::Push: push(step, epoch); break;
  case Step::Kind::Signal: raise(stream, step.peer, step.flag, epoch); break;
  case Step::Kind::WaitArrived: await(stream, step.flag, epoch); break;
  case Step::Kind::Gemm:
    gemms[step.gemm].execute(stream);
    if (CUevent e = gemmEvents[step.gemm])
      checked(d, d.cuEventRecord(e, stream), "cuEventRecord");
    break;
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

Tensor dist::Matmul::execute(CUstream stream) {
  if (!state)
    fail("execute() after free()");
  State &s = *state;
  if (!s.planned)
    fail("execute() called before plan()");
  s.group->enter();
  uint32_t epoch = ++s.epoch;
  for (const Step &step : s.plan.steps)
    s.run(step, stream, epoch);
  Tensor out;
  out.data = reinterpret_cast<void *>(s.local(Buffer::D));
  out.device = s.group->device;
  out.dtype = s.dType;
  out.shape = s.plan.dLocal;
  out.strides = {s.plan.dLocal[1], 1};
  return out;
}

void dist::Matmul::resetOperands(const Tensor &a, const Tensor &b, const EpilogInputs &inputs) {
  if (!state)
    fail("resetOperands() after free()");
  State &s = *state;
  for (auto [now, was, name] : {std::tuple{&a, &s.a, "a"}, std::tuple{&b, &s.b, "b"}})
    if (now->dtype != was->dtype || now->shape != was->shape || now->device != was->device)
      fail(llvm::formatv("resetOperands: operand {0}: expected {1} {2} on device {3}, got {4} "
                         "{5} on device {6}",
                         name, dtypeName(was->dtype), api::dims(was->shape), was->device,
                         dtypeName(now->dtype), api::dims(now->shape), now->device));
  if (s.planned && (inputs.bias.has_value() != s.inputs.bias.has_value()))
    fail(std::string("resetOperands: the planned epilog ") + api::epilogName(s.epilog) +
         (s.inputs.bias ? " reads a bias: give it again" : " reads no bias"));
  s.a = a;
  s.b = b;
  s.inputs = inputs;
  if (!s.planned)
    return;
  for (size_t i = 0; i < s.gemms.size(); ++i) {
    State::Operands o = s.operands(s.plan.gemms[i]);
    s.gemms[i].resetOperands(o.a, o.b, o.c, s.gemmInputs(s.plan.gemms[i]));
  }
}

void dist::Matmul::free() {
  if (state)
    state->release();
  state.reset();
}

dist::Matmul::Matmul(Matmul &&) noexcept = default;
dist::Matmul &dist::Matmul::operator=(Matmul &&) noexcept = default;
dist::Matmul::~Matmul() {
  if (!state)
    return;
  try { // a destructor must not throw (release() reports CUDA failures)
    state->release();
  } catch (...) {
  }
}

Algorithm dist::Matmul::algorithm() const {
  if (!state)
    fail("algorithm() after free()");
  return state->plan.algorithm;
}

std::array<int64_t, 3> dist::Matmul::globalShape() const {
  if (!state)
    fail("globalShape() after free()");
  return {state->plan.m, state->plan.n, state->plan.k};
}

std::string dist::Matmul::schedule() const {
  if (!state)
    fail("schedule() after free()");
  return state->plan.str();
}
