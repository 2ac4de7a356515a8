// The bias gradients of 8-bit operands (see OperandSumsPass.h).
#include "Runtime/OperandSumsPass.h"

#include "Runtime/Planner.h"

#include "mepi/IR/BlockScaling.h"
#include "mepi/Library/EpilogLibrary.h"

#include <sstream>

using namespace mepi::runtime;
using Scale = OperandSumsKernel::Scale;
using mlir::mepi::kScaleBlockElements;

// A lane reads one element of K in 32 of a scale's block, and kBlocksPerStep blocks at once.
static constexpr int64_t kLoadsPerBlock = kScaleBlockElements / 32;
static_assert(kLoadsPerBlock * 32 == kScaleBlockElements);
static constexpr int64_t kBlocksPerStep = 4;

namespace {
bool isFp8(ElementType t) { return t == ElementType::F8E4M3FN || t == ElementType::F8E5M2; }

std::string scalesType() { return "memref<?x?xf32, strided<[?, ?], offset: ?>>"; }

/// The warps' totals in shared memory.
std::string partialsType() {
  return "memref<" + std::to_string(OperandSumsKernel::warps) +
         "xf32, #gpu.address_space<workgroup>>";
}

/// %factor<t>, the scale of row %m's block %kb<t> (Scale::None has none): the scales are the
/// batch elements' (one per row of an element, shared by all of them).
void writeFactor(std::ostringstream &os, Scale scale, const std::string &t) {
  const char *row = scale == Scale::Tensor     ? "%c0"
                    : scale == Scale::Block128 ? "%rowBlock"
                                               : "%m";
  std::string block = scale == Scale::BlockRow || scale == Scale::Block128 ? "%kb" + t : "%c0";
  os << "          %factor" << t << " = memref.load %scales[" << row << ", " << block << "] : "
     << scalesType() << "\n";
}

/// %blockSum<t>: this lane's f32 sum of block %kb<t> of row %r past the whole steps (its
/// elements %first<t> + 32 i: each load of the warp covers 32 consecutive bytes), times the
/// block's scale; elements past K read element 0 and count 0.
void writeTailBlockSum(std::ostringstream &os, const OperandSumsKernel &kernel,
                       const std::string &t) {
  std::string f8 = mlirTypeName(kernel.operand);
  std::string rowType = "memref<?x" + f8 + ", strided<[1], offset: ?>>";
  std::string part = "%zero";
  for (int64_t i = 0; i < kLoadsPerBlock; ++i) {
    std::string n = t + "_" + std::to_string(i);
    os << "          %off" << n << " = arith.constant " << 32 * i << " : index\n"
       << "          %k" << n << " = arith.addi %first" << t << ", %off" << n << " : index\n"
       << "          %in" << n << " = arith.cmpi ult, %k" << n << ", %k : index\n"
       << "          %at" << n << " = arith.select %in" << n << ", %k" << n << ", %c0 : index\n"
       << "          %v" << n << " = memref.load %row[%at" << n << "] : " << rowType << "\n"
       << "          %f" << n << " = arith.extf %v" << n << " : " << f8 << " to f32\n"
       << "          %g" << n << " = arith.select %in" << n << ", %f" << n << ", %zero : f32\n"
       << "          %p" << n << " = arith.addf " << part << ", %g" << n << " : f32\n";
    part = "%p" + n;
  }
  if (kernel.scale == Scale::None) {
    os << "          %blockSum" << t << " = arith.addf " << part << ", %zero : f32\n";
    return;
  }
  writeFactor(os, kernel.scale, t);
  os << "          %blockSum" << t << " = arith.mulf " << part << ", %factor" << t << " : f32\n";
}

/// A whole step's loop body: each lane loads 16 consecutive bytes at once (a warp the step's
/// 512; rows are 16-byte aligned) and converts them in pairs (cvt.rn.f16x2.{e4m3,e5m2}x2,
/// ~2.5 instructions an element), all in one block of the step: lane / 8.
void writeStep(std::ostringstream &os, const OperandSumsKernel &kernel) {
  std::string f8 = mlirTypeName(kernel.operand);
  os << "          %lane16 = arith.muli %lane, %c16 : index\n"
     << "          %kW = arith.addi %sK, %lane16 : index\n"
     << "          %sBlock = arith.muli %s, %step : index\n"
     << "          %laneBlock = arith.divui %lane, %c8 : index\n"
     << "          %kbW = arith.addi %sBlock, %laneBlock : index\n"
     << "          %atW = arith.addi %rowAt, %kW : index\n"
     << "          %at64 = arith.index_cast %atW : index to i64\n"
     << "          %address = arith.addi %base64, %at64 : i64\n"
     << "          %generic = llvm.inttoptr %address : i64 to !llvm.ptr\n"
     << "          %global = llvm.addrspacecast %generic : !llvm.ptr to !llvm.ptr<1>\n"
     << "          %words = llvm.load %global {alignment = 16 : i64} : !llvm.ptr<1> -> "
        "vector<4xi32>\n";
  std::string part = "%zero";
  for (int word = 0; word < 4; ++word) {
    std::string w = std::to_string(word);
    os << "          %wi" << w << " = llvm.mlir.constant(" << word << " : i32) : i32\n"
       << "          %w" << w << " = llvm.extractelement %words[%wi" << w << " : i32] : "
          "vector<4xi32>\n"
       << "          %wHi" << w << " = llvm.lshr %w" << w << ", %i16 : i32\n";
    for (const char *half : {"Lo", "Hi"}) {
      std::string n = w + half;
      std::string source = std::string(half) == "Lo" ? "%w" + w : "%wHi" + w;
      os << "          %h" << n << " = llvm.trunc " << source << " : i32 to i16\n"
         << "          %pair" << n << " = llvm.bitcast %h" << n << " : i16 to vector<2xi8>\n"
         << "          %f16" << n << " = nvvm.convert.f8x2.to.f16x2 %pair" << n
         << " : vector<2xi8> (" << f8 << ") -> vector<2xf16>\n"
         << "          %f32" << n << " = llvm.fpext %f16" << n
         << " : vector<2xf16> to vector<2xf32>\n";
      for (int e = 0; e < 2; ++e) {
        std::string v = n + std::to_string(e);
        os << "          %e" << v << " = llvm.extractelement %f32" << n << "[%pos" << e
           << " : i32] : vector<2xf32>\n"
           << "          %q" << v << " = arith.addf " << part << ", %e" << v << " : f32\n";
        part = "%q" + v;
      }
    }
  }
  if (kernel.scale == Scale::None) {
    os << "          %accW = arith.addf %acc, " << part << " : f32\n";
  } else {
    writeFactor(os, kernel.scale, "W");
    os << "          %accW = math.fma " << part << ", %factorW, %acc : f32\n";
  }
  os << "          scf.yield %accW : f32\n";
}

/// %total: this lane's share of row %r; warp w takes every warps-th step from w. Whole steps
/// of kBlocksPerStep blocks first, then the blocks left one at a time, a byte a lane and 32
/// apart, their elements past K masked.
void writeRowSum(std::ostringstream &os, const OperandSumsKernel &kernel,
                 const std::string &xType) {
  std::string f8 = mlirTypeName(kernel.operand);
  os << "        %row = memref.subview %x[%batch, %m, 0] [1, 1, %k] [1, 1, 1] : " << xType
     << " to memref<?x" << f8 << ", strided<[1], offset: ?>>\n"
     << "        %kEnd = arith.addi %k, %blockKLast : index\n"
     << "        %blocks = arith.divui %kEnd, %blockK : index\n"
     << "        %stepK = arith.constant " << kBlocksPerStep * kScaleBlockElements << " : index\n"
     << "        %steps = arith.divui %k, %stepK : index\n"
     << "        %wholeBlocks = arith.muli %steps, %step : index\n";
  if (kernel.scale == Scale::Block128)
    os << "        %rowBlock = arith.divui %m, %blockK : index\n";
  os << "        %c8 = arith.constant 8 : index\n"
       << "        %c16 = arith.constant 16 : index\n"
       << "        %i16 = llvm.mlir.constant(16 : i32) : i32\n"
       << "        %pos0 = llvm.mlir.constant(0 : i32) : i32\n"
       << "        %pos1 = llvm.mlir.constant(1 : i32) : i32\n"
       << "        %base = memref.extract_aligned_pointer_as_index %x : " << xType << " -> index\n"
       << "        %base64 = arith.index_cast %base : index to i64\n"
       << "        %buffer, %offset, %sizes:3, %strides:3 = memref.extract_strided_metadata %x : "
       << xType << " -> memref<" << f8 << ">, index, index, index, index, index, index, index\n"
       << "        %batchOff = arith.muli %batch, %strides#0 : index\n"
       << "        %mOff = arith.muli %m, %strides#1 : index\n"
       << "        %rowOff = arith.addi %batchOff, %mOff : index\n"
       << "        %rowAt = arith.addi %offset, %rowOff : index\n";
  os << "        %whole = scf.for %s = %warp to %steps step %warps iter_args(%acc = %zero) -> "
        "(f32) {\n"
     << "          %sK = arith.muli %s, %stepK : index\n";
  writeStep(os, kernel);
  os << "        }\n"
     << "        %firstTail = arith.addi %wholeBlocks, %warp : index\n"
     << "        %total = scf.for %kbT = %firstTail to %blocks step %warps iter_args(%accT = %whole)"
        " -> (f32) {\n"
     << "          %kT = arith.muli %kbT, %blockK : index\n"
     << "          %firstT = arith.addi %kT, %lane : index\n";
  writeTailBlockSum(os, kernel, "T");
  os << "          %accNext = arith.addf %accT, %blockSumT : f32\n"
     << "          scf.yield %accNext : f32\n"
     << "        }\n";
}

/// The block's total: each warp's by shuffles, the warps' through shared memory, rounded to
/// the output type and stored at %r by thread 0.
void writeRowStore(std::ostringstream &os, const OperandSumsKernel &kernel) {
  os << "      %w32 = arith.constant 32 : i32\n";
  std::string sum = "%total";
  for (int offset : {16, 8, 4, 2, 1}) {
    std::string next = "%sum" + std::to_string(offset);
    os << "      %o" << offset << " = arith.constant " << offset << " : i32\n"
       << "      %sh" << offset << ", %ok" << offset << " = gpu.shuffle xor " << sum << ", %o"
       << offset << ", %w32 : f32\n"
       << "      " << next << " = arith.addf " << sum << ", %sh" << offset << " : f32\n";
    sum = next;
  }
  std::string out = mlirTypeName(kernel.out);
  std::string outType = "memref<?x" + out + ", strided<[?], offset: ?>>";
  os << "      %leader = arith.cmpi eq, %lane, %c0 : index\n"
     << "      scf.if %leader {\n"
     << "        memref.store " << sum << ", %partials[%warp] : " << partialsType() << "\n"
     << "      }\n"
     << "      gpu.barrier\n"
     << "      %thread0 = arith.cmpi eq, %tx, %c0 : index\n"
     << "      scf.if %thread0 {\n"
     << "        %rowSum = scf.for %w = %c0 to %warps step %c1 iter_args(%t = %zero) -> (f32) {\n"
     << "          %part = memref.load %partials[%w] : " << partialsType() << "\n"
     << "          %more = arith.addf %t, %part : f32\n"
     << "          scf.yield %more : f32\n"
     << "        }\n";
  if (kernel.out == ElementType::F32) {
    os << "        memref.store %rowSum, %sums[%r] : " << outType << "\n";
  } else {
    os << "        %rounded = arith.truncf %rowSum : f32 to " << out << "\n"
       << "        memref.store %rounded, %sums[%r] : " << outType << "\n";
  }
  os << "      }\n";
}
} // namespace

