//===- MLIRGenOps.cpp - AST to tile IR: operators, indexing, constants ----===//

#include "Builtins.h"

#include <cmath>

using namespace mlir;
using namespace tilemla;

static bool isComparison(BinaryOp op) {
  return op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt ||
         op == BinaryOp::Ge || op == BinaryOp::Eq || op == BinaryOp::Ne;
}

static bool truthy(const TValue &v) {
  return v.kind == TValue::Bool  ? v.b
         : v.kind == TValue::Int ? v.i != 0
                                 : v.f != 0;
}

FailureOr<TValue> MLIRGenImpl::foldConst(BinaryOp op, const TValue &a,
                                         const TValue &b, SourceLoc l) {
  if (op == BinaryOp::And)
    return TValue::ofBool(truthy(a) && truthy(b));
  if (op == BinaryOp::Or)
    return TValue::ofBool(truthy(a) || truthy(b));
  if (a.kind == TValue::Float || b.kind == TValue::Float) {
    auto d = [](const TValue &v) {
      return v.kind == TValue::Float ? v.f
             : v.kind == TValue::Int ? (double)v.i
                                     : (double)v.b;
    };
    double x = d(a), y = d(b);
    switch (op) {
    case BinaryOp::Add:
      return TValue::ofFloat(x + y);
    case BinaryOp::Sub:
      return TValue::ofFloat(x - y);
    case BinaryOp::Mul:
      return TValue::ofFloat(x * y);
    case BinaryOp::Div:
      return TValue::ofFloat(x / y);
    case BinaryOp::Mod:
      return TValue::ofFloat(std::fmod(x, y));
    case BinaryOp::Lt:
      return TValue::ofBool(x < y);
    case BinaryOp::Le:
      return TValue::ofBool(x <= y);
    case BinaryOp::Gt:
      return TValue::ofBool(x > y);
    case BinaryOp::Ge:
      return TValue::ofBool(x >= y);
    case BinaryOp::Eq:
      return TValue::ofBool(x == y);
    case BinaryOp::Ne:
      return TValue::ofBool(x != y);
    default:
      diags.error(l, "invalid operands to binary '" + spell(op) +
                         "': bitwise operators need integers");
      return failure();
    }
  }
  int64_t x = a.kind == TValue::Bool ? a.b : a.i;
  int64_t y = b.kind == TValue::Bool ? b.b : b.i;
  bool bothBool = a.kind == TValue::Bool && b.kind == TValue::Bool;
  uint64_t ux = x, uy = y; // wrap instead of UB on overflow
  switch (op) {
  case BinaryOp::Add:
    return TValue::ofInt((int64_t)(ux + uy));
  case BinaryOp::Sub:
    return TValue::ofInt((int64_t)(ux - uy));
  case BinaryOp::Mul:
    return TValue::ofInt((int64_t)(ux * uy));
  case BinaryOp::Div:
  case BinaryOp::Mod:
    if (y == 0) {
      diags.error(l, "division by zero in a constant expression");
      return failure();
    }
    if (x == INT64_MIN && y == -1)
      return TValue::ofInt(op == BinaryOp::Div ? INT64_MIN : 0);
    return TValue::ofInt(op == BinaryOp::Div ? x / y : x % y);
  case BinaryOp::Shl:
  case BinaryOp::Shr:
    if (y < 0 || y > 63) {
      diags.error(l, "shift amount " + llvm::Twine(y) + " is out of range");
      return failure();
    }
    return TValue::ofInt(op == BinaryOp::Shl ? (int64_t)(ux << y) : x >> y);
  case BinaryOp::BitAnd:
    return bothBool ? TValue::ofBool(x & y) : TValue::ofInt(x & y);
  case BinaryOp::BitOr:
    return bothBool ? TValue::ofBool(x | y) : TValue::ofInt(x | y);
  case BinaryOp::BitXor:
    return bothBool ? TValue::ofBool(x ^ y) : TValue::ofInt(x ^ y);
  case BinaryOp::Lt:
    return TValue::ofBool(x < y);
  case BinaryOp::Le:
    return TValue::ofBool(x <= y);
  case BinaryOp::Gt:
    return TValue::ofBool(x > y);
  case BinaryOp::Ge:
    return TValue::ofBool(x >= y);
  case BinaryOp::Eq:
    return TValue::ofBool(x == y);
  case BinaryOp::Ne:
    return TValue::ofBool(x != y);
  default:
    return failure();
  }
}

