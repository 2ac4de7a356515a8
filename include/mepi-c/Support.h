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
#define MEPI_C_API_VERSION 2 /* 2: MepiMatmulOptions gained allowTF32, resultType, arch */

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

/** An error: its message names the operand and the expected and actual values, and keeps the
 *  CUDA or nvJitLink code and log where there is one. Owned by the caller: mepiErrorDestroy. */
typedef struct {
  void *ptr;
} MepiError;

static inline bool mepiErrorIsNull(MepiError e) { return e.ptr == NULL; }
/** The message; valid until the error is destroyed. */
MepiStringRef mepiErrorGetMessage(MepiError error);
void mepiErrorDestroy(MepiError error);

#ifdef __cplusplus
}
#endif

#endif /* MEPI_C_SUPPORT_H */
