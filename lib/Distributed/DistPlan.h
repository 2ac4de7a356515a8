// The distributed matmul's plan, host logic only (no GPU, no NCCL): the global problem inferred
// from every rank's local shapes and the distributions, the algorithm, and this rank's schedule
// of local GEMMs and peer copies. dist::Matmul (DistMatmul.cpp) executes the schedule.
//
// Every schedule works on 2-D views of row-major buffers. Exchanged pieces of a matrix are
// contiguous row blocks of D, so that each local GEMM writes a whole [rows, cols] matrix:
//   AllGatherA: D's rows come in the chunks of A that each rank holds; rank r multiplies its own
//     chunk first while its chunk is copied into every peer's gather buffer, then each peer's.
//   ReduceScatter (rows or columns of D split): a ring. At step t (0 .. P-1) rank r computes the
//     partial product of the chunk of D owned by rank (r + P - 1 - t) mod P, adding (as the
//     GEMM's C) the partial sum rank r - 1 sent at its step t - 1, and sends the result to rank
//     r + 1; the last step is its own chunk, complete: the epilog applies there.
//   AllReduce: the ring above, then each rank's finished rows are copied into every peer's D.
//   Summa (block-cyclic A, B, D on one process grid): each rank assembles, in global K order,
//     the rows of op(A) (Gather) and the columns of op(B) (GatherB) that its blocks of D need:
//     every rank copies each of its blocks to the ranks whose blocks of D need it (blocks
//     adjacent on both sides travel as one copy). Its own blocks are copied on the compute
//     stream before the GEMMs (a copy within one GPU is a kernel, which would wait for a
//     running GEMM's SMs); the peers' arrive by the copy engines, B's columns first, then
//     op(A)'s rows in pieces of the receiver's D rows, each piece's GEMM (epilog fused)
//     starting once every peer's part of it is there. An operand is not copied where the rank's own part is what
//     its GEMM needs (A [M, K] on one grid column, B [K, N] on one grid row).
// Chunks of few rows (memory-bound GEMMs, decode) are not multiplied one by one: A is gathered
// by NCCL first, and the reductions with the identity epilog run one GEMM and an NCCL
// reduction (for so little data NCCL's latency is lower than the copy-engine handshake's).
// Each chunk travels in `pieces` row blocks, each copy signalling its arrival by its own flag,
// so that the receiver starts on a piece as soon as it is there.
#ifndef MEPI_DISTRIBUTED_DISTPLAN_H
#define MEPI_DISTRIBUTED_DISTPLAN_H

#include "mepi/Distributed.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mepi::dist::plan {

/// A run [offset, offset + size) of rows or columns.
struct Range {
  int64_t offset = 0, size = 0;
  bool operator==(const Range &o) const { return offset == o.offset && size == o.size; }
};

/// Rank `rank`'s part of `extent` split into slabs over `ranks`: S/P + (rank < S%P) long,
/// after the parts of the ranks below it.
Range slabRange(int64_t extent, int ranks, int rank);

/// ScaLAPACK's numroc: how many of `extent` indices, dealt in blocks of `block` round-robin
/// over `procs` processes, process `coord` holds.
int64_t blockCyclicExtent(int64_t extent, int64_t block, int coord, int procs);

/// What the planner needs: every rank's local shapes (as given, before qualifiers), the
/// distributions of A, B, D, and the qualifiers.
struct Request {
  int ranks = 1, rank = 0;
  std::vector<std::vector<int64_t>> aShapes, bShapes; // one per rank
  std::vector<Distribution> distributions;           // A, B, D
  bool transposeA = false, transposeB = false;
  bool hasC = false;
  int pieces = 0; // 0: chosen
  int bands = 0;  // all-reduce: rings over this many bands of D's rows in turn (0: chosen)
  /// The ring's partial sums stored by their GEMMs straight into the next rank's Recv (over
  /// NVLink) instead of copied there after the GEMM.
  bool remoteStores = false;
  /// All-reduce: the last this-many pieces of each chunk's finished rows are stored by their
  /// GEMMs into every peer's D too (Gemm::mirrors) rather than copied after (-1: chosen).
  int mirroredPieces = -1;
  /// All-reduce: how many short pieces end each chunk (allReduceTail; -1: chosen).
  int tailPieces = -1;
  /// Bytes of D's element type: a mirror must start 16-byte aligned, as D's stores assume
  /// (0: unknown, no mirrors).
  int64_t dElementBytes = 0;
  /// The epilog is D = alpha * AB alone (no bias, no activation): a reduction of few rows may
  /// then go to NCCL after one GEMM (an epilog must follow the reduced sum, so it cannot).
  bool identityEpilog = true;
  /// The epilog writes or reads aux matrices: every GEMM that applies it starts at a row of
  /// this rank's D that is a multiple of 128 (the ReLU mask holds 8 rows a byte, padded to 16
  /// bytes), so that its block of the mask is whole bytes. All-gather of A then gathers
  /// everything before one GEMM when a rank's rows do not start at such a row; all-reduce
  /// cuts D's rows at multiples of 128.
  bool alignedFinalRows = false;
};

