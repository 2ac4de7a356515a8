// nvmath-python's names of the built-in epilogs (the C++ API's Epilog), both ways.
#include "mepi/Matmul.h"

const char *mepi::epilogName(Epilog epilog) {
  switch (epilog) {
  case Epilog::Default: return "DEFAULT";
  case Epilog::Relu: return "RELU";
  case Epilog::ReluAux: return "RELU_AUX";
  case Epilog::Bias: return "BIAS";
  case Epilog::ReluBias: return "RELU_BIAS";
  case Epilog::ReluAuxBias: return "RELU_AUX_BIAS";
  case Epilog::DRelu: return "DRELU";
  case Epilog::DReluBGrad: return "DRELU_BGRAD";
  case Epilog::Gelu: return "GELU";
  case Epilog::GeluAux: return "GELU_AUX";
  case Epilog::GeluBias: return "GELU_BIAS";
  case Epilog::GeluAuxBias: return "GELU_AUX_BIAS";
  case Epilog::DGelu: return "DGELU";
  case Epilog::DGeluBGrad: return "DGELU_BGRAD";
  case Epilog::Sigmoid: return "SIGMOID";
  case Epilog::Tanh: return "TANH";
  case Epilog::Silu: return "SILU";
  case Epilog::BGradA: return "BGRADA";
  case Epilog::BGradB: return "BGRADB";
  }
  return "?";
}

std::optional<mepi::Epilog> mepi::epilogNamed(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(Epilog::BGradB); ++i) // BGradB: the enum's last
    if (name == epilogName(static_cast<Epilog>(i)))
      return static_cast<Epilog>(i);
  return std::nullopt;
}
