// The C API's distributed matmuls (mepi-c/Distributed.h) over mepi::dist.
#include "mepi-c/Distributed.h"

#include "CAPI/Wrap.h"
#include "Distributed/Group.h"

#include "mepi/Distributed.h"

#include <cstring>

using namespace mepi::capi;

namespace {
struct CDistMatmul {
  mepi::dist::Matmul matmul;
  std::vector<int64_t> resultShape, resultStrides;
  std::vector<int64_t> auxShape, auxStrides;
  std::string text;
};

mepi::dist::Distribution distributionOf(const MepiDistribution &d) {
  switch (rawValue(d.kind)) {
  case MEPI_DIST_SLAB_X: return mepi::dist::Distribution::slabX();
  case MEPI_DIST_SLAB_Y: return mepi::dist::Distribution::slabY();
  case MEPI_DIST_REPLICATED: return mepi::dist::Distribution::replicated();
  case MEPI_DIST_BLOCK_CYCLIC:
    if (d.gridRows < 1 || d.gridCols < 1 || d.blockRows < 1 || d.blockCols < 1)
      throw mepi::Error("distribution: BLOCK_CYCLIC needs a grid and block sizes >= 1");
    return mepi::dist::Distribution::blockCyclic({d.gridRows, d.gridCols}, d.blockRows,
                                                 d.blockCols);
  }
  throw mepi::Error("distribution: unknown kind " + std::to_string(rawValue(d.kind)));
}

template <typename F> MepiLogicalResult guardedDist(MepiDistMatmul m, MepiError *error, F &&f) {
  return guardedCall(error, [&] {
    if (!m.ptr)
      throw mepi::Error("null MepiDistMatmul handle");
    f(*static_cast<CDistMatmul *>(m.ptr));
  });
}
} // namespace

MepiLogicalResult mepiDistMakeUniqueId(MepiDistUniqueId *id, MepiError *error) {
  return guardedCall(error, [&] {
    if (!id)
      throw mepi::Error("mepiDistMakeUniqueId: id is NULL");
    mepi::dist::UniqueId made = mepi::dist::makeUniqueId();
    std::memcpy(id->bytes, made.data(), made.size());
  });
}

MepiLogicalResult mepiDistInitialize(int device, int rank, int ranks, const MepiDistUniqueId *id,
                                     MepiError *error) {
  return guardedCall(error, [&] {
    if (!id)
      throw mepi::Error("mepiDistInitialize: id is NULL");
    mepi::dist::UniqueId given;
    std::memcpy(given.data(), id->bytes, given.size());
    mepi::dist::initialize(device, rank, ranks, given);
  });
}

void mepiDistFinalize(void) {
  try {
    mepi::dist::finalize();
  } catch (...) {
  }
}

MepiLogicalResult mepiDistLocalShape(const MepiDistribution *dist, int rank, int ranks,
                                     int64_t rows, int64_t cols, int64_t *localRows,
                                     int64_t *localCols, MepiError *error) {
  return guardedCall(error, [&] {
    if (!dist || !localRows || !localCols)
      throw mepi::Error("mepiDistLocalShape: NULL argument");
    if (ranks < 1 || rank < 0 || rank >= ranks)
      throw mepi::Error("mepiDistLocalShape: expected 0 <= rank < ranks, got rank " +
                        std::to_string(rank) + " of " + std::to_string(ranks));
    auto shape = distributionOf(*dist).shape(rank, ranks, {rows, cols});
    *localRows = shape[0];
    *localCols = shape[1];
  });
}

MepiDistMatmul mepiDistMatmulCreate(const MepiTensor *a, const MepiTensor *b, const MepiTensor *c,
                                    const MepiDistribution *distributions, float alpha,
                                    const float *beta, bool transposeA, bool transposeB,
                                    const MepiMatmulOptions *options, int pieces,
                                    MepiError *error) {
  CDistMatmul *made = nullptr;
  guardedCall(error, [&] {
    if (!a || !b)
      throw mepi::Error(std::string("operand ") + (a ? "b" : "a") + ": NULL");
    if (!distributions)
      throw mepi::Error("distributions: NULL (expected 3: A, B, D)");
    // What this rank cannot convert is refused in the constructor's first exchange, so that
    // the other ranks do not wait for it there.
    std::vector<mepi::dist::Distribution> dists;
    mepi::dist::Options opts;
    std::optional<mepi::Tensor> ta, tb, tc;
    try {
      for (int i = 0; i < 3; ++i)
        dists.push_back(distributionOf(distributions[i]));
      opts.local = optionsOf(options);
      opts.pieces = pieces;
      ta = tensorOf(a, "a");
      tb = tensorOf(b, "b");
      tc = tensorOf(c, "c");
    } catch (...) {
      mepi::dist::detail::refuseCollectively(std::current_exception(), "mepi::dist::Matmul");
    }
    made = new CDistMatmul{
        mepi::dist::Matmul(*ta, *tb, tc, dists, alpha,
                           beta ? std::optional<float>(*beta) : std::nullopt,
                           {transposeA, transposeB}, opts),
        {}, {}, {}};
  });
  return {made};
}

