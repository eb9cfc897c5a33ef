//===- MLIRGen.cpp - AST to tile IR: entry point and functions ------------===//
//
// Kernels become `func.func @NAME` with the `tile.kernel` unit attribute.
// Int/float/bool constexpr parameters stay function arguments tagged with
// `tile.constexpr = <value>` (a later pass folds them); dtype parameters are
// compile-time only.
//
// Helpers (`fn`) are monomorphized per argument list: runtime arguments by
// type, compile-time arguments (constexprs, dtypes, shapes) by value, so a
// helper can use its constexpr arguments in static contexts (arange bounds,
// shapes). Each instance is `func.func private @name__<mangled>`.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <cstdlib>

using namespace mlir;
using namespace tilemla;

bool TValue::sameAs(const TValue &o) const {
  if (kind != o.kind)
    return false;
  switch (kind) {
  case Runtime:
    return value == o.value;
  case Int:
    return i == o.i && value == o.value;
  case Float:
    return f == o.f && value == o.value;
  case Bool:
    return b == o.b && value == o.value;
  case DType:
    return type == o.type;
  case Tuple:
    if (elems.size() != o.elems.size())
      return false;
    for (size_t k = 0; k < elems.size(); ++k)
      if (!elems[k].sameAs(o.elems[k]))
        return false;
    return true;
  case String:
    return str == o.str;
  case Poison:
  case None:
    return true;
  }
  return false;
}

bool tilemla::parseSpecValue(llvm::StringRef text, bool wantDType,
                             SpecValue &out) {
  text = text.trim();
  if (wantDType) {
    static const char *names[] = {"f16", "bf16", "f32",     "i1",
                                  "i32", "i64",  "fp8e4m3", "fp8e5m2"};
    for (const char *n : names)
      if (text == n) {
        out.kind = SpecValue::DType;
        out.dtype = n;
        return true;
      }
    return false;
  }
  if (text == "True" || text == "true" || text == "False" || text == "false") {
    out.kind = SpecValue::Bool;
    out.i = text[0] == 'T' || text[0] == 't';
    return true;
  }
  if (text.empty())
    return false;
  // Integers: [-]decimal or [-]0x.. / 0b...
  llvm::StringRef digits = text;
  bool neg = digits.consume_front("-");
  if (!neg)
    digits.consume_front("+");
  unsigned long long u;
  if (!digits.getAsInteger(0, u) && u <= (unsigned long long)INT64_MAX) {
    out.kind = SpecValue::Int;
    out.i = neg ? -(int64_t)u : (int64_t)u;
    return true;
  }
  std::string s = text.str();
  char *end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end == s.c_str() + s.size() &&
      !llvm::StringRef(s).contains_insensitive("x")) {
    out.kind = SpecValue::Float;
    out.f = d;
    return true;
  }
  return false;
}

void tilemla::loadFrontendDialects(MLIRContext &ctx) {
  ctx.getOrLoadDialect<tile::TileDialect>();
  ctx.getOrLoadDialect<arith::ArithDialect>();
  ctx.getOrLoadDialect<math::MathDialect>();
  ctx.getOrLoadDialect<scf::SCFDialect>();
  ctx.getOrLoadDialect<func::FuncDialect>();
}

MLIRGenImpl::MLIRGenImpl(MLIRContext &ctx, const ModuleAST &module,
                         DiagnosticEngine &diags)
    : ctx(ctx), astModule(module), diags(diags), builder(&ctx) {
  fileName = diags.getFile() ? diags.getFile()->getPath().str() : "<input>";
}

Location MLIRGenImpl::loc(SourceLoc l) {
  return FileLineColLoc::get(&ctx, fileName, l.line, l.col);
}

OwningOpRef<ModuleOp> MLIRGenImpl::run(llvm::StringRef kernelName,
                                       const Specialization &values) {
  loadFrontendDialects(ctx);
  const FunctionAST *kernel = nullptr;
  for (const auto &fn : astModule.functions) {
    if (!fn->isKernel)
      continue;
    if (kernelName.empty() || fn->name == kernelName) {
      kernel = fn.get();
      break;
    }
  }
  if (!kernel) {
    if (kernelName.empty())
      diags.error(SourceLoc(), "no kernel in the input");
    else
      diags.error(SourceLoc(), "no kernel named '" + kernelName + "'");
    return nullptr;
  }
  OwningOpRef<ModuleOp> owned = ModuleOp::create(loc(kernel->loc));
  module = *owned;
  if (failed(genKernel(*kernel, values)) || diags.hasErrors())
    return nullptr;
  if (failed(verifyModule()))
    return nullptr;
  return owned;
}

