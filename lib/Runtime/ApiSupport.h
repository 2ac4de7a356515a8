// What the C++ API's implementation files share: checks of the caller's tensors, dtype and
// epilog names, device queries, and the errors they throw (mepi::Error).
#ifndef MEPI_RUNTIME_APISUPPORT_H
#define MEPI_RUNTIME_APISUPPORT_H

#include "mepi/Matmul.h"

#include "Runtime/ApiErrors.h"
#include "Runtime/CudaDriver.h"
#include "Runtime/Problem.h"

#include <string>
#include <utility>
#include <vector>

namespace mepi::api {
using runtime::CudaDriver;
using runtime::ElementType;
using runtime::MatmulProblem;
using runtime::OperandLayout;
using runtime::throwAsApiError;

/// Throws `message` as a mepi::Error (an invalid value).
[[noreturn]] void fail(const std::string &message);

/// Throws a runtime failure as a mepi::Error "context: message" with its status (ApiErrors.h).
void check(llvm::Error error, const std::string &context);

template <typename T> T check(llvm::Expected<T> value, const std::string &context) {
  if (!value)
    throwAsApiError(value.takeError(), context);
  return std::move(*value);
}

/// "[2, 3]".
std::string dims(const std::vector<int64_t> &v);

/// The runtime's element type of an API dtype, and back.
ElementType elementType(DType dtype);

DType dtypeOf(ElementType type);

/// The FP8 scales after checking them against the problem (8-bit A and B, f32, on `device`, of
/// shape [] or [1], or [M] for a and [N] for b), a single value as a rank-0 tensor.
QuantizationScales validatedScales(const QuantizationScales &scales, const MatmulProblem &p,
                                   int device);

/// MX block scaling (Options::blockScaling): A's and B's e8m0 scales after checking them
/// against the problem (8-bit 2-D A and B, no c, no groups, no d scale, a 16- or 32-bit D;
/// UInt8, 1-D, in cuBLASLt's interleaved layout of mxScaleBytes(rows, ceil(K / 32)) bytes, on
/// `device`).
std::pair<Tensor, Tensor> validatedMxScales(const QuantizationScales &scales,
                                            const MatmulProblem &p, int device);

/// The given epilog inputs by key, in the order the built-in epilogs read them.
std::vector<std::pair<const char *, const Tensor *>>
namedInputs(const EpilogInputs &inputs, const QuantizationScales &scales = {});

/// Built-in epilog input `key` as the planner takes it: a one-value scale of shape [1] as a
/// rank-0 tensor (the quantization scales' rule).
Tensor builtinInputTensor(const char *key, const Tensor &t);

/// The layout of `t`, after checks that need no device: rank, strides, pointer.
OperandLayout validated(const Tensor &t, const std::string &name, size_t minRank);

/// The bytes `layout` spans (at least its element count's); throws, naming `name` ("operand
/// a", "result d", "aux output gelu_aux"), where that exceeds 2^63.
int64_t spanBytes(const OperandLayout &layout, const std::string &name);

/// numpy.matmul's result batch shape of A and B.
std::vector<int64_t> broadcastBatch(const std::vector<int64_t> &a,
                                    const std::vector<int64_t> &b);

/// `now` has the dtype, shape and strides the plan assumed (else an error from `call`).
void expectSameLayout(const Tensor &now, const OperandLayout &planned, const std::string &name,
                      const std::string &call = "resetOperands");

/// Device memory of the Matmul's device, a's (checked once per set of operands: a few driver
/// calls): a kernel reads every operand in a's context.
void checkDevicePointer(const CudaDriver &driver, const Tensor &t, const std::string &name,
                        int device);

/// The largest power of two up to 16 that divides both addresses (TMA needs 16).
unsigned commonAlignment(const void *a, const void *b);

/// The device's target ("sm_90a" on Hopper), from the driver.
std::string deviceArch(int device);

/// The device's multiprocessors, or 0 without a driver (the chip's reference figure then).
int64_t deviceMultiprocessors(int device);

} // namespace mepi::api

#endif // MEPI_RUNTIME_APISUPPORT_H
