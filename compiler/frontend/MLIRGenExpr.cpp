//===- MLIRGenExpr.cpp - AST to tile IR: expressions ----------------------===//
//
// Operators fold when both operands are compile-time values; otherwise the
// operands are promoted (bool < int < float, i32 < i64, f16/bf16 < f32; a
// constexpr takes the other operand's type), broadcast numpy-style with
// tile.splat / tile.expand_dims / tile.broadcast, and one arith op is
// emitted on scalars or unencoded ranked tensors.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include <cmath>

using namespace mlir;
using namespace tilemla;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type MLIRGenImpl::parseTypeName(llvm::StringRef name) {
  if (name == "i1")
    return builder.getI1Type();
  if (name == "i32")
    return builder.getI32Type();
  if (name == "i64")
    return builder.getI64Type();
  if (name == "f16")
    return builder.getF16Type();
  if (name == "bf16")
    return builder.getBF16Type();
  if (name == "f32")
    return builder.getF32Type();
  if (name == "fp8e4m3")
    return builder.getType<Float8E4M3FNType>();
  if (name == "fp8e5m2")
    return builder.getType<Float8E5M2Type>();
  return Type();
}

std::string MLIRGenImpl::typeStr(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t)) {
    std::string s = typeStr(r.getElementType()) + "[";
    for (size_t k = 0; k < r.getShape().size(); ++k)
      s += (k ? ", " : "") + std::to_string(r.getShape()[k]);
    return s + "]";
  }
  if (auto p = dyn_cast<tile::PointerType>(t))
    return "*" + typeStr(p.getPointeeType());
  if (auto d = dyn_cast<tile::TensorDescType>(t))
    return "desc<" + typeStr(d.getElementType()) + ">";
  if (isa<Float8E4M3FNType>(t))
    return "fp8e4m3";
  if (isa<Float8E5M2Type>(t))
    return "fp8e5m2";
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string MLIRGenImpl::describe(const TValue &v) {
  switch (v.kind) {
  case TValue::Runtime:
    return typeStr(v.value.getType());
  case TValue::Int:
    return "constexpr " + std::to_string(v.i);
  case TValue::Float:
    return "constexpr float";
  case TValue::Bool:
    return v.b ? "constexpr True" : "constexpr False";
  case TValue::DType:
    return "dtype " + typeStr(v.type);
  case TValue::Tuple:
    return "a tuple";
  case TValue::None:
    return "None";
  case TValue::String:
    return "a string";
  case TValue::Poison:
    return "an invalid value";
  }
  return "?";
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

Type MLIRGenImpl::tensorOf(ArrayRef<int64_t> shape, Type elem) {
  if (shape.empty())
    return elem;
  return RankedTensorType::get(shape, elem);
}

static bool fitsI32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

Type MLIRGenImpl::constType(const TValue &c, Type other) {
  bool otherFloat = other && isa<FloatType>(other);
  bool otherInt = other && other.isInteger() && !other.isInteger(1);
  switch (c.kind) {
  case TValue::Int:
    if (otherFloat)
      return other;
    if (otherInt && (fitsI32(c.i) || other.isInteger(64)))
      return other;
    return fitsI32(c.i) ? builder.getI32Type() : builder.getI64Type();
  case TValue::Float:
    return otherFloat ? other : builder.getF32Type();
  case TValue::Bool:
    return (otherFloat || otherInt) ? other : builder.getI1Type();
  default:
    return Type();
  }
}

static unsigned floatRank(Type t) {
  if (tile::isFp8Type(t))
    return 0;
  if (t.isF16() || t.isBF16())
    return 1;
  return 2;
}

Type MLIRGenImpl::promote(Type a, Type b) {
  if (a == b)
    return a;
  bool af = isa<FloatType>(a), bf = isa<FloatType>(b);
  if (af && bf) {
    unsigned ra = floatRank(a), rb = floatRank(b);
    if (ra == rb) // f16 with bf16
      return builder.getF32Type();
    return ra > rb ? a : b;
  }
  if (af)
    return a;
  if (bf)
    return b;
  return a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
}

//===----------------------------------------------------------------------===//
// Materialization, casts, broadcasting
//===----------------------------------------------------------------------===//

Value MLIRGenImpl::constant(const TValue &c, Type type, SourceLoc l) {
  Type elem = getElementTypeOrSelf(type);
  // Value uses of an unmodified constexpr kernel parameter read its argument.
  if (c.value && c.value.getType() == type)
    return c.value;
  TypedAttr attr;
  if (auto it = dyn_cast<IntegerType>(elem)) {
    int64_t v = c.kind == TValue::Int    ? c.i
                : c.kind == TValue::Bool ? (int64_t)c.b
                                         : (int64_t)c.f;
    if (it.getWidth() == 1)
      v = v != 0;
    attr = builder.getIntegerAttr(elem, APInt(it.getWidth(), (uint64_t)v,
                                              /*isSigned=*/false,
                                              /*implicitTrunc=*/true));
  } else {
    double v = c.kind == TValue::Int    ? (double)c.i
               : c.kind == TValue::Bool ? (double)c.b
                                        : c.f;
    attr = builder.getFloatAttr(elem, v);
  }
  if (auto tt = dyn_cast<RankedTensorType>(type))
    attr = DenseElementsAttr::get(tt, cast<Attribute>(attr));
  return arith::ConstantOp::create(builder, loc(l), attr);
}

LogicalResult MLIRGenImpl::requireValue(const TValue &v, SourceLoc l) {
  if (v.isRuntime() || v.isConst())
    return success();
  if (v.kind != TValue::Poison)
    diags.error(l, "expected a value, got " + describe(v));
  return failure();
}

FailureOr<Value> MLIRGenImpl::materialize(const TValue &v, SourceLoc l) {
  if (failed(requireValue(v, l)))
    return failure();
  if (v.isRuntime())
    return v.value;
  return constant(v, constType(v, Type()), l);
}

FailureOr<Value> MLIRGenImpl::castTo(Value v, Type elem, SourceLoc l) {
  Type src = getElementTypeOrSelf(v.getType());
  if (src == elem)
    return v;
  Type dstType = tensorOf(shapeOf(v.getType()), elem);
  Location lc = loc(l);
  if (!src.isIntOrFloat() || !elem.isIntOrFloat()) {
    diags.error(l, "cannot convert " + typeStr(src) + " to " + typeStr(elem));
    return failure();
  }
  bool srcF = isa<FloatType>(src), dstF = isa<FloatType>(elem);
  unsigned sw = src.getIntOrFloatBitWidth(), dw = elem.getIntOrFloatBitWidth();
  if (!srcF && !dstF) {
    if (sw == 1)
      return arith::ExtUIOp::create(builder, lc, dstType, v).getResult();
    if (dw > sw)
      return arith::ExtSIOp::create(builder, lc, dstType, v).getResult();
    if (dw == 1) { // int -> bool: x != 0
      Value zero = constant(TValue::ofInt(0), v.getType(), l);
      return arith::CmpIOp::create(builder, lc, arith::CmpIPredicate::ne, v,
                                   zero)
          .getResult();
    }
    return arith::TruncIOp::create(builder, lc, dstType, v).getResult();
  }
  if (!srcF && dstF) {
    if (sw == 1)
      return arith::UIToFPOp::create(builder, lc, dstType, v).getResult();
    return arith::SIToFPOp::create(builder, lc, dstType, v).getResult();
  }
  if (srcF && !dstF) {
    if (dw == 1) {
      Value zero = constant(TValue::ofFloat(0), v.getType(), l);
      return arith::CmpFOp::create(builder, lc, arith::CmpFPredicate::UNE, v,
                                   zero)
          .getResult();
    }
    return arith::FPToSIOp::create(builder, lc, dstType, v).getResult();
  }
  if (dw > sw)
    return arith::ExtFOp::create(builder, lc, dstType, v).getResult();
  if (dw < sw)
    return arith::TruncFOp::create(builder, lc, dstType, v).getResult();
  // Same width, different format (f16 <-> bf16): go through f32.
  Value wide = arith::ExtFOp::create(
      builder, lc, tensorOf(shapeOf(v.getType()), builder.getF32Type()), v);
  return arith::TruncFOp::create(builder, lc, dstType, wide).getResult();
}

bool MLIRGenImpl::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                  SmallVectorImpl<int64_t> &out) {
  size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t k = 0; k < rank; ++k) {
    int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    out[k] = da == 1 ? db : da;
  }
  return true;
}