LogicalResult MLIRGenImpl::genKernel(const FunctionAST &fn,
                                     const Specialization &values) {
  unsigned errorsBefore = diags.getNumErrors();
  // -D names must be constexpr/dtype parameters of this kernel.
  for (const auto &kv : values) {
    const ParamAST *param = nullptr;
    for (const ParamAST &p : fn.params)
      if (p.name == kv.first)
        param = &p;
    if (!param)
      diags.error(SourceLoc(), "unknown specialization value '" + kv.first +
                                   "': kernel '" + fn.name +
                                   "' has no such parameter");
    else if (param->kind != ParamAST::Constexpr &&
             param->kind != ParamAST::DType)
      diags.error(param->loc, "parameter '" + kv.first +
                                  "' is given with -D but is not constexpr "
                                  "or dtype");
  }

  // Pass 1: compile-time parameters, in order (defaults may use earlier
  // ones), so that `*T` can refer to a dtype declared later.
  env.clear();
  inKernel = true;
  for (const ParamAST &p : fn.params) {
    if (p.kind != ParamAST::Constexpr && p.kind != ParamAST::DType)
      continue;
    bool isType = p.kind == ParamAST::DType;
    auto it = values.find(p.name);
    TValue v;
    if (it != values.end()) {
      SpecValue sv;
      if (!parseSpecValue(it->second, isType, sv)) {
        diags.error(p.loc, "invalid value '" + it->second + "' for " +
                               (isType ? "dtype" : "constexpr") +
                               " parameter '" + p.name + "'" +
                               (isType ? " (expected f16, bf16, f32, i1, "
                                         "i32, i64, fp8e4m3 or fp8e5m2)"
                                       : ""));
        env[p.name] = TValue();
        continue;
      }
      if (sv.kind == SpecValue::DType)
        v = TValue::ofType(parseTypeName(sv.dtype));
      else if (sv.kind == SpecValue::Int)
        v = TValue::ofInt(sv.i);
      else if (sv.kind == SpecValue::Float)
        v = TValue::ofFloat(sv.f);
      else
        v = TValue::ofBool(sv.i != 0);
    } else if (p.defaultValue) {
      FailureOr<TValue> d = isType ? FailureOr<TValue>(failure())
                                   : genConst(*p.defaultValue, "default value");
      if (isType) {
        FailureOr<Type> t = genDType(*p.defaultValue, "default dtype");
        if (succeeded(t))
          d = TValue::ofType(*t);
      }
      if (failed(d)) {
        env[p.name] = TValue();
        continue;
      }
      v = *d;
    } else {
      diags.error(p.loc, "missing value for " +
                             llvm::Twine(isType ? "dtype" : "constexpr") +
                             " parameter '" + p.name + "' (pass -D " + p.name +
                             "=...)");
      env[p.name] = TValue();
      continue;
    }
    env[p.name] = v;
  }

  // Pass 2: the signature.
  SmallVector<Type> argTypes;
  SmallVector<const ParamAST *> argParams;
  for (const ParamAST &p : fn.params) {
    Type t;
    switch (p.kind) {
    case ParamAST::Scalar:
    case ParamAST::Pointer:
    case ParamAST::TensorDesc: {
      t = parseTypeName(p.typeName);
      auto it = env.find(p.typeName);
      if (!t && it != env.end() && it->second.kind == TValue::DType)
        t = it->second.type;
      if (!t) {
        diags.error(p.typeLoc, "unknown type '" + p.typeName + "'");
        continue;
      }
      if (p.kind == ParamAST::Pointer)
        t = tile::PointerType::get(t);
      if (p.kind == ParamAST::TensorDesc)
        t = tile::TensorDescType::get(&ctx, t);
      break;
    }
    case ParamAST::Constexpr: {
      const TValue &v = env[p.name];
      if (!v.isConst())
        continue;
      t = constType(v, Type());
      break;
    }
    default:
      continue;
    }
    argTypes.push_back(t);
    argParams.push_back(&p);
  }
  if (diags.getNumErrors() != errorsBefore)
    return failure();

  builder.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(builder, loc(fn.loc), fn.name,
                                   builder.getFunctionType(argTypes, {}));
  func->setAttr(tile::TileDialect::KernelAttrHelper::getNameStr(),
                builder.getUnitAttr());
  usedSymbols.insert(fn.name);
  Block *entry = func.addEntryBlock();
  for (unsigned k = 0; k < argParams.size(); ++k) {
    const ParamAST &p = *argParams[k];
    BlockArgument arg = entry->getArgument(k);
    arg.setLoc(loc(p.loc));
    if (p.kind != ParamAST::Constexpr) {
      env[p.name] = TValue::runtime(arg);
      continue;
    }
    TValue &v = env[p.name];
    Attribute attr;
    if (v.kind == TValue::Int)
      attr = builder.getIntegerAttr(arg.getType(), v.i);
    else if (v.kind == TValue::Float)
      attr = builder.getFloatAttr(arg.getType(), v.f);
    else
      attr = builder.getBoolAttr(v.b);
    func.setArgAttr(k, tile::TileDialect::ConstexprAttrHelper::getNameStr(),
                    attr);
    v.value = arg; // value uses read the argument
  }

  // The kernel's warps per program when the caller does not choose (the
  // driver reads it from the module before it builds the GPU passes);
  // evaluated once runtime parameters are names, to say what they are.
  if (fn.numWarps) {
    FailureOr<int64_t> warps = genConstInt(*fn.numWarps, "num_warps");
    if (succeeded(warps)) {
      if (*warps < 1 || *warps > 32 || !llvm::isPowerOf2_64(*warps))
        diags.error(fn.numWarps->loc(),
                    "num_warps must be a power of two in [1, 32], got " +
                        llvm::Twine(*warps));
      else
        module->setAttr(tile::TileDialect::NumWarpsAttrHelper::getNameStr(),
                        builder.getI32IntegerAttr(int32_t(*warps)));
    }
  }
  if (fn.warpSpecialize) {
    FailureOr<int64_t> on = genConstInt(*fn.warpSpecialize, "warp_specialize");
    if (succeeded(on) && *on)
      module->setAttr(tile::TileDialect::WarpSpecializeAttrHelper::getNameStr(),
                      builder.getUnitAttr());
  }
  if (fn.ownNarrowDots) {
    FailureOr<int64_t> on = genConstInt(*fn.ownNarrowDots, "own_narrow_dots");
    if (succeeded(on))
      module->setAttr(tile::TileDialect::OwnNarrowDotsAttrHelper::getNameStr(),
                      builder.getBoolAttr(*on != 0));
  }
  if (fn.scoreWarpgroup) {
    FailureOr<int64_t> on = genConstInt(*fn.scoreWarpgroup, "score_warpgroup");
    if (succeeded(on))
      module->setAttr(tile::TileDialect::ScoreWarpgroupAttrHelper::getNameStr(),
                      builder.getBoolAttr(*on != 0));
  }
  if (fn.seesaw) {
    FailureOr<int64_t> on = genConstInt(*fn.seesaw, "seesaw");
    if (succeeded(on))
      module->setAttr(tile::TileDialect::SeesawAttrHelper::getNameStr(),
                      builder.getBoolAttr(*on != 0));
  }

  builder.setInsertionPointToStart(entry);
  finalStmt = fn.body.stmts.empty() ? nullptr : fn.body.stmts.back().get();
  (void)genBlock(fn.body);
  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, loc(fn.loc));
  inKernel = false;
  return success(diags.getNumErrors() == errorsBefore);
}

