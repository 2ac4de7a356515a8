// The pass mepi-dist-schedule: each mepi.dist.matmul becomes one rank's mepi.dist.schedule,
// planned as the runtime plans it (DistPlan).
#include "Distributed/DistSchedule.h"
#include "Distributed/DistPlan.h"

#include "mepi/IR/MepiDistOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::mepi;
namespace plan = ::mepi::dist::plan;
using ::mepi::dist::Distribution;

namespace {
Distribution distributionNamed(StringRef name) {
  if (auto bc = parseBlockCyclic(name))
    return Distribution::blockCyclic({static_cast<int>((*bc)[0]), static_cast<int>((*bc)[1])},
                                     (*bc)[2], (*bc)[3]);
  return llvm::StringSwitch<Distribution>(name)
      .Case("slab_x", Distribution::slabX())
      .Case("slab_y", Distribution::slabY())
      .Default(Distribution::replicated());
}

/// Every rank's stored shape of a global [rows, cols] matrix.
std::vector<std::vector<int64_t>> perRank(const Distribution &d, int ranks, int64_t rows,
                                          int64_t cols) {
  std::vector<std::vector<int64_t>> out;
  for (int r = 0; r < ranks; ++r)
    out.push_back(d.shape(r, ranks, {rows, cols}));
  return out;
}

const char *kindName(plan::Step::Kind kind) {
  using K = plan::Step::Kind;
  switch (kind) {
  case K::Ready: return "ready";
  case K::Fork: return "fork";
  case K::WaitReady: return "wait_ready";
  case K::Push: return "push";
  case K::WaitArrived: return "wait";
  case K::Gemm: return "gemm";
  case K::Join: return "join";
  case K::NcclReduce: return "nccl_reduce";
  case K::NcclAllReduce: return "nccl_all_reduce";
  case K::NcclAllGather: return "nccl_all_gather";
  case K::ComputeWaitReady: return "wait_ready";
  case K::Signal: return "signal";
  case K::LocalCopy: return "copy_local";
  }
  return "?";
}

/// The step as an op in the schedule's body.
void addStep(OpBuilder &b, Location loc, const plan::DistPlan &p, const plan::Step &s) {
  using K = plan::Step::Kind;
  bool copy =
      s.kind == K::Fork || s.kind == K::Ready || s.kind == K::WaitReady || s.kind == K::Push;
  auto step = DistStepOp::create(b, loc, b.getStringAttr(kindName(s.kind)),
                                   b.getStringAttr(copy ? "copy" : "compute"), IntegerAttr(),
                                   IntegerAttr(), IntegerAttr(), StringAttr(), StringAttr(),
                                   StringAttr(), StringAttr(), StringAttr(), StringAttr(),
                                   StringAttr(), UnitAttr());
  if (s.peer >= 0)
    step.setPeerAttr(b.getI64IntegerAttr(s.peer));
  if (s.flag >= 0)
    step.setFlagAttr(b.getI64IntegerAttr(s.flag));
  if (s.gemm >= 0)
    step.setGemmAttr(b.getI64IntegerAttr(s.gemm));
  if (s.kind == K::Push || s.kind == K::LocalCopy || s.kind == K::NcclReduce || s.kind == K::NcclAllReduce ||
      s.kind == K::NcclAllGather) {
    step.setFromAttr(b.getStringAttr(s.from.str()));
    step.setToAttr(b.getStringAttr(s.to.str()));
  }
  if (s.kind == K::Gemm) {
    const plan::Gemm &g = p.gemms[s.gemm];
    step.setAAttr(b.getStringAttr(g.a.str()));
    step.setBAttr(b.getStringAttr(g.b.str()));
    step.setDAttr(b.getStringAttr(g.d.str()));
    if (g.c)
      step.setCAttr(b.getStringAttr(g.c->str()));
    if (!g.mirrors.empty())
      step.setMirrorsAttr(b.getStringAttr(plan::mirrorsStr(g)));
    if (g.final)
      step.setEpilogAttr(b.getUnitAttr());
  }
}

struct DistSchedulePass : PassWrapper<DistSchedulePass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DistSchedulePass)
  DistSchedulePass() = default;
  DistSchedulePass(const DistSchedulePass &other) : PassWrapper(other) {}
  StringRef getArgument() const override { return "mepi-dist-schedule"; }
  StringRef getDescription() const override {
    return "Lower each mepi.dist.matmul to one rank's host schedule (mepi.dist.schedule)";
  }
  Option<int> rank{*this, "rank", llvm::cl::desc("the rank whose schedule to build"),
                   llvm::cl::init(0)};

  void runOnOperation() override {
    getOperation()->walk([&](DistMatmulOp op) {
      if (failed(lower(op)))
        signalPassFailure();
    });
  }

  LogicalResult lower(DistMatmulOp op) {
    ArrayRef<int64_t> shape = op.getShape();
    int64_t m = shape[0], n = shape[1], k = shape[2];
    plan::Request q;
    q.ranks = op.getRanks();
    q.rank = rank;
    if (rank < 0 || rank >= q.ranks)
      return op.emitError("mepi-dist-schedule: rank ") << rank << " of " << q.ranks;
    q.distributions = {distributionNamed(op.getADistribution()),
                       distributionNamed(op.getBDistribution()),
                       distributionNamed(op.getDDistribution())};
    q.transposeA = op.getTransposeA();
    q.transposeB = op.getTransposeB();
    q.aShapes = q.transposeA ? perRank(q.distributions[0], q.ranks, k, m)
                             : perRank(q.distributions[0], q.ranks, m, k);
    q.bShapes = q.transposeB ? perRank(q.distributions[1], q.ranks, n, k)
                             : perRank(q.distributions[1], q.ranks, k, n);
    q.identityEpilog = op.getEpilog() == "DEFAULT";
    q.dElementBytes = llvm::divideCeil(op.getElementType().getIntOrFloatBitWidth(), 8);
    llvm::Expected<plan::DistPlan> p = plan::makePlan(q);
    if (!p)
      return op.emitError(llvm::toString(p.takeError()));
    OpBuilder b(op);
    auto schedule = DistScheduleOp::create(
        b, op.getLoc(), b.getStringAttr(::mepi::dist::algorithmName(p->algorithm)),
        b.getI64IntegerAttr(rank), b.getI64IntegerAttr(q.ranks),
        b.getI64IntegerAttr(p->pieces), b.getDenseI64ArrayAttr(shape));
    b.setInsertionPointToStart(&schedule.getBody().emplaceBlock());
    for (const plan::Step &s : p->steps)
      addStep(b, op.getLoc(), *p, s);
    op.erase();
    return success();
  }
};
} // namespace

void ::mepi::dist::registerDistPasses() { PassRegistration<DistSchedulePass>(); }
