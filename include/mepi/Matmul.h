// mepi's C++ API: a stateful matmul with a fused epilog, in the manner of nvmath-python's Matmul.
//
//   mepi::Matmul mm(a, b);                       // describe: operands are validated here
//   mm.plan(mepi::Epilog::ReluBias, {bias});      // plan + JIT compile (cached per problem)
//   mepi::Tensor d = mm.execute(stream);          // launch on the caller's stream
//
// Tensors are DLPack-style descriptors of device memory; mepi never copies them.
#ifndef MEPI_MATMUL_H
#define MEPI_MATMUL_H

#include "mepi/Errors.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

typedef struct CUstream_st *CUstream;

namespace mlir::mepi {
struct DeviceObject;
} // namespace mlir::mepi

namespace mepi {
namespace runtime {
struct MatmulProblem;
} // namespace runtime
namespace capi {
struct CMatmul;
} // namespace capi

/// UInt8: the bytes of a bitmask (the "relu_aux" mask), not numbers. Int32, Int64: a grouped
/// matmul's group bounds and weight indices (GroupedMatmul.h). Float8E4M3FN, Float8E5M2: the
/// 8-bit floats of FP8 matmuls (A and B: e4m3 x e4m3, e4m3 x e5m2, e5m2 x e4m3; D too).
enum class DType { Float16, BFloat16, Float32, UInt8, Int32, Int64, Float8E4M3FN, Float8E5M2 };

/// A device tensor: pointer, device ordinal, element type, shape and strides in elements
/// (empty strides: row-major). Leading dimensions beyond the last two are batch dimensions.
struct Tensor {
  void *data = nullptr;
  int device = 0;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

/// The built-in epilogs: nvmath-python's (cuBLASLt's) catalog, and SIGMOID, TANH, SILU.
///
/// Inputs (EpilogInputs): "bias", one value per row of D ([batch...,] M, any float type), for
/// the *BIAS epilogs; "relu_aux" for DRELU and DRELU_BGRAD, "gelu_aux" for DGELU and
/// DGELU_BGRAD, as the forward epilog returned them (unbatched, the column stride may be
/// larger: a block of rows of a larger aux matrix, as cuBLASLt's EPILOGUE_AUX_LD allows).
/// Aux outputs (Matmul::auxOutputs(), by nvmath-python's keys):
///   - "relu_aux" (RELU_AUX, RELU_AUX_BIAS): cuBLASLt's ReLU mask, bit row % 8 of byte
///     (row / 8, col) is 1 where the ReLU's input was >= 0; u8 [batch..., ceil(M/8) rounded up
///     to 16, N], column-major (strides [..., 1, rows]);
///   - "gelu_aux" (GELU_AUX, GELU_AUX_BIAS): the GELU's input in D's type (bf16 for an 8-bit
///     D; Options::auxType chooses another), [batch..., M rounded up to 8 (16 for an 8-bit aux),
///     N], column-major; an 8-bit one holds the input times "aux_quantization_scale";
///   - "drelu_bgrad", "dgelu_bgrad" (DRELU_BGRAD, DGELU_BGRAD): the bias gradient, the sum of
///     each row of D, in D's type, [M] (or [batch..., M, 1]);
///   - "bgrada" (BGRADA): the sum of each row of op(A) over K, in D's type, [M] (or
///     [batch..., M, 1]); "bgradb" (BGRADB): the sum of each column of op(B) over K, [N] (or
///     [batch..., N, 1]). D = op(A) op(B) as with DEFAULT.
///   - "result_amax" (Options::resultAmax): max |D| as one f32, before D is rounded;
///   - "gelu_aux_amax" (Options::auxAmax): max |GELU input| as one f32, before its scale.
enum class Epilog {
  Default, Relu, ReluAux, Bias, ReluBias, ReluAuxBias, DRelu, DReluBGrad,
  Gelu, GeluAux, GeluBias, GeluAuxBias, DGelu, DGeluBGrad, Sigmoid, Tanh, Silu, BGradA, BGradB
};

/// nvmath-python's name of `epilog` ("DEFAULT", "RELU_AUX_BIAS", ...; "SIGMOID", "TANH",
/// "SILU"), and the epilog of such a name (none for another name).
const char *epilogName(Epilog epilog);
std::optional<Epilog> epilogNamed(std::string_view name);

struct EpilogInputs {
  std::optional<Tensor> bias;
  std::optional<Tensor> reluAux;
  std::optional<Tensor> geluAux;
  /// "aux_quantization_scale": an 8-bit gelu_aux's scale (Options::auxType), f32, one value
  /// on the device, read at every execution: gelu_aux = GELU input * scale, saturated.
  std::optional<Tensor> auxQuantizationScale;
};

/// How a user epilog input is indexed by the output element (row, col): one value per row of D
/// ([batch..., M]), per column ([batch..., N]), one for all (a rank-0 tensor), or per element
/// ([batch..., M, N]). Leading batch dimensions are optional and broadcast.
enum class InputKind { Row, Col, Scalar, Matrix };

struct UserEpilogInput {
  Tensor tensor;
  InputKind kind = InputKind::Row;
};

/// Device code a user epilog calls, linked by nvJitLink: PTX or LTO-IR (nvcc -dlto, NVRTC,
/// Numba), cubin or fatbin. Its functions follow the C ABI: `extern "C" __device__ float
/// f(float acc, ...)` with scalar arguments (pass the row/col indices as int64_t, and
/// UserEpilog::userData, an i64 in the epilog, as a `const void *`).
struct DeviceCode {
  enum class Kind { PTX, LTOIR, Cubin, Fatbin };
  Kind kind = Kind::PTX;
  std::string name; ///< shown in nvJitLink's logs
  std::vector<char> bytes;
};

/// An output a user epilog writes besides D, returned by Matmul::auxOutputs() under `key`:
///   - Matrix: one value per element of D, row-major [batch..., M, N] of `dtype` (f16, bf16,
///     f32); the function returns it in `dtype`;
///   - Bitmask: one bit per element of D in cuBLASLt's ReLU-mask layout (as "relu_aux"); the
///     function returns an i1;
///   - RowReduction, ColReduction, ScalarReduction: the function returns one f32 per element;
///     they are combined (`combiner`: sum or max) over each row of D ([batch..., M]), each
///     column ([batch..., N]) or all of D (a rank-0 tensor), in f32 and in a fixed order, and
///     stored as `dtype`.
struct UserEpilogOutput {
  enum class Kind { Matrix, Bitmask, RowReduction, ColReduction, ScalarReduction };
  enum class Combiner { Add, Max };
  std::string key;
  Kind kind = Kind::Matrix;
  DType dtype = DType::Float32;
  Combiner combiner = Combiner::Add;
};

/// A user epilog as MLIR text: `function` is a func.func of type
/// (f32 acc, one element per input..., index row, index col)
///   -> (element type of D, one value per output...),
/// e.g. `func.func @silu(%acc: f32, %row: index, %col: index) -> bf16 { ... }`.
/// It is inlined into the kernel (no call remains); other functions in the text may be called.
/// Functions only declared in the text (`func.func private @f(f32) -> f32`) are external device
/// code: they stay calls and are linked from `deviceCode`.
struct UserEpilog {
  std::string mlir;
  std::string function;
  std::vector<DeviceCode> deviceCode;
  std::vector<UserEpilogOutput> outputs;
  /// User data for the epilog (e.g. a device pointer to a parameter struct), passed by value
  /// to every launch: when set, the function takes one more argument after the inputs, an
  /// `i64` holding this address, which it hands to external functions as their
  /// `const void *user` (see DeviceCode). Null: no such argument. Kept for later executes.
  const void *userData = nullptr;
};

class EpilogBuilder; // mepi/EpilogBuilder.h
struct Groups;        // mepi/GroupedMatmul.h
class GroupedMatmul;

struct Qualifiers {
  bool transposeA = false;
  bool transposeB = false;
};

/// FP8 quantization scales (cuBLASLt's and nvmath-python's): f32 device tensors, read by the
/// kernel at every execution (no host copy), with 8-bit A and B only. With them
///   D = sD * epilog(alpha * sA * sB * op(A) op(B) + beta * sC * C, inputs...)
/// where `a` is one value ([] or [1]: tensor-wise) or one per row of D ([M]: row-wise), `b`
/// one value or one per column of D ([N]; grouped: [S], one per group, or [S, N]), `c` one
/// value (C's dequantization scale, with an operand c only), `d` one value. Block scaling
/// (DeepSeek-V3's, cuBLASLt's VEC128_32F / BLK128x128_32F; 2-D problems): `a` [M, ceil(K /
/// 128)], one per row of op(A) and 128 elements of K, with `b` [ceil(N / 128), ceil(K / 128)],
/// one per 128 x 128 block of op(B) (any strides: torch's M-major `a` too);
///   D = sD * epilog(alpha * sum_j a[row, j] b[col / 128, j] (op(A) op(B) over block j of K)
///                   + beta * sC * C),
/// each block's sums scaled as the kernel promotes them into f32 (not with fastAccumulation).
/// "result_amax" is taken before sD, and an 8-bit D is rounded to nearest and saturated to its
/// largest finite value. Not with a user epilog (which reads its scales as epilog inputs).
struct QuantizationScales {
  std::optional<Tensor> a, b, c, d;
};

struct Options {
  /// Element type of D (default: the type of A and B).
  std::optional<DType> resultType;
  /// Target architecture; empty: the device's (sm_90a on Hopper).
  std::string arch;
  /// f32 operands may be multiplied at TF32 precision (10-bit mantissa, f32 sums), as tensor
  /// cores do; off by default (full f32). No effect on 16-bit operands.
  bool allowTF32 = false;
  /// Forces the kernel configuration, in the form kernelConfiguration() prints, e.g.
  /// "#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>>"; empty: the
  /// planner's heuristic. plan() fails when the configuration cannot run the problem.
  std::string kernelConfig;
  /// Also compute max |D| over all of D (an aux output "result_amax", one f32).
  bool resultAmax = false;
  /// The element type of the "gelu_aux" that GELU_AUX and GELU_AUX_BIAS write (nvmath-python's
  /// MatmulEpilogPreferences.aux_type, cuBLASLt's EPILOGUE_AUX_DATA_TYPE); unset: D's type,
  /// bf16 for an 8-bit D. Another type than D's needs 8-bit A and B; an 8-bit one (e4m3,
  /// e5m2) needs EpilogInputs::auxQuantizationScale.
  std::optional<DType> auxType;
  /// Also compute max |GELU input| before its scale (an aux output "gelu_aux_amax", one f32;
  /// nvmath's aux_amax, cuBLASLt's EPILOGUE_AUX_AMAX_POINTER). With an 8-bit auxType only.
  bool auxAmax = false;
  /// 8-bit A and B: keep the tensor cores' own sums over all of K (about 14 significant bits;
  /// cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM, nvmath's fast_accumulation) instead of adding
  /// them into f32 every 128 elements of K. Faster, less accurate. No effect on other types.
  bool fastAccumulation = false;
  /// FP8 scales (see QuantizationScales).
  QuantizationScales quantizationScales;
  /// MX block scaling of 8-bit A and B (MXFP8; nvmath-python's `block_scaling`, cuBLASLt's
  /// VEC32_UE8M0): quantizationScales.a and .b are UInt8 e8m0 exponents e (factor 2^(e - 127),
  /// 255 NaN), one per 32 elements of K of each row of op(A) and each column of op(B), each
  /// 1-D in cuBLASLt's interleaved layout (nvmath's to_block_scale: tiles of 128 rows x 4
  /// blocks; R rows and ceil(K / 32) blocks padded to whole tiles). Hopper has no MX MMA: a
  /// pre-pass writes bf16 copies of A and B times their factors (exact, unless a product
  /// leaves bf16's range), which a bf16 GEMM multiplies with f32 sums. 2-D problems without c,
  /// a 16- or 32-bit D, no scale d.
  bool blockScaling = false;
  /// The kernel also stores each element of D to this many other matrices of D's layout
  /// (Matmul::setMirrors), in the same stores: typically copies of D on other GPUs, mapped
  /// over NVLink, so that a collective's copy of D is done by the GEMM itself. 2-D D only.
  int mirrors = 0;
  /// The column stride of the aux matrices the epilog writes, in rows of D (cuBLASLt's
  /// EPILOGUE_AUX_LD): "gelu_aux" then holds that many elements a column (at least M rounded
  /// up to 8, a multiple of 8), the ReLU mask ("relu_aux", a user epilog's bitmask) that many
  /// bits (at least M rounded up to 128, a multiple of 128). 0: the smallest. 2-D D only. With
  /// setAuxOutput() the kernel writes its aux rows into a block of a taller aux matrix.
  int64_t auxLeadingDimension = 0;
};

/// What Matmul::autotune() reports as it goes: each candidate compiled, then each one timed.
struct AutotuneProgress {
  enum class Stage { Compiled, Timed } stage = Stage::Compiled;
  std::string config;         ///< the candidate, as kernelConfiguration() prints it
  size_t done = 0, total = 0; ///< candidates through this stage so far, and in all
  /// Timed: its median time in ms. Negative when it cannot run the problem (Compiled or Timed).
  double ms = 0;
};

/// A planned matrix product, executed many times. Threads: one at a time per object (calls
/// from two threads on one Matmul must be serialized by the caller); separate objects are
/// independent, and planning from many threads at once is safe (the kernel caches are).
/// Streams: execute() may go to several streams; each stream has its own workspace (split-K
/// and stream-K counters) and staged operand copies, so their launches never share them, but D
/// and the aux outputs are one set that every execute rewrites.
class Matmul {
public:
  /// Describes D = epilog(alpha * op(A) * op(B) + beta * C). `c` requires `beta`; A, B, C keep
  /// their shapes and strides for the life of the object (see resetOperands).
  Matmul(const Tensor &a, const Tensor &b, std::optional<Tensor> c = std::nullopt,
         float alpha = 1.0f, std::optional<float> beta = std::nullopt, Qualifiers qualifiers = {},
         Options options = {});
  Matmul(Matmul &&) noexcept;
  Matmul &operator=(Matmul &&) noexcept;
  ~Matmul();

