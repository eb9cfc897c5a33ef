//===- BuiltinTensors.cpp - Builtins that make, move and multiply tensors -===//
//
// Handlers of the builtin registry (Builtins.cpp): program indices, arange,
// zeros/full, load/store, dot, broadcast_to and the grid dependency ops.
// Arguments arrive bound to their parameters; diagnostics name the builtin.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

using namespace mlir;
using namespace tilemla;

FailureOr<TValue> MLIRGenImpl::genProgramIndex(const BuiltinCall &call) {
  const ExprAST &axisExpr = *call.args[0];
  llvm::StringRef name = call.name();
  FailureOr<int64_t> axis = genConstInt(axisExpr, (name + " axis").str());
  if (failed(axis))
    return failure();
  if (*axis < 0 || *axis > 2) {
    diags.error(axisExpr.loc(),
                name + " axis must be 0, 1 or 2, got " + llvm::Twine(*axis));
    return failure();
  }
  IntegerAttr a = builder.getI32IntegerAttr(*axis);
  Location lc = loc(call.loc);
  if (name == "program_id")
    return TValue::runtime(
        tile::ProgramIdOp::create(builder, lc, builder.getI32Type(), a));
  return TValue::runtime(
      tile::NumProgramsOp::create(builder, lc, builder.getI32Type(), a));
}

FailureOr<TValue> MLIRGenImpl::genArange(const BuiltinCall &call) {
  SourceLoc l = call.loc;
  FailureOr<int64_t> start = genConstInt(*call.args[0], "arange bound");
  if (failed(start))
    return failure();
  FailureOr<int64_t> end = genConstInt(*call.args[1], "arange bound");
  if (failed(end))
    return failure();
  int64_t n = *end - *start;
  if (*start < 0 || *end > INT32_MAX || n <= 0) {
    diags.error(l, "arange(" + llvm::Twine(*start) + ", " + llvm::Twine(*end) +
                       ") is empty or out of range");
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
      builder, loc(l), tensorOf({n}, builder.getI32Type()),
      builder.getI32IntegerAttr(*start), builder.getI32IntegerAttr(*end)));
}

FailureOr<TValue> MLIRGenImpl::genFill(const BuiltinCall &call) {
  ArrayRef<const ExprAST *> args = call.args;
  llvm::StringRef name = call.name();
  bool isZeros = name == "zeros";
  FailureOr<SmallVector<int64_t>> shape = genShape(*args[0], "shape");
  if (failed(shape))
    return failure();
  TValue fill = TValue::ofInt(0);
  const ExprAST *dtypeExpr = args[isZeros ? 1 : 2];
  if (!isZeros) {
    FailureOr<TValue> v = genOptionalValue(args[1]);
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
    elem = fill.isRuntime() ? fill.value.getType()
           : isZeros        ? (Type)builder.getF32Type()
                            : constType(fill, Type());
  }
  FailureOr<Value> v = toValue(fill, elem, *shape, call.loc);
  if (failed(v))
    return failure();
  return TValue::runtime(*v);
}

