// Strict f32 on the tensor cores (see SplitOperand.h).
#include "Runtime/SplitOperand.h"

#include "Runtime/MxScaling.h"
#include "Runtime/Planner.h"
#include "mepi/Library/EpilogLibrary.h"
#include "mepi/Sm90/Sm90Spec.h"

#include <sstream>

using namespace mepi::runtime;

namespace {
/// The TF32 k-step: one 128-byte line of f32 (Sm90Spec's MMA atom for tf32 reads K in lines).
constexpr int64_t kPartAlignment = 32;

/// `operand` read as X[batch, row, k], K its last dimension when `kLast`, rewritten in `parts`
/// parts; nothing for more than one batch dimension.
std::optional<SplitPlan> planOperand(const OperandLayout &operand, bool kLast, int loPart,
                                     int parts = 3) {
  size_t rank = operand.shape.size();
  if (rank < 2 || rank > 3)
    return std::nullopt;
  SplitPlan plan;
  plan.source = operand;
  if (plan.source.strides.empty())
    plan.source.strides = rowMajorStrides(operand.shape);
  plan.kLast = kLast;
  plan.loPart = loPart;
  plan.parts = parts;
  plan.rows = operand.shape[kLast ? rank - 2 : rank - 1];
  plan.k = operand.shape[kLast ? rank - 1 : rank - 2];
  plan.paddedK = (plan.k + kPartAlignment - 1) / kPartAlignment * kPartAlignment;
  if (rank == 3) {
    plan.batch = operand.shape[0];
    plan.batchStride = plan.source.strides[0];
  }
  // The pre-pass's grid: row tiles along y, batch elements along z (at most 65535 each).
  if ((plan.rows + 31) / 32 > 65535 || plan.batch > 65535)
    return std::nullopt;
  // The GEMM reads all three parts as its K; a copy keeps K, its rows padded to paddedK.
  std::vector<int64_t> shape = {plan.rows, parts * plan.paddedK};
  if (rank == 3)
    shape.insert(shape.begin(), plan.batch);
  std::vector<int64_t> strides = rowMajorStrides(shape);
  if (parts == 1)
    shape.back() = plan.k;
  plan.split = {parts == 1 ? operand.type : ElementType::F32, shape, strides};
  return plan;
}

/// The MLIR element type the pre-pass moves: f32, or the bytes of an 8-bit operand.
const char *elementName(const SplitPlan &plan) {
  return elementTypeBytes(plan.source.type) == 1 ? "i8" : "f32";
}

/// The shared tile: 32 x 33 elements, indexed [row][k] (the padding column spreads a column's
/// 32 elements over the banks).
std::string tileType(const SplitPlan &plan) {
  return std::string("memref<32x33x") + elementName(plan) + ", #gpu.address_space<workgroup>>";
}

bool hasOperandSums(const MatmulProblem &problem) {
  if (problem.userEpilog)
    return false;
  std::optional<mlir::mepi::BuiltinEpilog> epilog =
      mlir::mepi::parseBuiltinEpilog(problem.epilog);
  return epilog && !mlir::mepi::getBuiltinEpilogSignature(*epilog).operandSums.empty();
}

/// "memref<BxD0xD1xf32, strided<[...]>>" of the source as a rank-3 memref (batch 1, stride 0 for
/// a 2-D operand).
std::string sourceType(const SplitPlan &plan) {
  const std::vector<int64_t> &shape = plan.source.shape, &strides = plan.source.strides;
  size_t r = shape.size();
  std::ostringstream os;
  os << "memref<" << plan.batch << "x" << shape[r - 2] << "x" << shape[r - 1] << "x"
     << elementName(plan) << ", strided<[" << plan.batchStride << ", " << strides[r - 2]
     << ", " << strides[r - 1]
     << "]>>";
  return os.str();
}

/// The SSA lines that define %hi and %lo from %v (f32): hi = v rounded to TF32, to nearest with
/// ties away from zero (the rounding of cvt.rna.tf32.f32) by adding half of the dropped
/// 13 bits' place and clearing them; truncated instead where that rounding would overflow to
/// infinity. lo = (v - hi), exact in f32, rounded the same way. Infinities and NaNs pass in hi
/// with lo = 0.
const char *kSplitValue = R"(
          %bits = arith.bitcast %v : f32 to i32
          %up = arith.addi %bits, %half : i32
          %rnaBits = arith.andi %up, %mask : i32
          %rna = arith.bitcast %rnaBits : i32 to f32
          %truncBits = arith.andi %bits, %mask : i32
          %trunc = arith.bitcast %truncBits : i32 to f32
          %rnaAbs = math.absf %rna : f32
          %rnaFinite = arith.cmpf olt, %rnaAbs, %inf : f32
          %hiFinite = arith.select %rnaFinite, %rna, %trunc : f32
          %vAbs = math.absf %v : f32
          %finite = arith.cmpf olt, %vAbs, %inf : f32
          %hi = arith.select %finite, %hiFinite, %v : f32
          %rest = arith.subf %v, %hiFinite : f32
          %restBits = arith.bitcast %rest : f32 to i32
          %restUp = arith.addi %restBits, %half : i32
          %loBits = arith.andi %restUp, %mask : i32
          %loFinite = arith.bitcast %loBits : i32 to f32
          %lo = arith.select %finite, %loFinite, %zero : f32)";
} // namespace

