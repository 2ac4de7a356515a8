// The epilog builder: a graph of nodes, printed as an MLIR func.func that plan() inlines like
// any user epilog. Plain C++: the text goes through the same parser and verifier as text a user
// writes, so the builder adds no second path into the compiler.
#include "mepi/EpilogBuilder.h"

#include "Runtime/ApiSupport.h"
#include "Runtime/Problem.h"

#include <cstring>
#include <sstream>

using namespace mepi;

struct EpilogBuilder::Node {
  enum class Kind { Acc, C, Row, Col, Input, Constant, IndexConstant, Unary, Binary, Fma,
                    Compare, Select, Cast };
  Kind kind;
  ValueType type;
  int op = 0;                   ///< UnaryOp, BinaryOp, Predicate or DType (Cast)
  std::vector<int32_t> operands;
  double value = 0;             ///< Constant
  int64_t indexValue = 0;       ///< IndexConstant
  size_t input = 0;             ///< Input: position in Graph::inputs
  bool fast = false;            ///< may approximate (fastmath<afn>)
};

namespace {
struct Output {
  UserEpilogOutput declared;
  int32_t value;
};
} // namespace

struct EpilogBuilder::Graph {
  std::vector<Node> nodes;
  std::vector<std::pair<std::string, InputKind>> inputs;
  std::optional<int32_t> acc, c, row, col;
  std::optional<int32_t> stored;
  std::vector<Output> outputs;
  bool fastMath = false;
};

namespace {
[[noreturn]] void fail(const std::string &message) { throw Error("epilog builder: " + message); }

const char *typeName(ValueType type) {
  switch (type) {
  case ValueType::F32: return "f32";
  case ValueType::Index: return "index";
  case ValueType::Bool: return "bool";
  }
  return "?";
}

const char *mlirType(ValueType type) {
  return type == ValueType::F32 ? "f32" : type == ValueType::Index ? "index" : "i1";
}

const char *mlirType(DType dtype) {
  return runtime::mlirTypeName(api::elementType(dtype));
}

const char *unaryName(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "arith.negf";
  case UnaryOp::Abs: return "math.absf";
  case UnaryOp::Exp: return "math.exp";
  case UnaryOp::Log: return "math.log";
  case UnaryOp::Sqrt: return "math.sqrt";
  case UnaryOp::Rsqrt: return "math.rsqrt";
  case UnaryOp::Tanh: return "math.tanh";
  case UnaryOp::Erf: return "math.erf";
  case UnaryOp::Floor: return "math.floor";
  case UnaryOp::Ceil: return "math.ceil";
  case UnaryOp::Round: return "math.roundeven";
  }
  return "?";
}

/// The MLIR op of `op` on operands of `type`, or null where `op` does not take that type.
const char *binaryName(BinaryOp op, ValueType type) {
  if (type == ValueType::Bool)
    return op == BinaryOp::And ? "arith.andi" : op == BinaryOp::Or ? "arith.ori" : nullptr;
  bool f = type == ValueType::F32;
  switch (op) {
  case BinaryOp::Add: return f ? "arith.addf" : "arith.addi";
  case BinaryOp::Sub: return f ? "arith.subf" : "arith.subi";
  case BinaryOp::Mul: return f ? "arith.mulf" : "arith.muli";
  case BinaryOp::Min: return f ? "arith.minimumf" : "arith.minsi";
  case BinaryOp::Max: return f ? "arith.maximumf" : "arith.maxsi";
  case BinaryOp::Div: return f ? "arith.divf" : nullptr;
  case BinaryOp::Pow: return f ? "math.powf" : nullptr;
  case BinaryOp::And:
  case BinaryOp::Or: return nullptr;
  }
  return nullptr;
}

const char *binaryLabel(BinaryOp op) {
  static const char *names[] = {"add", "sub", "mul", "div", "min", "max", "pow", "and", "or"};
  return names[static_cast<int>(op)];
}

/// cmpf's ordered predicates (une for Ne: true when either is NaN, as C's !=) or cmpi's signed.
const char *predicateName(Predicate p, ValueType type) {
  bool f = type == ValueType::F32;
  switch (p) {
  case Predicate::Lt: return f ? "olt" : "slt";
  case Predicate::Le: return f ? "ole" : "sle";
  case Predicate::Gt: return f ? "ogt" : "sgt";
  case Predicate::Ge: return f ? "oge" : "sge";
  case Predicate::Eq: return f ? "oeq" : "eq";
  case Predicate::Ne: return f ? "une" : "ne";
  }
  return "?";
}