FailureOr<TValue> MLIRGenImpl::genLoadStore(const BuiltinCall &call) {
  ArrayRef<const ExprAST *> args = call.args;
  SourceLoc l = call.loc;
  llvm::StringRef name = call.name();
  bool isLoad = name == "load";
  // load(ptrs, mask, other) and store(ptrs, value, mask): `other` doubles as
  // the stored value.
  size_t maskArg = isLoad ? 1 : 2, otherArg = isLoad ? 2 : 1;
  FailureOr<TValue> ptr = genOptionalValue(args[0]);
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
  FailureOr<TValue> mask = genOptionalValue(args[maskArg]);
  FailureOr<TValue> other = genOptionalValue(args[otherArg]);
  if (failed(mask) || failed(other))
    return failure();
  if (mask->kind != TValue::None) {
    bool ok = mask->isRuntime()
                  ? getElementTypeOrSelf(mask->value.getType()).isInteger(1)
                  : mask->kind == TValue::Bool;
    if (!ok) {
      diags.error(args[maskArg]->loc(),
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
    FailureOr<Value> mv =
        toValue(*mask, builder.getI1Type(), *shape, args[maskArg]->loc());
    if (failed(mv))
      return failure();
    m = *mv;
  }
  Location lc = loc(l);
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
    return TValue::runtime(
        tile::LoadOp::create(builder, lc, tensorOf(*shape, pointee), *p, m, o));
  }
  FailureOr<Value> val = toValue(*other, pointee, *shape, args[1]->loc());
  if (failed(val))
    return failure();
  tile::StoreOp::create(builder, lc, *p, *val, m);
  return TValue::none();
}

FailureOr<TValue> MLIRGenImpl::genDot(const BuiltinCall &call) {
  ArrayRef<const ExprAST *> args = call.args;
  SourceLoc l = call.loc;
  FailureOr<TValue> a = genOptionalValue(args[0]);
  FailureOr<TValue> b = failed(a) ? a : genOptionalValue(args[1]);
  if (failed(a) || failed(b))
    return failure();
  // trans_b=True: b is [N, K] and the product is a x b^T.
  bool transB = false;
  if (args[3]) {
    FailureOr<TValue> t = genOptionalValue(args[3]);
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
    FailureOr<TValue> c = genOptionalValue(args[2]);
    if (failed(c))
      return failure();
    acc = *c;
  }
  FailureOr<Value> accV =
      toValue(acc, f32, outShape, args[2] ? args[2]->loc() : l);
  if (failed(accV))
    return failure();
  return TValue::runtime(tile::DotOp::create(builder, loc(l),
                                             tensorOf(outShape, f32), a->value,
                                             b->value, *accV, transB));
}

FailureOr<TValue> MLIRGenImpl::genBroadcastTo(const BuiltinCall &call) {
  SourceLoc l = call.loc;
  FailureOr<TValue> x = genOptionalValue(call.args[0]);
  if (failed(x))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = genShape(*call.args[1], "shape");
  if (failed(shape))
    return failure();
  if (x->isConst())
    return TValue::runtime(
        constant(*x, tensorOf(*shape, constType(*x, Type())), l));
  if (isa<tile::TensorDescType>(x->value.getType())) {
    diags.error(l, "broadcast_to() needs a number, a pointer or a tensor, "
                   "got " +
                       describe(*x));
    return failure();
  }
  FailureOr<Value> b = broadcastTo(x->value, *shape, l);
  if (failed(b))
    return failure();
  return TValue::runtime(*b);
}

FailureOr<TValue> MLIRGenImpl::genGridDependency(const BuiltinCall &call) {
  Location lc = loc(call.loc);
  if (call.name() == "grid_dependency_wait")
    tile::GridDependencyWaitOp::create(builder, lc);
  else
    tile::LaunchDependentsOp::create(builder, lc);
  return TValue::none();
}

/// A runtime i32 scalar, or an integer constant that fits one.
static bool isScalarI32(const TValue &v) {
  return v.kind == TValue::Int
             ? v.i == int64_t(int32_t(v.i))
             : v.isRuntime() && v.value.getType().isInteger(32);
}

FailureOr<std::pair<Value, Value>>
MLIRGenImpl::genI32CellOperands(const BuiltinCall &call, StringRef what) {
  SourceLoc l = call.loc;
  FailureOr<TValue> ptr = genOptionalValue(call.args[0]);
  FailureOr<TValue> value = genOptionalValue(call.args[1]);
  if (failed(ptr) || failed(value))
    return failure();
  auto ptrType = ptr->isRuntime()
                     ? dyn_cast<tile::PointerType>(ptr->value.getType())
                     : tile::PointerType();
  if (!ptrType || !ptrType.getPointeeType().isInteger(32)) {
    diags.error(call.args[0]->loc(),
                call.name().str() +
                    "() expects one *i32 pointer (a scalar), got " +
                    describe(*ptr));
    return failure();
  }
  if (!isScalarI32(*value)) {
    diags.error(call.args[1]->loc(), call.name().str() + "() " + what.str() +
                                         " a scalar i32, got " +
                                         describe(*value));
    return failure();
  }
  FailureOr<Value> v = toValue(*value, builder.getI32Type(), {}, l);
  if (failed(v))
    return failure();
  return std::make_pair(ptr->value, *v);
}

FailureOr<TValue> MLIRGenImpl::genAtomicAdd(const BuiltinCall &call) {
  auto operands = genI32CellOperands(call, "adds");
  if (failed(operands))
    return failure();
  return TValue::runtime(tile::AtomicAddOp::create(
      builder, loc(call.loc), operands->first, operands->second));
}

FailureOr<TValue> MLIRGenImpl::genWaitFlag(const BuiltinCall &call) {
  auto operands = genI32CellOperands(call, "waits for");
  if (failed(operands))
    return failure();
  tile::WaitFlagOp::create(builder, loc(call.loc), operands->first,
                           operands->second);
  return TValue::none();
}

FailureOr<TValue> MLIRGenImpl::genPrefetchL2(const BuiltinCall &call) {
  FailureOr<TValue> ptr = genOptionalValue(call.args[0]);
  FailureOr<TValue> bytes = genOptionalValue(call.args[1]);
  if (failed(ptr) || failed(bytes))
    return failure();
  if (!ptr->isRuntime() || !isa<tile::PointerType>(ptr->value.getType())) {
    diags.error(call.args[0]->loc(),
                "prefetch_l2() expects a pointer (a scalar), got " +
                    describe(*ptr));
    return failure();
  }
  if (!isScalarI32(*bytes)) {
    diags.error(call.args[1]->loc(),
                "prefetch_l2() takes its byte count as a scalar i32, got " +
                    describe(*bytes));
    return failure();
  }
  FailureOr<Value> count = toValue(*bytes, builder.getI32Type(), {}, call.loc);
  if (failed(count))
    return failure();
  tile::PrefetchL2Op::create(builder, loc(call.loc), ptr->value, *count);
  return TValue::none();
}
