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
#include <memory>
#include <optional>
#include <string>
#include <vector>

typedef struct CUstream_st *CUstream;

namespace mlir::mepi {
struct DeviceObject;
} // namespace mlir::mepi

namespace mepi {
namespace runtime {
struct MatmulProblem;
} // namespace runtime

enum class DType { Float16, BFloat16, Float32 };

/// A device tensor: pointer, device ordinal, element type, shape and strides in elements
/// (empty strides: row-major). Leading dimensions beyond the last two are batch dimensions.
struct Tensor {
  void *data = nullptr;
  int device = 0;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

/// The built-in epilogs (nvmath-python's names, and SIGMOID, TANH, SILU). The bias is per row
/// of D (length M).
enum class Epilog { Default, Bias, Relu, ReluBias, Gelu, GeluBias, Sigmoid, Tanh, Silu };

struct EpilogInputs {
  std::optional<Tensor> bias;
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
/// f(float acc, ...)` with scalar arguments (pass the row/col indices as int64_t).
struct DeviceCode {
  enum class Kind { PTX, LTOIR, Cubin, Fatbin };
  Kind kind = Kind::PTX;
  std::string name; ///< shown in nvJitLink's logs
  std::vector<char> bytes;
};

/// A user epilog as MLIR text: `function` is a func.func of type
/// (f32 acc, one element per input..., index row, index col) -> element type of D,
/// e.g. `func.func @silu(%acc: f32, %row: index, %col: index) -> bf16 { ... }`.
/// It is inlined into the kernel (no call remains); other functions in the text may be called.
/// Functions only declared in the text (`func.func private @f(f32) -> f32`) are external device
/// code: they stay calls and are linked from `deviceCode`.
struct UserEpilog {
  std::string mlir;
  std::string function;
  std::vector<DeviceCode> deviceCode;
};

struct Qualifiers {
  bool transposeA = false;
  bool transposeB = false;
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
  /// "#mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 6>"; empty: the planner's
  /// heuristic. plan() fails when the configuration cannot run the problem.
  std::string kernelConfig;
};

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
  /// Launches on `stream` and returns D (allocated by mepi on first execute, owned by this
  /// object, rewritten by later executes). Throws if not planned or operands were released.
  Tensor execute(CUstream stream = nullptr);
  /// Replaces operands with others of the same dtype, shape and strides (checked).
  void resetOperands(const Tensor &a, const Tensor &b, std::optional<Tensor> c = std::nullopt,
                     std::optional<Tensor> bias = std::nullopt);
  /// Forgets the operand pointers; execute() throws until resetOperands().
  void releaseOperands();
  /// Releases D and the kernel; the object can only be destroyed afterwards.
  void free();
  /// The planned kernel's configuration as mepi's IR prints it, e.g.
  /// `#mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4>`. Throws if not planned.
  std::string kernelConfiguration() const;

private:
  void planProblem(const runtime::MatmulProblem &problem, std::optional<Tensor> bias,
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
