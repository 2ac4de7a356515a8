// mepi's distributed matmul, in the manner of nvmath-python's nvmath.distributed: each process
// drives one GPU and holds its part of A, B and D; one call computes the whole product.
//
//   mepi::dist::initialize(device, MPI_COMM_WORLD);   // mepi/DistributedMPI.h
//   using mepi::dist::Slab;
//   mepi::dist::Matmul mm(x, w, std::nullopt, {Slab::X, Slab::Y, Slab::Y});
//   mm.plan(mepi::Epilog::Gelu);                       // AllGather(x) + GEMM, overlapped
//   mepi::Tensor y = mm.execute(stream);               // this process's columns of D
//
// The processes are the ranks of one NCCL communicator. Operands are exchanged over NVLink by
// the copy engines, in chunks, while the local GEMMs run (DistPlan.h has the schedules).
#ifndef MEPI_DISTRIBUTED_H
#define MEPI_DISTRIBUTED_H

#include "mepi/Matmul.h"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mepi::dist {

/// Processes arranged in rows x cols; rank r sits at (r / cols, r % cols).
struct ProcessGrid {
  int rows = 1, cols = 1;
};

/// How one matrix is split over the processes (nvmath.distributed's distributions), by the
/// dimensions of the tensor as given (before any transpose qualifier):
///   SlabX: rows split, rank r holding S/P + (r < S%P) consecutive rows after those of ranks
///     below it; SlabY: columns split the same way;
///   BlockCyclic: blocks of rows x cols dealt round-robin over a process grid (ScaLAPACK);
///   Replicated: every process holds all of it (a D that every rank receives: GEMM+AllReduce).
struct Distribution {
  enum class Kind { SlabX, SlabY, BlockCyclic, Replicated };
  Kind kind = Kind::Replicated;
  ProcessGrid grid;
  int64_t blockRows = 0, blockCols = 0; ///< BlockCyclic only

  static Distribution slabX() { return {Kind::SlabX, {}, 0, 0}; }
  static Distribution slabY() { return {Kind::SlabY, {}, 0, 0}; }
  static Distribution replicated() { return {Kind::Replicated, {}, 0, 0}; }
  static Distribution blockCyclic(ProcessGrid grid, int64_t blockRows, int64_t blockCols) {
    return {Kind::BlockCyclic, grid, blockRows, blockCols};
  }
  /// The part of a `global` [rows, cols] matrix that `rank` of `ranks` holds.
  std::vector<int64_t> shape(int rank, int ranks, const std::vector<int64_t> &global) const;
  /// "Slab.X", "BlockCyclic(2x2, 64x64)", ...
  std::string str() const;
};

/// nvmath's spelling: Slab::X, Slab::Y.
struct Slab {
  static inline const Distribution X = Distribution::slabX();
  static inline const Distribution Y = Distribution::slabY();
};

/// ncclGetUniqueId's bytes: made by one rank, handed to all (DistributedMPI.h broadcasts it).
using UniqueId = std::array<char, 128>;
UniqueId makeUniqueId();

/// Joins this process to the group as `rank` of `ranks`, on CUDA device `device`: makes the
/// NCCL communicator (collective: every rank calls it with the same id).
void initialize(int device, int rank, int ranks, const UniqueId &id);
/// Destroys the communicator (collective). Plans still alive release their memory first and
/// refuse to run afterwards. initialize() may be called again.
void finalize();

struct Context {
  int device = 0, rank = 0, ranks = 1;
};
/// The group this process joined. Throws before initialize().
Context context();

/// Which local products and exchanges compute D (nvmath.distributed infers it the same way):
enum class Algorithm {
  AllGatherA,       ///< A split by rows of op(A), B and D by columns: gather A, GEMM
  AllGatherB,       ///< B split by columns of op(B), A and D by rows: gather B, GEMM
  ReduceScatterRows, ///< A and B split along K, D by rows: partial GEMMs, reduce-scatter
  ReduceScatterCols, ///< A and B split along K, D by columns
  AllReduce,        ///< A and B split along K, D replicated: partial GEMMs, all-reduce
  Summa,            ///< block-cyclic A, B and D (any grid of the ranks; op(A)'s blocks of
                    ///< rows as D's, op(B)'s blocks of columns as D's): each rank assembles
                    ///< the rows of op(A) and columns of op(B) its blocks of D need, then GEMMs
};
const char *algorithmName(Algorithm algorithm);