  /// Plans the problem with `epilog` and compiles its kernel (or takes it from the cache).
  void plan(Epilog epilog = Epilog::Default, const EpilogInputs &inputs = {});
  /// Plans the problem with a user epilog reading `inputs` (kept for later executes).
  void plan(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs = {});
  /// Plans the problem with a builder epilog (mepi/EpilogBuilder.h) reading `inputs` by the
  /// names it declared: each one it reads must be given, and no other. Epilog inputs read by
  /// user epilogs are kept as given; resetOperands replaces only a, b and C (which a builder
  /// epilog may read).
  void plan(const EpilogBuilder &epilog, const std::map<std::string, Tensor> &inputs = {});
  /// Launches on `stream` and returns D (allocated by mepi on first execute, owned by this
  /// object, rewritten by later executes). Throws if not planned or operands were released.
  Tensor execute(CUstream stream = nullptr);
  /// Has execute() write D into the caller's `d` (of D's dtype, shape and strides, on the
  /// operands' device) instead of memory of its own; execute() then returns `d`. The caller
  /// keeps `d` alive while the object may execute.
  void setResult(const Tensor &d);
  /// The matrices the kernel also stores D to (Options::mirrors of them, each of D's dtype,
  /// shape and strides, 16-byte aligned); they may be on another device whose memory this
  /// one can reach (peer access or IPC mapped by the caller), who keeps them alive while the
  /// object may execute. Required before execute() when Options::mirrors > 0.
  void setMirrors(const std::vector<Tensor> &mirrors);
  /// Has execute() write the aux output `key` (see auxOutputs()) into the caller's `output`
  /// (of the layout auxOutputs() gives it: dtype, shape and strides), until the next plan();
  /// auxOutputs() then returns it. The caller keeps it alive while the object may execute.
  void setAuxOutput(const std::string &key, const Tensor &output);
  /// The aux outputs of the planned epilog by key (see Epilog), written by each execute() and
  /// owned by this object like D. Empty for epilogs without aux outputs.
  const std::map<std::string, Tensor> &auxOutputs() const;
  /// Replaces operands and epilog inputs with others of the same dtype, shape and strides
  /// (checked); the planned epilog's inputs must all be given again.
  void resetOperands(const Tensor &a, const Tensor &b, std::optional<Tensor> c = std::nullopt,
                     const EpilogInputs &inputs = {});
  /// Forgets the operand pointers; execute() throws until resetOperands().
  void releaseOperands();
  /// Releases D and the kernel; the object can only be destroyed afterwards.
  void free();
  /// The planned kernel's configuration as mepi's IR prints it, e.g.
  /// `#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>>`. Throws if not
  /// planned.
  std::string kernelConfiguration() const;
  /// The kernel configurations that can run the planned problem, best first: the heuristic's
  /// own choice, then (16-bit operands, f32 at TF32 precision) the others fastest first by its
  /// cost model, as
  /// kernelConfiguration() prints them. Throws if not planned.
  std::vector<std::string> candidateConfigurations() const;
  /// Times the first `prune` candidates (all when `prune` < 0; when 0, the first 16, which the
  /// cost model orders, for 16-bit operands and f32 at TF32 precision, else all) on the current
  /// operands and epilog inputs: `iterations` launches each on `stream`, timed with CUDA events,
  /// with L2 flushed before every launch; then plans the fastest, and remembers it for this problem, so
  /// that later plans of the same problem in this process take it. Returns the candidates with
  /// their median times in ms, fastest first (a candidate that cannot run this problem is left
  /// out). Writes D and the aux outputs like execute(). Throws if not planned, or when
  /// Options::kernelConfig forces a configuration. The candidates are compiled first, side by
  /// side on the host's cores; `progress`, when given, hears of each one compiled (from the
  /// compiling threads, one report at a time), then, on the calling thread, of each one timed.
  std::vector<std::pair<std::string, double>>
  autotune(int iterations = 3, int prune = 0, CUstream stream = nullptr,
           const std::function<void(const AutotuneProgress &)> &progress = {});

private:
  /// The grouped form (GroupedMatmul): A [T, K] x B [W, K, N] in groups -> D [T, N].
  Matmul(const Tensor &a, const Tensor &b, const Groups &groups, float alpha,
         Qualifiers qualifiers, Options options);
  friend class GroupedMatmul;
  friend struct capi::CMatmul; // the C API's grouped matmuls are MepiMatmul handles
  /// resetOperands of the grouped form: new bounds and weight indices of the same layouts too.
  void resetGroupedOperands(const Tensor &a, const Tensor &b, const Groups &groups,
                            const EpilogInputs &inputs);
  void planUserEpilog(const UserEpilog &epilog, const std::vector<UserEpilogInput> &inputs,
                      const std::vector<std::string> &inputNames, bool readsC);
  void planProblem(const runtime::MatmulProblem &problem, std::vector<Tensor> builtinInputs,
                   std::vector<Tensor> userInputs,
                   std::vector<mlir::mepi::DeviceObject> objects);
  friend Tensor matmul(const Tensor &, const Tensor &, std::optional<Tensor>, float,
                       std::optional<float>, Epilog, const EpilogInputs &, Qualifiers, CUstream);
  struct State;
  std::unique_ptr<State> state;
};

/// Function form: describe, plan and execute once; returns D (caller owns it: free with cuMemFree).
Tensor matmul(const Tensor &a, const Tensor &b, std::optional<Tensor> c = std::nullopt,
              float alpha = 1.0f, std::optional<float> beta = std::nullopt,
              Epilog epilog = Epilog::Default, const EpilogInputs &inputs = {},
              Qualifiers qualifiers = {}, CUstream stream = nullptr);

} // namespace mepi

#endif // MEPI_MATMUL_H
