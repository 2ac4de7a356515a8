// A matmul problem as the runtime sees it: operand layouts, qualifiers and the epilog. Plain C++
// (no MLIR headers), so that API code and tests can describe problems cheaply.
#ifndef MEPI_RUNTIME_PROBLEM_H
#define MEPI_RUNTIME_PROBLEM_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mepi::runtime {

/// U8: bytes of a bitmask (the ReLU aux), not numbers.
/// I32, I64: a grouped problem's group bounds and weight indices.
enum class ElementType { F16, BF16, F32, F8E4M3FN, F8E5M2, U8, I32, I64 };
const char *elementTypeName(ElementType type);
/// The type as MLIR text spells it ("bf16", "f8E4M3FN", "i8"): what user epilogs' signatures
/// use.
const char *mlirTypeName(ElementType type);
unsigned elementTypeBytes(ElementType type);

/// Shape and strides (in elements) of one operand; the data pointer is given at launch.
struct OperandLayout {
  ElementType type = ElementType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

/// An operand of a built-in epilog by its nvmath-python key ("bias", "relu_aux", "gelu_aux",
/// "drelu_bgrad", "result_amax", ...).
struct NamedLayout {
  std::string key;
  OperandLayout layout;
};

/// How a user epilog input is indexed by the output element (mepi's broadcast kinds).
enum class InputKind { Row, Col, Scalar, Matrix };

/// An input a user epilog reads: [batch..., M] (Row), [batch..., N] (Col), [] (Scalar, a rank-0
/// tensor) or [batch..., M, N] (Matrix).
struct EpilogInput {
  OperandLayout layout;
  InputKind kind = InputKind::Row;
  /// What a matrix input's address promises (bytes; 0: nothing): the wgmma epilog then loads
  /// its element pairs at once, as it does C's (cAlignment).
  unsigned alignment = 0;
};

/// An output a user epilog writes besides D, stored under `key` (mepi's aux and reduction
/// kinds): a row-major [batch..., M, N] matrix of `type` (Matrix); cuBLASLt's 1-bit mask
/// (Bitmask, the layout of "relu_aux"); or the `combiner` reduction of one f32 per element over
/// each row ([batch..., M]), each column ([batch..., N]) or all of D ([]), stored as `type`.
enum class OutputKind { Matrix, Bitmask, RowReduction, ColReduction, ScalarReduction };
enum class Combiner { Add, Max };
struct EpilogOutput {
  std::string key;
  OutputKind kind = OutputKind::Matrix;
  ElementType type = ElementType::F32;
  Combiner combiner = Combiner::Add;
};

/// A user epilog as MLIR text: a func.func `function` of type
/// (acc: f32, one element per input..., row: index, col: index)
///   -> (D's element type, one value per output...)
/// where a Matrix output returns its element type, a Bitmask output an i1 and a reduction an f32.
/// With `userData`, the function takes one more argument after the inputs: an i64, the address
/// of the caller's user data (given at launch), which external C functions take as a pointer.
struct UserEpilogSource {
  std::string mlir;
  std::string function;
  std::vector<EpilogOutput> outputs;
  bool userData = false;
};

/// A grouped problem's groups (mepi.matmul's `groups`): the rows of A and D in groups whose
/// bounds a 1-D i32 or i64 device tensor gives in `form`, and optionally which matrix of B each
/// group multiplies.
enum class GroupForm { Ends, Indptr, Lengths, Masked };
struct GroupOperands {
  GroupForm form = GroupForm::Ends;
  /// The bounds cut K (each group its own D [S, M, N]) instead of the rows of A and D.
  bool alongK = false;
  OperandLayout bounds;
  std::optional<OperandLayout> weightIndices;
};

/// D = epilog(alpha * op(A) * op(B) + beta * C, inputs...). alpha and beta are launch-time
/// values, so one compiled kernel serves every alpha/beta.
struct MatmulProblem {
  OperandLayout a, b, d;
  std::optional<OperandLayout> c;
  bool transposeA = false;
  bool transposeB = false;
  bool allowTF32 = false;         ///< f32 operands may be multiplied at TF32 precision
  /// 8-bit A and B: the tensor cores' sums are kept over all of K (no f32 promotion)
  bool fastAccumulation = false;
  /// MX block scaling of 8-bit A and B (MXFP8: e8m0 scales per 32 elements of K, in
  /// cuBLASLt's interleaved layout): applied by pre-passes that write exactly scaled bf16
  /// copies (MxScaling.h); the scales are not epilog inputs.
  bool mxScales = false;
  std::string epilog = "DEFAULT"; ///< nvmath-python's name: DEFAULT, BIAS, RELU_BIAS, ...
  /// The built-in epilog's inputs by key, in any order ("bias": [batch...,] M, one value per row
  /// of D; "relu_aux", "gelu_aux": what the forward epilog wrote, see epilogOutputLayouts), then
  /// the FP8 scales, f32 ("a_scale": [] or [M]; "b_scale": [] or [N]; "d_scale": [];
  /// "aux_quantization_scale": [], the scale of an 8-bit "gelu_aux").
  std::vector<NamedLayout> builtinInputs;
  /// The "bias" is [P], one vector for every batch element that foldedBatch (FoldBatch.h)
  /// merged into D's rows, P rows each: row r reads bias[r mod P] (mepi.matmul's cyclic_row).
  bool cyclicBias = false;
  bool resultAmax = false; ///< also compute max |D| (f32, before D is rounded)
  /// The element type of the "gelu_aux" the forward GELU epilogs write (nvmath's
  /// MatmulEpilogPreferences.aux_type); unset: geluAuxType's default.
  std::optional<ElementType> auxType;
  /// Also compute max |gelu_aux| ("gelu_aux_amax", f32, before the aux's scale); 8-bit auxType
  /// only (nvmath's aux_amax).
  bool auxAmax = false;
  std::optional<UserEpilogSource> userEpilog; ///< replaces `epilog` when set
  std::vector<EpilogInput> userInputs;        ///< the inputs the user epilog reads
  /// Bytes to which the addresses of a and b are both aligned, at most 16 (0: unknown). TMA
  /// kernels need 16; the planned kernel then requires it of every later set of operands.
  unsigned addressAlignment = 0;
  /// Bytes to which C's address is aligned, at most 16 (0: no C, or unknown). Kernels load C's
  /// element pairs at once where it covers a pair; the planned kernel then requires it of
  /// every later C.
  unsigned cAlignment = 0;
  std::string kernelConfig; ///< a #mepi.kernel_config to use instead of the heuristic's
  /// Multiprocessors of the device the kernel is planned for, which size its grid and the
  /// heuristic's waves (0: the chip's reference part, TargetInfo::forChip).
  int64_t multiprocessors = 0;
  /// Grouped: A [T, K], B [W, K, N] (or [W, N, K]), D [T, N] in groups (the planned function
  /// then takes the bounds and the weight indices after every output).
  std::optional<GroupOperands> groups;
  /// D is also stored to this many matrices of D's layout (mepi.matmul's mirrors: another GPU's
  /// copy of D), the planned function's last arguments; 2-D D without groups.
  int64_t mirrors = 0;
  /// The aux matrices' column stride in rows of D (Options::auxLeadingDimension; 0: the
  /// smallest).
  int64_t auxLeadingDimension = 0;
};

/// The element type of "gelu_aux" (written by GELU_AUX*, read by DGELU*): auxType where given,
/// else D's type, bf16 for an 8-bit D (an FP8 aux needs a scale of its own: auxType says so).
ElementType geluAuxType(const MatmulProblem &problem);

/// The element type of the bias gradients (the DRELU_BGRAD / DGELU_BGRAD row sums, BGRADA's and
/// BGRADB's operand sums): D's type, bf16 for an 8-bit D (cuBLASLt's bias type beside an FP8 D;
/// an 8-bit gradient would need a scale of its own).
ElementType gradientType(const MatmulProblem &problem);

/// Row-major strides of `shape`.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape);

/// Whether built-in input `key` is a block scale: "a_scale" or "b_scale" of a problem whose A
/// scale is 2-D ([M, ceil(K / 128)]; validatedScales checked the pair). Block scales keep their
/// place among the planned function's inputs, but the op (and so the kernel ABI) takes them
/// after every other operand, as a_block_scales and b_block_scales.
bool isBlockScale(const MatmulProblem &problem, const std::string &key);

/// Whether `layout` at `address` is a 2-D 16-bit or 8-bit operand with contiguous rows that TMA cannot
/// read in place: its row pitch or its address is not a multiple of 16 bytes (e.g. K = 4099).
/// Tensor-core kernels then read a staged copy (stagedLayout) that execute() refreshes.
bool needsTmaStaging(const OperandLayout &layout, const void *address);

/// The layout of the staged copy of such an operand: the same shape, rows padded to a multiple
/// of 16 bytes. The padding is never read: TMA's bounds are the shape, so it zero-fills there.
OperandLayout stagedLayout(const OperandLayout &layout);

} // namespace mepi::runtime

#endif // MEPI_RUNTIME_PROBLEM_H
