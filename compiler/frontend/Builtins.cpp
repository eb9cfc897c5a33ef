//===- Builtins.cpp - AST to tile IR: calls and builtins ------------------===//
//
// Builtins bind their arguments Python-style (positional, then keywords by
// parameter name) through a small signature table, so arity and keyword
// errors are uniform: "load() got an unexpected keyword argument 'foo'".
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include <cmath>

using namespace mlir;
using namespace tilemla;

namespace {
struct Signature {
  const char *name;
  std::vector<const char *> params;
  unsigned required;
};
} // namespace

static const Signature *lookupBuiltin(llvm::StringRef name) {
  static const std::vector<Signature> sigs = {
      {"program_id", {"axis"}, 1},
      {"num_programs", {"axis"}, 1},
      {"arange", {"start", "end"}, 2},
      {"zeros", {"shape", "dtype"}, 1},
      {"full", {"shape", "value", "dtype"}, 2},
      {"load", {"ptrs", "mask", "other"}, 1},
      {"desc_load", {"desc", "offsets", "shape", "row_end"}, 3},
      {"store", {"ptrs", "value", "mask"}, 2},
      {"dot", {"a", "b", "acc", "trans_b"}, 2},
      {"sum", {"x", "axis"}, 1},
      {"max", {"x", "axis"}, 1},
      {"min", {"x", "axis"}, 1},
      {"exp", {"x"}, 1},
      {"log", {"x"}, 1},
      {"exp2", {"x"}, 1},
      {"log2", {"x"}, 1},
      {"sqrt", {"x"}, 1},
      {"abs", {"x"}, 1},
      {"where", {"cond", "x", "y"}, 3},
      {"minimum", {"x", "y"}, 2},
      {"maximum", {"x", "y"}, 2},
      {"cdiv", {"x", "y"}, 2},
      {"broadcast_to", {"x", "shape"}, 2},
      {"grid_dependency_wait", {}, 0},
      {"launch_dependents", {}, 0},
  };
  for (const Signature &s : sigs)
    if (name == s.name)
      return &s;
  return nullptr;
}

/// Binds call arguments to `sig`'s parameters; null entries are omitted
/// optional arguments.
static FailureOr<std::vector<const ExprAST *>>
bindArgs(tilemla::DiagnosticEngine &diags, const Signature &sig,
         const CallExprAST &e) {
  std::vector<const ExprAST *> bound(sig.params.size(), nullptr);
  std::string fn = std::string(sig.name) + "()";
  if (e.getArgs().size() > sig.params.size()) {
    diags.error(e.loc(), fn + " takes " +
                             (sig.required == sig.params.size()
                                  ? llvm::Twine("")
                                  : llvm::Twine("at most ")) +
                             llvm::Twine(sig.params.size()) + " argument" +
                             (sig.params.size() == 1 ? "" : "s") + " (" +
                             llvm::Twine(e.getArgs().size()) + " given)");
    return failure();
  }
  for (size_t k = 0; k < e.getArgs().size(); ++k)
    bound[k] = e.getArgs()[k].get();
  for (const KeywordArg &kw : e.getKwargs()) {
    size_t k = 0;
    while (k < sig.params.size() && kw.name != sig.params[k])
      ++k;
    if (k == sig.params.size()) {
      diags.error(kw.loc,
                  fn + " got an unexpected keyword argument '" + kw.name + "'");
      return failure();
    }
    if (bound[k]) {
      diags.error(kw.loc,
                  fn + " got multiple values for argument '" + kw.name + "'");
      return failure();
    }
    bound[k] = kw.value.get();
  }
  for (unsigned k = 0; k < sig.required; ++k)
    if (!bound[k]) {
      diags.error(e.loc(),
                  fn + " missing required argument '" + sig.params[k] + "'");
      return failure();
    }
  return bound;
}

