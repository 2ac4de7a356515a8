// The C API over mepi::EpilogBuilder: values are indices into a table of the builder's
// EpilogValues; the first error is kept in the builder and reported by plan.
#include "mepi-c/EpilogBuilder.h"

#include "CAPI/Wrap.h"
#include "mepi/EpilogBuilder.h"

#include <new>

using namespace mepi::capi;

namespace {
struct CBuilder {
  mepi::EpilogBuilder builder;
  std::vector<mepi::EpilogValue> values;
  std::string firstError;
};

CBuilder *unwrap(MepiEpilogBuilder b) { return static_cast<CBuilder *>(b.ptr); }

/// Runs `f` on the builder's values, recording a thrown error; `f` returns the new value.
template <typename F> MepiEpilogValue node(MepiEpilogBuilder handle,
                                           std::initializer_list<MepiEpilogValue> operands,
                                           F &&f) {
  CBuilder *b = unwrap(handle);
  if (!b)
    return MEPI_EPILOG_VALUE_INVALID;
  for (MepiEpilogValue v : operands)
    if (v < 0 || size_t(v) >= b->values.size()) {
      if (b->firstError.empty())
        b->firstError = "epilog builder: operand " + std::to_string(v) + " is not a value of "
                        "this builder (an earlier node failed?)";
      return MEPI_EPILOG_VALUE_INVALID;
    }
  try {
    b->values.push_back(f(*b));
    return static_cast<MepiEpilogValue>(b->values.size() - 1);
  } catch (const std::exception &e) {
    if (b->firstError.empty())
      b->firstError = e.what();
    return MEPI_EPILOG_VALUE_INVALID;
  }
}

/// An output node: true on success.
template <typename F> bool output(MepiEpilogBuilder handle, MepiEpilogValue x, F &&f) {
  return node(handle, {x}, [&](CBuilder &b) {
           f(b);
           return b.values[x];
         }) != MEPI_EPILOG_VALUE_INVALID;
}

std::string str(MepiStringRef s) { return std::string(s.data, s.length); }
} // namespace

