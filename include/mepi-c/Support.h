/* mepi C API: support types (string references, results, errors, API version). */
#ifndef MEPI_C_SUPPORT_H
#define MEPI_C_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Version of this C API; bumped on every incompatible change. */
#define MEPI_C_API_VERSION 7 /* 2: MepiMatmulOptions gained allowTF32, resultType, arch;
                               MepiStatus. 3: grouped matmuls, segment GEMM, i32/i64 dtypes,
                               the log callback. 4: fp8 dtypes; MepiMatmulOptions gained
                               fastAccumulation and the quantization scales. 5:
                               MepiMatmulOptions gained blockScaling. 6: MepiMatmulOptions
                               gained hasAuxType, auxType and auxAmax, MepiEpilogInputs
                               auxQuantizationScale. 7: MepiMatmulOptions gained
                               cScale */

/** The version of the C API the library implements (compare with MEPI_C_API_VERSION). */
unsigned mepiGetApiVersion(void);

/** A non-owning reference to a string (not necessarily NUL-terminated). */
typedef struct {
  const char *data;
  size_t length;
} MepiStringRef;

typedef struct {
  int8_t value;
} MepiLogicalResult;

static inline bool mepiLogicalResultIsSuccess(MepiLogicalResult r) { return r.value != 0; }
static inline bool mepiLogicalResultIsFailure(MepiLogicalResult r) { return r.value == 0; }

/** What kind of failure an error is (mepi::Status in C++). */
typedef enum {
  MEPI_STATUS_SUCCESS = 0,           /* no error (a null MepiError) */
  MEPI_STATUS_INVALID_VALUE = 1,     /* an operand, option or call the API refuses */
  MEPI_STATUS_NOT_SUPPORTED = 2,     /* valid, but not something mepi does (yet) */
  MEPI_STATUS_ALLOCATION_FAILED = 3, /* device memory could not be allocated */
  MEPI_STATUS_COMPILE_FAILED = 4,    /* lowering to PTX or linking with nvJitLink failed */
  MEPI_STATUS_LAUNCH_FAILED = 5,     /* the kernel launch failed */
  MEPI_STATUS_CUDA_ERROR = 6,        /* another CUDA driver call failed */
  MEPI_STATUS_INTERNAL = 7           /* a bug in mepi */
} MepiStatus;

/** An error: its message names the operand and the expected and actual values, and keeps the
 *  CUDA or nvJitLink code and log where there is one. Owned by the caller: mepiErrorDestroy. */
typedef struct {
  void *ptr;
} MepiError;

static inline bool mepiErrorIsNull(MepiError e) { return e.ptr == NULL; }
/** The message; valid until the error is destroyed. */
MepiStringRef mepiErrorGetMessage(MepiError error);
/** Its kind (MEPI_STATUS_SUCCESS for a null error). */
MepiStatus mepiErrorGetStatus(MepiError error);
void mepiErrorDestroy(MepiError error);

/** A message of mepi's runtime (mepi/Log.h: plans, kernel cache hits and compiles, autotune's
 *  candidates, warnings); `level` as Python's logging numbers it (10 debug, 20 info, 30
 *  warning). `message` lives for the call only. Called from any thread, one at a time, with a
 *  lock held: it must not call into mepi. */
typedef void (*MepiLogCallback)(int level, MepiStringRef message, void *userData);
/** Sends the runtime's messages to `callback` with `userData` (process-wide); NULL restores
 *  the default (warnings to stderr, nothing else). */
void mepiSetLogCallback(MepiLogCallback callback, void *userData);

#ifdef __cplusplus
}
#endif

#endif /* MEPI_C_SUPPORT_H */