std::array<unsigned, 3> SplitPlan::grid() const {
  return {unsigned(paddedK / 32), unsigned((rows + 31) / 32), unsigned(batch)};
}

const char *SplitPlan::kernelName() const {
  return mxScaleBytes ? mxKernelName : parts == 1 ? copyKernelName : splitKernelName;
}

/// Whether `operand`'s K dimension (the last when `kLast`, else the one before it) is its
/// contiguous one.
static bool kContiguous(const OperandLayout &operand, bool kLast) {
  std::vector<int64_t> strides =
      operand.strides.empty() ? rowMajorStrides(operand.shape) : operand.strides;
  size_t r = strides.size();
  return r >= 2 && strides[kLast ? r - 1 : r - 2] == 1;
}

bool mepi::runtime::splitsInKernel(const MatmulProblem &problem, const void *a, const void *b) {
  if (problem.allowTF32 || problem.a.type != ElementType::F32 ||
      problem.b.type != ElementType::F32 || hasOperandSums(problem) ||
      problem.a.shape.size() != 2 || problem.b.shape.size() != 2 ||
      problem.d.shape.size() != 2 || problem.d.shape[0] > kSplitInKernelMaxRows ||
      problem.transposeA || !problem.transposeB)
    return false;
  // K-major, rows of a multiple of 16 bytes at a 16-byte aligned address.
  auto inPlace = [](const OperandLayout &operand, const void *address) {
    std::vector<int64_t> strides =
        operand.strides.empty() ? rowMajorStrides(operand.shape) : operand.strides;
    return kContiguous(operand, /*kLast=*/true) && strides[0] * 4 % 16 == 0 &&
           reinterpret_cast<uintptr_t>(address) % 16 == 0;
  };
  return inPlace(problem.a, a) && inPlace(problem.b, b);
}

std::optional<SplitProblem> mepi::runtime::splitProblem(const MatmulProblem &problem) {
  if (problem.allowTF32 || problem.a.type != ElementType::F32 ||
      problem.b.type != ElementType::F32 || hasOperandSums(problem))
    return std::nullopt;
  // A is [.., M, K] (K last) unless transposed; B is [.., N, K] when transposed, else [.., K, N].
  std::optional<SplitPlan> a = planOperand(problem.a, !problem.transposeA, /*loPart=*/0);
  std::optional<SplitPlan> b = planOperand(problem.b, problem.transposeB, /*loPart=*/1);
  if (!a || !b)
    return std::nullopt;
  SplitProblem split{problem, a, b};
  split.planned.a = a->split;
  split.planned.b = b->split;
  split.planned.transposeA = false;
  split.planned.transposeB = true;
  split.planned.allowTF32 = true;
  split.planned.addressAlignment = 16; // the parts are mepi's own allocations
  return split;
}