/// Matrices a schedule's views point into. Symmetric ones exist on every rank at the same
/// size, so that a peer copies into them.
enum class Buffer {
  A,       ///< this rank's a, as given
  B,       ///< this rank's b
  C,       ///< this rank's c
  D,       ///< this rank's D (symmetric for AllReduce)
  Gather,  ///< symmetric: the gathered operand, stored as the operand is ([M, K] or [K, M])
  GatherB, ///< symmetric: Summa's assembled columns of op(B), stored as B is
  Partial, ///< partial sums this rank sends, slot t at rows t * slotRows
  Recv,    ///< symmetric: partial sums received, slot t at rows t * slotRows
};
const char *bufferName(Buffer buffer);

/// A block of a buffer: element (i, j) of the block is element base + (row + i) * pitch + col
/// + j of the buffer. Slot buffers (Partial, Recv) hold one contiguous matrix per slot and
/// piece, at `base`.
struct View {
  Buffer buffer = Buffer::A;
  int64_t base = 0, row = 0, col = 0, rows = 0, cols = 0, pitch = 0;
  int rank = -1; ///< whose buffer (a shared one of a peer: a GEMM storing over NVLink); -1: ours
  int64_t offset() const { return base + row * pitch + col; }
  /// "Gather[0:512, 0:1024]", "Recv+4096[0:64, 0:64]", "rank 1 Recv[0:64, 0:64]".
  std::string str() const;
};

/// One local GEMM: D view = epilog?(alpha * op(A view) op(B view) + beta * C view).
struct Gemm {
  View a, b, d;
  std::optional<View> c;
  float beta = 0;
  bool final = false; ///< applies the epilog (else a partial sum: Default, alpha only)
  Range dRows;        ///< the rows of this rank's D it writes (final), for row-indexed inputs
  /// The rows of op(A) and columns of op(B) it multiplies, in DistPlan::rowSpace and colSpace:
  /// where its bias-gradient vectors (row sums of op(A) or of D, column sums of op(B)) go.
  Range mRows, nCols;
  /// Where the GEMM also stores its D block (peers' D over NVLink: mepi::Options::mirrors).
  std::vector<View> mirrors;
};
/// "rank 1 D[0:512, 0:1024], rank 2 D[0:512, 0:1024]": the GEMM's mirrors.
std::string mirrorsStr(const Gemm &gemm);

/// A step of the schedule, on the compute stream (the caller's) or mepi's copy stream.
struct Step {
  enum class Kind {
    /// copy: tell every peer that this execute may write into our buffers (after Fork: after
    /// all that the compute stream held before this execute, which read them last time; on
    /// the copy stream, so that the first GEMM does not wait behind the peers' writes)
    Ready,
    Fork,        ///< copy stream waits for the compute stream's work so far
    WaitReady,   ///< copy: wait until `peer` said Ready for this execute
    Push,        ///< copy: copy `from` into `peer`'s `to`, then raise its flag `flag` (if >= 0)
    WaitArrived, ///< compute: wait until our flag `flag` says this execute's data is here
    Gemm,        ///< compute: local GEMM `gemm`
    Join,        ///< compute stream waits for the copy stream
    NcclReduce,    ///< compute: NCCL sums `from` over the ranks, each chunk of rows into its
                   ///< owner's `to` (ncclReduce per chunk)
    NcclAllReduce, ///< compute: NCCL sums `from` over the ranks into every rank's `to`
    NcclAllGather, ///< compute: every rank's `from` (its chunk of rows) into every rank's `to`
    ComputeWaitReady, ///< compute: wait until `peer` said Ready (before GEMMs that store there)
    Signal,           ///< compute: raise `peer`'s flag `flag` (after a GEMM stored there)
    LocalCopy,        ///< compute: copy `from` into our `to` (before the GEMMs: a copy on the
                      ///< same GPU runs on its SMs, which a running GEMM holds)
  };
  Kind kind = Kind::Ready;
  int peer = -1;
  int flag = -1;
  int gemm = -1;  ///< Gemm: which; Push, Signal: the GEMM whose output it follows (-1: none)
  View from, to;
};