/// `16x32xf32`, `pf16` (pointer), `f32`.
static std::string mangleType(MLIRGenImpl &gen, Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t)) {
    std::string s;
    for (int64_t d : r.getShape())
      s += std::to_string(d) + "x";
    return s + mangleType(gen, r.getElementType());
  }
  if (auto p = dyn_cast<tile::PointerType>(t))
    return "p" + mangleType(gen, p.getPointeeType());
  return gen.typeStr(t);
}

/// A symbol-safe spelling of a helper argument for the instance name.
static std::string mangleArg(MLIRGenImpl &gen, const TValue &v) {
  std::string s;
  switch (v.kind) {
  case TValue::Runtime:
    s = mangleType(gen, v.value.getType());
    break;
  case TValue::Int:
    s = "c" + std::to_string(v.i);
    break;
  case TValue::Float: {
    char buf[64];
    snprintf(buf, sizeof(buf), "cf%g", v.f);
    s = buf;
    break;
  }
  case TValue::Bool:
    s = v.b ? "cTrue" : "cFalse";
    break;
  case TValue::DType:
    s = "T" + mangleType(gen, v.type);
    break;
  case TValue::Tuple:
    s = "t";
    for (const TValue &e : v.elems)
      s += mangleArg(gen, e) + "_";
    break;
  default:
    s = "none";
  }
  std::string out;
  for (char c : s)
    out += (isalnum((unsigned char)c) || c == '_') ? c
           : c == '*'                              ? 'p'
           : c == '-'                              ? 'm'
           : c == '.'                              ? 'd'
                                                   : 'x';
  return out;
}

