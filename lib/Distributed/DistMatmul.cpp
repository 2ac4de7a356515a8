// mepi::dist::Matmul: construction, plan() with DistPlan (the agreements, the buffers, the
// local GEMMs writing into views of this object's buffers), execute(), resetOperands() and
// release; the schedule's steps run in DistSteps.cpp.
#include "Distributed/DistArguments.h"
#include "Distributed/DistMatmulState.h"
#include "Distributed/Timeline.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cstdio>
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



size_t dist::Matmul::State::bytesOf(Buffer buffer) const {
  return dtypeBytes(typeOf(buffer));
}

CUdeviceptr dist::Matmul::State::local(Buffer buffer) const {
  switch (buffer) {
  case Buffer::A: return reinterpret_cast<CUdeviceptr>(a.data);
  case Buffer::B: return reinterpret_cast<CUdeviceptr>(b.data);
  case Buffer::C: return c ? reinterpret_cast<CUdeviceptr>(c->data) : 0;
  case Buffer::D: return plan.dSymmetric ? dShared.local() : d;
  case Buffer::Gather: return gather.local();
  case Buffer::GatherB: return gatherB.local();
  case Buffer::Partial: return partial;
  case Buffer::Recv: return recv.local();
  }
  return 0;
}

CUdeviceptr dist::Matmul::State::on(Buffer buffer, int rank) const {
  switch (buffer) {
  case Buffer::Gather: return gather.on(rank);
  case Buffer::GatherB: return gatherB.on(rank);
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

/// Gather holds B's columns for AllGatherB and op(A)'s rows otherwise; GatherB holds B's.
DType dist::Matmul::State::typeOf(Buffer buffer) const {
  bool gathersB = plan.algorithm == Algorithm::AllGatherB;
  if (buffer == Buffer::A || (buffer == Buffer::Gather && !gathersB))
    return a.dtype;
  if (buffer == Buffer::B || buffer == Buffer::Gather || buffer == Buffer::GatherB)
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

/// Rows `rows` of this rank's aux matrix `aux` (column-major, as its forward epilog wrote
/// it): the layout a GEMM of those rows reads, with the whole matrix's column stride. The
/// ReLU mask holds 8 rows a byte, padded to 16 bytes a column; the GELU input 8 rows.
static Tensor auxRows(const Tensor &aux, plan::Range rows) {
  bool mask = aux.dtype == DType::UInt8;
  Tensor t = aux;
  int64_t first = mask ? rows.offset / 8 : rows.offset;
  t.data = static_cast<char *>(aux.data) + first * dtypeBytes(aux.dtype);
  t.shape = {mask ? (int64_t)llvm::alignTo(llvm::divideCeil(rows.size, 8), 16)
                  : (int64_t)llvm::alignTo(rows.size, 8),
             aux.shape[1]};
  return t;
}

EpilogInputs dist::Matmul::State::gemmInputs(const plan::Gemm &gemm) const {
  EpilogInputs in;
  if (!gemm.final)
    return in;
  if (inputs.bias) {
    Tensor bias = *inputs.bias;
    int64_t stride = bias.strides.empty() ? 1 : bias.strides[0];
    bias.data = static_cast<char *>(bias.data) +
                gemm.dRows.offset * stride * dtypeBytes(bias.dtype);
    bias.shape = {gemm.dRows.size};
    in.bias = bias;
  }
  if (inputs.reluAux)
    in.reluAux = auxRows(*inputs.reluAux, gemm.dRows);
  if (inputs.geluAux)
    in.geluAux = auxRows(*inputs.geluAux, gemm.dRows);
  return in;
}

Epilog dist::Matmul::State::gemmEpilog(size_t index) const {
  // Operand sums leave D as it is: only the GEMMs whose sums are taken compute them.
  if (gradient.sum == plan::GradientSum::RowsOfA || gradient.sum == plan::GradientSum::ColumnsOfB)
    return gradient.computes[index] ? epilog : Epilog::Default;
  return plan.gemms[index].final ? epilog : Epilog::Default;
}


namespace {
/// The plan's buffers shared with the peers.
template <typename F> void forShared(dist::Matmul::State &s, F f) {
  for (SymmetricBuffer *b : {&s.gather, &s.gatherB, &s.recv, &s.flags, &s.dShared})
    f(*b);
  for (SymmetricBuffer *b : s.aux.sharedBuffers())
    f(*b);
}
} // namespace

/// Releases what only this rank uses (nothing a peer maps). Errors are ignored: the memory is
/// gone either way, and release() runs in destructors.
static void releaseLocal(dist::Matmul::State &s) {
  const runtime::CudaDriver &d = s.driver();
  s.gemms.clear();
  for (std::vector<CUevent> *events : {&s.gemmEvents, &s.arrivalEvents}) {
    for (CUevent e : *events)
      if (e)
        d.cuEventDestroy(e);
    events->clear();
  }
  for (CUevent *e : {&s.fork, &s.join})
    if (*e)
      d.cuEventDestroy(*e), *e = nullptr;
  for (CUstream *st : {&s.copy, &s.waiter})
    if (*st)
      d.cuStreamDestroy(*st), *st = nullptr;
  for (CUdeviceptr *p : {&s.partial, &s.d})
    if (*p)
      d.cuMemFree(*p), *p = 0;
  s.aux.release(d);
  s.reductions.release(d);
  s.planned = false;
}

void dist::Matmul::State::release() {
  bool shared = false;
  forShared(*this, [&](SymmetricBuffer &b) { shared |= !b.empty(); });
  if (!group || !group->live()) // finalize() released everything already
    return;
  group->enter();
  // This rank's copies into peers and its GEMMs are done; a peer's into us finished within
  // our executes (each waits for the data it receives).
  driver().cuCtxSynchronize();
  releaseLocal(*this);
  if (!shared)
    return;
  forShared(*this, [](SymmetricBuffer &b) { b.closePeers(); });
  group->barrier(); // every rank has unmapped ours
  forShared(*this, [](SymmetricBuffer &b) { b.freeOwn(); });
}

void dist::Matmul::State::abandon() {
  if (!group || !group->live())
    return;
  if (driver().cuCtxSetCurrent(group->context) != CUDA_SUCCESS)
    return;
  driver().cuCtxSynchronize();
  releaseLocal(*this);
  forShared(*this, [&](SymmetricBuffer &b) {
    b.closePeers();
    if (CUdeviceptr p = b.takeOwn())
      group->retire(p);
  });
}


dist::Matmul::Matmul(const Tensor &a, const Tensor &b, std::optional<Tensor> c,
                     const std::vector<Distribution> &distributions, float alpha,
                     std::optional<float> beta, Qualifiers qualifiers, Options options)
    : state(std::make_unique<State>()) {
  State &s = *state;
  s.group = group();
  Group &g = *s.group;
  g.checkLive("mepi::dist::Matmul");
  // Every rank's checks and facts are exchanged before any rank goes on, so that all throw
  // alike (Agreement.h).
  Agreement say = constructorWord(a, b, c, distributions, alpha, beta, qualifiers, options);
  say.attempt([&] { checkLocal(a, b, c, distributions, beta, options); });
  std::vector<Word> all = g.agree(say, "mepi::dist::Matmul");
  s.a = a;
  s.b = b;
  s.c = c;
  s.alpha = alpha;
  s.beta = beta.value_or(0.0f);
  s.qualifiers = qualifiers;
  s.options = options;
  s.dType = options.local.resultType.value_or(a.dtype);
  plan::Request q;
  q.ranks = g.ranks;
  q.rank = g.rank;
  q.distributions = distributions;
  q.transposeA = qualifiers.transposeA;
  q.transposeB = qualifiers.transposeB;
  q.hasC = c.has_value();
  q.pieces = options.pieces;
  q.bands = options.bands;
  q.remoteStores = options.remoteStores;
  q.mirroredPieces = options.mirroredPieces;
  q.tailPieces = options.tailPieces;
  q.dElementBytes = static_cast<int64_t>(dtypeBytes(s.dType));
  for (const Word &w : all) {
    int64_t shapes[4];
    std::memcpy(shapes, w.data, sizeof(shapes));
    q.aShapes.push_back({shapes[0], shapes[1]});
    q.bShapes.push_back({shapes[2], shapes[3]});
  }
  s.request = q;
  s.plan = s.makePlan(); // every rank plans from the same table: refuses alike
  if (c) {
    Agreement cOk; // c's expected shape is this rank's part of D
    if (c->shape != s.plan.dLocal || c->dtype != s.dType)
      cOk.refuse(std::make_exception_ptr(Error(llvm::formatv(
          "operand c: expected this rank's part of D, {0} {1}, got {2} {3}",
          dtypeName(s.dType), api::dims(s.plan.dLocal), dtypeName(c->dtype),
          api::dims(c->shape)))));
    g.agree(cOk, "mepi::dist::Matmul");
  }
  g.join(&s);
}

/// plan()'s and resetOperands()'s checks of the epilog inputs: "bias" one value per row of
/// this rank's D; the aux matrix a DRELU or DGELU epilog reads, this rank's as its forward
/// epilog returned it (column-major, rows padded: mepi/Matmul.h), and no other.
static void checkInputs(const EpilogInputs &inputs, const plan::DistPlan &p, Epilog epilog,
                        DType dType, const char *what) {
  const char *reads = readsAux(epilog);
  for (auto [given, key] : {std::pair{&inputs.reluAux, "relu_aux"},
                            std::pair{&inputs.geluAux, "gelu_aux"}}) {
    bool wanted = reads && std::string(reads) == key;
    if (given->has_value() != wanted)
      fail(llvm::formatv("{0}: input {1}: epilog {2} {3}", what, key, epilogName(epilog),
                         wanted ? "reads it: expected this rank's, as the forward epilog "
                                  "returned it"
                                : "does not read it"));
    if (!wanted)
      continue;
    const Tensor &t = **given;
    bool mask = std::string(key) == "relu_aux";
    int64_t height = mask ? llvm::alignTo(llvm::divideCeil(p.dLocal[0], 8), 16)
                          : llvm::alignTo(p.dLocal[0], 8);
    DType type = mask ? DType::UInt8 : dType;
    if (t.dtype != type || t.shape != std::vector<int64_t>{height, p.dLocal[1]} ||
        t.strides != std::vector<int64_t>{1, height})
      fail(llvm::formatv("{0}: input {1}: expected this rank's, {2} [{3}, {4}] column-major "
                         "(strides [1, {3}]), got {5} {6} strides {7}",
                         what, key, dtypeName(type), height, p.dLocal[1], dtypeName(t.dtype),
                         api::dims(t.shape), api::dims(t.strides)));
  }
  if (inputs.bias && (inputs.bias->shape.size() != 1 || inputs.bias->shape[0] != p.dLocal[0]))
    fail(llvm::formatv("{0}: input bias: expected one value per row of this rank's D, [{1}], "
                       "got {2}",
                       what, p.dLocal[0], api::dims(inputs.bias->shape)));
}

/// The buffers and events only this rank uses.
static void allocateLocal(dist::Matmul::State &s) {
  const runtime::CudaDriver &d = s.driver();
  const plan::DistPlan &p = s.plan;
  s.group->enter();
  size_t dBytes = dtypeBytes(s.dType);
  if (p.slots > 0)
    check(checkCuda(d.cuMemAlloc(&s.partial, p.slots * p.slotElements * dBytes),
                    "cuMemAlloc(partial sums)"),
          "plan");
  if (!p.dSymmetric)
    check(checkCuda(d.cuMemAlloc(&s.d, p.dLocal[0] * p.dLocal[1] * dBytes), "cuMemAlloc(d)"),
          "plan");
  check(checkCuda(d.cuStreamCreate(&s.copy, CU_STREAM_NON_BLOCKING), "cuStreamCreate"), "plan");
  int finals = 0;
  for (const plan::Gemm &gemm : p.gemms)
    finals += gemm.final;
  bool replicated = p.algorithm == Algorithm::AllReduce;
  s.aux.reset(p.dLocal[0], p.dLocal[1], finals, replicated);
  s.reductions.reset(p.dLocal[1], finals, replicated);
  if (s.epilog == Epilog::ReluAux || s.epilog == Epilog::ReluAuxBias)
    s.aux.declare("relu_aux", DType::UInt8, AuxLayout::Mask);
  else if (writesAux(s.epilog))
    s.aux.declare("gelu_aux", s.dType, AuxLayout::ColumnMajor);
  if (s.user)
    s.user->declareOutputs(s.aux, s.reductions);
  s.aux.allocateLocal(d, s.group->device);
  if (!s.reductions.empty()) {
    const std::string &arch = s.options.local.arch;
    s.reductions.allocate(d, s.group->device,
                          arch.empty() ? api::deviceArch(s.group->device) : arch);
    s.reductions.publish(s.aux.published());
  }
  if (s.gradient.sum != plan::GradientSum::None)
    s.aux.allocateVector(d, plan::gradientKey(s.epilog), s.dType,
                         s.group->device, s.gradient.length, s.gradient.mine.offset,
                         s.gradient.mine.size);
  for (CUevent *e : {&s.fork, &s.join})
    check(checkCuda(d.cuEventCreate(e, CU_EVENT_DISABLE_TIMING), "cuEventCreate"), "plan");
  check(checkCuda(d.cuStreamCreate(&s.waiter, CU_STREAM_NON_BLOCKING), "cuStreamCreate"),
        "plan");
  // One event per flag awaited (the waiter's) and per GEMM whose output a push copies.
  auto create = [&](CUevent &e) {
    if (!e)
      check(checkCuda(d.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate"), "plan");
  };
  s.arrivalEvents.assign(p.flags, nullptr);
  s.gemmEvents.assign(p.gemms.size(), nullptr);
  for (const Step &step : p.steps) {
    if (step.kind == Step::Kind::WaitArrived)
      create(s.arrivalEvents[step.flag]);
    if (step.kind == Step::Kind::Push && step.gemm >= 0)
      create(s.gemmEvents[step.gemm]);
  }
}

/// Collective: the buffers peers copy into (each allocation agrees on its own).
static void allocateShared(dist::Matmul::State &s) {
  const Group &g = *s.group;
  const plan::DistPlan &p = s.plan;
  size_t dBytes = dtypeBytes(s.dType);
  if (!p.gatherShape.empty())
    s.gather = SymmetricBuffer::allocate(g, p.gatherShape[0] * p.gatherShape[1] *
                                                s.bytesOf(Buffer::Gather));
  if (!p.gatherBShape.empty())
    s.gatherB = SymmetricBuffer::allocate(g, p.gatherBShape[0] * p.gatherBShape[1] *
                                                 s.bytesOf(Buffer::GatherB));
  if (p.slots > 0)
    s.recv = SymmetricBuffer::allocate(g, p.slots * p.slotElements * dBytes);
  s.flags = SymmetricBuffer::allocate(g, p.flags * sizeof(uint32_t));
  if (p.dSymmetric)
    s.dShared = SymmetricBuffer::allocate(g, p.dLocal[0] * p.dLocal[1] * dBytes);
  s.aux.allocateShared(g);
}

/// The local GEMMs, over views of the buffers.
static void planGemms(dist::Matmul::State &s) {
  mepi::Options local = s.options.local;
  local.resultType = s.dType;
  local.auxLeadingDimension = s.aux.leadingDimension();
  int finals = 0;
  for (size_t i = 0; i < s.plan.gemms.size(); ++i) {
    const plan::Gemm &gemm = s.plan.gemms[i];
    dist::Matmul::State::Operands o = s.operands(gemm);
    local.mirrors = static_cast<int>(gemm.mirrors.size());
    mepi::Matmul mm(o.a, o.b, o.c, s.alpha, o.beta, s.qualifiers, local);
    if (gemm.final && s.user)
      mm.plan(s.reductions.widened(s.user->forBlock(gemm.d, s.dType)),
              s.user->inputsForBlock(gemm.d));
    else
      mm.plan(s.gemmEpilog(i), s.gemmInputs(gemm));
    mm.setResult(s.tensor(gemm.d, s.dType));
    if (gemm.final) {
      s.aux.writeInPlace(mm, gemm.dRows.offset, gemm.dRows.size);
      s.reductions.writeInPlace(mm, finals++);
    }
    if (!gemm.mirrors.empty()) {
      std::vector<Tensor> mirrors;
      for (const plan::View &v : gemm.mirrors)
        mirrors.push_back(s.tensor(v, s.dType));
      mm.setMirrors(mirrors);
    }
    s.gemms.push_back(std::move(mm));
  }
}

/// The facts of plan()'s first exchange, alike for built-in and user epilogs (so that ranks
/// that plan different kinds are told so).
static Agreement epilogWord(int64_t epilog, bool bias, int64_t userFingerprint) {
  Agreement say;
  say.fact("the epilog", epilog,
           [](int64_t v) {
             return v < 0 ? std::string("a user epilog")
                          : std::string(epilogName(Epilog(v)));
           })
      .fact("input bias given", bias)
      .fact("the user epilog", userFingerprint, [](int64_t v) {
        return v ? "one whose text, function or inputs' kinds and dtypes hash to " +
                       std::to_string(v)
                 : std::string("none");
      });
  return say;
}

void dist::Matmul::plan(Epilog epilog, const EpilogInputs &inputs) {
  if (!state)
    fail("plan() after free()");
  State &s = *state;
  s.group->checkLive("plan");
  Agreement say = epilogWord(static_cast<int64_t>(epilog), inputs.bias.has_value(), 0);
  say.attempt([&] {
    checkInputs(inputs, s.plan, epilog, s.dType, "plan");
    // Refused before the old plan is released (the same algorithm is planned again).
    llvm::Expected<plan::GradientPlan> sums =
        plan::planGradient(s.plan, s.request, plan::gradientSumOf(epilog));
    if (!sums)
      throw Error("mepi::dist::Matmul: " + llvm::toString(sums.takeError()),
                  Status::NotSupported);
  });
  s.planAgreed(say, epilog, inputs, std::nullopt);
}

void dist::Matmul::plan(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs) {
  if (!state)
    fail("plan() after free()");
  State &s = *state;
  s.group->checkLive("plan");
  DistUserEpilog user{epilog, inputs};
  Agreement say = epilogWord(-1, false, user.fingerprint());
  say.attempt([&] { user.check(s.plan.dLocal[0], s.plan.dLocal[1]); });
  s.planAgreed(say, Epilog::Default, {}, std::move(user));
}

void dist::Matmul::State::planAgreed(Agreement &say, Epilog builtin,
                                     const EpilogInputs &builtinInputs,
                                     std::optional<DistUserEpilog> userEpilog) {
  const Group &g = *group;
  g.agree(say, "mepi::dist::Matmul::plan");
  // The schedule for this epilog, refused (alike on every rank: the plans are) before the
  // last plan is released.
  plan::Request next = request;
  next.identityEpilog = builtin == Epilog::Default && !builtinInputs.bias && !userEpilog;
  next.alignedFinalRows = writesAux(builtin) || readsAux(builtin) ||
                          (userEpilog && userEpilog->writesBitmask());
  plan::DistPlan nextPlan = makePlan(next);
  llvm::Expected<plan::GradientPlan> sums =
      plan::planGradient(nextPlan, next, plan::gradientSumOf(builtin));
  if (!sums)
    throw Error("mepi::dist::Matmul: " + llvm::toString(sums.takeError()),
                Status::NotSupported);
  release();
  request = next;
  plan = std::move(nextPlan);
  gradient = std::move(*sums);
  epilog = builtin;
  inputs = builtinInputs;
  user = std::move(userEpilog);
  Agreement buffers;
  buffers.attempt([&] { allocateLocal(*this); });
  g.agree(buffers, "mepi::dist::Matmul::plan");
  allocateShared(*this);
  epoch = 0; // the flags are zero again
  tracedEpoch = tracedExecute();
  Agreement gemmsPlanned;
  gemmsPlanned.attempt([&] { planGemms(*this); });
  g.agree(gemmsPlanned, "mepi::dist::Matmul::plan");

  planned = true;
}


Tensor dist::Matmul::execute(CUstream stream) {
  if (!state)
    fail("execute() after free()");
  State &s = *state;
  s.group->checkLive("execute");
  if (!s.planned)
    fail("execute() called before plan()");
  s.group->enter();
  uint32_t epoch = ++s.epoch;
  if (s.gradient.allReduce)
    s.aux.clearVector(s.driver(), stream);
  if (s.tracedEpoch && epoch == s.tracedEpoch)
    s.runTraced(stream, epoch);
  else
    for (const Step &step : s.plan.steps)
      s.run(step, stream, epoch);
  s.reduceGradient(stream);
  s.reductions.combine(*s.group, stream);
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
  // Before plan() the epilog is unknown: the inputs are checked as DEFAULT's (plan() takes
  // its own).
  checkInputs(inputs, s.plan, s.planned ? s.epilog : Epilog::Default, s.dType,
              "resetOperands");
  if (s.planned && (inputs.bias.has_value() != s.inputs.bias.has_value()))
    fail(std::string("resetOperands: the planned epilog ") + epilogName(s.epilog) +
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
dist::Matmul &dist::Matmul::operator=(Matmul &&o) noexcept {
  if (this != &o) {
    if (state) {
      try { // collective, as free() is
        state->release();
      } catch (...) {
      }
    }
    state = std::move(o.state);
  }
  return *this;
}
dist::Matmul::~Matmul() {
  if (!state)
    return;
  try { // a destructor must not throw (release() reports CUDA and NCCL failures)
    // Collective, like free(); but while an exception unwinds this rank alone may be here.
    if (std::uncaught_exceptions() > 0)
      state->abandon();
    else
      state->release();
  } catch (...) {
  }
}

const std::map<std::string, Tensor> &dist::Matmul::auxOutputs() const {
  if (!state)
    fail("auxOutputs() after free()");
  return state->aux.outputs();
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