std::string mepi::runtime::operandSumsKernelIR(const OperandSumsKernel &kernel) {
  std::string xType = "memref<?x?x?x" + std::string(mlirTypeName(kernel.operand)) +
                      ", strided<[?, ?, 1], offset: ?>>";
  std::string outType =
      "memref<?x" + std::string(mlirTypeName(kernel.out)) + ", strided<[?], offset: ?>>";
  std::ostringstream os;
  os << "module attributes {gpu.container_module} {\n"
     << "  gpu.module @mepi_operand_sums {\n"
     << "    gpu.func @" << operandSumsKernelName << "(%x: " << xType;
  if (kernel.scale != Scale::None)
    os << ", %scales: " << scalesType();
  os << ", %sums: " << outType << ")\n"
     << "        workgroup(%partials : " << partialsType() << ")\n"
     << "        kernel attributes {known_block_size = array<i32: " << OperandSumsKernel::block
     << ", 1, 1>} {\n"
     << "      %c0 = arith.constant 0 : index\n"
     << "      %c1 = arith.constant 1 : index\n"
     << "      %c32 = arith.constant 32 : index\n"
     << "      %blockKLast = arith.constant " << kScaleBlockElements - 1 << " : index\n"
     << "      %blockK = arith.constant " << kScaleBlockElements << " : index\n"
     << "      %warps = arith.constant " << OperandSumsKernel::warps << " : index\n"
     << "      %zero = arith.constant 0.0 : f32\n"
     << "      %step = arith.constant " << kBlocksPerStep << " : index\n"
     << "      %c2 = arith.constant 2 : index\n"
     << "      %k = memref.dim %x, %c2 : " << xType << "\n"
     << "      %rows = memref.dim %x, %c1 : " << xType << "\n"
     << "      %tx = gpu.thread_id x\n"
     << "      %bx = gpu.block_id x\n"
     << "      %warp = arith.divui %tx, %c32 : index\n"
     << "      %lane = arith.remui %tx, %c32 : index\n"
     << "      %r = arith.addi %bx, %c0 : index\n"
     << "      %batch = arith.divui %r, %rows : index\n"
     << "      %m = arith.remui %r, %rows : index\n";
  writeRowSum(os, kernel, xType);
  writeRowStore(os, kernel);
  os << "      gpu.return\n"
     << "    }\n"
     << "  }\n"
     << "}\n";
  return os.str();
}