/// The type the epilog function returns for an output: the matrix's element type, an i1 for
/// a bitmask bit, an f32 for a reduction.
const char *outputResultType(const Output &o) {
  switch (o.declared.kind) {
  case UserEpilogOutput::Kind::Matrix: return mlirType(o.declared.dtype);
  case UserEpilogOutput::Kind::Bitmask: return "i1";
  default: return "f32";
  }
}

/// An f32 constant by its bits: exact, and valid for infinities and NaN.
std::string f32Literal(double value) {
  float f = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", bits);
  return text;
}
} // namespace

EpilogBuilder::EpilogBuilder() : graph(std::make_unique<Graph>()) {}
EpilogBuilder::EpilogBuilder(const EpilogBuilder &other)
    : graph(std::make_unique<Graph>(*other.graph)) {}
EpilogBuilder &EpilogBuilder::operator=(const EpilogBuilder &other) {
  graph = std::make_unique<Graph>(*other.graph);
  return *this;
}
EpilogBuilder::EpilogBuilder(EpilogBuilder &&) noexcept = default;
EpilogBuilder &EpilogBuilder::operator=(EpilogBuilder &&) noexcept = default;
EpilogBuilder::~EpilogBuilder() = default;

EpilogValue EpilogBuilder::addNode(const Node &node) {
  graph->nodes.push_back(node);
  graph->nodes.back().fast = graph->fastMath;
  return EpilogValue(graph.get(), static_cast<int32_t>(graph->nodes.size() - 1), node.type);
}

void EpilogBuilder::checkOwned(const EpilogValue &x, const char *node) const {
  if (x.owner != graph.get() || x.id < 0 || size_t(x.id) >= graph->nodes.size())
    fail(std::string(node) + ": an operand is not a value of this builder");
}

EpilogValue EpilogBuilder::accumulator() {
  if (!graph->acc)
    graph->acc = addNode({Node::Kind::Acc, ValueType::F32}).id;
  return EpilogValue(graph.get(), *graph->acc, ValueType::F32);
}

EpilogValue EpilogBuilder::c() {
  if (!graph->c)
    graph->c = addNode({Node::Kind::C, ValueType::F32}).id;
  return EpilogValue(graph.get(), *graph->c, ValueType::F32);
}

EpilogValue EpilogBuilder::row() {
  if (!graph->row)
    graph->row = addNode({Node::Kind::Row, ValueType::Index}).id;
  return EpilogValue(graph.get(), *graph->row, ValueType::Index);
}

EpilogValue EpilogBuilder::col() {
  if (!graph->col)
    graph->col = addNode({Node::Kind::Col, ValueType::Index}).id;
  return EpilogValue(graph.get(), *graph->col, ValueType::Index);
}

EpilogValue EpilogBuilder::input(const std::string &name, InputKind kind) {
  if (name.empty())
    fail("input: expected a name, got an empty one");
  for (size_t i = 0; i < graph->inputs.size(); ++i) {
    if (graph->inputs[i].first != name)
      continue;
    if (graph->inputs[i].second != kind)
      fail("input '" + name + "': read before with another kind");
    for (size_t id = 0; id < graph->nodes.size(); ++id)
      if (graph->nodes[id].kind == Node::Kind::Input && graph->nodes[id].input == i)
        return EpilogValue(graph.get(), static_cast<int32_t>(id), ValueType::F32);
  }
  graph->inputs.push_back({name, kind});
  Node node{Node::Kind::Input, ValueType::F32};
  node.input = graph->inputs.size() - 1;
  return addNode(node);
}

EpilogValue EpilogBuilder::constant(double value) {
  Node node{Node::Kind::Constant, ValueType::F32};
  node.value = value;
  return addNode(node);
}

EpilogValue EpilogBuilder::indexConstant(int64_t value) {
  Node node{Node::Kind::IndexConstant, ValueType::Index};
  node.indexValue = value;
  return addNode(node);
}

EpilogValue EpilogBuilder::unary(UnaryOp op, EpilogValue x) {
  checkOwned(x, unaryName(op));
  if (x.type() != ValueType::F32)
    fail(std::string(unaryName(op)) + ": expected an f32 operand, got " + typeName(x.type()));
  Node node{Node::Kind::Unary, ValueType::F32, static_cast<int>(op), {x.id}};
  return addNode(node);
}