FailureOr<TValue> MLIRGenImpl::pointerArith(BinaryOp op, const TValue &lhs,
                                            const TValue &rhs, SourceLoc l) {
  auto isPtr = [](const TValue &v) {
    return v.isRuntime() &&
           isa<tile::PointerType>(getElementTypeOrSelf(v.value.getType()));
  };
  auto operandStr = [&](const TValue &v) { return describe(v); };
  bool lp = isPtr(lhs), rp = isPtr(rhs);
  if ((lp && rp) || !(op == BinaryOp::Add || (op == BinaryOp::Sub && lp))) {
    diags.error(l, "invalid operands to binary '" + spell(op) + "' (" +
                       operandStr(lhs) + " and " + operandStr(rhs) + ")");
    return failure();
  }
  const TValue &ptr = lp ? lhs : rhs;
  const TValue &off = lp ? rhs : lhs;
  Type offElem;
  if (off.kind == TValue::Int || off.kind == TValue::Bool) {
    offElem = constType(off, Type());
    if (offElem.isInteger(1))
      offElem = builder.getI32Type();
  } else if (off.isRuntime() &&
             getElementTypeOrSelf(off.value.getType()).isInteger()) {
    offElem = getElementTypeOrSelf(off.value.getType());
    if (offElem.isInteger(1))
      offElem = builder.getI32Type();
  } else {
    diags.error(l, "pointer offset must be an integer, got " + operandStr(off));
    return failure();
  }
  FailureOr<SmallVector<int64_t>> shape = commonShape({&ptr, &off}, l);
  if (failed(shape))
    return failure();
  FailureOr<Value> p = broadcastTo(ptr.value, *shape, l);
  FailureOr<Value> o = toValue(off, offElem, *shape, l);
  if (failed(p) || failed(o))
    return failure();
  Value offset = *o;
  if (op == BinaryOp::Sub)
    offset = arith::SubIOp::create(
        builder, loc(l), constant(TValue::ofInt(0), offset.getType(), l),
        offset);
  return TValue::runtime(
      tile::AddPtrOp::create(builder, loc(l), p->getType(), *p, offset));
}