FailureOr<SmallVector<int64_t>>
MLIRGenImpl::commonShape(ArrayRef<const TValue *> vals, SourceLoc l) {
  SmallVector<int64_t> shape;
  for (const TValue *v : vals) {
    if (!v->isRuntime())
      continue;
    ArrayRef<int64_t> s = shapeOf(v->value.getType());
    SmallVector<int64_t> out;
    if (!broadcastShapes(shape, s, out)) {
      diags.error(l, "cannot broadcast shapes " + shapeStr(shape) + " and " +
                         shapeStr(s));
      return failure();
    }
    shape = out;
  }
  return shape;
}

FailureOr<Value> MLIRGenImpl::broadcastTo(Value v, ArrayRef<int64_t> shape,
                                          SourceLoc l) {
  ArrayRef<int64_t> src = shapeOf(v.getType());
  if (src == shape)
    return v;
  Type elem = getElementTypeOrSelf(v.getType());
  Location lc = loc(l);
  if (src.empty())
    return tile::SplatOp::create(builder, lc, tensorOf(shape, elem), v)
        .getResult();
  if (src.size() > shape.size()) {
    diags.error(l, "cannot broadcast shape " + shapeStr(src) + " to " +
                       shapeStr(shape));
    return failure();
  }
  size_t lead = shape.size() - src.size();
  for (size_t k = 0; k < src.size(); ++k)
    if (src[k] != shape[lead + k] && src[k] != 1) {
      diags.error(l, "cannot broadcast shape " + shapeStr(src) + " to " +
                         shapeStr(shape));
      return failure();
    }
  SmallVector<int64_t> cur(src.begin(), src.end());
  for (size_t k = 0; k < lead; ++k) { // numpy: prepend unit dims
    cur.insert(cur.begin(), 1);
    v = tile::ExpandDimsOp::create(builder, lc, tensorOf(cur, elem), v,
                                   builder.getI32IntegerAttr(0));
  }
  if (ArrayRef<int64_t>(cur) != shape)
    v = tile::BroadcastOp::create(builder, lc, tensorOf(shape, elem), v);
  return v;
}

