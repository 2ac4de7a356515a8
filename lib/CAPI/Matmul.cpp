// The C API over mepi::Matmul: handles, error objects, no exception crosses the boundary.
#include "CAPI/Wrap.h"

#include "mepi/Log.h"
#include "mepi/Matmul.h"

#include <iterator>
#include <map>
#include <string>

using namespace mepi::capi;

extern "C" {

unsigned mepiGetApiVersion(void) { return MEPI_C_API_VERSION; }

MepiStringRef mepiErrorGetMessage(MepiError error) {
  if (!error.ptr)
    return {"", 0};
  auto *e = static_cast<CError *>(error.ptr);
  return {e->message.data(), e->message.size()};
}

MepiStatus mepiErrorGetStatus(MepiError error) {
  return error.ptr ? static_cast<CError *>(error.ptr)->status : MEPI_STATUS_SUCCESS;
}

void mepiErrorDestroy(MepiError error) { delete static_cast<CError *>(error.ptr); }

void mepiSetLogCallback(MepiLogCallback callback, void *userData) {
  // No exception crosses the C API (out of memory here keeps the previous sink).
  guardedCall(nullptr, [&] {
    if (!callback) {
      mepi::setLogSink(nullptr);
      return;
    }
    mepi::setLogSink([callback, userData](mepi::LogLevel level, const std::string &message) {
      callback(static_cast<int>(level), {message.data(), message.size()}, userData);
    });
  });
}

MepiMatmul mepiMatmulCreateWithOptions(const MepiTensor *a, const MepiTensor *b,
                                       const MepiTensor *c, float alpha, const float *beta,
                                       bool transposeA, bool transposeB,
                                       const MepiMatmulOptions *options, MepiError *error) {
  CMatmul *handle = nullptr;
  guardedCall(error, [&] {
    expectOperands(a, b, "a", "b");
    std::optional<float> betaValue;
    if (beta)
      betaValue = *beta;
    handle = new CMatmul{mepi::Matmul(*tensorOf(a, "a"), *tensorOf(b, "b"), tensorOf(c, "c"),
                                      alpha, betaValue, {transposeA, transposeB},
                                      optionsOf(options)),
                         {}, {}};
  });
  return {handle};
}

MepiMatmul mepiMatmulCreate(const MepiTensor *a, const MepiTensor *b, const MepiTensor *c,
                            float alpha, const float *beta, bool transposeA, bool transposeB,
                            MepiError *error) {
  return mepiMatmulCreateWithOptions(a, b, c, alpha, beta, transposeA, transposeB, nullptr,
                                     error);
}

MepiLogicalResult mepiMatmulPlan(MepiMatmul matmul, MepiEpilog epilog, const MepiTensor *bias,
                                 MepiError *error) {
  return guarded(matmul, error, [&](CMatmul &m) {
    m.matmul.plan(epilogOf(epilog), {tensorOf(bias, "bias")});
  });
}

MepiLogicalResult mepiMatmulPlanWithInputs(MepiMatmul matmul, MepiEpilog epilog,
                                           const MepiEpilogInputs *inputs, MepiError *error) {
  return guarded(matmul, error,
                 [&](CMatmul &m) { m.matmul.plan(epilogOf(epilog), inputsOf(inputs)); });
}

MepiLogicalResult mepiMatmulPlanUserEpilog(MepiMatmul matmul, MepiStringRef mlir,
                                           MepiStringRef function, const MepiTensor *inputs,
                                           const MepiInputKind *kinds, int numInputs,
                                           const MepiDeviceCode *code, int numCode,
                                           MepiError *error) {
  return mepiMatmulPlanUserEpilogWithOutputs(matmul, mlir, function, inputs, kinds, numInputs,
                                             code, numCode, nullptr, 0, nullptr, error);
}

MepiLogicalResult mepiMatmulPlanUserEpilogWithOutputs(
    MepiMatmul matmul, MepiStringRef mlir, MepiStringRef function, const MepiTensor *inputs,
    const MepiInputKind *kinds, int numInputs, const MepiDeviceCode *code, int numCode,
    const MepiUserEpilogOutput *outputs, int numOutputs, const void *userData,
    MepiError *error) {
  return guarded(matmul, error, [&](CMatmul &m) {
    auto [epilog, userInputs] = userEpilogOf(mlir, function, inputs, kinds, numInputs, code,
                                             numCode, outputs, numOutputs, userData);
    m.matmul.plan(epilog, userInputs);
  });
}

MepiLogicalResult mepiMatmulExecute(MepiMatmul matmul, MepiStream stream, MepiTensor *result,
                                    MepiError *error) {
  return guarded(matmul, error, [&](CMatmul &m) {
    mepi::Tensor d = m.matmul.execute(stream);
    if (result)
      describe(m, d, result);
  });
}

int mepiMatmulGetNumAuxOutputs(MepiMatmul matmul) {
  // No exception crosses the C API: before plan() (where auxOutputs() throws) there are none.
  try {
    return matmul.ptr ? static_cast<int>(unwrap(matmul)->matmul.auxOutputs().size()) : 0;
  } catch (const std::exception &) {
    return 0;
  }
}

MepiLogicalResult mepiMatmulGetKernelConfiguration(MepiMatmul matmul, MepiStringRef *config,
                                                   MepiError *error) {
  return guarded(matmul, error, [&](CMatmul &m) {
    m.text = m.matmul.kernelConfiguration();
    if (config)
      *config = {m.text.data(), m.text.size()};
  });
}

MepiLogicalResult mepiMatmulAutotune(MepiMatmul matmul, int iterations, int prune,
                                     MepiStream stream, MepiError *error) {
  return guarded(matmul, error, [&](CMatmul &m) {
    m.matmul.autotune(iterations, prune, reinterpret_cast<CUstream>(stream));
  });
}

MepiLogicalResult mepiMatmulGetAuxOutput(MepiMatmul matmul, int index, MepiStringRef *key,
                                         MepiTensor *tensor, MepiError *error) {
  return guarded(matmul, error, [&](CMatmul &m) {
    auto it = auxOutputAt(m.matmul.auxOutputs(), index);
    if (key)
      *key = {it->first.data(), it->first.size()};
    if (tensor)
      describe(m, it->second, tensor);
  });
}

MepiLogicalResult mepiMatmulResetOperandsWithInputs(MepiMatmul matmul, const MepiTensor *a,
                                                    const MepiTensor *b, const MepiTensor *c,
                                                    const MepiEpilogInputs *inputs,
                                                    MepiError *error) {
  return guarded(matmul, error, [&](CMatmul &m) {
    expectOperands(a, b, "a", "b", "resetOperands: ");
    m.matmul.resetOperands(*tensorOf(a, "a"), *tensorOf(b, "b"), tensorOf(c, "c"),
                           inputsOf(inputs));
  });
}

MepiLogicalResult mepiMatmulResetOperands(MepiMatmul matmul, const MepiTensor *a,
                                          const MepiTensor *b, const MepiTensor *c,
                                          const MepiTensor *bias, MepiError *error) {
  MepiEpilogInputs inputs = {bias, nullptr, nullptr};
  return mepiMatmulResetOperandsWithInputs(matmul, a, b, c, &inputs, error);
}

void mepiMatmulReleaseOperands(MepiMatmul matmul) {
  if (matmul.ptr)
    unwrap(matmul)->matmul.releaseOperands(); // cannot throw
}

void mepiMatmulDestroy(MepiMatmul matmul) { delete unwrap(matmul); }

} // extern "C"