std::optional<SplitProblem> mepi::runtime::kMajorProblem(const MatmulProblem &problem) {
  auto fp8 = [](ElementType t) {
    return t == ElementType::F8E4M3FN || t == ElementType::F8E5M2;
  };
  // A is read as [.., M, K] unless transposed; B as [.., N, K] when transposed.
  bool aKLast = !problem.transposeA, bKLast = problem.transposeB;
  bool copyA = !kContiguous(problem.a, aKLast), copyB = !kContiguous(problem.b, bKLast);
  // Their operand sums read the copy too (OperandSumsPass.h).
  if (!fp8(problem.a.type) || !fp8(problem.b.type) || (!copyA && !copyB))
    return std::nullopt;
  SplitProblem copied{problem, std::nullopt, std::nullopt};
  // The copy is read as [.., rows, K]: A untransposed, B transposed.
  auto copy = [](const OperandLayout &operand, bool kLast, std::optional<SplitPlan> &plan,
                 OperandLayout &planned) {
    plan = planOperand(operand, kLast, 0, /*parts=*/1);
    if (plan)
      planned = plan->split;
    return plan.has_value();
  };
  if (copyA && !copy(problem.a, aKLast, copied.a, copied.planned.a))
    return std::nullopt;
  if (copyB && !copy(problem.b, bKLast, copied.b, copied.planned.b))
    return std::nullopt;
  copied.planned.transposeA = copyA ? false : problem.transposeA;
  copied.planned.transposeB = copyB ? true : problem.transposeB;
  return copied;
}

std::optional<SplitProblem> mepi::runtime::mxProblem(const MatmulProblem &problem) {
  if (!problem.mxScales)
    return std::nullopt;
  SplitProblem mx{problem, std::nullopt, std::nullopt};
  // Both read as [.., rows, K]: A untransposed, B transposed; bf16 copies of K padded to 32.
  for (auto [operand, kLast, plan, planned] :
       {std::tuple{&problem.a, !problem.transposeA, &mx.a, &mx.planned.a},
        std::tuple{&problem.b, problem.transposeB, &mx.b, &mx.planned.b}}) {
    *plan = planOperand(*operand, kLast, 0, /*parts=*/1);
    if (!*plan)
      return std::nullopt;
    (*plan)->mxScaleBytes = mxScaleBytes((*plan)->rows, mxBlocksK((*plan)->k));
    (*plan)->split.type = ElementType::BF16;
    *planned = (*plan)->split;
  }
  mx.planned.transposeA = false;
  mx.planned.transposeB = true;
  mx.planned.mxScales = false;
  mx.planned.fastAccumulation = false;
  mx.planned.addressAlignment = 16; // the copies are mepi's own allocations
  return mx;
}

namespace {
/// The split kernel's first loop: the block's 32 x 32 piece of the source (rows x k, zero
/// outside it) into the shared tile.
void writeSplitLoads(std::ostringstream &os, const SplitPlan &plan) {
  // Loads walk the source's contiguous dimension with threadIdx.x (k unless the rows are
  // contiguous); stores walk k. The 32 x 33 tile, indexed [row][k], takes both without bank
  // conflicts.
  size_t r = plan.source.strides.size();
  int64_t kStride = plan.source.strides[plan.kLast ? r - 1 : r - 2];
  int64_t rowStride = plan.source.strides[plan.kLast ? r - 2 : r - 1];
  bool loadAlongK = kStride == 1 || rowStride != 1;
  const char *loadRow = loadAlongK ? "%i" : "%tx";
  const char *loadK = loadAlongK ? "%tx" : "%i";
  const char *sourceIndex = plan.kLast ? "[%bz, %r, %k]" : "[%bz, %k, %r]";
  const char *e = elementName(plan);
  os << "      scf.for %j = %c0 to %c32 step %c8 {\n"
     << "        %i = arith.addi %ty, %j : index\n"
     << "        %r = arith.addi %r0, " << loadRow << " : index\n"
     << "        %k = arith.addi %k0, " << loadK << " : index\n"
     << "        %rIn = arith.cmpi ult, %r, %rows : index\n"
     << "        %kIn = arith.cmpi ult, %k, %kSize : index\n"
     << "        %in = arith.andi %rIn, %kIn : i1\n"
     << "        %v = scf.if %in -> (" << e << ") {\n"
     << "          %x = memref.load %src" << sourceIndex << " : " << sourceType(plan) << "\n"
     << "          scf.yield %x : " << e << "\n"
     << "        } else {\n"
     << "          scf.yield %zero : " << e << "\n"
     << "        }\n"
     << "        memref.store %v, %tile[" << loadRow << ", " << loadK << "] : " << tileType(plan)
     << "\n"
     << "      }\n";
}

/// The second loop: each element of the tile stored at k of the destination row (a copy), or
/// split into its TF32 parts, stored at k, k + K and k + 2K (the low part where plan.loPart
/// says).
void writeSplitStores(std::ostringstream &os, const SplitPlan &plan, const std::string &dst) {
  os << "      gpu.barrier\n"
     << "      scf.for %j = %c0 to %c32 step %c8 {\n"
     << "        %i = arith.addi %ty, %j : index\n"
     << "        %r = arith.addi %r0, %i : index\n"
     << "        %k = arith.addi %k0, %tx : index\n"
     << "        %rIn = arith.cmpi ult, %r, %rows : index\n"
     << "        scf.if %rIn {\n"
     << "          %v = memref.load %tile[%i, %tx] : " << tileType(plan);
  if (plan.mxScaleBytes) { // the element times its scale, as bf16 (MxScaling.h)
    os << "\n" << mxDequantizeLines(plan)
       << "          memref.store %bf, %dst[%bz, %r, %k] : " << dst << "\n"
       << "        }\n"
       << "      }\n";
    return;
  }
  if (plan.parts == 1) {
    os << "\n          memref.store %v, %dst[%bz, %r, %k] : " << dst << "\n"
       << "        }\n"
       << "      }\n";
    return;
  }
  const char *parts[3];
  for (int p = 0; p < 3; ++p)
    parts[p] = p == plan.loPart ? "%lo" : "%hi";
  os << kSplitValue << "\n"
     << "          %k1 = arith.addi %k, %kPadded : index\n"
     << "          %k2 = arith.addi %k, %kPadded2 : index\n"
     << "          memref.store " << parts[0] << ", %dst[%bz, %r, %k] : " << dst << "\n"
     << "          memref.store " << parts[1] << ", %dst[%bz, %r, %k1] : " << dst << "\n"
     << "          memref.store " << parts[2] << ", %dst[%bz, %r, %k2] : " << dst << "\n"
     << "        }\n"
     << "      }\n";
}
} // namespace