FailureOr<TValue> MLIRGenImpl::genCall(const CallExprAST &e) {
  const ExprAST &callee = e.getCallee();
  if (auto *attr = dyn_cast<AttrExprAST>(&callee)) {
    if (attr->getName() == "to")
      return genConversion(e, *attr);
    diags.error(attr->loc(), "unknown method '" + attr->getName() + "'");
    return failure();
  }
  auto *nameExpr = dyn_cast<NameExprAST>(&callee);
  if (!nameExpr) {
    diags.error(e.loc(), "expression is not callable");
    return failure();
  }
  llvm::StringRef name = nameExpr->getName();
  if (env.count(name.str())) {
    diags.error(e.loc(), "'" + name + "' is a variable, not a function");
    return failure();
  }
  if (lookupBuiltin(name))
    return genBuiltin(name, e);
  const FunctionAST *fn = astModule.lookup(name);
  if (!fn) {
    diags.error(e.loc(), "call to undefined function '" + name + "'");
    return failure();
  }
  if (fn->isKernel) {
    diags.error(e.loc(), "cannot call kernel '" + name +
                             "'; only 'fn' helpers can be called");
    return failure();
  }
  if (!e.getKwargs().empty()) {
    diags.error(e.getKwargs().front().loc, "helpers take no keyword arguments");
    return failure();
  }
  std::vector<TValue> args;
  for (const ExprPtr &a : e.getArgs()) {
    FailureOr<TValue> v = genExpr(*a);
    if (failed(v))
      return failure();
    if (v->kind == TValue::None || v->kind == TValue::String) {
      diags.error(a->loc(), "cannot pass " + describe(*v) + " to a helper");
      return failure();
    }
    args.push_back(*v);
  }
  return callHelper(*fn, std::move(args), e.loc());
}

FailureOr<TValue> MLIRGenImpl::genConversion(const CallExprAST &e,
                                             const AttrExprAST &callee) {
  static const Signature sig = {"to", {"dtype"}, 1};
  FailureOr<std::vector<const ExprAST *>> args = bindArgs(diags, sig, e);
  if (failed(args))
    return failure();
  FailureOr<TValue> x = genExpr(callee.getBase());
  if (failed(x) || failed(requireValue(*x, callee.getBase().loc())))
    return failure();
  FailureOr<Type> t = genDType(*(*args)[0], "the argument of .to()");
  if (failed(t))
    return failure();
  if (x->isConst()) {
    double d = x->kind == TValue::Float ? x->f
               : x->kind == TValue::Int ? (double)x->i
                                        : (double)x->b;
    if (isa<FloatType>(*t))
      return TValue::ofFloat(d);
    if (t->isInteger(1))
      return TValue::ofBool(d != 0);
    return TValue::ofInt(x->kind == TValue::Float ? (int64_t)x->f
                         : x->kind == TValue::Int ? x->i
                                                  : (int64_t)x->b);
  }
  FailureOr<Value> v = castTo(x->value, *t, e.loc());
  if (failed(v))
    return failure();
  return TValue::runtime(*v);
}