EpilogValue EpilogBuilder::binary(BinaryOp op, EpilogValue x, EpilogValue y) {
  const char *label = binaryLabel(op);
  checkOwned(x, label);
  checkOwned(y, label);
  if (x.type() != y.type())
    fail(std::string(label) + ": expected operands of one type, got " + typeName(x.type()) +
         " and " + typeName(y.type()));
  if (!binaryName(op, x.type()))
    fail(std::string(label) + ": not defined on " + typeName(x.type()) + " values");
  Node node{Node::Kind::Binary, x.type(), static_cast<int>(op), {x.id, y.id}};
  return addNode(node);
}

EpilogValue EpilogBuilder::fma(EpilogValue x, EpilogValue y, EpilogValue z) {
  for (const EpilogValue &v : {x, y, z}) {
    checkOwned(v, "fma");
    if (v.type() != ValueType::F32)
      fail(std::string("fma: expected f32 operands, got ") + typeName(v.type()));
  }
  Node node{Node::Kind::Fma, ValueType::F32, 0, {x.id, y.id, z.id}};
  return addNode(node);
}

EpilogValue EpilogBuilder::compare(Predicate predicate, EpilogValue x, EpilogValue y) {
  checkOwned(x, "compare");
  checkOwned(y, "compare");
  if (x.type() != y.type() || x.type() == ValueType::Bool)
    fail(std::string("compare: expected two f32 or two index operands, got ") +
         typeName(x.type()) + " and " + typeName(y.type()));
  Node node{Node::Kind::Compare, ValueType::Bool, static_cast<int>(predicate), {x.id, y.id}};
  return addNode(node);
}

EpilogValue EpilogBuilder::select(EpilogValue cond, EpilogValue x, EpilogValue y) {
  for (const EpilogValue &v : {cond, x, y})
    checkOwned(v, "select");
  if (cond.type() != ValueType::Bool)
    fail(std::string("select: expected a bool condition, got ") + typeName(cond.type()));
  if (x.type() != y.type())
    fail(std::string("select: expected operands of one type, got ") + typeName(x.type()) +
         " and " + typeName(y.type()));
  Node node{Node::Kind::Select, x.type(), 0, {cond.id, x.id, y.id}};
  return addNode(node);
}

EpilogValue EpilogBuilder::cast(EpilogValue x, DType dtype) {
  checkOwned(x, "cast");
  if (dtype == DType::UInt8)
    fail("cast: expected dtype f16, bf16 or f32, got u8");
  if (x.type() != ValueType::F32 && dtype != DType::Float32)
    fail(std::string("cast: ") + typeName(x.type()) + " values convert to f32 only, not " +
         mlirType(dtype));
  Node node{Node::Kind::Cast, ValueType::F32, static_cast<int>(dtype), {x.id}};
  return addNode(node);
}

void EpilogBuilder::store(EpilogValue x) {
  checkOwned(x, "store");
  if (x.type() != ValueType::F32)
    fail(std::string("store: expected an f32 value, got ") + typeName(x.type()));
  if (graph->stored)
    fail("store: D is stored once; store() was called before");
  graph->stored = x.id;
}

namespace {
void checkNewKey(const std::vector<Output> &outputs, const std::string &key) {
  if (key.empty())
    fail("output: expected a key, got an empty one");
  for (const Output &o : outputs)
    if (o.declared.key == key)
      fail("output '" + key + "': declared twice");
}
} // namespace

void EpilogBuilder::auxOutput(const std::string &key, EpilogValue x, DType dtype) {
  checkOwned(x, "auxOutput");
  checkNewKey(graph->outputs, key);
  UserEpilogOutput out{key, UserEpilogOutput::Kind::Matrix, dtype};
  if (x.type() == ValueType::Bool) {
    out.kind = UserEpilogOutput::Kind::Bitmask;
    out.dtype = DType::UInt8;
  } else if (x.type() != ValueType::F32) {
    fail("auxOutput '" + key + "': expected an f32 or bool value, got " + typeName(x.type()));
  } else if (dtype == DType::UInt8) {
    fail("auxOutput '" + key + "': expected dtype f16, bf16 or f32 for an f32 value, got u8");
  }
  graph->outputs.push_back({out, x.id});
}