FailureOr<TValue> MLIRGenImpl::callHelper(const FunctionAST &fn,
                                          std::vector<TValue> args,
                                          SourceLoc callLoc) {
  if (args.size() != fn.params.size()) {
    diags.error(callLoc, "helper '" + fn.name + "' takes " +
                             llvm::Twine(fn.params.size()) +
                             " argument(s), got " + llvm::Twine(args.size()));
    return failure();
  }
  for (const std::string &active : helperStack)
    if (active == fn.name) {
      diags.error(callLoc, "recursive call to helper '" + fn.name +
                               "' is not supported");
      return failure();
    }
  if (helperStack.size() >= 64) {
    diags.error(callLoc, "helpers nested too deeply");
    return failure();
  }
  for (const TValue &a : args)
    if (a.kind == TValue::Poison)
      return failure();

  std::string key = fn.name + "__";
  for (size_t k = 0; k < args.size(); ++k)
    key += (k ? "_" : "") + mangleArg(*this, args[k]);

  SmallVector<Value> runtimeArgs;
  for (const TValue &a : args)
    if (a.isRuntime())
      runtimeArgs.push_back(a.value);

  auto it = instances.find(key);
  if (it == instances.end()) {
    // Generate the instance at module level with a fresh environment.
    std::string symbol = key;
    for (unsigned n = 1; usedSymbols.count(symbol); ++n)
      symbol = key + "_" + std::to_string(n);
    usedSymbols.insert(symbol);

    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(module.getBody());
    SmallVector<Type> argTypes;
    for (Value v : runtimeArgs)
      argTypes.push_back(v.getType());
    auto func = func::FuncOp::create(builder, loc(fn.loc), symbol,
                                     builder.getFunctionType(argTypes, {}));
    func.setPrivate();
    Block *entry = func.addEntryBlock();

    Env savedEnv = std::move(env);
    bool savedInKernel = inKernel;
    unsigned savedLoopDepth = loopDepth;
    ReturnSlot *savedReturn = currentReturn;
    const StmtAST *savedFinal = finalStmt;
    finalStmt = fn.body.stmts.empty() ? nullptr : fn.body.stmts.back().get();
    env.clear();
    inKernel = false;
    loopDepth = 0;
    ReturnSlot slot;
    currentReturn = &slot;
    helperStack.push_back(fn.name);

    unsigned argNo = 0;
    for (size_t k = 0; k < args.size(); ++k) {
      if (args[k].isRuntime()) {
        BlockArgument arg = entry->getArgument(argNo++);
        arg.setLoc(loc(fn.params[k].loc));
        env[fn.params[k].name] = TValue::runtime(arg);
      } else {
        TValue a = args[k];
        a.value = nullptr; // a kernel argument is not visible here
        env[fn.params[k].name] = a;
      }
    }
    unsigned errorsBefore = diags.getNumErrors();
    builder.setInsertionPointToStart(entry);
    (void)genBlock(fn.body);
    builder.setInsertionPointToEnd(entry);
    SmallVector<Value> results;
    if (slot.seen && slot.value.kind != TValue::None) {
      FailureOr<Value> r = materialize(slot.value, fn.loc);
      if (succeeded(r))
        results.push_back(*r);
    }
    func::ReturnOp::create(builder, loc(fn.loc), results);
    func.setType(
        builder.getFunctionType(argTypes, ValueRange(results).getTypes()));

    helperStack.pop_back();
    currentReturn = savedReturn;
    finalStmt = savedFinal;
    loopDepth = savedLoopDepth;
    inKernel = savedInKernel;
    env = std::move(savedEnv);

    Instance inst;
    inst.func = func;
    inst.failed = diags.getNumErrors() != errorsBefore;
    if (inst.failed)
      diags.note(callLoc,
                 "in the instance of helper '" + fn.name + "' called here");
    it = instances.emplace(key, inst).first;
  }
  if (it->second.failed)
    return failure();
  func::FuncOp callee = it->second.func;
  auto call = func::CallOp::create(builder, loc(callLoc), callee, runtimeArgs);
  if (call.getNumResults() == 0)
    return TValue::none();
  return TValue::runtime(call.getResult(0));
}

LogicalResult MLIRGenImpl::verifyModule() {
  std::string firstMessage;
  SourceLoc where;
  ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    if (firstMessage.empty() && d.getSeverity() == DiagnosticSeverity::Error) {
      firstMessage = d.str();
      if (auto fl = dyn_cast<FileLineColLoc>(d.getLocation()))
        where = SourceLoc(fl.getLine(), fl.getColumn());
    }
    return success();
  });
  if (succeeded(mlir::verify(module)))
    return success();
  diags.error(where,
              "internal error: generated IR does not verify: " + firstMessage);
  return failure();
}

OwningOpRef<ModuleOp> tilemla::mlirGen(MLIRContext &ctx,
                                       const ModuleAST &module,
                                       llvm::StringRef kernelName,
                                       const Specialization &values,
                                       DiagnosticEngine &diags) {
  MLIRGenImpl gen(ctx, module, diags);
  return gen.run(kernelName, values);
}