FailureOr<TValue> MLIRGenImpl::binaryOp(BinaryOp op, const TValue &lhs,
                                        const TValue &rhs, SourceLoc l) {
  if (failed(requireValue(lhs, l)) || failed(requireValue(rhs, l)))
    return failure();
  if (lhs.isConst() && rhs.isConst())
    return foldConst(op, lhs, rhs, l);

  Type lt =
      lhs.isRuntime() ? getElementTypeOrSelf(lhs.value.getType()) : Type();
  Type rt =
      rhs.isRuntime() ? getElementTypeOrSelf(rhs.value.getType()) : Type();
  if ((lt && isa<tile::PointerType>(lt)) || (rt && isa<tile::PointerType>(rt)))
    return pointerArith(op, lhs, rhs, l);
  // Numbers from here on (a tensor descriptor is neither).
  for (Type type : {lt, rt})
    if (type && !type.isIntOrFloat()) {
      diags.error(l, "invalid operands to binary '" + spell(op) + "' (" +
                         describe(lhs) + " and " + describe(rhs) +
                         "): numbers or a pointer required");
      return failure();
    }

  if (op == BinaryOp::And || op == BinaryOp::Or) {
    // Logical on i1 (scalars or tensors): same as & and |.
    for (const TValue *v : {&lhs, &rhs}) {
      bool ok = v->isRuntime()
                    ? getElementTypeOrSelf(v->value.getType()).isInteger(1)
                    : v->kind == TValue::Bool;
      if (!ok) {
        diags.error(l, "operands of '" + spell(op) + "' must be i1, got " +
                           describe(*v));
        return failure();
      }
    }
    op = op == BinaryOp::And ? BinaryOp::BitAnd : BinaryOp::BitOr;
  }

  Type la = lt ? lt : constType(lhs, rt);
  Type ra = rt ? rt : constType(rhs, lt);
  Type elem = promote(la, ra);
  bool isFloat = isa<FloatType>(elem);
  if (isFloat &&
      (op == BinaryOp::BitAnd || op == BinaryOp::BitOr ||
       op == BinaryOp::BitXor || op == BinaryOp::Shl || op == BinaryOp::Shr)) {
    diags.error(l, "invalid operands to binary '" + spell(op) + "' (" +
                       describe(lhs) + " and " + describe(rhs) +
                       "): integers required");
    return failure();
  }
  FailureOr<SmallVector<int64_t>> shape = commonShape({&lhs, &rhs}, l);
  if (failed(shape))
    return failure();
  FailureOr<Value> a = toValue(lhs, elem, *shape, l);
  if (failed(a))
    return failure();
  FailureOr<Value> b = toValue(rhs, elem, *shape, l);
  if (failed(b))
    return failure();
  Location lc = loc(l);
  Value x = *a, y = *b;

  if (isComparison(op)) {
    // Ordered float comparisons (false on NaN) but for !=, signed integers.
    struct Predicates {
      BinaryOp op;
      arith::CmpFPredicate onFloats;
      arith::CmpIPredicate onIntegers;
    };
    static const Predicates predicates[] = {
        {BinaryOp::Lt, arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt},
        {BinaryOp::Le, arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle},
        {BinaryOp::Gt, arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt},
        {BinaryOp::Ge, arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge},
        {BinaryOp::Eq, arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq}};
    Predicates chosen = {op, arith::CmpFPredicate::UNE,
                         arith::CmpIPredicate::ne};
    for (const Predicates &entry : predicates)
      if (entry.op == op)
        chosen = entry;
    if (isFloat)
      return TValue::runtime(
          arith::CmpFOp::create(builder, lc, chosen.onFloats, x, y));
    return TValue::runtime(
        arith::CmpIOp::create(builder, lc, chosen.onIntegers, x, y));
  }

  // The language lets a * b + c (and a * b - c) be computed as one fma,
  // rounded once, as C's FP_CONTRACT does: the source's multiplies, adds and
  // subtracts say so with `contract`. Arithmetic the compiler adds itself (a
  // reduction's combine steps, a dot's partial sums) does not, so that
  // threads that hold the same reduced value compute it bit for bit alike.
  auto contract = arith::FastMathFlagsAttr::get(builder.getContext(),
                                                arith::FastMathFlags::contract);
  Value r;
  switch (op) {
  case BinaryOp::Add:
    r = isFloat ? (Value)arith::AddFOp::create(builder, lc, x, y, contract)
                : (Value)arith::AddIOp::create(builder, lc, x, y);
    break;
  case BinaryOp::Sub:
    r = isFloat ? (Value)arith::SubFOp::create(builder, lc, x, y, contract)
                : (Value)arith::SubIOp::create(builder, lc, x, y);
    break;
  case BinaryOp::Mul:
    r = isFloat ? (Value)arith::MulFOp::create(builder, lc, x, y, contract)
                : (Value)arith::MulIOp::create(builder, lc, x, y);
    break;
  case BinaryOp::Div:
    r = isFloat ? (Value)arith::DivFOp::create(builder, lc, x, y)
                : (Value)arith::DivSIOp::create(builder, lc, x, y);
    break;
  case BinaryOp::Mod:
    r = isFloat ? (Value)arith::RemFOp::create(builder, lc, x, y)
                : (Value)arith::RemSIOp::create(builder, lc, x, y);
    break;
  case BinaryOp::Shl:
    r = arith::ShLIOp::create(builder, lc, x, y);
    break;
  case BinaryOp::Shr:
    r = arith::ShRSIOp::create(builder, lc, x, y);
    break;
  case BinaryOp::BitAnd:
    r = arith::AndIOp::create(builder, lc, x, y);
    break;
  case BinaryOp::BitOr:
    r = arith::OrIOp::create(builder, lc, x, y);
    break;
  case BinaryOp::BitXor:
    r = arith::XOrIOp::create(builder, lc, x, y);
    break;
  default:
    return failure();
  }
  return TValue::runtime(r);
}

//===----------------------------------------------------------------------===//
// Indexing and attributes
//===----------------------------------------------------------------------===//