void EpilogBuilder::reduction(const std::string &key, EpilogValue x, ReductionKind kind,
                              UserEpilogOutput::Combiner combiner, DType dtype) {
  checkOwned(x, "reduction");
  checkNewKey(graph->outputs, key);
  if (x.type() != ValueType::F32)
    fail("reduction '" + key + "': expected an f32 value, got " + typeName(x.type()));
  if (dtype == DType::UInt8)
    fail("reduction '" + key + "': expected dtype f16, bf16 or f32, got u8");
  using Kind = UserEpilogOutput::Kind;
  Kind outKind = kind == ReductionKind::Row   ? Kind::RowReduction
                 : kind == ReductionKind::Col ? Kind::ColReduction
                                              : Kind::ScalarReduction;
  graph->outputs.push_back({{key, outKind, dtype, combiner}, x.id});
}

std::vector<std::pair<std::string, InputKind>> EpilogBuilder::inputs() const {
  return graph->inputs;
}

void EpilogBuilder::setFastMath(bool enabled) { graph->fastMath = enabled; }

bool EpilogBuilder::readsC() const { return graph->c.has_value(); }

/// Prints a graph as the MLIR function of toUserEpilog: its signature, one SSA value per node
/// (%v<id>; the arguments for the accumulator, row and column; widened inputs), and the
/// results.
struct EpilogBuilder::Printer {
  const Graph &g;
  const std::vector<DType> &inputTypes;
  std::ostringstream os;
  std::vector<std::string> names;

  const std::string &name(int32_t id) const { return names[id]; }

  void signature(DType resultType) {
    os << "func.func @mepi_builder_epilog(%acc: f32";
    for (size_t i = 0; i < inputTypes.size(); ++i)
      os << ", %in" << i << ": " << mlirType(inputTypes[i]);
    os << ", %row: index, %col: index) -> (" << mlirType(resultType);
    for (const Output &o : g.outputs)
      os << ", " << outputResultType(o);
    os << ") {\n";
  }

  /// An f32 value of the argument `arg` of type `type`.
  std::string widened(const std::string &arg, DType type, size_t id) {
    if (type == DType::Float32)
      return arg;
    std::string v = "%v" + std::to_string(id);
    os << "  " << v << " = arith.extf " << arg << " : " << mlirType(type) << " to f32\n";
    return v;
  }

  /// Node `id`'s value, printing what computes it.
  std::string node(size_t id) {
    const Node &n = g.nodes[id];
    std::string v = "%v" + std::to_string(id);
    switch (n.kind) {
    case Node::Kind::Acc: return "%acc";
    case Node::Kind::Row: return "%row";
    case Node::Kind::Col: return "%col";
    case Node::Kind::Input:
      return widened("%in" + std::to_string(n.input), inputTypes[n.input], id);
    case Node::Kind::C:
      return widened("%in" + std::to_string(g.inputs.size()), inputTypes[g.inputs.size()], id);
    case Node::Kind::Constant:
      os << "  " << v << " = arith.constant " << f32Literal(n.value) << " : f32\n";
      return v;
    case Node::Kind::IndexConstant:
      os << "  " << v << " = arith.constant " << n.indexValue << " : index\n";
      return v;
    case Node::Kind::Cast:
      return cast(n, v);
    default:
      arithmetic(n, v);
      return v;
    }
  }