unsigned OperandSumsPlan::grid() const {
  return static_cast<unsigned>(std::max<int64_t>(1, operand.shape[0] * operand.shape[1]));
}

std::vector<int64_t> OperandSumsPlan::parameters(CUdeviceptr x, CUdeviceptr scale,
                                                 CUdeviceptr sums) const {
  auto word = [](CUdeviceptr p) { return static_cast<int64_t>(p); };
  std::vector<int64_t> words = {word(x),           word(x),           0,
                                operand.shape[0],  operand.shape[1],  operand.shape[2],
                                operand.strides[0], operand.strides[1], 1};
  if (kernel.scale != Scale::None)
    words.insert(words.end(), {word(scale), word(scale), 0, scales.shape[0], scales.shape[1],
                               scales.strides[0], scales.strides[1]});
  words.insert(words.end(), {word(sums), word(sums), 0, out.shape[0], out.strides[0]});
  return words;
}

bool mepi::runtime::sumsOperandsApart(const MatmulProblem &problem) {
  if (problem.userEpilog || !isFp8(problem.a.type))
    return false;
  std::optional<mlir::mepi::BuiltinEpilog> epilog =
      mlir::mepi::parseBuiltinEpilog(problem.epilog);
  return epilog && !mlir::mepi::getBuiltinEpilogSignature(*epilog).operandSums.empty();
}