FailureOr<TValue> MLIRGenImpl::genIndex(const IndexExprAST &e) {
  FailureOr<TValue> base = genExpr(e.getBase());
  if (failed(base))
    return failure();
  const auto &items = e.getIndices();
  if (base->kind == TValue::Tuple) {
    // `x.shape[0]`: a compile-time element.
    FailureOr<int64_t> k;
    if (items.size() == 1)
      k = genConstInt(*items[0], "tuple index");
    else
      diags.error(e.loc(), "a tuple takes exactly one index");
    if (failed(k))
      return failure();
    int64_t n = base->elems.size(), idx = *k < 0 ? *k + n : *k;
    if (idx < 0 || idx >= n) {
      diags.error(items[0]->loc(), "tuple index " + llvm::Twine(*k) +
                                       " is out of range for " +
                                       llvm::Twine(n) + " elements");
      return failure();
    }
    return base->elems[idx];
  }
  if (!base->isRuntime()) {
    if (base->kind != TValue::Poison)
      diags.error(e.loc(), "cannot index " + describe(*base));
    return failure();
  }
  Value v = base->value;
  int64_t rank = shapeOf(v.getType()).size();
  int64_t in = 0, out = 0;
  Type elem = getElementTypeOrSelf(v.getType());
  for (const ExprPtr &item : items) {
    if (isa<SliceExprAST>(*item)) {
      if (++in > rank) {
        diags.error(item->loc(), "too many indices for a tensor of rank " +
                                     llvm::Twine(rank));
        return failure();
      }
      ++out;
      continue;
    }
    if (!isa<NoneExprAST>(*item)) {
      diags.error(item->loc(), "only ':' and 'None' may index a tensor "
                               "(indexing inserts unit dimensions)");
      return failure();
    }
    SmallVector<int64_t> shape(shapeOf(v.getType()));
    if (shape.size() >= kMaxTensorRank) {
      diags.error(item->loc(), "a tensor has at most " +
                                   llvm::Twine(kMaxTensorRank) +
                                   " dimensions; this 'None' adds one more");
      return failure();
    }
    shape.insert(shape.begin() + out, 1);
    if (shape.size() == 1)
      v = tile::SplatOp::create(builder, loc(item->loc()),
                                tensorOf(shape, elem), v);
    else
      v = tile::ExpandDimsOp::create(builder, loc(item->loc()),
                                     tensorOf(shape, elem), v,
                                     builder.getI32IntegerAttr(out));
    ++out;
  }
  return TValue::runtime(v);
}

FailureOr<TValue> MLIRGenImpl::genAttr(const AttrExprAST &e) {
  FailureOr<TValue> base = genExpr(e.getBase());
  if (failed(base))
    return failure();
  if (e.getName() == "shape" || e.getName() == "dtype") {
    if (!base->isRuntime()) {
      if (base->kind != TValue::Poison)
        diags.error(e.loc(), "'." + e.getName() +
                                 "' needs a tensor or "
                                 "scalar value, got " +
                                 describe(*base));
      return failure();
    }
    Type t = base->value.getType();
    if (e.getName() == "dtype")
      return TValue::ofType(getElementTypeOrSelf(t));
    TValue tuple;
    tuple.kind = TValue::Tuple;
    for (int64_t d : shapeOf(t))
      tuple.elems.push_back(TValue::ofInt(d));
    return tuple;
  }
  if (e.getName() == "to")
    diags.error(e.loc(), "method 'to' must be called: x.to(T)");
  else
    diags.error(e.loc(), "unknown attribute '" + e.getName() + "'");
  return failure();
}

//===----------------------------------------------------------------------===//
// Compile-time evaluation
//===----------------------------------------------------------------------===//

FailureOr<TValue> MLIRGenImpl::genConst(const ExprAST &e,
                                        llvm::StringRef what) {
  FailureOr<TValue> v = genExpr(e);
  if (failed(v))
    return failure();
  if (!v->isConst()) {
    diags.error(e.loc(), what +
                             " must be a compile-time constant "
                             "(constexpr), got " +
                             describe(*v));
    return failure();
  }
  return v;
}

FailureOr<int64_t> MLIRGenImpl::genConstInt(const ExprAST &e,
                                            llvm::StringRef what) {
  FailureOr<TValue> v = genConst(e, what);
  if (failed(v))
    return failure();
  if (v->kind == TValue::Float) {
    diags.error(e.loc(), what + " must be an integer, got a float");
    return failure();
  }
  return v->kind == TValue::Bool ? (int64_t)v->b : v->i;
}

FailureOr<Type> MLIRGenImpl::genDType(const ExprAST &e, llvm::StringRef what) {
  if (auto *n = dyn_cast<NameExprAST>(&e)) {
    if (!env.count(n->getName().str()) && !parseTypeName(n->getName())) {
      diags.error(e.loc(), "unknown type '" + n->getName() +
                               "' (expected f16, bf16, f32, fp8e4m3, "
                               "fp8e5m2, i1, i32, i64 or a dtype parameter)");
      return failure();
    }
  }
  FailureOr<TValue> v = genExpr(e);
  if (failed(v))
    return failure();
  if (v->kind != TValue::DType) {
    diags.error(e.loc(), what + " must be a type, got " + describe(*v));
    return failure();
  }
  return v->type;
}

