// What the C API's source files share beyond Wrap.h's inline helpers.
#include "CAPI/Wrap.h"

using namespace mepi::capi;

mepi::EpilogInputs mepi::capi::inputsOf(const MepiEpilogInputs *inputs) {
  mepi::EpilogInputs result;
  if (inputs) {
    result.bias = tensorOf(inputs->bias, "bias");
    result.reluAux = tensorOf(inputs->reluAux, "relu_aux");
    result.geluAux = tensorOf(inputs->geluAux, "gelu_aux");
    result.auxQuantizationScale =
        tensorOf(inputs->auxQuantizationScale, "aux_quantization_scale");
  }
  return result;
}

void mepi::capi::describe(const mepi::Tensor &t, std::vector<int64_t> &shape,
                          std::vector<int64_t> &strides, MepiTensor *out) {
  shape = t.shape;
  strides = t.strides;
  if (strides.empty()) { // row-major: spelled out, so that readers need no special case
    strides.assign(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;)
      strides[i - 1] = strides[i] * shape[i];
  }
  out->data = t.data;
  out->device = t.device;
  out->dtype = t.dtype == mepi::DType::Float16    ? MEPI_DTYPE_F16
               : t.dtype == mepi::DType::BFloat16 ? MEPI_DTYPE_BF16
               : t.dtype == mepi::DType::UInt8    ? MEPI_DTYPE_U8
               : t.dtype == mepi::DType::Int32    ? MEPI_DTYPE_I32
               : t.dtype == mepi::DType::Int64    ? MEPI_DTYPE_I64
               : t.dtype == mepi::DType::Float8E4M3FN ? MEPI_DTYPE_F8E4M3FN
               : t.dtype == mepi::DType::Float8E5M2   ? MEPI_DTYPE_F8E5M2
                                                  : MEPI_DTYPE_F32;
  out->rank = static_cast<int>(shape.size());
  out->shape = shape.data();
  out->strides = strides.data();
}

mepi::Options mepi::capi::optionsOf(const MepiMatmulOptions *options) {
  mepi::Options cppOptions;
  if (options) {
    cppOptions.resultAmax = options->resultAmax;
    if (options->kernelConfig.data)
      cppOptions.kernelConfig.assign(options->kernelConfig.data, options->kernelConfig.length);
    cppOptions.allowTF32 = options->allowTF32;
    if (options->hasResultType)
      cppOptions.resultType = dtypeOf(options->resultType);
    if (options->arch.data)
      cppOptions.arch.assign(options->arch.data, options->arch.length);
    cppOptions.fastAccumulation = options->fastAccumulation;
    cppOptions.quantizationScales.a = tensorOf(options->aScale, "quantization scale a");
    cppOptions.quantizationScales.b = tensorOf(options->bScale, "quantization scale b");
    cppOptions.quantizationScales.d = tensorOf(options->dScale, "quantization scale d");
    cppOptions.blockScaling = options->blockScaling;
    if (options->hasAuxType)
      cppOptions.auxType = dtypeOf(options->auxType);
    cppOptions.auxAmax = options->auxAmax;
    cppOptions.quantizationScales.c = tensorOf(options->cScale, "quantization scale c");
  }
  return cppOptions;
}

