//===- BuiltinMath.cpp - Elementwise math and reduction builtins ----------===//
//
// Handlers of the builtin registry (Builtins.cpp): the unary math functions,
// minimum/maximum, cdiv, where and the sum/max/min reductions. Compile-time
// operands fold where the builtin allows it.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

#include <cmath>

using namespace mlir;
using namespace tilemla;

FailureOr<TValue> MLIRGenImpl::genMath(const BuiltinCall &call) {
  llvm::StringRef name = call.name();
  SourceLoc l = call.loc;
  FailureOr<TValue> arg = genOptionalValue(call.args[0]);
  if (failed(arg))
    return failure();
  const TValue &x = *arg;
  if (x.isConst()) {
    double d = x.kind == TValue::Float ? x.f
               : x.kind == TValue::Int ? (double)x.i
                                       : (double)x.b;
    if (name == "abs" && x.kind != TValue::Float)
      return TValue::ofInt(x.kind == TValue::Int ? std::llabs(x.i) : x.b);
    double r = name == "exp"    ? std::exp(d)
               : name == "log"  ? std::log(d)
               : name == "exp2" ? std::exp2(d)
               : name == "log2" ? std::log2(d)
               : name == "sqrt" ? std::sqrt(d)
                                : std::fabs(d);
    return TValue::ofFloat(r);
  }
  Value v = x.value;
  Type elem = getElementTypeOrSelf(v.getType());
  Location lc = loc(l);
  if (!elem.isIntOrFloat()) { // a pointer or a tensor descriptor
    diags.error(l, name + "() needs numbers, got " + typeStr(v.getType()));
    return failure();
  }
  if (name == "abs") {
    if (isa<FloatType>(elem))
      return TValue::runtime(math::AbsFOp::create(builder, lc, v));
    return TValue::runtime(math::AbsIOp::create(builder, lc, v));
  }
  if (!isa<FloatType>(elem)) { // integers compute in f32
    FailureOr<Value> f = castTo(v, builder.getF32Type(), l);
    if (failed(f))
      return failure();
    v = *f;
  }
  Value r;
  if (name == "exp")
    r = math::ExpOp::create(builder, lc, v);
  else if (name == "log")
    r = math::LogOp::create(builder, lc, v);
  else if (name == "exp2")
    r = math::Exp2Op::create(builder, lc, v);
  else if (name == "log2")
    r = math::Log2Op::create(builder, lc, v);
  else
    r = math::SqrtOp::create(builder, lc, v);
  return TValue::runtime(r);
}

FailureOr<TValue> MLIRGenImpl::genMinMax(const BuiltinCall &call) {
  SourceLoc l = call.loc;
  bool isMax = call.name() == "maximum";
  FailureOr<TValue> x = genOptionalValue(call.args[0]);
  FailureOr<TValue> y = failed(x) ? x : genOptionalValue(call.args[1]);
  if (failed(x) || failed(y))
    return failure();
  const TValue &a = *x, &b = *y;
  if (a.isConst() && b.isConst()) {
    FailureOr<TValue> lt = foldConst(BinaryOp::Lt, a, b, l);
    if (failed(lt))
      return failure();
    return (lt->b != isMax) ? a : b;
  }
  Type at = a.isRuntime() ? getElementTypeOrSelf(a.value.getType()) : Type();
  Type bt = b.isRuntime() ? getElementTypeOrSelf(b.value.getType()) : Type();
  if ((at && !at.isIntOrFloat()) || (bt && !bt.isIntOrFloat())) {
    diags.error(l, call.name() + "() needs numbers, got " + describe(a) +
                       " and " + describe(b));
    return failure();
  }
  Type elem = promote(at ? at : constType(a, bt), bt ? bt : constType(b, at));
  FailureOr<SmallVector<int64_t>> shape = commonShape({&a, &b}, l);
  if (failed(shape))
    return failure();
  FailureOr<Value> av = toValue(a, elem, *shape, l);
  FailureOr<Value> bv =
      failed(av) ? FailureOr<Value>(failure()) : toValue(b, elem, *shape, l);
  if (failed(bv))
    return failure();
  Location lc = loc(l);
  Value r;
  if (isa<FloatType>(elem))
    r = isMax ? (Value)arith::MaximumFOp::create(builder, lc, *av, *bv)
              : (Value)arith::MinimumFOp::create(builder, lc, *av, *bv);
  else
    r = isMax ? (Value)arith::MaxSIOp::create(builder, lc, *av, *bv)
              : (Value)arith::MinSIOp::create(builder, lc, *av, *bv);
  return TValue::runtime(r);
}

FailureOr<TValue> MLIRGenImpl::genCdiv(const BuiltinCall &call) {
  SourceLoc l = call.loc;
  FailureOr<TValue> x = genOptionalValue(call.args[0]);
  FailureOr<TValue> y = failed(x) ? x : genOptionalValue(call.args[1]);
  if (failed(x) || failed(y))
    return failure();
  // (x + y - 1) / y, through the operators so constants fold and types
  // promote as they would in source.
  FailureOr<TValue> s = binaryOp(BinaryOp::Add, *x, *y, l);
  if (succeeded(s))
    s = binaryOp(BinaryOp::Sub, *s, TValue::ofInt(1), l);
  if (succeeded(s))
    s = binaryOp(BinaryOp::Div, *s, *y, l);
  return s;
}