FailureOr<SmallVector<int64_t>> MLIRGenImpl::genShape(const ExprAST &e,
                                                      llvm::StringRef what) {
  FailureOr<TValue> v = genExpr(e);
  if (failed(v))
    return failure();
  SmallVector<TValue> dims;
  if (v->kind == TValue::Tuple)
    dims.assign(v->elems.begin(), v->elems.end());
  else
    dims.push_back(*v);
  if (dims.size() > kMaxTensorRank) {
    diags.error(e.loc(), "a tensor has at most " + llvm::Twine(kMaxTensorRank) +
                             " dimensions, " + what + " has " +
                             llvm::Twine(dims.size()));
    return failure();
  }
  SmallVector<int64_t> shape;
  int64_t total = 1;
  for (const TValue &d : dims) {
    if (d.kind != TValue::Int) {
      diags.error(e.loc(), what +
                               " must be a tuple of constexpr integers, "
                               "got " +
                               describe(d));
      return failure();
    }
    if (d.i <= 0 || (d.i & (d.i - 1)) != 0) {
      diags.error(e.loc(), "tensor dimension " + llvm::Twine(d.i) +
                               " is not a positive power of two");
      return failure();
    }
    total *= d.i;
    if (total > (1 << 24)) {
      diags.error(e.loc(), "tensor of " + llvm::Twine(total) +
                               "+ elements is too large");
      return failure();
    }
    shape.push_back(d.i);
  }
  return shape;
}

FailureOr<TValue> MLIRGenImpl::genDescLoad(const BuiltinCall &call) {
  ArrayRef<const ExprAST *> args = call.args;
  FailureOr<TValue> desc = genExpr(*args[0]);
  if (failed(desc))
    return failure();
  auto descType = desc->isRuntime()
                      ? dyn_cast<tile::TensorDescType>(desc->value.getType())
                      : tile::TensorDescType();
  if (!descType) {
    diags.error(args[0]->loc(),
                "desc_load() expects a desc<T> parameter, got " +
                    describe(*desc));
    return failure();
  }
  // Coordinates: any integer scalars, as i32 (boxes of tensors with more
  // than 2^31 rows are out of reach, as for TMA).
  auto scalarI32 = [&](const TValue &v, const ExprAST &e,
                       StringRef what) -> FailureOr<Value> {
    bool isInt = v.kind == TValue::Int ||
                 (v.isRuntime() && v.value.getType().isSignlessInteger() &&
                  !v.value.getType().isInteger(1));
    if (!isInt) {
      diags.error(e.loc(), "desc_load() " + what +
                               " must be an integer scalar, got " +
                               describe(v));
      return failure();
    }
    return toValue(v, builder.getI32Type(), {}, e.loc());
  };
  FailureOr<TValue> offsets = genExpr(*args[1]);
  if (failed(offsets))
    return failure();
  if (offsets->kind != TValue::Tuple || offsets->elems.size() != 2) {
    diags.error(args[1]->loc(),
                "desc_load() offsets must be a (row, col) tuple, got " +
                    describe(*offsets));
    return failure();
  }
  FailureOr<Value> row = scalarI32(offsets->elems[0], *args[1], "row");
  FailureOr<Value> col = scalarI32(offsets->elems[1], *args[1], "column");
  FailureOr<SmallVector<int64_t>> shape = genShape(*args[2], "shape");
  if (failed(row) || failed(col) || failed(shape))
    return failure();
  if (shape->size() != 2) {
    diags.error(args[2]->loc(), "desc_load() reads a 2-D (rows, cols) box");
    return failure();
  }
  Value rowEnd;
  if (args[3]) {
    FailureOr<TValue> end = genExpr(*args[3]);
    if (failed(end))
      return failure();
    FailureOr<Value> v = scalarI32(*end, *args[3], "row_end");
    if (failed(v))
      return failure();
    rowEnd = *v;
  }
  Type type = tensorOf(*shape, descType.getElementType());
  return TValue::runtime(tile::DescLoadOp::create(
      builder, loc(call.loc), type, desc->value, *row, *col, rowEnd));
}