struct DistPlan {
  Algorithm algorithm = Algorithm::AllGatherA;
  int64_t m = 0, n = 0, k = 0;
  int ranks = 1, rank = 0, pieces = 1;
  /// All-reduce: bands of D's rows, one ring each in turn (a band's copies to the peers run
  /// under the next band's GEMMs); each band has its own slots and flags. Else 1.
  int bands = 1;
  /// The rows of each chunk's last pieces, the first piece taking the rest (AllReduce: a
  /// short last copy); empty: equal pieces.
  std::vector<int64_t> tailRows;
  /// All-reduce: how many of each chunk's last pieces its final GEMMs store into every peer's
  /// D themselves (mirrors), the others being pushed by the copy engine after their GEMM.
  int mirroredPieces = 0;
  std::vector<Range> chunks; ///< per rank, along the split axis of A (AllGatherA) or of D
  std::vector<int64_t> aLocal, bLocal, dLocal; ///< this rank's shapes (stored)
  std::vector<int64_t> gatherShape;           ///< stored shape of Gather (empty: none)
  std::vector<int64_t> gatherBShape;          ///< stored shape of GatherB (empty: none)
  int64_t slotElements = 0;                   ///< one Partial/Recv slot
  int slots = 0;
  bool dSymmetric = false;
  /// The index spaces of the bias-gradient vectors: rows of op(A) and columns of op(B) (M and
  /// N; this rank's D rows and columns for Summa, whose blocks interleave), and where this
  /// rank's D rows and columns lie in them.
  int64_t rowSpace = 0, colSpace = 0;
  Range myRows, myCols;
  int flags = 0; ///< flag words per rank: ready[ranks], then arrival flags
  std::vector<Gemm> gemms;
  std::vector<Step> steps;

  /// The schedule, one step a line ("compute: gemm 0: D[0:512, 0:1024] = A[0:512, ...] ...").
  std::string str() const;
  /// Step `index` as str() prints it, without the line break.
  std::string stepStr(size_t index) const;
};

/// Splits `range` into `pieces` row blocks: with `tail` (sizes of the last blocks), those
/// last and the rest first; else equal blocks (multiples of 128 rows but the last; fewer when
/// the range is short).
std::vector<Range> rowPieces(Range range, int pieces, llvm::ArrayRef<int64_t> tail);

/// GEMMs of fewer rows than this read all of B for little work (memory-bound): below it, an
/// exchanged chunk is not multiplied on its own (one GEMM over all rows instead).
constexpr int64_t kMemoryBoundRows = 256;

/// `extent` split into slabs over `ranks` (slabRange's).
std::vector<Range> slabsOf(int64_t extent, int ranks);

/// All-reduce's chunks of D's rows (which D's replication leaves to the planner) where the
/// epilog's GEMMs must start at multiples of 128 rows: slabs with their starts rounded up.
std::vector<Range> alignedSlabs(int64_t extent, int ranks);

/// All-reduce's row bands for `request` with K = `k` on each rank, each cut into the ranks'
/// chunks as p.chunks cuts all of M (DistPieces.cpp says how many).
std::vector<std::vector<Range>> allReduceBands(const DistPlan &p, const Request &request,
                                               int64_t k);

/// All-reduce's short last pieces for chunks of `rows` rows of D [M, n], K = k on each of
/// `ranks` ranks, `tailPieces` of them asked (Options::tailPieces): the rows of each, in order,
/// or none (DistPieces.cpp says why).
std::vector<int64_t> allReduceTail(int64_t rows, int64_t n, int64_t k, int ranks,
                                   int tailPieces = -1);

/// A request that cannot be planned as given (the API's InvalidArgument).
llvm::Error planError(const llvm::Twine &message);
/// A valid request mepi does not handle (yet): std::errc::not_supported (the API's
/// NotSupported).
llvm::Error unsupportedError(const llvm::Twine &message);

/// The plan of a request whose distributions are block-cyclic (SummaPlan.cpp).
llvm::Expected<DistPlan> makeSummaPlan(const Request &request);

/// The plan for `request` (every rank's shapes, so every rank plans alike), or an error that
/// names the operand, the rank and the expected and actual extents.
llvm::Expected<DistPlan> makePlan(const Request &request);

} // namespace mepi::dist::plan

#endif // MEPI_DISTRIBUTED_DISTPLAN_H