FailureOr<Value> MLIRGenImpl::toValue(const TValue &v, Type elem,
                                      ArrayRef<int64_t> shape, SourceLoc l) {
  if (failed(requireValue(v, l)))
    return failure();
  if (v.isConst())
    return constant(v, tensorOf(shape, elem), l);
  FailureOr<Value> c = castTo(v.value, elem, l);
  if (failed(c))
    return failure();
  return broadcastTo(*c, shape, l);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

FailureOr<TValue> MLIRGenImpl::genExpr(const ExprAST &e) {
  switch (e.getKind()) {
  case ExprAST::Expr_Int:
    return TValue::ofInt(cast<IntExprAST>(e).getValue());
  case ExprAST::Expr_Float:
    return TValue::ofFloat(cast<FloatExprAST>(e).getValue());
  case ExprAST::Expr_Bool:
    return TValue::ofBool(cast<BoolExprAST>(e).getValue());
  case ExprAST::Expr_None:
    return TValue::none();
  case ExprAST::Expr_String: {
    TValue t;
    t.kind = TValue::String;
    t.str = cast<StringExprAST>(e).getValue().str();
    return t;
  }
  case ExprAST::Expr_Name:
    return genName(cast<NameExprAST>(e));
  case ExprAST::Expr_Unary:
    return genUnary(cast<UnaryExprAST>(e));
  case ExprAST::Expr_Binary:
    return genBinary(cast<BinaryExprAST>(e));
  case ExprAST::Expr_Call:
    return genCall(cast<CallExprAST>(e));
  case ExprAST::Expr_Attr:
    return genAttr(cast<AttrExprAST>(e));
  case ExprAST::Expr_Index:
    return genIndex(cast<IndexExprAST>(e));
  case ExprAST::Expr_Slice:
    diags.error(e.loc(), "':' is only valid inside an index");
    return failure();
  case ExprAST::Expr_Tuple: {
    TValue t;
    t.kind = TValue::Tuple;
    for (const ExprPtr &el : cast<TupleExprAST>(e).getElements()) {
      FailureOr<TValue> v = genExpr(*el);
      if (failed(v))
        return failure();
      t.elems.push_back(*v);
    }
    return t;
  }
  }
  return failure();
}

FailureOr<TValue> MLIRGenImpl::genName(const NameExprAST &e) {
  auto it = env.find(e.getName().str());
  if (it != env.end()) {
    if (it->second.kind == TValue::Poison)
      return failure();
    return it->second;
  }
  if (Type t = parseTypeName(e.getName()))
    return TValue::ofType(t);
  // Predeclared float constants (e.g. `other=-inf` for masked maxima).
  if (e.getName() == "inf")
    return TValue::ofFloat(INFINITY);
  if (e.getName() == "nan")
    return TValue::ofFloat(NAN);
  if (lookupBuiltin(e.getName()))
    diags.error(e.loc(), "builtin '" + e.getName() + "' must be called");
  else if (astModule.lookup(e.getName()))
    diags.error(e.loc(), "helper '" + e.getName() + "' must be called");
  else
    diags.error(e.loc(), "use of undefined name '" + e.getName() + "'");
  return failure();
}

FailureOr<TValue> MLIRGenImpl::genUnary(const UnaryExprAST &e) {
  FailureOr<TValue> x = genExpr(e.getOperand());
  if (failed(x) || failed(requireValue(*x, e.getOperand().loc())))
    return failure();
  if (x->isConst()) {
    int64_t iv = x->kind == TValue::Bool ? x->b : x->i;
    switch (e.getOp()) {
    case UnaryOp::Neg:
      if (x->kind == TValue::Float)
        return TValue::ofFloat(-x->f);
      return TValue::ofInt((int64_t)(0 - (uint64_t)iv));
    case UnaryOp::BitNot:
      if (x->kind == TValue::Float)
        break;
      return TValue::ofInt(~iv);
    case UnaryOp::Not:
      return TValue::ofBool(x->kind == TValue::Float ? x->f == 0 : iv == 0);
    }
  }
  FailureOr<Value> v = materialize(*x, e.loc());
  if (failed(v))
    return failure();
  Type t = v->getType(), elem = getElementTypeOrSelf(t);
  Location lc = loc(e.loc());
  if (!elem.isIntOrFloat()) {
    diags.error(e.loc(), "invalid operand to unary '" + spell(e.getOp()) +
                             "': " + typeStr(t));
    return failure();
  }
  switch (e.getOp()) {
  case UnaryOp::Neg:
    if (isa<FloatType>(elem))
      return TValue::runtime(arith::NegFOp::create(builder, lc, *v));
    return TValue::runtime(arith::SubIOp::create(
        builder, lc, constant(TValue::ofInt(0), t, e.loc()), *v));
  case UnaryOp::BitNot:
    if (isa<FloatType>(elem)) {
      diags.error(e.loc(),
                  "'~' requires an integer operand, got " + typeStr(t));
      return failure();
    }
    return TValue::runtime(arith::XOrIOp::create(
        builder, lc, *v, constant(TValue::ofInt(-1), t, e.loc())));
  case UnaryOp::Not:
    if (!elem.isInteger(1)) {
      diags.error(e.loc(), "'not' requires an i1 operand, got " + typeStr(t));
      return failure();
    }
    return TValue::runtime(arith::XOrIOp::create(
        builder, lc, *v, constant(TValue::ofBool(true), t, e.loc())));
  }
  return failure();
}

FailureOr<TValue> MLIRGenImpl::genBinary(const BinaryExprAST &e) {
  FailureOr<TValue> lhs = genExpr(e.getLHS());
  if (failed(lhs))
    return failure();
  FailureOr<TValue> rhs = genExpr(e.getRHS());
  if (failed(rhs))
    return failure();
  // Two dtypes compare at compile time (`if DOT_T == T`).
  if (lhs->kind == TValue::DType && rhs->kind == TValue::DType &&
      (e.getOp() == BinaryOp::Eq || e.getOp() == BinaryOp::Ne))
    return TValue::ofBool((lhs->type == rhs->type) ==
                          (e.getOp() == BinaryOp::Eq));
  if (failed(requireValue(*lhs, e.getLHS().loc())) ||
      failed(requireValue(*rhs, e.getRHS().loc())))
    return failure();
  return binaryOp(e.getOp(), *lhs, *rhs, e.loc());
}
