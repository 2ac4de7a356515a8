/* mepi's C API for distributed matmuls (mepi/Distributed.h): the process group, distributions
 * and a distributed matmul handle. MPI stays with the caller: rank 0 makes the unique id
 * (mepiDistMakeUniqueId) and the program broadcasts its bytes (MPI_Bcast) before
 * mepiDistInitialize on every rank. */
#ifndef MEPI_C_DISTRIBUTED_H
#define MEPI_C_DISTRIBUTED_H

#include "mepi-c/Matmul.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEPI_DIST_UNIQUE_ID_BYTES 128

typedef struct {
  char bytes[MEPI_DIST_UNIQUE_ID_BYTES];
} MepiDistUniqueId;

typedef enum {
  MEPI_DIST_SLAB_X = 0,     /* rows split: S/P + (rank < S%P) each, in rank order */
  MEPI_DIST_SLAB_Y = 1,     /* columns split the same way */
  MEPI_DIST_BLOCK_CYCLIC = 2, /* blocks over a process grid (not supported by plans yet) */
  MEPI_DIST_REPLICATED = 3, /* every rank holds all of it (D: GEMM + all-reduce) */
} MepiDistKind;

typedef struct {
  MepiDistKind kind;
  int gridRows, gridCols;         /* BLOCK_CYCLIC */
  int64_t blockRows, blockCols;   /* BLOCK_CYCLIC */
} MepiDistribution;

typedef enum {
  MEPI_DIST_ALLGATHER_A = 0,
  MEPI_DIST_ALLGATHER_B = 1,
  MEPI_DIST_REDUCE_SCATTER_ROWS = 2,
  MEPI_DIST_REDUCE_SCATTER_COLS = 3,
  MEPI_DIST_ALLREDUCE = 4,
  MEPI_DIST_SUMMA = 5,
} MepiDistAlgorithm;

typedef struct {
  void *ptr;
} MepiDistMatmul;

static inline bool mepiDistMatmulIsNull(MepiDistMatmul m) { return m.ptr == NULL; }

/** NCCL's unique id (call on one rank). */
MepiLogicalResult mepiDistMakeUniqueId(MepiDistUniqueId *id, MepiError *error);

/** Joins the group as `rank` of `ranks` on CUDA device `device` (collective). */
MepiLogicalResult mepiDistInitialize(int device, int rank, int ranks, const MepiDistUniqueId *id,
                                     MepiError *error);

/** Leaves the group (collective): plans still alive release their buffers first and refuse
 *  to run afterwards. */
void mepiDistFinalize(void);

/** Rank `rank`'s part of a `rows` x `cols` matrix under `dist` over `ranks` ranks. */
MepiLogicalResult mepiDistLocalShape(const MepiDistribution *dist, int rank, int ranks,
                                     int64_t rows, int64_t cols, int64_t *localRows,
                                     int64_t *localCols, MepiError *error);

/** Describes D = epilog(alpha * op(A) * op(B) [+ beta * C]) over the group from this rank's
 *  parts; `distributions` holds A's, B's and D's (3 entries). `options` (local GEMM options)
 *  and `c`/`beta` may be NULL. `pieces` <= 0: chosen. Collective. */
MepiDistMatmul mepiDistMatmulCreate(const MepiTensor *a, const MepiTensor *b, const MepiTensor *c,
                                    const MepiDistribution *distributions, float alpha,
                                    const float *beta, bool transposeA, bool transposeB,
                                    const MepiMatmulOptions *options, int pieces,
                                    MepiError *error);

/** Plans with a built-in epilog (`inputs` may be NULL). Collective. */
MepiLogicalResult mepiDistMatmulPlan(MepiDistMatmul matmul, MepiEpilog epilog,
                                     const MepiEpilogInputs *inputs, MepiError *error);

/** Plans with a user epilog (as mepiMatmulPlanUserEpilog; `userData` as in
 *  mepiMatmulPlanUserEpilogWithOutputs, may be NULL), applied where a built-in one would be:
 *  its row and column arguments index this rank's D, its inputs are this rank's (see
 *  mepi::dist::Matmul::plan). Collective. */
MepiLogicalResult mepiDistMatmulPlanUserEpilog(MepiDistMatmul matmul, MepiStringRef mlir,
                                               MepiStringRef function, const MepiTensor *inputs,
                                               const MepiInputKind *kinds, int numInputs,
                                               const MepiDeviceCode *code, int numCode,
                                               const void *userData, MepiError *error);

/** mepiDistMatmulPlanUserEpilog with outputs besides D (as mepiMatmulPlanUserEpilogWithOutputs),
 *  this rank's, read back with mepiDistMatmulGetAuxOutput. Collective. */
MepiLogicalResult mepiDistMatmulPlanUserEpilogWithOutputs(
    MepiDistMatmul matmul, MepiStringRef mlir, MepiStringRef function, const MepiTensor *inputs,
    const MepiInputKind *kinds, int numInputs, const MepiDeviceCode *code, int numCode,
    const MepiUserEpilogOutput *outputs, int numOutputs, const void *userData,
    MepiError *error);

/** Runs on `stream`; `*result` (if not NULL) is this rank's part of D, owned by `matmul`. */
MepiLogicalResult mepiDistMatmulExecute(MepiDistMatmul matmul, MepiStream stream,
                                        MepiTensor *result, MepiError *error);

/** How many aux outputs the planned epilog wrote (RELU_AUX*, GELU_AUX*: one), for this rank's
 *  part of D: 0 before the first execute (and for a null handle). */
int mepiDistMatmulGetNumAuxOutputs(MepiDistMatmul matmul);

/** Aux output `index` (in key order): its key ("relu_aux", "gelu_aux") and the tensor, in the
 *  layout mepiMatmulGetAuxOutput gives for a D of this rank's shape, owned by `matmul` and
 *  valid until the next call on it. */
MepiLogicalResult mepiDistMatmulGetAuxOutput(MepiDistMatmul matmul, int index, MepiStringRef *key,
                                             MepiTensor *tensor, MepiError *error);

/** The algorithm the plan uses. */
MepiLogicalResult mepiDistMatmulGetAlgorithm(MepiDistMatmul matmul, MepiDistAlgorithm *algorithm,
                                             MepiError *error);

/** The schedule as text, owned by `matmul` until the next call on it. */
MepiLogicalResult mepiDistMatmulGetSchedule(MepiDistMatmul matmul, MepiStringRef *schedule,
                                            MepiError *error);

/** Frees the handle's buffers (collective). */
void mepiDistMatmulDestroy(MepiDistMatmul matmul);

#ifdef __cplusplus
}
#endif

#endif /* MEPI_C_DISTRIBUTED_H */
