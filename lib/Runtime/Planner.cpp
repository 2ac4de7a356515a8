// Planning a MatmulProblem into a mepi module (its compilation: Compile.cpp).
#include "Runtime/PlannerDetail.h"
#include "Runtime/AuxLayouts.h"
#include "Runtime/OperandSumsPass.h"

#include "Target/Pipeline.h"
#include "Target/Registration.h"
#include "mepi/IR/MepiOps.h"
#include "mepi/Library/EpilogLibrary.h"
#include "mepi/Sm90/Sm90Spec.h"
#include "mepi/Transforms/KernelConfigs.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::mepi;
using ::mepi::runtime::CompiledKernel;
using ::mepi::runtime::ErrorKind;
using ::mepi::runtime::withKind;
using ::mepi::runtime::ElementType;
using ::mepi::runtime::MatmulProblem;
using ::mepi::runtime::NamedLayout;
using ::mepi::runtime::EpilogInput;
using ::mepi::runtime::OperandLayout;
using ::mepi::runtime::OutputShape;
using ::mepi::runtime::auxInputFits;
using ::mepi::runtime::auxLayout;
using ::mepi::runtime::auxOutputLayout;
using namespace ::mepi::runtime::detail;

namespace {
Type mlirElementType(MLIRContext *ctx, ElementType type) {
  switch (type) {
  case ElementType::F16: return Float16Type::get(ctx);
  case ElementType::BF16: return BFloat16Type::get(ctx);
  case ElementType::F32: return Float32Type::get(ctx);
  case ElementType::F8E4M3FN: return Float8E4M3FNType::get(ctx);
  case ElementType::F8E5M2: return Float8E5M2Type::get(ctx);
  case ElementType::U8: return IntegerType::get(ctx, 8);
  case ElementType::I32: return IntegerType::get(ctx, 32);
  case ElementType::I64: return IntegerType::get(ctx, 64);
  }
  return {};
}

/// Static shape and strides: every kernel is specialised to its problem (the cache is per problem).
MemRefType memrefType(MLIRContext *ctx, const OperandLayout &layout) {
  Type elt = mlirElementType(ctx, layout.type);
  if (layout.strides.empty() || layout.strides == ::mepi::runtime::rowMajorStrides(layout.shape))
    return MemRefType::get(layout.shape, elt);
  return MemRefType::get(layout.shape, elt, StridedLayoutAttr::get(ctx, 0, layout.strides));
}

/// TF32 only matters (and is only allowed) for f32 operands; 16-bit operands ignore the opt-in.
ComputeTypeAttr computeAttr(MLIRContext *ctx, const MatmulProblem &problem) {
  if (problem.allowTF32 && problem.a.type == ElementType::F32 &&
      problem.b.type == ElementType::F32)
    return ComputeTypeAttr::get(ctx, ComputeType::TF32);
  return {};
}

GroupForm groupForm(::mepi::runtime::GroupForm form) {
  switch (form) {
  case ::mepi::runtime::GroupForm::Ends: return GroupForm::Ends;
  case ::mepi::runtime::GroupForm::Indptr: return GroupForm::Indptr;
  case ::mepi::runtime::GroupForm::Lengths: return GroupForm::Lengths;
  case ::mepi::runtime::GroupForm::Masked: return GroupForm::Masked;
  }
  return GroupForm::Ends;
}

BroadcastKind broadcastKind(::mepi::runtime::InputKind kind) {
  switch (kind) {
  case ::mepi::runtime::InputKind::Row: return BroadcastKind::Row;
  case ::mepi::runtime::InputKind::Col: return BroadcastKind::Col;
  case ::mepi::runtime::InputKind::Scalar: return BroadcastKind::Scalar;
  case ::mepi::runtime::InputKind::Matrix: return BroadcastKind::Matrix;
  }
  return BroadcastKind::Row;
}

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

using ::mepi::runtime::EpilogOutput;
using ::mepi::runtime::OutputKind;

bool isAuxOutput(const EpilogOutput &output) {
  return output.kind == OutputKind::Matrix || output.kind == OutputKind::Bitmask;
}

/// A user epilog's outputs in the op's operand order: the aux outputs, then the reductions,
/// each in the order declared. (The function returns them in the declared order.)
std::vector<size_t> userOutputsInOpOrder(const ::mepi::runtime::UserEpilogSource &source) {
  std::vector<size_t> order;
  for (bool aux : {true, false})
    for (size_t i = 0; i < source.outputs.size(); ++i)
      if (isAuxOutput(source.outputs[i]) == aux)
        order.push_back(i);
  return order;
}

/// The most operations a user epilog's MLIR may hold: each is inlined into every element's
/// epilog, and the compiler builds them in-process (a bound on what text can ask of it).
constexpr int64_t kMaxUserEpilogOperations = 10000;

/// Whether the user's MLIR may hold `op`: element-wise computation only, as the epilog runs it
/// per output element: functions and calls (func), arith, math, structured ifs (scf.if), and
/// the llvm operations that read the caller's user data (a pointer argument).
bool allowedInUserEpilog(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  if (dialect == "arith" || dialect == "math")
    return true;
  return llvm::is_contained(
      {"func.func", "func.return", "func.call", "scf.if", "scf.yield", "llvm.inttoptr",
       "llvm.load", "llvm.getelementptr", "llvm.mlir.constant", "llvm.bitcast"},
      op->getName().getStringRef());
}

/// Refuses user MLIR that holds operations an epilog does not run (naming the first and where
/// it is) or more than kMaxUserEpilogOperations.
llvm::Error checkUserEpilogOperations(ModuleOp user) {
  int64_t count = 0;
  std::string refused;
  user.walk([&](Operation *op) {
    if (op == user.getOperation())
      return WalkResult::advance();
    if (++count > kMaxUserEpilogOperations)
      return WalkResult::interrupt();
    if (allowedInUserEpilog(op))
      return WalkResult::advance();
    llvm::raw_string_ostream os(refused);
    os << "'" << op->getName() << "'";
    if (auto at = dyn_cast<FileLineColLoc>(op->getLoc()))
      os << " at line " << at.getLine() << ":" << at.getColumn();
    return WalkResult::interrupt();
  });
  if (!refused.empty())
    return llvm::createStringError(
        "user epilog: " + refused +
        " is not element-wise epilog code: expected func.func/return/call, arith, math, "
        "scf.if/yield and llvm.inttoptr/load/getelementptr/mlir.constant/bitcast operations");
  if (count > kMaxUserEpilogOperations)
    return llvm::createStringError("user epilog: more than " +
                                   std::to_string(kMaxUserEpilogOperations) +
                                   " operations, the most an epilog may inline");
  return llvm::Error::success();
}

/// Parses the user's MLIR, checks its function against the problem, copies its functions into
/// `module` (private: inlined, then erased, by mepi-inline-epilog-calls) and fills the epilog of
/// `op` with a call to it.
llvm::Error buildUserEpilogCall(OpBuilder &b, MatmulOp op,
                                const ::mepi::runtime::UserEpilogSource &source,
                                ModuleOp module) {
  MLIRContext *ctx = op.getContext();
  std::string diagnostics;
  OwningOpRef<ModuleOp> user;
  {
    ScopedDiagnosticHandler collect(ctx, [&](Diagnostic &diag) {
      llvm::raw_string_ostream(diagnostics) << "\n" << diag;
      return success();
    });
    user = parseSourceString<ModuleOp>(source.mlir, ParserConfig(ctx), "user-epilog");
  }
  if (!user)
    return llvm::createStringError("user epilog: cannot parse the MLIR text:" + diagnostics);
  if (llvm::Error e = checkUserEpilogOperations(*user))
    return e;
  auto fn = user->lookupSymbol<func::FuncOp>(source.function);
  if (!fn || fn.isExternal())
    return llvm::createStringError("user epilog: expected a func.func @" + source.function +
                                   " with a body in the MLIR text, got " +
                                   (fn ? "a declaration" : "none"));

  SmallVector<Type> expectedInputs = {b.getF32Type()};
  for (unsigned i = 0; i < op.getEpilogInputs().size(); ++i)
    expectedInputs.push_back(op.getInputElementType(i));
  expectedInputs.append({b.getIndexType(), b.getIndexType()});
  if (op.isGrouped()) // the row's group
    expectedInputs.push_back(b.getIndexType());
  // The function returns D's element, then the outputs in declared order; the op takes them as
  // aux outputs, then reductions (userOutputsInOpOrder).
  SmallVector<Type> expectedResults = {op.getD().getType().getElementType()};
  std::vector<size_t> opOrder = userOutputsInOpOrder(source);
  SmallVector<unsigned> yieldPosition(source.outputs.size());
  for (auto [position, declared] : llvm::enumerate(opOrder))
    yieldPosition[declared] = 1 + position;
  for (size_t i = 0; i < source.outputs.size(); ++i) {
    unsigned position = yieldPosition[i];
    if (position <= op.getAux().size())
      expectedResults.push_back(op.getAuxKind(position - 1) == BroadcastKind::Bitmask
                                    ? b.getI1Type()
                                    : cast<MemRefType>(op.getAux()[position - 1].getType())
                                          .getElementType());
    else
      expectedResults.push_back(b.getF32Type());
  }
  auto expected = b.getFunctionType(expectedInputs, expectedResults);
  if (fn.getFunctionType() != expected)
    return llvm::createStringError("user epilog @" + source.function + ": expected type " +
                                   typeString(expected) + " for this problem, got " +
                                   typeString(fn.getFunctionType()));
  for (auto userFn : llvm::make_early_inc_range(user->getOps<func::FuncOp>())) {
    if (module.lookupSymbol(userFn.getName()))
      return llvm::createStringError("user epilog: the symbol @" + userFn.getName().str() +
                                     " is reserved");
    userFn->remove();
    userFn.setPrivate();
    module.push_back(userFn);
  }

  OpBuilder::InsertionGuard guard(b);
  Location loc = op.getLoc();
  Block *body = b.createBlock(&op.getEpilog(), {}, expectedInputs,
                              SmallVector<Location>(expectedInputs.size(), loc));
  auto call = func::CallOp::create(b, loc, source.function, expected.getResults(),
                                   body->getArguments());
  SmallVector<Value> yielded(call.getNumResults());
  yielded[0] = call.getResult(0);
  for (size_t i = 0; i < source.outputs.size(); ++i)
    yielded[yieldPosition[i]] = call.getResult(1 + i);
  YieldOp::create(b, loc, yielded);
  return llvm::Error::success();
}

/// "[a, b, c]".
std::string dimsText(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

std::string layoutText(const OperandLayout &layout) {
  return std::string(::mepi::runtime::elementTypeName(layout.type)) + " shape " +
         dimsText(layout.shape) + " strides " + dimsText(layout.strides);
}

/// The layout of a reduction's result: a bias gradient has D's type and [batch...,] M values;
/// the amax is one f32.
OperandLayout reductionLayout(const EpilogOperand &reduction, const MatmulProblem &p) {
  if (reduction.kind == BroadcastKind::Scalar)
    return {ElementType::F32, {}, {}};
  OutputShape out(p);
  std::vector<int64_t> shape = out.batch;
  shape.push_back(reduction.kind == BroadcastKind::Row ? out.m : out.n);
  return {::mepi::runtime::gradientType(p), shape, ::mepi::runtime::rowMajorStrides(shape)};
}

BroadcastKind outputKind(OutputKind kind) {
  switch (kind) {
  case OutputKind::Matrix: return BroadcastKind::Matrix;
  case OutputKind::Bitmask: return BroadcastKind::Bitmask;
  case OutputKind::RowReduction: return BroadcastKind::Row;
  case OutputKind::ColReduction: return BroadcastKind::Col;
  case OutputKind::ScalarReduction: return BroadcastKind::Scalar;
  }
  return BroadcastKind::Matrix;
}

/// The layout of a user epilog output (see EpilogOutput), after checking its key and type.
llvm::Expected<OperandLayout> userOutputLayout(const EpilogOutput &output,
                                               const MatmulProblem &p) {
  if (output.key.empty())
    return llvm::createStringError("user epilog output: expected a key, got an empty one");
  if (output.kind == OutputKind::Bitmask)
    return auxOutputLayout("relu_aux", p);
  if (output.type != ElementType::F16 && output.type != ElementType::BF16 &&
      output.type != ElementType::F32)
    return llvm::createStringError(
        "user epilog output '" + output.key + "': expected type f16, bf16 or f32, got " +
        ::mepi::runtime::elementTypeName(output.type));
  OutputShape out(p);
  std::vector<int64_t> shape = out.batch;
  switch (output.kind) {
  case OutputKind::Matrix: shape.insert(shape.end(), {out.m, out.n}); break;
  case OutputKind::RowReduction: shape.push_back(out.m); break;
  case OutputKind::ColReduction: shape.push_back(out.n); break;
  case OutputKind::ScalarReduction: shape.clear(); break;
  case OutputKind::Bitmask: break;
  }
  return OperandLayout{output.type, shape, ::mepi::runtime::rowMajorStrides(shape)};
}

/// The problem's built-in epilog inputs, checked: each one the epilog reads is given once, in
/// the order of `signature`, no other, and an aux matrix has the layout its forward epilog
/// writes.
llvm::Expected<std::vector<NamedLayout>>
orderedBuiltinInputs(const MatmulProblem &problem, const EpilogSignature &signature) {
  for (const NamedLayout &given : problem.builtinInputs) {
    bool known = llvm::any_of(signature.inputs,
                              [&](const EpilogOperand &input) { return input.key == given.key; });
    if (!known)
      return llvm::createStringError(
          "epilog " + problem.epilog + " takes no epilog input '" + given.key + "'" +
          (signature.inputs.empty() ? std::string()
                                    : ", only '" + signature.inputs.front().key.str() + "'"));
    if (llvm::count_if(problem.builtinInputs,
                       [&](const NamedLayout &other) { return other.key == given.key; }) > 1)
      return llvm::createStringError("epilog input '" + given.key + "' given twice");
  }
  std::vector<NamedLayout> ordered;
  for (const EpilogOperand &input : signature.inputs) {
    auto given = llvm::find_if(problem.builtinInputs,
                               [&](const NamedLayout &n) { return n.key == input.key; });
    if (given == problem.builtinInputs.end())
      return llvm::createStringError("epilog " + problem.epilog + " expects epilog input '" +
                                     input.key.str() + "'");
    if (input.kind == BroadcastKind::Bitmask || input.kind == BroadcastKind::Matrix) {
      OperandLayout want = auxLayout(input.key, problem);
      if (!auxInputFits(given->layout, want))
        return llvm::createStringError(
            "epilog input '" + input.key.str() + "': expected " + layoutText(want) +
            " (the layout the forward epilog writes; a column stride of at least " +
            std::to_string(want.strides.back()) + "), got " + layoutText(given->layout));
    }
    ordered.push_back(*given);
  }
  // The launch passes the inputs in the problem's order.
  for (size_t i = 0; i < ordered.size(); ++i)
    if (ordered[i].key != problem.builtinInputs[i].key)
      return llvm::createStringError("epilog " + problem.epilog + ": expected input '" +
                                     ordered[i].key + "' at position " + std::to_string(i) +
                                     ", got '" + problem.builtinInputs[i].key + "'");
  return ordered;
}

} // namespace

auto ::mepi::runtime::detail::makeContext() -> std::unique_ptr<MLIRContext> {
  DialectRegistry registry;
  registerMepiDialects(registry);
  auto ctx = std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  return ctx;
}

namespace {

/// How a quantization scale is indexed, from its shape (validatedScales checked it): one
/// value; A's one per row of D; B's one per column, or grouped, [S] one per group (a scalar
/// with a leading S) and [S, N] per group and column.
BroadcastKind scaleKind(llvm::StringRef key, const OperandLayout &layout, bool grouped) {
  size_t rank = layout.shape.size();
  if (rank == 0 || key == "d_scale" || (key == "b_scale" && grouped && rank == 1))
    return BroadcastKind::Scalar;
  return key == "a_scale" ? BroadcastKind::Row : BroadcastKind::Col;
}

/// Whether the built-in epilog reads C (kEpilogC): where A's or B's scales are epilog inputs
/// (tensor-wise, row-wise; block scales are the main loop's) or C has a scale, beta * sC * C
/// must be added after them, which the kernel's accumulator path (alpha * A B + beta * C before
/// the epilog) cannot do.
bool epilogReadsC(const MatmulProblem &problem) {
  if (!problem.c || problem.userEpilog)
    return false;
  return llvm::any_of(problem.builtinInputs, [&](const NamedLayout &in) {
    return in.key == "c_scale" || ((in.key == "a_scale" || in.key == "b_scale") &&
                                   !::mepi::runtime::isBlockScale(problem, in.key));
  });
}

/// The built-in epilog's inputs in its signature's order (none for a user epilog), after the
/// checks that the epilog and its inputs go together; `signature` then starts with C and beta
/// where the epilog reads C (their arguments are the function's c and beta).
llvm::Expected<std::vector<NamedLayout>>
builtinInputsOf(const MatmulProblem &problem, std::optional<BuiltinEpilog> epilog,
                EpilogSignature &signature) {
  if (problem.userEpilog) {
    if (!problem.builtinInputs.empty())
      return llvm::createStringError("a user epilog takes its inputs as user epilog inputs, "
                                     "got '" + problem.builtinInputs.front().key + "'");
    if (problem.resultAmax)
      return llvm::createStringError("result_amax is not available with a user epilog: "
                                     "declare the reduction in the epilog instead");
    if (problem.auxType || problem.auxAmax)
      return llvm::createStringError("options.auxType and options.auxAmax are for the built-in "
                                     "GELU_AUX epilogs: a user epilog declares its outputs' "
                                     "types and reductions");
    return std::vector<NamedLayout>();
  }
  if (!epilog)
    return llvm::createStringError("unknown epilog '" + problem.epilog + "': expected one of " +
                                   builtinEpilogNames());
  if (!problem.userInputs.empty())
    return llvm::createStringError("epilog " + problem.epilog +
                                   " takes no user epilog inputs, got " +
                                   std::to_string(problem.userInputs.size()));
  bool given[std::size(kScaleKeys)] = {};
  BroadcastKind kinds[std::size(kScaleKeys)] = {};
  for (auto [i, key] : llvm::enumerate(kScaleKeys))
    for (const NamedLayout &input : problem.builtinInputs)
      if (input.key == key) {
        given[i] = true;
        kinds[i] = scaleKind(key, input.layout, problem.groups.has_value());
      }
  signature = withScaleInputs(getBuiltinEpilogSignature(*epilog, problem.groups.has_value()),
                              given, kinds);
  auto geluAux = [](const EpilogOperand &o) { return o.key == "gelu_aux"; };
  if (llvm::Error e = ::mepi::runtime::checkAuxPreferences(
          problem, llvm::any_of(signature.aux, geluAux)))
    return std::move(e);
  // Beside an 8-bit D the aux matrices have their own type (geluAuxType) and the gradients
  // bf16 (gradientType).
  llvm::Expected<std::vector<NamedLayout>> ordered = orderedBuiltinInputs(problem, signature);
  if (ordered && epilogReadsC(problem))
    signature = withEpilogC(std::move(signature));
  return ordered;
}

/// The planned function's argument types, in the kernel ABI's order: a, b, alpha, (c, beta),
/// the built-in or user epilog inputs, (the user data), d, then the outputs besides D.
SmallVector<Type> argumentTypes(MLIRContext *ctx, const MatmulProblem &problem,
                                ArrayRef<NamedLayout> inputs, ArrayRef<NamedLayout> outputs) {
  Type f32 = Float32Type::get(ctx);
  SmallVector<Type> types = {memrefType(ctx, problem.a), memrefType(ctx, problem.b), f32};
  if (problem.c)
    types.append({memrefType(ctx, *problem.c), f32});
  for (const NamedLayout &input : inputs)
    types.push_back(memrefType(ctx, input.layout));
  for (const EpilogInput &input : problem.userInputs)
    types.push_back(memrefType(ctx, input.layout));
  if (problem.userEpilog && problem.userEpilog->userData) // by value: a scalar epilog input
    types.push_back(IntegerType::get(ctx, 64));
  types.push_back(memrefType(ctx, problem.d));
  for (const NamedLayout &output : outputs)
    types.push_back(memrefType(ctx, output.layout));
  if (problem.groups) {
    types.push_back(memrefType(ctx, problem.groups->bounds));
    if (problem.groups->weightIndices)
      types.push_back(memrefType(ctx, *problem.groups->weightIndices));
  }
  types.append(problem.mirrors, memrefType(ctx, problem.d));
  return types;
}

/// The mepi.matmul's operands and their kinds, bound to the planned function's arguments.
struct MatmulOperands {
  Value a, b, alpha, c, beta, d, aSums, bSums, groups, weightIndices, aBlockScales, bBlockScales;
  GroupFormAttr groupForm;
  UnitAttr groupsAlongK;
  SmallVector<Value> inputs, aux, reductions, mirrors;
  SmallVector<Attribute> inputKinds, auxKinds, reductionKinds, combiners;
};

MatmulOperands bindArguments(Block *entry, const MatmulProblem &problem,
                             const EpilogSignature &signature) {
  MLIRContext *ctx = entry->getParentOp()->getContext();
  MatmulOperands o;
  unsigned next = 0;
  auto arg = [&] { return entry->getArgument(next++); };
  o.a = arg(), o.b = arg(), o.alpha = arg();
  if (problem.c && !epilogReadsC(problem)) // else the epilog's first two inputs
    o.c = arg(), o.beta = arg();
  auto input = [&](BroadcastKind kind) {
    o.inputs.push_back(arg());
    o.inputKinds.push_back(BroadcastKindAttr::get(ctx, kind));
  };
  for (const EpilogOperand &in : signature.inputs) {
    if (::mepi::runtime::isBlockScale(problem, in.key.str()))
      (in.key == "a_scale" ? o.aBlockScales : o.bBlockScales) = arg();
    else
      input(in.key == "bias" && problem.cyclicBias ? BroadcastKind::CyclicRow : in.kind);
  }
  for (const EpilogInput &in : problem.userInputs)
    input(broadcastKind(in.kind));
  if (problem.userEpilog && problem.userEpilog->userData)
    input(BroadcastKind::Scalar);
  o.d = arg();
  auto aux = [&](BroadcastKind kind) {
    o.aux.push_back(arg());
    o.auxKinds.push_back(BroadcastKindAttr::get(ctx, kind));
  };
  auto reduction = [&](BroadcastKind kind, Combiner combiner) {
    o.reductions.push_back(arg());
    o.reductionKinds.push_back(BroadcastKindAttr::get(ctx, kind));
    o.combiners.push_back(CombinerAttr::get(ctx, combiner));
  };
  for (const EpilogOperand &out : signature.aux)
    aux(out.kind);
  SmallVector<EpilogOperand> declared(signature.reductions);
  if (problem.resultAmax)
    declared.push_back(kResultAmax);
  if (problem.auxAmax)
    declared.push_back(kGeluAuxAmax);
  for (const EpilogOperand &out : declared)
    reduction(out.kind, out.combiner);
  if (problem.userEpilog)
    for (size_t i : userOutputsInOpOrder(*problem.userEpilog)) {
      const EpilogOutput &out = problem.userEpilog->outputs[i];
      if (isAuxOutput(out))
        aux(outputKind(out.kind));
      else
        reduction(outputKind(out.kind), out.combiner == ::mepi::runtime::Combiner::Add
                                            ? Combiner::Add
                                            : Combiner::Max);
    }
  // 8-bit operands' sums are a pass of their own after the GEMM (OperandSumsPass.h): their
  // outputs stay in the kernel ABI, unread.
  bool apart = ::mepi::runtime::sumsOperandsApart(problem);
  for (const EpilogOperand &sums : signature.operandSums) {
    Value output = arg();
    if (!apart)
      (sums.kind == BroadcastKind::Row ? o.aSums : o.bSums) = output;
  }
  if (problem.groups) {
    o.groups = arg();
    o.groupForm = GroupFormAttr::get(ctx, groupForm(problem.groups->form));
    if (problem.groups->alongK)
      o.groupsAlongK = UnitAttr::get(ctx);
    if (problem.groups->weightIndices)
      o.weightIndices = arg();
  }
  for (int64_t i = 0; i < problem.mirrors; ++i)
    o.mirrors.push_back(arg());
  return o;
}

} // namespace

auto ::mepi::runtime::detail::plan(const MatmulProblem &problem)
    -> llvm::Expected<PlannedModule> {
  PlannedModule planned;
  planned.context = makeContext();
  MLIRContext *ctx = planned.context.get();
  DiagnosticCollector diagnostics(ctx);

  std::optional<BuiltinEpilog> epilog = parseBuiltinEpilog(problem.epilog);
  EpilogSignature signature;
  llvm::Expected<std::vector<NamedLayout>> inputs = builtinInputsOf(problem, epilog, signature);
  if (!inputs)
    return inputs.takeError();
  llvm::Expected<std::vector<NamedLayout>> outputs = ::mepi::runtime::epilogOutputLayouts(problem);
  if (!outputs)
    return outputs.takeError();
  KernelConfigAttr config;
  if (!problem.kernelConfig.empty()) {
    config = dyn_cast_or_null<KernelConfigAttr>(parseAttribute(problem.kernelConfig, ctx));
    if (!config)
      return llvm::createStringError("options.kernelConfig: expected a #mepi.kernel_config<...>, "
                                     "got '" + problem.kernelConfig + "'" +
                                     diagnostics.messagesSuffix());
  }

  Location loc = UnknownLoc::get(ctx);
  OpBuilder b(ctx);
  planned.module = ModuleOp::create(loc);
  SmallVector<Type> argTypes = argumentTypes(ctx, problem, *inputs, *outputs);
  b.setInsertionPointToEnd(planned.module->getBody());
  auto fn = func::FuncOp::create(b, loc, "mepi_matmul", b.getFunctionType(argTypes, {}));
  // What the addresses of a and b promise decides whether TMA kernels may read them.
  if (problem.addressAlignment >= 16)
    for (unsigned arg : {0u, 1u})
      fn.setArgAttr(arg, kAlignmentAttr, b.getI64IntegerAttr(16));
  // C (after a, b and alpha): what its address promises decides whether element pairs of C
  // load at once.
  if (problem.c && problem.cAlignment >= 4)
    fn.setArgAttr(3, kAlignmentAttr, b.getI64IntegerAttr(problem.cAlignment));
  // A user epilog's matrix inputs (after a, b, alpha, c and beta, the built-in inputs) likewise.
  size_t firstUserInput = 3 + (problem.c ? 2 : 0) + inputs->size();
  for (auto [i, input] : llvm::enumerate(problem.userInputs))
    if (input.alignment >= 4)
      fn.setArgAttr(firstUserInput + i, kAlignmentAttr, b.getI64IntegerAttr(input.alignment));
  // D and the outputs after it are allocated by the runtime (cuMemAlloc: 256-byte aligned),
  // which allows vector stores; a grouped problem's bounds and weight indices follow them,
  // then the mirrors, which setMirrors requires aligned like D.
  size_t groupArgs = problem.groups ? 1 + problem.groups->weightIndices.has_value() : 0;
  size_t dArg = argTypes.size() - problem.mirrors - groupArgs - 1 - outputs->size();
  for (size_t arg = dArg; arg <= dArg + outputs->size(); ++arg)
    fn.setArgAttr(arg, kAlignmentAttr, b.getI64IntegerAttr(16));
  for (size_t arg = argTypes.size() - problem.mirrors; arg < argTypes.size(); ++arg)
    fn.setArgAttr(arg, kAlignmentAttr, b.getI64IntegerAttr(16));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  MatmulOperands o = bindArguments(entry, problem, signature);
  auto op = MatmulOp::create(
      b, loc, o.a, o.b, o.alpha, o.c, o.beta, o.inputs, b.getArrayAttr(o.inputKinds), o.d,
      o.aux, b.getArrayAttr(o.auxKinds), o.reductions, b.getArrayAttr(o.reductionKinds),
      b.getArrayAttr(o.combiners), o.aSums, o.bSums, o.groups, o.groupForm, o.groupsAlongK,
      o.weightIndices,
      o.aBlockScales, o.bBlockScales, o.mirrors,
      problem.transposeA ? b.getUnitAttr() : UnitAttr(),
      problem.transposeB ? b.getUnitAttr() : UnitAttr(), computeAttr(ctx, problem), config,
      problem.fastAccumulation && ::mepi::runtime::elementTypeBytes(problem.a.type) == 1
          ? b.getUnitAttr()
          : UnitAttr());
  func::ReturnOp::create(b, loc);
  if (problem.userEpilog) {
    if (llvm::Error e = buildUserEpilogCall(b, op, *problem.userEpilog, *planned.module))
      return std::move(e);
  } else {
    EpilogSignature seen = signature; // what the epilog reads: no block scales
    llvm::erase_if(seen.inputs,
                   [&](const EpilogOperand &in) {
                     return ::mepi::runtime::isBlockScale(problem, in.key.str());
                   });
    buildBuiltinEpilog(b, op, *epilog, seen, problem.resultAmax, problem.auxAmax);
  }

  if (failed(verify(*planned.module)))
    return diagnostics.error("invalid matmul problem");
  return planned;
}


auto ::mepi::runtime::epilogOutputLayouts(const MatmulProblem &problem)
    -> llvm::Expected<std::vector<NamedLayout>> {
  std::vector<NamedLayout> outputs;
  if (problem.userEpilog) {
    const ::mepi::runtime::UserEpilogSource &source = *problem.userEpilog;
    for (size_t i : userOutputsInOpOrder(source)) {
      const EpilogOutput &output = source.outputs[i];
      for (size_t j = 0; j < i; ++j)
        if (source.outputs[j].key == output.key)
          return llvm::createStringError("user epilog output '" + output.key +
                                         "' declared twice");
      llvm::Expected<OperandLayout> layout = userOutputLayout(output, problem);
      if (!layout)
        return layout.takeError();
      outputs.push_back({output.key, *layout});
    }
  } else {
    std::optional<BuiltinEpilog> epilog = parseBuiltinEpilog(problem.epilog);
    if (!epilog)
      return llvm::createStringError("unknown epilog '" + problem.epilog +
                                     "': expected one of " + builtinEpilogNames());
    EpilogSignature signature = getBuiltinEpilogSignature(*epilog);
    for (const EpilogOperand &aux : signature.aux) {
      llvm::Expected<OperandLayout> layout = auxOutputLayout(aux.key, problem);
      if (!layout)
        return layout.takeError();
      outputs.push_back({aux.key.str(), *layout});
    }
    for (const EpilogOperand &reduction : signature.reductions)
      outputs.push_back({reduction.key.str(), reductionLayout(reduction, problem)});
  }
  if (problem.resultAmax)
    outputs.push_back({kResultAmax.key.str(), reductionLayout(kResultAmax, problem)});
  if (problem.auxAmax)
    outputs.push_back({kGeluAuxAmax.key.str(), reductionLayout(kGeluAuxAmax, problem)});
  // After every reduction: the op's a_sums / b_sums follow its reductions.
  if (std::optional<BuiltinEpilog> epilog = parseBuiltinEpilog(problem.epilog);
      epilog && !problem.userEpilog)
    for (const EpilogOperand &sums : getBuiltinEpilogSignature(*epilog).operandSums)
      outputs.push_back({sums.key.str(), reductionLayout(sums, problem)});
  return outputs;
}

auto ::mepi::runtime::planModule(const MatmulProblem &problem)
    -> llvm::Expected<std::string> {
  llvm::Expected<PlannedModule> planned = plan(problem);
  if (!planned)
    return planned.takeError();
  return printModule(*planned->module);
}

auto ::mepi::runtime::detail::printModule(ModuleOp module) -> std::string {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}