std::optional<size_t> mepi::runtime::sumsOutputApart(const MatmulProblem &problem) {
  if (!sumsOperandsApart(problem))
    return std::nullopt;
  llvm::Expected<std::vector<NamedLayout>> outputs = epilogOutputLayouts(problem);
  if (!outputs) {
    llvm::consumeError(outputs.takeError());
    return std::nullopt;
  }
  for (auto [i, output] : llvm::enumerate(*outputs))
    if (output.key == "bgrada" || output.key == "bgradb")
      return i;
  return std::nullopt;
}

namespace {
/// The scale of the summed operand as the kernel indexes it, and its index among the inputs.
void planScale(const MatmulProblem &problem, OperandSumsPlan &plan) {
  const char *key = plan.ofA ? "a_scale" : "b_scale";
  for (auto [i, input] : llvm::enumerate(problem.builtinInputs)) {
    if (input.key != key)
      continue;
    const OperandLayout &layout = input.layout;
    plan.scaleInput = i;
    plan.scales = {ElementType::F32, {1, 1}, {1, 1}};
    if (layout.shape.size() == 2) { // block scales: [M, K blocks] or [N / 128, K blocks]
      plan.kernel.scale = plan.ofA ? Scale::BlockRow : Scale::Block128;
      plan.scales = layout;
    } else if (layout.shape.size() == 1 && layout.shape[0] > 1) { // one per row (column of B)
      plan.kernel.scale = Scale::Row;
      plan.scales = {ElementType::F32, {layout.shape[0], 1}, {layout.strides[0], 1}};
    } else {
      plan.kernel.scale = Scale::Tensor;
    }
  }
}
} // namespace

namespace {
/// The summed operand as the pass reads it, [batch, rows, K] with K contiguous: D's one batch
/// dimension (1 where unbatched) and the operand's stride along it (0 where it is broadcast:
/// given without it, or with 1 there); or an error where it is not K-major or has more batch
/// dimensions.
llvm::Expected<OperandLayout> summedOperand(const MatmulProblem &problem,
                                            const MatmulProblem &planned, bool ofA) {
  auto error = [&](const std::string &why) {
    return llvm::createStringError("epilog " + problem.epilog + ": " + why);
  };
  // What the GEMM reads: A as [M, K] untransposed, B as [N, K] transposed (kMajorProblem
  // copies 8-bit operands given otherwise).
  const OperandLayout &given = ofA ? planned.a : planned.b;
  bool kLast = ofA ? !planned.transposeA : planned.transposeB;
  size_t rank = given.shape.size();
  if (!kLast || rank < 2 || given.strides[rank - 1] != 1)
    return error("the summed 8-bit operand is not K-major");
  if (planned.d.shape.size() > 3 || rank > 3)
    return error("the bias gradient of 8-bit A and B (their operand sums) takes at most one "
                 "batch dimension, got D of rank " + std::to_string(planned.d.shape.size()));
  int64_t batch = planned.d.shape.size() == 3 ? planned.d.shape[0] : 1;
  int64_t batchStride = rank == 3 && given.shape[0] > 1 ? given.strides[0] : 0;
  return OperandLayout{given.type,
                       {batch, given.shape[rank - 2], given.shape[rank - 1]},
                       {batchStride, given.strides[rank - 2], 1}};
}
} // namespace