MepiLogicalResult mepiDistMatmulPlan(MepiDistMatmul matmul, MepiEpilog epilog,
                                     const MepiEpilogInputs *inputs, MepiError *error) {
  return guardedDist(matmul, error, [&](CDistMatmul &m) {
    mepi::Epilog e;
    mepi::EpilogInputs in;
    try { // refused in plan()'s first exchange (see mepiDistMatmulCreate)
      e = epilogOf(epilog);
      in = inputsOf(inputs);
    } catch (...) {
      mepi::dist::detail::refuseCollectively(std::current_exception(),
                                              "mepi::dist::Matmul::plan");
    }
    m.matmul.plan(e, in);
  });
}

MepiLogicalResult mepiDistMatmulPlanUserEpilog(MepiDistMatmul matmul, MepiStringRef mlir,
                                               MepiStringRef function, const MepiTensor *inputs,
                                               const MepiInputKind *kinds, int numInputs,
                                               const MepiDeviceCode *code, int numCode,
                                               const void *userData, MepiError *error) {
  return mepiDistMatmulPlanUserEpilogWithOutputs(matmul, mlir, function, inputs, kinds,
                                                 numInputs, code, numCode, nullptr, 0, userData,
                                                 error);
}

MepiLogicalResult mepiDistMatmulPlanUserEpilogWithOutputs(
    MepiDistMatmul matmul, MepiStringRef mlir, MepiStringRef function, const MepiTensor *inputs,
    const MepiInputKind *kinds, int numInputs, const MepiDeviceCode *code, int numCode,
    const MepiUserEpilogOutput *outputs, int numOutputs, const void *userData,
    MepiError *error) {
  return guardedDist(matmul, error, [&](CDistMatmul &m) {
    std::pair<mepi::UserEpilog, std::vector<mepi::UserEpilogInput>> user;
    try { // refused in plan()'s first exchange (see mepiDistMatmulCreate)
      user = userEpilogOf(mlir, function, inputs, kinds, numInputs, code, numCode, outputs,
                          numOutputs, userData);
    } catch (...) {
      mepi::dist::detail::refuseCollectively(std::current_exception(),
                                              "mepi::dist::Matmul::plan");
    }
    m.matmul.plan(user.first, user.second);
  });
}

MepiLogicalResult mepiDistMatmulExecute(MepiDistMatmul matmul, MepiStream stream,
                                        MepiTensor *result, MepiError *error) {
  return guardedDist(matmul, error, [&](CDistMatmul &m) {
    mepi::Tensor d = m.matmul.execute(stream);
    if (result)
      describe(d, m.resultShape, m.resultStrides, result);
  });
}

int mepiDistMatmulGetNumAuxOutputs(MepiDistMatmul matmul) {
  try { // no exception crosses the C API: after free() there are none
    auto *m = static_cast<CDistMatmul *>(matmul.ptr);
    return m ? static_cast<int>(m->matmul.auxOutputs().size()) : 0;
  } catch (const std::exception &) {
    return 0;
  }
}

MepiLogicalResult mepiDistMatmulGetAuxOutput(MepiDistMatmul matmul, int index, MepiStringRef *key,
                                             MepiTensor *tensor, MepiError *error) {
  return guardedDist(matmul, error, [&](CDistMatmul &m) {
    auto it = auxOutputAt(m.matmul.auxOutputs(), index);
    if (key)
      *key = {it->first.data(), it->first.size()};
    if (tensor)
      describe(it->second, m.auxShape, m.auxStrides, tensor);
  });
}

MepiLogicalResult mepiDistMatmulGetAlgorithm(MepiDistMatmul matmul, MepiDistAlgorithm *algorithm,
                                             MepiError *error) {
  return guardedDist(matmul, error, [&](CDistMatmul &m) {
    if (!algorithm)
      throw mepi::Error("mepiDistMatmulGetAlgorithm: algorithm is NULL");
    *algorithm = static_cast<MepiDistAlgorithm>(m.matmul.algorithm());
  });
}

MepiLogicalResult mepiDistMatmulGetSchedule(MepiDistMatmul matmul, MepiStringRef *schedule,
                                            MepiError *error) {
  return guardedDist(matmul, error, [&](CDistMatmul &m) {
    if (!schedule)
      throw mepi::Error("mepiDistMatmulGetSchedule: schedule is NULL");
    m.text = m.matmul.schedule();
    *schedule = {m.text.data(), m.text.size()};
  });
}

void mepiDistMatmulDestroy(MepiDistMatmul matmul) {
  try {
    delete static_cast<CDistMatmul *>(matmul.ptr);
  } catch (...) {
  }
}