mepi::Epilog mepi::capi::epilogOf(MepiEpilog epilog) {
  switch (rawValue(epilog)) {
  case MEPI_EPILOG_DEFAULT: return mepi::Epilog::Default;
  case MEPI_EPILOG_BIAS: return mepi::Epilog::Bias;
  case MEPI_EPILOG_RELU: return mepi::Epilog::Relu;
  case MEPI_EPILOG_RELU_BIAS: return mepi::Epilog::ReluBias;
  case MEPI_EPILOG_GELU: return mepi::Epilog::Gelu;
  case MEPI_EPILOG_GELU_BIAS: return mepi::Epilog::GeluBias;
  case MEPI_EPILOG_SIGMOID: return mepi::Epilog::Sigmoid;
  case MEPI_EPILOG_TANH: return mepi::Epilog::Tanh;
  case MEPI_EPILOG_SILU: return mepi::Epilog::Silu;
  case MEPI_EPILOG_RELU_AUX: return mepi::Epilog::ReluAux;
  case MEPI_EPILOG_RELU_AUX_BIAS: return mepi::Epilog::ReluAuxBias;
  case MEPI_EPILOG_DRELU: return mepi::Epilog::DRelu;
  case MEPI_EPILOG_DRELU_BGRAD: return mepi::Epilog::DReluBGrad;
  case MEPI_EPILOG_GELU_AUX: return mepi::Epilog::GeluAux;
  case MEPI_EPILOG_GELU_AUX_BIAS: return mepi::Epilog::GeluAuxBias;
  case MEPI_EPILOG_DGELU: return mepi::Epilog::DGelu;
  case MEPI_EPILOG_DGELU_BGRAD: return mepi::Epilog::DGeluBGrad;
  case MEPI_EPILOG_BGRADA: return mepi::Epilog::BGradA;
  case MEPI_EPILOG_BGRADB: return mepi::Epilog::BGradB;
  }
  throw mepi::Error("unknown epilog " + std::to_string(rawValue(epilog)));
}

std::pair<mepi::UserEpilog, std::vector<mepi::UserEpilogInput>>
mepi::capi::userEpilogOf(MepiStringRef mlir, MepiStringRef function, const MepiTensor *inputs,
           const MepiInputKind *kinds, int numInputs, const MepiDeviceCode *code, int numCode,
           const MepiUserEpilogOutput *outputs, int numOutputs, const void *userData) {
  if (numInputs < 0 || numCode < 0 || numOutputs < 0 || (numInputs && (!inputs || !kinds)) ||
      (numCode && !code) || (numOutputs && !outputs))
    throw mepi::Error("user epilog: expected arrays of numInputs inputs and kinds, numCode "
                      "device codes and numOutputs outputs, got NULL or a negative count");
  mepi::UserEpilog epilog{std::string(mlir.data, mlir.length),
                          std::string(function.data, function.length), {}};
  epilog.userData = userData;
  for (int i = 0; i < numCode; ++i) {
    mepi::DeviceCode dc;
    int kind = rawValue(code[i].kind);
    if (kind < MEPI_DEVICE_CODE_PTX || kind > MEPI_DEVICE_CODE_FATBIN)
      throw mepi::Error("user epilog: device code " + std::to_string(i) + ": unknown kind " +
                        std::to_string(kind));
    dc.kind = static_cast<mepi::DeviceCode::Kind>(kind);
    dc.name.assign(code[i].name.data, code[i].name.length);
    const char *bytes = static_cast<const char *>(code[i].data);
    dc.bytes.assign(bytes, bytes + code[i].size);
    epilog.deviceCode.push_back(std::move(dc));
  }
  for (int i = 0; i < numOutputs; ++i) {
    int kind = rawValue(outputs[i].kind);
    if (kind < MEPI_OUTPUT_MATRIX || kind > MEPI_OUTPUT_SCALAR_REDUCTION)
      throw mepi::Error("user epilog: output " + std::to_string(i) + ": unknown kind " +
                        std::to_string(kind));
    epilog.outputs.push_back(
        {std::string(outputs[i].key.data, outputs[i].key.length),
         static_cast<mepi::UserEpilogOutput::Kind>(kind), dtypeOf(outputs[i].dtype),
         rawValue(outputs[i].combiner) == MEPI_COMBINE_MAX ? mepi::UserEpilogOutput::Combiner::Max
                                                 : mepi::UserEpilogOutput::Combiner::Add});
  }
  std::vector<mepi::UserEpilogInput> userInputs;
  for (int i = 0; i < numInputs; ++i) {
    int kind = rawValue(kinds[i]);
    if (kind < MEPI_INPUT_ROW || kind > MEPI_INPUT_MATRIX)
      throw mepi::Error("user epilog: input " + std::to_string(i) + ": unknown kind " +
                        std::to_string(kind));
    std::string name = "epilog input " + std::to_string(i);
    userInputs.push_back({*tensorOf(&inputs[i], name.c_str()),
                          static_cast<mepi::InputKind>(kind)});
  }
  return {epilog, userInputs};
}