std::string mepi::runtime::splitKernelIR(const SplitPlan &plan) {
  int64_t width = plan.parts * plan.paddedK;
  std::string dst = "memref<" + std::to_string(plan.batch) + "x" + std::to_string(plan.rows) +
                    "x" + std::to_string(width) + "x" +
                    (plan.mxScaleBytes ? "bf16" : elementName(plan)) + ">";
  std::string scales =
      plan.mxScaleBytes ? ", %scales: memref<" + std::to_string(plan.mxScaleBytes) + "xi8>" : "";
  std::string zero = plan.parts == 1 ? "0 : i8" : "0.0 : f32";
  std::ostringstream os;
  os << "module attributes {gpu.container_module} {\n"
     << "  gpu.module @mepi_split {\n"
     << "    gpu.func @" << plan.kernelName() << "(%src: " << sourceType(plan) << ", %dst: "
     << dst << scales << ")\n"
     << "        workgroup(%tile: " << tileType(plan) << ")\n"
     << "        kernel attributes {known_block_size = array<i32: 32, 8, 1>} {\n"
     << "      %c0 = arith.constant 0 : index\n"
     << "      %c8 = arith.constant 8 : index\n"
     << "      %c32 = arith.constant 32 : index\n"
     << "      %rows = arith.constant " << plan.rows << " : index\n"
     << "      %kSize = arith.constant " << plan.k << " : index\n"
     << "      %kPadded = arith.constant " << plan.paddedK << " : index\n"
     << "      %kPadded2 = arith.constant " << 2 * plan.paddedK << " : index\n"
     << "      %zero = arith.constant " << zero << "\n"
     << "      %inf = arith.constant 0x7F800000 : f32\n"
     << "      %half = arith.constant " << mlir::mepi::sm90::kTf32RoundHalf << " : i32\n"
     << "      %mask = arith.constant " << mlir::mepi::sm90::kTf32KeepMask << " : i32\n"
     << "      %tx = gpu.thread_id x\n"
     << "      %ty = gpu.thread_id y\n"
     << "      %bx = gpu.block_id x\n"
     << "      %by = gpu.block_id y\n"
     << "      %bz = gpu.block_id z\n"
     << "      %k0 = arith.muli %bx, %c32 : index\n"
     << "      %r0 = arith.muli %by, %c32 : index\n";
  writeSplitLoads(os, plan);
  writeSplitStores(os, plan, dst);
  os << "      gpu.return\n"
     << "    }\n"
     << "  }\n"
     << "}\n";
  return os.str();
}

auto mepi::runtime::splitKernelCubin(const SplitPlan &plan, llvm::StringRef arch)
    -> llvm::Expected<std::shared_ptr<const std::vector<char>>> {
  return cachedKernelCubin(splitKernelIR(plan), arch);
}
