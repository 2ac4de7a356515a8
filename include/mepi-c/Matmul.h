/* mepi C API: a stateful matmul with a fused epilog (see mepi/Matmul.h for the semantics). */
#ifndef MEPI_C_MATMUL_H
#define MEPI_C_MATMUL_H

#include "mepi-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUstream_st *MepiStream; /* a CUstream; NULL is the default stream */

typedef enum {
  MEPI_DTYPE_F16 = 0,
  MEPI_DTYPE_BF16 = 1,
  MEPI_DTYPE_F32 = 2,
  MEPI_DTYPE_U8 = 3, /* the ReLU mask */
  MEPI_DTYPE_I32 = 4, /* group bounds and weight indices (mepi-c/GroupedMatmul.h) */
  MEPI_DTYPE_I64 = 5,
  MEPI_DTYPE_F8E4M3FN = 6, /* fp8 (see mepi::DType) */
  MEPI_DTYPE_F8E5M2 = 7
} MepiDType;

typedef enum {
  MEPI_EPILOG_DEFAULT = 0,
  MEPI_EPILOG_BIAS = 1,
  MEPI_EPILOG_RELU = 2,
  MEPI_EPILOG_RELU_BIAS = 3,
  MEPI_EPILOG_GELU = 4,
  MEPI_EPILOG_GELU_BIAS = 5,
  MEPI_EPILOG_SIGMOID = 6,
  MEPI_EPILOG_TANH = 7,
  MEPI_EPILOG_SILU = 8,
  MEPI_EPILOG_RELU_AUX = 9,
  MEPI_EPILOG_RELU_AUX_BIAS = 10,
  MEPI_EPILOG_DRELU = 11,
  MEPI_EPILOG_DRELU_BGRAD = 12,
  MEPI_EPILOG_GELU_AUX = 13,
  MEPI_EPILOG_GELU_AUX_BIAS = 14,
  MEPI_EPILOG_DGELU = 15,
  MEPI_EPILOG_DGELU_BGRAD = 16,
  MEPI_EPILOG_BGRADA = 17,
  MEPI_EPILOG_BGRADB = 18
} MepiEpilog;

/** How a user epilog input is indexed by the output element (see mepi::InputKind). */
typedef enum {
  MEPI_INPUT_ROW = 0,
  MEPI_INPUT_COL = 1,
  MEPI_INPUT_SCALAR = 2,
  MEPI_INPUT_MATRIX = 3
} MepiInputKind;

typedef enum {
  MEPI_DEVICE_CODE_PTX = 0,
  MEPI_DEVICE_CODE_LTOIR = 1,
  MEPI_DEVICE_CODE_CUBIN = 2,
  MEPI_DEVICE_CODE_FATBIN = 3
} MepiDeviceCodeKind;

/** Device code a user epilog calls (extern "C" __device__ functions), read during the call. */
typedef struct {
  MepiDeviceCodeKind kind;
  MepiStringRef name;
  const void *data;
  size_t size;
} MepiDeviceCode;

/** What a user epilog output is (see mepi::UserEpilogOutput). */
typedef enum {
  MEPI_OUTPUT_MATRIX = 0,
  MEPI_OUTPUT_BITMASK = 1,
  MEPI_OUTPUT_ROW_REDUCTION = 2,
  MEPI_OUTPUT_COL_REDUCTION = 3,
  MEPI_OUTPUT_SCALAR_REDUCTION = 4
} MepiOutputKind;

typedef enum { MEPI_COMBINE_ADD = 0, MEPI_COMBINE_MAX = 1 } MepiCombiner;

/** An output a user epilog writes besides D, read back with mepiMatmulGetAuxOutput by `key`. */
typedef struct {
  MepiStringRef key;
  MepiOutputKind kind;
  MepiDType dtype;       /* Matrix and reductions: f16, bf16 or f32 */
  MepiCombiner combiner; /* reductions */
} MepiUserEpilogOutput;

