/* mepi C API: the epilog builder (see mepi/EpilogBuilder.h for the semantics).
 *
 *   MepiEpilogBuilder e = mepiEpilogBuilderCreate();
 *   MepiEpilogValue x = mepiEpilogBuilderBinary(e, MEPI_BINARY_MUL,
 *       mepiEpilogBuilderAccumulator(e), mepiEpilogBuilderInput(e, name("scale"), MEPI_INPUT_COL));
 *   mepiEpilogBuilderStore(e, x);
 *   mepiMatmulPlanEpilogBuilder(mm, e, names, tensors, 1, &error);
 *
 * A node that cannot be built (mismatched types, a value of another builder) returns
 * MEPI_EPILOG_VALUE_INVALID and keeps the first such error in the builder; nodes built on an
 * invalid value are invalid too, and mepiEpilogBuilderGetError / plan report that first error. */
#ifndef MEPI_C_EPILOGBUILDER_H
#define MEPI_C_EPILOGBUILDER_H

#include "mepi-c/Matmul.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  void *ptr;
} MepiEpilogBuilder;

/** A node of one builder; negative: invalid. */
typedef int32_t MepiEpilogValue;
#define MEPI_EPILOG_VALUE_INVALID (-1)

typedef enum {
  MEPI_UNARY_NEG = 0, MEPI_UNARY_ABS, MEPI_UNARY_EXP, MEPI_UNARY_LOG, MEPI_UNARY_SQRT,
  MEPI_UNARY_RSQRT, MEPI_UNARY_TANH, MEPI_UNARY_ERF, MEPI_UNARY_FLOOR, MEPI_UNARY_CEIL,
  MEPI_UNARY_ROUND
} MepiUnaryOp;

typedef enum {
  MEPI_BINARY_ADD = 0, MEPI_BINARY_SUB, MEPI_BINARY_MUL, MEPI_BINARY_DIV, MEPI_BINARY_MIN,
  MEPI_BINARY_MAX, MEPI_BINARY_POW, MEPI_BINARY_AND, MEPI_BINARY_OR
} MepiBinaryOp;

typedef enum {
  MEPI_PREDICATE_LT = 0, MEPI_PREDICATE_LE, MEPI_PREDICATE_GT, MEPI_PREDICATE_GE,
  MEPI_PREDICATE_EQ, MEPI_PREDICATE_NE
} MepiPredicate;

typedef enum { MEPI_REDUCE_ROW = 0, MEPI_REDUCE_COL = 1, MEPI_REDUCE_SCALAR = 2 } MepiReductionKind;

MepiEpilogBuilder mepiEpilogBuilderCreate(void);
void mepiEpilogBuilderDestroy(MepiEpilogBuilder builder);
/** The first error met while building, or a null error; the caller owns it. */
MepiError mepiEpilogBuilderGetError(MepiEpilogBuilder builder);

/** See mepi::EpilogBuilder::setFastMath: applies to the nodes added after the call. */
void mepiEpilogBuilderSetFastMath(MepiEpilogBuilder builder, bool enabled);

MepiEpilogValue mepiEpilogBuilderAccumulator(MepiEpilogBuilder builder);
MepiEpilogValue mepiEpilogBuilderC(MepiEpilogBuilder builder);
MepiEpilogValue mepiEpilogBuilderRow(MepiEpilogBuilder builder);
MepiEpilogValue mepiEpilogBuilderCol(MepiEpilogBuilder builder);
MepiEpilogValue mepiEpilogBuilderInput(MepiEpilogBuilder builder, MepiStringRef name,
                                       MepiInputKind kind);
MepiEpilogValue mepiEpilogBuilderConstant(MepiEpilogBuilder builder, double value);
MepiEpilogValue mepiEpilogBuilderIndexConstant(MepiEpilogBuilder builder, int64_t value);
MepiEpilogValue mepiEpilogBuilderUnary(MepiEpilogBuilder builder, MepiUnaryOp op,
                                       MepiEpilogValue x);
MepiEpilogValue mepiEpilogBuilderBinary(MepiEpilogBuilder builder, MepiBinaryOp op,
                                        MepiEpilogValue x, MepiEpilogValue y);
MepiEpilogValue mepiEpilogBuilderFma(MepiEpilogBuilder builder, MepiEpilogValue x,
                                     MepiEpilogValue y, MepiEpilogValue z);
MepiEpilogValue mepiEpilogBuilderCompare(MepiEpilogBuilder builder, MepiPredicate predicate,
                                         MepiEpilogValue x, MepiEpilogValue y);
MepiEpilogValue mepiEpilogBuilderSelect(MepiEpilogBuilder builder, MepiEpilogValue cond,
                                        MepiEpilogValue x, MepiEpilogValue y);
MepiEpilogValue mepiEpilogBuilderCast(MepiEpilogBuilder builder, MepiEpilogValue x,
                                      MepiDType dtype);

/** Outputs; false (and the builder's error set) on misuse. */
bool mepiEpilogBuilderStore(MepiEpilogBuilder builder, MepiEpilogValue x);
bool mepiEpilogBuilderAuxOutput(MepiEpilogBuilder builder, MepiStringRef key, MepiEpilogValue x,
                                MepiDType dtype);
bool mepiEpilogBuilderReduction(MepiEpilogBuilder builder, MepiStringRef key, MepiEpilogValue x,
                                MepiReductionKind kind, MepiCombiner combiner, MepiDType dtype);

/** Plans `matmul` with the builder's epilog; `names` and `inputs` have `numInputs` entries, one
 *  per input the builder reads (by name). Fails with the builder's first error if it has one. */
MepiLogicalResult mepiMatmulPlanEpilogBuilder(MepiMatmul matmul, MepiEpilogBuilder builder,
                                              const MepiStringRef *names,
                                              const MepiTensor *inputs, int numInputs,
                                              MepiError *error);

#ifdef __cplusplus
}
#endif

#endif /* MEPI_C_EPILOGBUILDER_H */