FailureOr<TValue> MLIRGenImpl::genWhere(const BuiltinCall &call) {
  SourceLoc l = call.loc;
  FailureOr<TValue> c = genOptionalValue(call.args[0]);
  FailureOr<TValue> x = failed(c) ? c : genOptionalValue(call.args[1]);
  FailureOr<TValue> y = failed(x) ? x : genOptionalValue(call.args[2]);
  if (failed(c) || failed(x) || failed(y))
    return failure();
  bool condOk = c->isRuntime()
                    ? getElementTypeOrSelf(c->value.getType()).isInteger(1)
                    : c->kind == TValue::Bool;
  if (!condOk) {
    diags.error(call.args[0]->loc(),
                "where() condition must be i1, got " + describe(*c));
    return failure();
  }
  Type xt = x->isRuntime() ? getElementTypeOrSelf(x->value.getType()) : Type();
  Type yt = y->isRuntime() ? getElementTypeOrSelf(y->value.getType()) : Type();
  if (isa_and_present<tile::TensorDescType>(xt) ||
      isa_and_present<tile::TensorDescType>(yt)) {
    diags.error(l, "where() selects numbers or pointers, got " + describe(*x) +
                       " and " + describe(*y));
    return failure();
  }
  // Pointers select like numbers when both branches have the same type.
  bool xp = xt && isa<tile::PointerType>(xt);
  bool yp = yt && isa<tile::PointerType>(yt);
  if ((xp || yp) && xt != yt) {
    diags.error(l, "where() branches have incompatible types " + describe(*x) +
                       " and " + describe(*y));
    return failure();
  }
  Type elem = promote(xt ? xt : constType(*x, yt), yt ? yt : constType(*y, xt));
  FailureOr<SmallVector<int64_t>> shape = commonShape({&*c, &*x, &*y}, l);
  if (failed(shape))
    return failure();
  FailureOr<Value> cv = toValue(*c, builder.getI1Type(), *shape, l);
  FailureOr<Value> xv = failed(cv) ? cv : toValue(*x, elem, *shape, l);
  FailureOr<Value> yv = failed(xv) ? xv : toValue(*y, elem, *shape, l);
  if (failed(yv))
    return failure();
  return TValue::runtime(
      arith::SelectOp::create(builder, loc(l), *cv, *xv, *yv));
}

FailureOr<TValue> MLIRGenImpl::genReduce(const BuiltinCall &call) {
  llvm::StringRef name = call.name();
  SourceLoc l = call.loc;
  const ExprAST *axisExpr = call.args[1];
  FailureOr<TValue> x = genOptionalValue(call.args[0]);
  if (failed(x))
    return failure();
  if (!x->isRuntime() || shapeOf(x->value.getType()).empty()) {
    if (x->kind != TValue::Poison)
      diags.error(l, name + "() needs a tensor, got " + describe(*x));
    return failure();
  }
  Value v = x->value;
  ArrayRef<int64_t> shape = shapeOf(v.getType());
  int64_t rank = shape.size();
  int64_t axis = 0;
  if (axisExpr) {
    FailureOr<int64_t> a = genConstInt(*axisExpr, "reduction axis");
    if (failed(a))
      return failure();
    axis = *a < 0 ? *a + rank : *a;
    if (axis < 0 || axis >= rank) {
      diags.error(axisExpr->loc(), "axis " + llvm::Twine(*a) +
                                       " is out of range for a tensor of "
                                       "rank " +
                                       llvm::Twine(rank));
      return failure();
    }
  } else if (rank != 1) {
    diags.error(l, name + "() of a rank-" + llvm::Twine(rank) +
                       " tensor needs an axis");
    return failure();
  }
  Type elem = getElementTypeOrSelf(v.getType());
  if (!elem.isIntOrFloat()) { // a pointer or a tensor descriptor
    diags.error(l, name + "() needs numbers, got " + typeStr(v.getType()));
    return failure();
  }
  // cumsum / cummax / cummin keep the axis: running combinations (scan).
  bool running = name.starts_with("cum");
  llvm::StringRef combiner = running ? name.drop_front(3) : name;
  tile::ReduceKind kind = combiner == "sum"   ? tile::ReduceKind::Sum
                          : combiner == "max" ? tile::ReduceKind::Max
                                              : tile::ReduceKind::Min;
  // Like Triton, sums of narrow floats accumulate (and stay) in f32, and
  // sums of booleans count in i32.
  if (kind == tile::ReduceKind::Sum &&
      ((isa<FloatType>(elem) && elem.getIntOrFloatBitWidth() < 32) ||
       elem.isInteger(1))) {
    elem = isa<FloatType>(elem) ? (Type)builder.getF32Type()
                                : (Type)builder.getI32Type();
    FailureOr<Value> w = castTo(v, elem, l);
    if (failed(w))
      return failure();
    v = *w;
  }
  auto kindAttr = tile::ReduceKindAttr::get(&ctx, kind);
  if (running)
    return TValue::runtime(tile::ScanOp::create(
        builder, loc(l), v, builder.getI32IntegerAttr(axis), kindAttr));
  SmallVector<int64_t> rest(shape.begin(), shape.end());
  rest.erase(rest.begin() + axis);
  Type resultType = tensorOf(rest, elem);
  return TValue::runtime(tile::ReduceOp::create(builder, loc(l), resultType, v,
                                                builder.getI32IntegerAttr(axis),
                                                kindAttr));
}