/** A DLPack-style device tensor. `strides` (in elements) may be NULL for row-major. The arrays
 *  are read during the call only. */
typedef struct {
  void *data;
  int device;
  MepiDType dtype;
  int rank;
  const int64_t *shape;
  const int64_t *strides;
} MepiTensor;

/** The built-in epilogs' inputs, by nvmath-python's keys ("bias", "relu_aux", "gelu_aux"; see
 *  mepi::EpilogInputs for their layouts); NULL where the epilog takes none. */
typedef struct {
  const MepiTensor *bias;
  const MepiTensor *reluAux;
  const MepiTensor *geluAux;
  const MepiTensor *auxQuantizationScale; /* "aux_quantization_scale": an 8-bit gelu_aux's */
} MepiEpilogInputs;

/** Options (see mepi::Options); zero-initialized means the defaults. */
typedef struct {
  bool resultAmax;           /* also compute max |D|: aux output "result_amax" */
  MepiStringRef kernelConfig; /* empty: the planner's heuristic */
  bool allowTF32;            /* f32 operands may be multiplied at TF32 precision */
  bool hasResultType;        /* D's type is resultType (else A's) */
  MepiDType resultType;
  MepiStringRef arch;        /* empty: the device's (e.g. "sm_90a") */
  bool fastAccumulation;     /* fp8: no promotion of the tensor cores' sums into f32 */
  /* FP8 quantization scales (see mepi::QuantizationScales): f32 device tensors, NULL where
     not given; read during the call only (the data pointers are kept). */
  const MepiTensor *aScale;
  const MepiTensor *bScale;
  const MepiTensor *dScale;
  bool blockScaling; /* MXFP8: aScale and bScale are uint8 e8m0 scales (mepi::Options) */
  bool hasAuxType;   /* gelu_aux's type is auxType (see mepi::Options::auxType) */
  MepiDType auxType;
  bool auxAmax;      /* also max |gelu_aux| before its scale: aux output "gelu_aux_amax" */
  const MepiTensor *cScale; /* FP8: C's scale, one value (D = ... + beta * sC * C) */
} MepiMatmulOptions;

typedef struct {
  void *ptr;
} MepiMatmul;

static inline bool mepiMatmulIsNull(MepiMatmul m) { return m.ptr == NULL; }

/** Describes D = epilog(alpha * op(A) * op(B) + beta * C). `c` and `beta` may be NULL (both or
 *  neither). On failure returns a null handle and, if `error` is not NULL, stores an error the
 *  caller owns. On success the caller owns the handle: mepiMatmulDestroy. */
MepiMatmul mepiMatmulCreate(const MepiTensor *a, const MepiTensor *b, const MepiTensor *c,
                            float alpha, const float *beta, bool transposeA, bool transposeB,
                            MepiError *error);

/** mepiMatmulCreate with options (`options` may be NULL). */
MepiMatmul mepiMatmulCreateWithOptions(const MepiTensor *a, const MepiTensor *b,
                                       const MepiTensor *c, float alpha, const float *beta,
                                       bool transposeA, bool transposeB,
                                       const MepiMatmulOptions *options, MepiError *error);

/** Plans with `epilog` (`bias` may be NULL when the epilog takes none) and compiles its kernel. */
MepiLogicalResult mepiMatmulPlan(MepiMatmul matmul, MepiEpilog epilog, const MepiTensor *bias,
                                 MepiError *error);

/** Plans with any built-in epilog and its inputs (`inputs` may be NULL when it takes none). */
MepiLogicalResult mepiMatmulPlanWithInputs(MepiMatmul matmul, MepiEpilog epilog,
                                           const MepiEpilogInputs *inputs, MepiError *error);

/** Plans with a user epilog given as MLIR text: `function` is a func.func of type
 *  (f32 acc, one element per input..., index row, index col) -> element type of D. `inputs` and
 *  `kinds` have `numInputs` entries (kept for later executes); `code` has `numCode` entries of
 *  device code for the functions the text only declares. */