struct Options {
  /// The local GEMMs' options (result type, TF32, FP8 settings, forced configuration).
  mepi::Options local;
  /// How many pieces each rank's chunk of the exchanged matrix travels in (0: chosen by the
  /// planner). More pieces overlap more of the exchange, at smaller GEMMs.
  int pieces = 0;
  /// All-reduce: how many bands of D's rows the ring runs over in turn, each band's copies of
  /// finished rows to the peers under the next band's GEMMs (0: chosen by the planner: two
  /// from 4 ranks on where the copies take at most half of the GEMMs' time, else one;
  /// bench/NOTES.md says why).
  int bands = 0;
  /// Reduce-scatter and all-reduce: the GEMMs of partial sums store them straight into the
  /// next rank's buffer over NVLink, instead of a copy engine copying them after each GEMM.
  bool remoteStores = false;
  /// All-reduce: how many of the last pieces of each rank's finished rows its GEMMs store into
  /// every peer's D as well as its own (mirrors, over NVLink), instead of a copy engine
  /// copying them after the GEMM (-1: chosen by the planner, none today; bench/NOTES.md
  /// says why).
  int mirroredPieces = -1;
  /// All-reduce: how many short pieces end each rank's chunk of finished rows, each GEMM's
  /// rows hiding the copies of the piece before it, so that only the last short copy follows
  /// the GEMMs (-1: chosen by the planner; 0: none, equal pieces; 1 or 2).
  int tailPieces = -1;
};

/// D = epilog(alpha * op(A) * op(B)) over the group, each rank passing its local parts of A
/// and B and receiving its part of D; `distributions` are A's, B's and D's (three entries).
/// Collective: every rank constructs, plans, executes and frees (or destroys) its object in
/// the same order. A rank that refuses an argument makes every rank throw (the others with an
/// error naming it), and ranks that pass different dtypes, options, epilogs or distributions
/// are told so, before any shared memory is sized.
class Matmul {
public:
  Matmul(const Tensor &a, const Tensor &b, std::optional<Tensor> c,
         const std::vector<Distribution> &distributions, float alpha = 1.0f,
         std::optional<float> beta = std::nullopt, Qualifiers qualifiers = {},
         Options options = {});
  Matmul(Matmul &&) noexcept;
  Matmul &operator=(Matmul &&) noexcept;
  ~Matmul();

  /// Plans the local GEMMs with `epilog`, fused where the math allows: into every chunk's GEMM
  /// for the all-gathers, into the GEMM that completes each reduction for the reduce-scatters
  /// (an epilog applies to the reduced sum), into SUMMA's GEMMs. Inputs indexed by D's rows
  /// ("bias") are this rank's rows of D, in the order it holds them, when D is split by rows
  /// (Slab.X, or block-cyclic over several grid rows), all of them otherwise. DRELU and DGELU
  /// (and their _BGRAD forms) read this rank's "relu_aux" or "gelu_aux", as the forward
  /// epilog's auxOutputs() returned it. The bias gradients (DRELU_BGRAD, DGELU_BGRAD: sums of
  /// D's rows; BGRADA: of op(A)'s rows; BGRADB: of op(B)'s columns) are of the global
  /// product: each rank receives those of its D's rows (columns for BGRADB), the ranks'
  /// partial sums added by an all-reduce where K or D's columns are split. Not on a SUMMA grid
  /// of several columns for D's rows.
  void plan(Epilog epilog = Epilog::Default, const EpilogInputs &inputs = {});
  /// Plans with a user epilog (mepi/Matmul.h), applied where a built-in one would be. It sees
  /// this rank's D as a single GPU's D: its row and column arguments index this rank's part,
  /// and its inputs are this rank's (row inputs [rows of this rank's D], column inputs
  /// [columns], matrix inputs [rows, columns], scalars). Its outputs besides D are this rank's,
  /// as a single GPU's for its D (column and scalar reductions combine the local GEMMs'
  /// partials in f32, and under all-reduce the ranks'). Every rank must give the same text,
  /// function, input kinds and dtypes, and outputs.
  void plan(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs = {});
  /// Runs the whole product on `stream` (exchanges on a stream of mepi's own, joined back):
  /// returns this rank's part of D, owned by this object and rewritten by later executes.
  Tensor execute(CUstream stream = nullptr);
  /// The aux outputs of the planned epilog (RELU_AUX, RELU_AUX_BIAS: "relu_aux"; GELU_AUX,
  /// GELU_AUX_BIAS: "gelu_aux") for this rank's part of D, in the layout of a single GPU's
  /// Matmul::auxOutputs() for a D of that shape, and the bias gradient ("drelu_bgrad",
  /// "dgelu_bgrad", "bgrada": [rows of this rank's D]; "bgradb": [its columns], in D's type),
  /// or a user epilog's outputs; written by each execute and owned by this object. With a
  /// replicated D (all-reduce) every rank's are of all of D.
  const std::map<std::string, Tensor> &auxOutputs() const;
  /// Replaces A and B (same dtypes, shapes and strides) and the epilog inputs.
  void resetOperands(const Tensor &a, const Tensor &b, const EpilogInputs &inputs = {});
  void free();

  Algorithm algorithm() const;
  /// The global M, N, K.
  std::array<int64_t, 3> globalShape() const;
  /// The planned schedule: exchanges and local GEMMs per stream, one step a line.
  std::string schedule() const;

  struct State;

private:
  std::unique_ptr<State> state;
};

} // namespace mepi::dist

#endif // MEPI_DISTRIBUTED_H
