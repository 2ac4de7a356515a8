// mepi's grouped matmul (mixture-of-experts layers, segment GEMM): the rows of A and D cut into
// groups whose bounds stay on the device, each group multiplied by its own matrix of B, with a
// fused epilog; in the manner of torch._grouped_mm (2-D x 3-D) and FlashInfer's segment GEMM.
//
//   mepi::GroupedMatmul mm(x, w, {offs});       // x [T, K], w [S, K, N], offs int32 [S]
//   mm.plan(mepi::Epilog::Gelu);
//   mepi::Tensor d = mm.execute(stream);        // [T, N]; no host read of offs
#ifndef MEPI_GROUPEDMATMUL_H
#define MEPI_GROUPEDMATMUL_H

#include "mepi/Matmul.h"

namespace mepi {

/// How Groups::bounds gives the groups' rows (S groups):
///   Ends [S]: group g is rows [bounds[g - 1], bounds[g]), 0 before the first (torch's `offs`);
///   Indptr [S + 1]: rows [bounds[g], bounds[g + 1]) (FlashInfer's `seg_indptr`);
///   Lengths [S]: consecutive groups from row 0 of bounds[g] rows (FlashInfer's `seg_lens`);
///   Masked [S]: DeepGEMM's masked layout: A is [S, R, K], each group its own R rows of which
///     the first bounds[g] count (clamped to [0, R]), and D is [S, R, N]; rows past a group's
///     count are not written.
/// Bounds are clamped to [0, T] and a group ends no earlier than it starts; rows in no group
/// are not written.
enum class GroupForm { Ends, Indptr, Lengths, Masked };

struct Groups {
  Tensor bounds; ///< 1-D Int32 or Int64 device tensor, read by the kernel only
  GroupForm form = GroupForm::Ends;
  /// Which matrix of B group g multiplies: weightIndices[g] (1-D Int32 or Int64 [S]);
  /// without it, matrix g (B then has S matrices).
  std::optional<Tensor> weightIndices;
};

/// D[rows of group g] = epilog(alpha * op(A)[rows of g] * op(B)[w(g)]) for A [T, K] (or [K, T]
/// with Qualifiers::transposeA), B [W, K, N] (or [W, N, K] with transposeB), D [T, N].
/// Groups of columns (torch._grouped_mm's 3-D x 2-D): A [S, M, K] (or [S, K, M]) by B [K, N]
/// (or [N, K]), D[:, columns of g] = A[g] * B[:, columns of g]; it runs as the transposed
/// problem (groups of rows of D^T), so D comes back as a view [M, N] with strides [1, M], and
/// an epilog sees D^T's coordinates (its row is D's column).
/// Groups along K (torch._grouped_mm's 2-D x 2-D, the weight gradient dW_g = X_g^T dY_g): A
/// [M, K] (or [K, M]) by B [K, N] (or [N, K]) with bounds in the Ends or Indptr form cutting K,
/// D [S, M, N] with D[g] = epilog(alpha * op(A)[:, K of g] * op(B)[K of g, :]) (an empty
/// group's D[g] is the epilog of zero); 16-bit operands, no weight indices; an epilog's group
/// is g and its row and col D[g]'s.
/// Executes read the group sizes on the device only (no host synchronization), so a CUDA graph
/// may capture execute() and replay it with other sizes in the same tensors.
class GroupedMatmul {
public:
  GroupedMatmul(const Tensor &a, const Tensor &b, const Groups &groups, float alpha = 1.0f,
                Qualifiers qualifiers = {}, Options options = {});
  /// A built-in epilog: DEFAULT, RELU, GELU, SIGMOID, TANH, SILU, the *BIAS forms with
  /// inputs.bias [S, N] (one value per output feature of each group; [N] for one shared by all),
  /// GELU_AUX(_BIAS) with a matrix aux output [T rounded up to 8, N] column-major, and DRELU /
  /// DGELU reading the forward pass's aux. Not in a grouped matmul: RELU_AUX (its mask byte
  /// covers 8 rows, which may belong to two groups) and the bias-gradient epilogs (BGRAD*).
  void plan(Epilog epilog = Epilog::Default, const EpilogInputs &inputs = {});
  /// A user epilog: its function takes one more argument after col, the row's group (index);
  /// row, col and scalar inputs may have a leading dimension of S (one value set per group).
  void plan(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs = {});
  /// Launches on `stream`; returns D, owned by this object and rewritten by later executes.
  /// The first execute allocates D, the aux outputs and the stream's workspace: execute once
  /// before capturing later executes in a CUDA graph, which then replays with whatever sizes
  /// the bounds hold on the device.
  Tensor execute(CUstream stream = nullptr);
  /// Replaces the operands, bounds, weight indices and epilog inputs with others of the same
  /// dtypes, shapes and strides (checked), as Matmul::resetOperands.
  void resetOperands(const Tensor &a, const Tensor &b, const Groups &groups,
                     const EpilogInputs &inputs = {});
  /// Forgets the operand pointers; execute() throws until resetOperands().
  void releaseOperands() { matmul.releaseOperands(); }
  const std::map<std::string, Tensor> &auxOutputs() const { return matmul.auxOutputs(); }
  std::string kernelConfiguration() const { return matmul.kernelConfiguration(); }
  void free() { matmul.free(); }

private:
  Matmul matmul;
};

} // namespace mepi

#endif // MEPI_GROUPEDMATMUL_H