MepiLogicalResult mepiMatmulPlanUserEpilog(MepiMatmul matmul, MepiStringRef mlir,
                                           MepiStringRef function, const MepiTensor *inputs,
                                           const MepiInputKind *kinds, int numInputs,
                                           const MepiDeviceCode *code, int numCode,
                                           MepiError *error);

/** mepiMatmulPlanUserEpilog with outputs besides D: the function returns D's element, then one
 *  value per output in this order (`outputs` has `numOutputs` entries, read during the call).
 *  A non-null `userData` is passed to every launch: the function then takes one more argument
 *  after the inputs, an i64 holding it (see mepi::UserEpilog::userData). */
MepiLogicalResult mepiMatmulPlanUserEpilogWithOutputs(
    MepiMatmul matmul, MepiStringRef mlir, MepiStringRef function, const MepiTensor *inputs,
    const MepiInputKind *kinds, int numInputs, const MepiDeviceCode *code, int numCode,
    const MepiUserEpilogOutput *outputs, int numOutputs, const void *userData,
    MepiError *error);

/** Launches on `stream`. On success `*result` (if not NULL) describes D, owned by `matmul`; its
 *  shape and strides stay valid until the next call on `matmul`. */
MepiLogicalResult mepiMatmulExecute(MepiMatmul matmul, MepiStream stream, MepiTensor *result,
                                    MepiError *error);

/** The aux outputs the planned epilog writes (relu_aux, gelu_aux, drelu_bgrad, dgelu_bgrad,
 *  result_amax, gelu_aux_amax), owned by `matmul`, allocated by the first execute: 0 before it (and before
 *  plan, and for a null handle). */
int mepiMatmulGetNumAuxOutputs(MepiMatmul matmul);

/** The planned kernel's configuration as mepi's IR prints it, owned by `matmul` until the next
 *  plan, autotune or destroy. */
MepiLogicalResult mepiMatmulGetKernelConfiguration(MepiMatmul matmul, MepiStringRef *config,
                                                   MepiError *error);

/** Times the first `prune` candidate configurations (all when < 0; when 0, mepi's default: the
 *  cost model's first 16 for 16-bit and TF32 operands, else all), `iterations` launches each on
 *  `stream`, and plans the fastest (mepi::Matmul::autotune). */
MepiLogicalResult mepiMatmulAutotune(MepiMatmul matmul, int iterations, int prune,
                                     MepiStream stream, MepiError *error);

/** Aux output `index` (in key order): its key and the tensor, valid until the next call on
 *  `matmul`. */
MepiLogicalResult mepiMatmulGetAuxOutput(MepiMatmul matmul, int index, MepiStringRef *key,
                                         MepiTensor *tensor, MepiError *error);

/** Replaces the operands by others of the same dtype, shape and strides (checked). */
MepiLogicalResult mepiMatmulResetOperands(MepiMatmul matmul, const MepiTensor *a,
                                          const MepiTensor *b, const MepiTensor *c,
                                          const MepiTensor *bias, MepiError *error);

/** mepiMatmulResetOperands with every built-in epilog input (`inputs` may be NULL). */
MepiLogicalResult mepiMatmulResetOperandsWithInputs(MepiMatmul matmul, const MepiTensor *a,
                                                    const MepiTensor *b, const MepiTensor *c,
                                                    const MepiEpilogInputs *inputs,
                                                    MepiError *error);

/** Forgets the operand pointers until the next mepiMatmulResetOperands. */
void mepiMatmulReleaseOperands(MepiMatmul matmul);

/** Frees D, the kernel and the handle. */
void mepiMatmulDestroy(MepiMatmul matmul);

#ifdef __cplusplus
}
#endif

#endif /* MEPI_C_MATMUL_H */