auto mepi::runtime::planOperandSums(const MatmulProblem &problem, const MatmulProblem &planned)
    -> llvm::Expected<std::optional<OperandSumsPlan>> {
  if (!sumsOperandsApart(planned))
    return std::nullopt;
  if (problem.groups)
    return llvm::createStringError("epilog " + problem.epilog + ": a grouped matmul takes no "
                                   "bias gradient of A or B (operand sums)");
  OperandSumsPlan plan;
  plan.ofA = problem.epilog == "BGRADA";
  plan.outputKey = plan.ofA ? "bgrada" : "bgradb";
  plan.kernel.operand = plan.ofA ? planned.a.type : planned.b.type;
  llvm::Expected<OperandLayout> operand = summedOperand(problem, planned, plan.ofA);
  if (!operand)
    return operand.takeError();
  plan.operand = *operand;
  // Its rows 16-byte aligned, as TMA reads them (staged copies where the caller's are not).
  if (planned.addressAlignment < 16 || plan.operand.strides[1] % 16 != 0 ||
      plan.operand.strides[0] % 16 != 0)
    return llvm::createStringError("epilog " + problem.epilog + ": the summed 8-bit operand's "
                                   "rows are not 16-byte aligned (address alignment " +
                                   std::to_string(planned.addressAlignment) + ", row pitch " +
                                   std::to_string(plan.operand.strides[1]) + " bytes)");
  llvm::Expected<std::vector<NamedLayout>> outputs = epilogOutputLayouts(problem);
  if (!outputs)
    return outputs.takeError();
  for (auto [i, output] : llvm::enumerate(*outputs))
    if (output.key == plan.outputKey) {
      plan.out = output.layout;
      plan.output = i;
    }
  // [batch..., rows] row-major: the pass's rows in order.
  int64_t rows = plan.operand.shape[0] * plan.operand.shape[1];
  plan.out = {plan.out.type, {rows}, {1}};
  plan.kernel.out = plan.out.type;
  planScale(problem, plan);
  return plan;
}

auto OperandSumsPass::load(const OperandSumsPlan &plan, const CudaDriver &driver,
                           llvm::StringRef arch) -> llvm::Expected<OperandSumsPass> {
  llvm::Expected<std::shared_ptr<const std::vector<char>>> cubin =
      cachedKernelCubin(operandSumsKernelIR(plan.kernel), arch);
  if (!cubin)
    return cubin.takeError();
  OperandSumsPass pass;
  pass.planned = plan;
  if (llvm::Error e = checkCuda(driver.cuModuleLoadData(&pass.module, (*cubin)->data()),
                                "cuModuleLoadData(operand sums)"))
    return std::move(e);
  if (llvm::Error e = checkCuda(
          driver.cuModuleGetFunction(&pass.function, pass.module, operandSumsKernelName),
          "cuModuleGetFunction(operand sums)"))
    return std::move(e);
  return pass;
}

OperandSumsPass::OperandSumsPass(OperandSumsPass &&other) noexcept { *this = std::move(other); }

OperandSumsPass &OperandSumsPass::operator=(OperandSumsPass &&other) noexcept {
  std::swap(planned, other.planned);
  std::swap(module, other.module);
  std::swap(function, other.function);
  return *this;
}

OperandSumsPass::~OperandSumsPass() {
  if (!module)
    return;
  if (llvm::Expected<const CudaDriver &> driver = cudaDriver())
    driver->cuModuleUnload(module);
  else
    llvm::consumeError(driver.takeError());
}

CUresult OperandSumsPass::launch(const CudaDriver &driver, CUdeviceptr x, CUdeviceptr scale,
                                 CUdeviceptr sums, CUstream stream) const {
  std::vector<int64_t> words = planned.parameters(x, scale, sums);
  std::vector<void *> params(words.size());
  for (size_t i = 0; i < words.size(); ++i)
    params[i] = &words[i];
  return driver.cuLaunchKernel(function, planned.grid(), 1, 1, OperandSumsKernel::block, 1, 1,
                               0, stream, params.data(), nullptr);
}