extern "C" {

MepiEpilogBuilder mepiEpilogBuilderCreate(void) {
  // No exception crosses the C API: out of memory gives a null handle.
  return {new (std::nothrow) CBuilder()};
}

void mepiEpilogBuilderDestroy(MepiEpilogBuilder builder) { delete unwrap(builder); }

MepiError mepiEpilogBuilderGetError(MepiEpilogBuilder builder) {
  MepiError error{nullptr};
  if (CBuilder *b = unwrap(builder); b && !b->firstError.empty())
    guardedCall(&error, [&] { throw mepi::Error(b->firstError); });
  return error;
}

void mepiEpilogBuilderSetFastMath(MepiEpilogBuilder builder, bool enabled) {
  if (CBuilder *b = unwrap(builder))
    b->builder.setFastMath(enabled);
}

MepiEpilogValue mepiEpilogBuilderAccumulator(MepiEpilogBuilder builder) {
  return node(builder, {}, [](CBuilder &b) { return b.builder.accumulator(); });
}
MepiEpilogValue mepiEpilogBuilderC(MepiEpilogBuilder builder) {
  return node(builder, {}, [](CBuilder &b) { return b.builder.c(); });
}
MepiEpilogValue mepiEpilogBuilderRow(MepiEpilogBuilder builder) {
  return node(builder, {}, [](CBuilder &b) { return b.builder.row(); });
}
MepiEpilogValue mepiEpilogBuilderCol(MepiEpilogBuilder builder) {
  return node(builder, {}, [](CBuilder &b) { return b.builder.col(); });
}
MepiEpilogValue mepiEpilogBuilderInput(MepiEpilogBuilder builder, MepiStringRef name,
                                       MepiInputKind kind) {
  return node(builder, {}, [&](CBuilder &b) {
    int k = rawValue(kind);
    if (k < MEPI_INPUT_ROW || k > MEPI_INPUT_MATRIX)
      throw mepi::Error("epilog builder: input '" + str(name) + "': unknown kind " +
                        std::to_string(k));
    return b.builder.input(str(name), static_cast<mepi::InputKind>(k));
  });
}
MepiEpilogValue mepiEpilogBuilderConstant(MepiEpilogBuilder builder, double value) {
  return node(builder, {}, [&](CBuilder &b) { return b.builder.constant(value); });
}
MepiEpilogValue mepiEpilogBuilderIndexConstant(MepiEpilogBuilder builder, int64_t value) {
  return node(builder, {}, [&](CBuilder &b) { return b.builder.indexConstant(value); });
}
MepiEpilogValue mepiEpilogBuilderUnary(MepiEpilogBuilder builder, MepiUnaryOp op,
                                       MepiEpilogValue x) {
  return node(builder, {x}, [&](CBuilder &b) {
    int o = rawValue(op);
    if (o < MEPI_UNARY_NEG || o > MEPI_UNARY_ROUND)
      throw mepi::Error("epilog builder: unknown unary op " + std::to_string(o));
    return b.builder.unary(static_cast<mepi::UnaryOp>(o), b.values[x]);
  });
}
MepiEpilogValue mepiEpilogBuilderBinary(MepiEpilogBuilder builder, MepiBinaryOp op,
                                        MepiEpilogValue x, MepiEpilogValue y) {
  return node(builder, {x, y}, [&](CBuilder &b) {
    int o = rawValue(op);
    if (o < MEPI_BINARY_ADD || o > MEPI_BINARY_OR)
      throw mepi::Error("epilog builder: unknown binary op " + std::to_string(o));
    return b.builder.binary(static_cast<mepi::BinaryOp>(o), b.values[x], b.values[y]);
  });
}
MepiEpilogValue mepiEpilogBuilderFma(MepiEpilogBuilder builder, MepiEpilogValue x,
                                     MepiEpilogValue y, MepiEpilogValue z) {
  return node(builder, {x, y, z}, [&](CBuilder &b) {
    return b.builder.fma(b.values[x], b.values[y], b.values[z]);
  });
}
MepiEpilogValue mepiEpilogBuilderCompare(MepiEpilogBuilder builder, MepiPredicate predicate,
                                         MepiEpilogValue x, MepiEpilogValue y) {
  return node(builder, {x, y}, [&](CBuilder &b) {
    int p = rawValue(predicate);
    if (p < MEPI_PREDICATE_LT || p > MEPI_PREDICATE_NE)
      throw mepi::Error("epilog builder: unknown predicate " + std::to_string(p));
    return b.builder.compare(static_cast<mepi::Predicate>(p), b.values[x],
                             b.values[y]);
  });
}
MepiEpilogValue mepiEpilogBuilderSelect(MepiEpilogBuilder builder, MepiEpilogValue cond,
                                        MepiEpilogValue x, MepiEpilogValue y) {
  return node(builder, {cond, x, y}, [&](CBuilder &b) {
    return b.builder.select(b.values[cond], b.values[x], b.values[y]);
  });
}
MepiEpilogValue mepiEpilogBuilderCast(MepiEpilogBuilder builder, MepiEpilogValue x,
                                      MepiDType dtype) {
  return node(builder, {x},
              [&](CBuilder &b) { return b.builder.cast(b.values[x], dtypeOf(dtype)); });
}

bool mepiEpilogBuilderStore(MepiEpilogBuilder builder, MepiEpilogValue x) {
  return output(builder, x, [&](CBuilder &b) { b.builder.store(b.values[x]); });
}
bool mepiEpilogBuilderAuxOutput(MepiEpilogBuilder builder, MepiStringRef key, MepiEpilogValue x,
                                MepiDType dtype) {
  return output(builder, x, [&](CBuilder &b) {
    b.builder.auxOutput(str(key), b.values[x], dtypeOf(dtype));
  });
}
bool mepiEpilogBuilderReduction(MepiEpilogBuilder builder, MepiStringRef key, MepiEpilogValue x,
                                MepiReductionKind kind, MepiCombiner combiner, MepiDType dtype) {
  return output(builder, x, [&](CBuilder &b) {
    int k = rawValue(kind);
    if (k < MEPI_REDUCE_ROW || k > MEPI_REDUCE_SCALAR)
      throw mepi::Error("epilog builder: reduction '" + str(key) + "': unknown kind " +
                        std::to_string(k));
    b.builder.reduction(str(key), b.values[x], static_cast<mepi::ReductionKind>(k),
                        rawValue(combiner) == MEPI_COMBINE_MAX ? mepi::UserEpilogOutput::Combiner::Max
                                                     : mepi::UserEpilogOutput::Combiner::Add,
                        dtypeOf(dtype));
  });
}

MepiLogicalResult mepiMatmulPlanEpilogBuilder(MepiMatmul matmul, MepiEpilogBuilder builder,
                                              const MepiStringRef *names,
                                              const MepiTensor *inputs, int numInputs,
                                              MepiError *error) {
  return guarded(matmul, error, [&](CMatmul &m) {
    CBuilder *b = unwrap(builder);
    if (!b)
      throw mepi::Error("null MepiEpilogBuilder handle");
    if (!b->firstError.empty())
      throw mepi::Error(b->firstError);
    if (numInputs < 0 || (numInputs && (!names || !inputs)))
      throw mepi::Error("epilog builder: expected arrays of numInputs names and inputs, got "
                        "NULL or a negative count");
    std::map<std::string, mepi::Tensor> given;
    for (int i = 0; i < numInputs; ++i) {
      std::string name = str(names[i]);
      if (!given.emplace(name, *tensorOf(&inputs[i], name.c_str())).second)
        throw mepi::Error("epilog builder: epilog input '" + name + "' given twice");
    }
    m.matmul.plan(b->builder, given);
  });
}

} // extern "C"