  /// Unary, Binary, Fma, Compare and Select nodes: one op each.
  void arithmetic(const Node &n, const std::string &v) {
    auto operand = [&](size_t i) -> const std::string & { return name(n.operands[i]); };
    ValueType operandType = g.nodes[n.operands[0]].type;
    os << "  " << v << " = ";
    switch (n.kind) {
    case Node::Kind::Unary: {
      auto op = static_cast<UnaryOp>(n.op);
      bool approximable = op == UnaryOp::Exp || op == UnaryOp::Log || op == UnaryOp::Tanh ||
                          op == UnaryOp::Sqrt || op == UnaryOp::Rsqrt;
      os << unaryName(op) << " " << operand(0) << (n.fast && approximable ? " fastmath<afn>" : "")
         << " : f32\n";
      break;
    }
    case Node::Kind::Binary: {
      auto op = static_cast<BinaryOp>(n.op);
      bool approximable = op == BinaryOp::Div || op == BinaryOp::Pow;
      // A product and the addition after it may round once (one fma), as the built-in epilogs'.
      bool contractible = operandType == ValueType::F32 &&
                          (op == BinaryOp::Add || op == BinaryOp::Sub || op == BinaryOp::Mul);
      const char *flags = !n.fast       ? ""
                          : approximable ? " fastmath<afn>"
                          : contractible ? " fastmath<contract>"
                                         : "";
      os << binaryName(op, operandType) << " " << operand(0) << ", " << operand(1) << flags
         << " : " << mlirType(operandType) << "\n";
      break;
    }
    case Node::Kind::Fma:
      os << "math.fma " << operand(0) << ", " << operand(1) << ", " << operand(2) << " : f32\n";
      break;
    case Node::Kind::Compare:
      os << (operandType == ValueType::F32 ? "arith.cmpf " : "arith.cmpi ")
         << predicateName(static_cast<Predicate>(n.op), operandType) << ", " << operand(0)
         << ", " << operand(1) << " : " << mlirType(operandType) << "\n";
      break;
    default: // Select
      os << "arith.select " << operand(0) << ", " << operand(1) << ", " << operand(2) << " : "
         << mlirType(n.type) << "\n";
      break;
    }
  }

  /// A Cast node: an index or a bool to f32, or f32 rounded to `dtype` (and back to f32).
  std::string cast(const Node &n, std::string v) {
    auto dtype = static_cast<DType>(n.op);
    ValueType from = g.nodes[n.operands[0]].type;
    const std::string &x = name(n.operands[0]);
    if (from == ValueType::Index) {
      os << "  " << v << "i = arith.index_cast " << x << " : index to i64\n"
         << "  " << v << " = arith.sitofp " << v << "i : i64 to f32\n";
    } else if (from == ValueType::Bool) {
      os << "  " << v << " = arith.uitofp " << x << " : i1 to f32\n";
    } else if (dtype == DType::Float32) {
      v = x;
    } else {
      os << "  " << v << "t = arith.truncf " << x << " : f32 to " << mlirType(dtype) << "\n  "
         << v << " = arith.extf " << v << "t : " << mlirType(dtype) << " to f32\n";
    }
    return v;
  }

  /// D rounded to its type, then the outputs in declared order.
  void results(DType resultType) {
    auto rounded = [&](int32_t id, DType type, const std::string &label) {
      if (type == DType::Float32)
        return name(id);
      std::string r = "%" + label;
      os << "  " << r << " = arith.truncf " << name(id) << " : f32 to " << mlirType(type)
         << "\n";
      return r;
    };
    std::vector<std::string> values = {rounded(*g.stored, resultType, "d")};
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const Output &o = g.outputs[i];
      values.push_back(o.declared.kind == UserEpilogOutput::Kind::Matrix
                           ? rounded(o.value, o.declared.dtype, "out" + std::to_string(i))
                           : name(o.value));
    }
    os << "  return";
    for (size_t i = 0; i < values.size(); ++i)
      os << (i ? ", " : " ") << values[i];
    os << " : " << mlirType(resultType);
    for (const Output &o : g.outputs)
      os << ", " << outputResultType(o);
    os << "\n}\n";
  }
};

UserEpilog EpilogBuilder::toUserEpilog(DType resultType,
                                       const std::vector<DType> &inputTypes) const {
  const Graph &g = *graph;
  if (!g.stored)
    fail("no value is stored to D: call store()");
  size_t numInputs = g.inputs.size() + (g.c ? 1 : 0);
  if (inputTypes.size() != numInputs)
    fail("expected " + std::to_string(numInputs) + " input types (" +
         std::to_string(g.inputs.size()) + " inputs" + (g.c ? " and C" : "") + "), got " +
         std::to_string(inputTypes.size()));
  for (DType t : inputTypes)
    if (t == DType::UInt8)
      fail("inputs are numbers: expected dtype f16, bf16 or f32, got u8");
  Printer printer{g, inputTypes, {}, std::vector<std::string>(g.nodes.size())};
  printer.signature(resultType);
  for (size_t id = 0; id < g.nodes.size(); ++id)
    printer.names[id] = printer.node(id);
  printer.results(resultType);

  UserEpilog epilog;
  epilog.mlir = printer.os.str();
  epilog.function = "mepi_builder_epilog";
  for (const Output &o : g.outputs)
    epilog.outputs.push_back(o.declared);
  return epilog;
}