FailureOr<TValue> MLIRGenImpl::genMath(llvm::StringRef name, const TValue &x,
                                       SourceLoc l) {
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
  if (isa<tile::PointerType>(elem)) {
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

FailureOr<TValue> MLIRGenImpl::genMinMax(bool isMax, const TValue &a,
                                         const TValue &b, SourceLoc l) {
  const char *fn = isMax ? "maximum()" : "minimum()";
  if (a.isConst() && b.isConst()) {
    FailureOr<TValue> lt = foldConst(BinaryOp::Lt, a, b, l);
    if (failed(lt))
      return failure();
    return (lt->b != isMax) ? a : b;
  }
  Type at = a.isRuntime() ? getElementTypeOrSelf(a.value.getType()) : Type();
  Type bt = b.isRuntime() ? getElementTypeOrSelf(b.value.getType()) : Type();
  if ((at && isa<tile::PointerType>(at)) ||
      (bt && isa<tile::PointerType>(bt))) {
    diags.error(l, llvm::Twine(fn) + " needs numbers, got " + describe(a) +
                       " and " + describe(b));
    return failure();
  }
  Type elem = promote(at ? at : constType(a, bt), bt ? bt : constType(b, at));
  FailureOr<SmallVector<int64_t>> shape = commonShape({&a, &b}, l);
  if (failed(shape))
    return failure();
  FailureOr<Value> x = toValue(a, elem, *shape, l);
  FailureOr<Value> y =
      failed(x) ? FailureOr<Value>(failure()) : toValue(b, elem, *shape, l);
  if (failed(y))
    return failure();
  Location lc = loc(l);
  Value r;
  if (isa<FloatType>(elem))
    r = isMax ? (Value)arith::MaximumFOp::create(builder, lc, *x, *y)
              : (Value)arith::MinimumFOp::create(builder, lc, *x, *y);
  else
    r = isMax ? (Value)arith::MaxSIOp::create(builder, lc, *x, *y)
              : (Value)arith::MinSIOp::create(builder, lc, *x, *y);
  return TValue::runtime(r);
}

FailureOr<TValue> MLIRGenImpl::genReduce(llvm::StringRef name, const TValue &x,
                                         const ExprAST *axisExpr, SourceLoc l) {
  if (!x.isRuntime() || shapeOf(x.value.getType()).empty()) {
    if (x.kind != TValue::Poison)
      diags.error(l, name + "() needs a tensor, got " + describe(x));
    return failure();
  }
  Value v = x.value;
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
  if (isa<tile::PointerType>(elem)) {
    diags.error(l, name + "() needs numbers, got " + typeStr(v.getType()));
    return failure();
  }
  tile::ReduceKind kind = name == "sum"   ? tile::ReduceKind::Sum
                          : name == "max" ? tile::ReduceKind::Max
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
  SmallVector<int64_t> rest(shape.begin(), shape.end());
  rest.erase(rest.begin() + axis);
  Type resultType = tensorOf(rest, elem);
  return TValue::runtime(tile::ReduceOp::create(
      builder, loc(l), resultType, v, builder.getI32IntegerAttr(axis),
      tile::ReduceKindAttr::get(&ctx, kind)));
}

FailureOr<TValue> MLIRGenImpl::genBuiltin(llvm::StringRef name,
                                          const CallExprAST &e) {
  const Signature &sig = *lookupBuiltin(name);
  FailureOr<std::vector<const ExprAST *>> bound = bindArgs(diags, sig, e);
  if (failed(bound))
    return failure();
  const std::vector<const ExprAST *> &args = *bound;
  SourceLoc l = e.loc();
  Location lc = loc(l);
  // Evaluates argument k as a value (null when omitted).
  auto value = [&](size_t k) -> FailureOr<TValue> {
    if (!args[k])
      return TValue::none();
    FailureOr<TValue> v = genExpr(*args[k]);
    if (failed(v) || failed(requireValue(*v, args[k]->loc())))
      return failure();
    return v;
  };

  if (name == "desc_load")
    return genDescLoad(args, l);
  if (name == "grid_dependency_wait") {
    tile::GridDependencyWaitOp::create(builder, lc);
    return TValue::none();
  }
  if (name == "launch_dependents") {
    tile::LaunchDependentsOp::create(builder, lc);
    return TValue::none();
  }

  if (name == "program_id" || name == "num_programs") {
    FailureOr<int64_t> axis = genConstInt(*args[0], (name + " axis").str());
    if (failed(axis))
      return failure();
    if (*axis < 0 || *axis > 2) {
      diags.error(args[0]->loc(),
                  name + " axis must be 0, 1 or 2, got " + llvm::Twine(*axis));
      return failure();
    }
    IntegerAttr a = builder.getI32IntegerAttr(*axis);
    if (name == "program_id")
      return TValue::runtime(
          tile::ProgramIdOp::create(builder, lc, builder.getI32Type(), a));
    return TValue::runtime(
        tile::NumProgramsOp::create(builder, lc, builder.getI32Type(), a));
  }

  if (name == "arange") {
    FailureOr<int64_t> start = genConstInt(*args[0], "arange bound");
    if (failed(start))
      return failure();
    FailureOr<int64_t> end = genConstInt(*args[1], "arange bound");
    if (failed(end))
      return failure();
    int64_t n = *end - *start;
    if (*start < 0 || *end > INT32_MAX || n <= 0) {
      diags.error(l, "arange(" + llvm::Twine(*start) + ", " +
                         llvm::Twine(*end) + ") is empty or out of range");
      return failure();
    }
    if ((n & (n - 1)) != 0) {
      diags.error(l,
                  "arange length " + llvm::Twine(n) + " is not a power of two");
      return failure();
    }
    if (n > (1 << 24)) {
      diags.error(l, "arange length " + llvm::Twine(n) + " is too large");
      return failure();
    }
    return TValue::runtime(tile::MakeRangeOp::create(
        builder, lc, tensorOf({n}, builder.getI32Type()),
        builder.getI32IntegerAttr(*start), builder.getI32IntegerAttr(*end)));
  }

  if (name == "zeros" || name == "full") {
    FailureOr<SmallVector<int64_t>> shape = genShape(*args[0], "shape");
    if (failed(shape))
      return failure();
    TValue fill = TValue::ofInt(0);
    const ExprAST *dtypeExpr = args[name == "zeros" ? 1 : 2];
    if (name == "full") {
      FailureOr<TValue> v = value(1);
      if (failed(v))
        return failure();
      fill = *v;
      if (fill.isRuntime() && !shapeOf(fill.value.getType()).empty()) {
        diags.error(args[1]->loc(),
                    "full() value must be a scalar, got " + describe(fill));
        return failure();
      }
    }
    Type elem;
    if (dtypeExpr) {
      FailureOr<Type> t = genDType(*dtypeExpr, (name + " dtype").str());
      if (failed(t))
        return failure();
      elem = *t;
    } else {
      elem = fill.isRuntime()  ? fill.value.getType()
             : name == "zeros" ? (Type)builder.getF32Type()
                               : constType(fill, Type());
    }
    FailureOr<Value> v = toValue(fill, elem, *shape, l);
    if (failed(v))
      return failure();
    return TValue::runtime(*v);
  }

  if (name == "load" || name == "store") {
    bool isLoad = name == "load";
    FailureOr<TValue> ptr = value(0);
    if (failed(ptr))
      return failure();
    if (!ptr->isRuntime() ||
        !isa<tile::PointerType>(getElementTypeOrSelf(ptr->value.getType()))) {
      diags.error(args[0]->loc(),
                  name + "() expects pointer(s), got " + describe(*ptr));
      return failure();
    }
    Type pointee =
        cast<tile::PointerType>(getElementTypeOrSelf(ptr->value.getType()))
            .getPointeeType();
    FailureOr<TValue> mask = value(isLoad ? 1 : 2);
    FailureOr<TValue> other = value(isLoad ? 2 : 1);
    if (failed(mask) || failed(other))
      return failure();
    if (mask->kind != TValue::None) {
      bool ok = mask->isRuntime()
                    ? getElementTypeOrSelf(mask->value.getType()).isInteger(1)
                    : mask->kind == TValue::Bool;
      if (!ok) {
        diags.error(args[isLoad ? 1 : 2]->loc(),
                    "mask must be i1, got " + describe(*mask));
        return failure();
      }
    }
    if (isLoad && other->kind != TValue::None && mask->kind == TValue::None) {
      diags.error(args[2]->loc(), "load() 'other' requires a mask");
      return failure();
    }
    std::vector<const TValue *> all = {&*ptr};
    if (mask->kind != TValue::None)
      all.push_back(&*mask);
    if (other->kind != TValue::None)
      all.push_back(&*other);
    FailureOr<SmallVector<int64_t>> shape = commonShape(all, l);
    if (failed(shape))
      return failure();
    FailureOr<Value> p = broadcastTo(ptr->value, *shape, l);
    if (failed(p))
      return failure();
    Value m, o;
    if (mask->kind != TValue::None) {
      FailureOr<Value> mv = toValue(*mask, builder.getI1Type(), *shape,
                                    args[isLoad ? 1 : 2]->loc());
      if (failed(mv))
        return failure();
      m = *mv;
    }
    if (isLoad) {
      // Masked lanes read `other`, 0 by default: make it explicit.
      if (m) {
        FailureOr<Value> ov =
            toValue(other->kind == TValue::None ? TValue::ofInt(0) : *other,
                    pointee, *shape, args[2] ? args[2]->loc() : l);
        if (failed(ov))
          return failure();
        o = *ov;
      }
      return TValue::runtime(tile::LoadOp::create(
          builder, lc, tensorOf(*shape, pointee), *p, m, o));
    }
    FailureOr<Value> val = toValue(*other, pointee, *shape, args[1]->loc());
    if (failed(val))
      return failure();
    tile::StoreOp::create(builder, lc, *p, *val, m);
    return TValue::none();
  }

  if (name == "dot") {
    FailureOr<TValue> a = value(0), b = failed(a) ? a : value(1);
    if (failed(a) || failed(b))
      return failure();
    // trans_b=True: b is [N, K] and the product is a x b^T.
    bool transB = false;
    if (args[3]) {
      FailureOr<TValue> t = value(3);
      if (failed(t))
        return failure();
      if (t->kind != TValue::Bool) {
        diags.error(args[3]->loc(),
                    "dot() trans_b must be a compile-time bool, got " +
                        describe(*t));
        return failure();
      }
      transB = t->b;
    }
    Type types[2];
    for (int k = 0; k < 2; ++k) {
      const TValue &v = k == 0 ? *a : *b;
      if (!v.isRuntime() || shapeOf(v.value.getType()).size() != 2 ||
          !isa<FloatType>(getElementTypeOrSelf(v.value.getType()))) {
        diags.error(args[k]->loc(), "dot() operands must be 2-D float "
                                    "tensors, got " +
                                        describe(v));
        return failure();
      }
      types[k] = v.value.getType();
    }
    if (getElementTypeOrSelf(types[0]) != getElementTypeOrSelf(types[1])) {
      diags.error(l, "dot() operands must have the same element type, got " +
                         typeStr(types[0]) + " and " + typeStr(types[1]));
      return failure();
    }
    ArrayRef<int64_t> sa = shapeOf(types[0]), sb = shapeOf(types[1]);
    int64_t bK = sb[transB ? 1 : 0], bN = sb[transB ? 0 : 1];
    if (sa[1] != bK) {
      diags.error(l, "dot() inner dimensions differ: " + typeStr(types[0]) +
                         " x " + typeStr(types[1]) +
                         (transB ? " (b transposed)" : ""));
      return failure();
    }
    SmallVector<int64_t> outShape = {sa[0], bN};
    Type f32 = builder.getF32Type();
    TValue acc = TValue::ofFloat(0);
    if (args[2]) {
      FailureOr<TValue> c = value(2);
      if (failed(c))
        return failure();
      acc = *c;
    }
    FailureOr<Value> accV =
        toValue(acc, f32, outShape, args[2] ? args[2]->loc() : l);
    if (failed(accV))
      return failure();
    return TValue::runtime(
        tile::DotOp::create(builder, lc, tensorOf(outShape, f32), a->value,
                            b->value, *accV, transB));
  }

  if (name == "sum" || name == "max" || name == "min") {
    FailureOr<TValue> x = value(0);
    if (failed(x))
      return failure();
    return genReduce(name, *x, args[1], l);
  }

  if (name == "exp" || name == "log" || name == "exp2" || name == "log2" ||
      name == "sqrt" || name == "abs") {
    FailureOr<TValue> x = value(0);
    if (failed(x))
      return failure();
    return genMath(name, *x, l);
  }

  if (name == "minimum" || name == "maximum") {
    FailureOr<TValue> x = value(0), y = failed(x) ? x : value(1);
    if (failed(x) || failed(y))
      return failure();
    return genMinMax(name == "maximum", *x, *y, l);
  }

  if (name == "cdiv") {
    FailureOr<TValue> x = value(0), y = failed(x) ? x : value(1);
    if (failed(x) || failed(y))
      return failure();
    FailureOr<TValue> s = binaryOp(BinaryOp::Add, *x, *y, l);
    if (succeeded(s))
      s = binaryOp(BinaryOp::Sub, *s, TValue::ofInt(1), l);
    if (succeeded(s))
      s = binaryOp(BinaryOp::Div, *s, *y, l);
    return s;
  }

  if (name == "where") {
    FailureOr<TValue> c = value(0);
    FailureOr<TValue> x = failed(c) ? c : value(1);
    FailureOr<TValue> y = failed(x) ? x : value(2);
    if (failed(c) || failed(x) || failed(y))
      return failure();
    bool condOk = c->isRuntime()
                      ? getElementTypeOrSelf(c->value.getType()).isInteger(1)
                      : c->kind == TValue::Bool;
    if (!condOk) {
      diags.error(args[0]->loc(),
                  "where() condition must be i1, got " + describe(*c));
      return failure();
    }
    Type xt =
        x->isRuntime() ? getElementTypeOrSelf(x->value.getType()) : Type();
    Type yt =
        y->isRuntime() ? getElementTypeOrSelf(y->value.getType()) : Type();
    bool xp = xt && isa<tile::PointerType>(xt);
    bool yp = yt && isa<tile::PointerType>(yt);
    if ((xp || yp) && xt != yt) {
      diags.error(l, "where() branches have incompatible types " +
                         describe(*x) + " and " + describe(*y));
      return failure();
    }
    Type elem =
        promote(xt ? xt : constType(*x, yt), yt ? yt : constType(*y, xt));
    FailureOr<SmallVector<int64_t>> shape = commonShape({&*c, &*x, &*y}, l);
    if (failed(shape))
      return failure();
    FailureOr<Value> cv = toValue(*c, builder.getI1Type(), *shape, l);
    FailureOr<Value> xv = failed(cv) ? cv : toValue(*x, elem, *shape, l);
    FailureOr<Value> yv = failed(xv) ? xv : toValue(*y, elem, *shape, l);
    if (failed(yv))
      return failure();
    return TValue::runtime(arith::SelectOp::create(builder, lc, *cv, *xv, *yv));
  }

  if (name == "broadcast_to") {
    FailureOr<TValue> x = value(0);
    if (failed(x))
      return failure();
    FailureOr<SmallVector<int64_t>> shape = genShape(*args[1], "shape");
    if (failed(shape))
      return failure();
    Value v;
    if (x->isConst()) {
      v = constant(*x, tensorOf(*shape, constType(*x, Type())), l);
    } else {
      FailureOr<Value> b = broadcastTo(x->value, *shape, l);
      if (failed(b))
        return failure();
      v = *b;
    }
    return TValue::runtime(v);
  }

  diags.error(l, "internal error: unhandled builtin '" + name + "'");
  return failure();
}
