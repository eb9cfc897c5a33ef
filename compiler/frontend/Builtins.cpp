//===- Builtins.cpp - AST to tile IR: calls and the builtin registry ------===//
//
// Builtins bind their arguments Python-style (positional, then keywords by
// parameter name) through the registry below, so arity and keyword errors
// are uniform: "load() got an unexpected keyword argument 'foo'". The
// handlers live in BuiltinTensors.cpp and BuiltinMath.cpp.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"

using namespace mlir;
using namespace tilemla;

const BuiltinSpec *tilemla::lookupBuiltin(llvm::StringRef name) {
  // One row per builtin; rows that share a handler are told apart by name.
  static const BuiltinSpec registry[] = {
      {"program_id", {"axis"}, 1, &MLIRGenImpl::genProgramIndex},
      {"num_programs", {"axis"}, 1, &MLIRGenImpl::genProgramIndex},
      {"arange", {"start", "end"}, 2, &MLIRGenImpl::genArange},
      {"zeros", {"shape", "dtype"}, 1, &MLIRGenImpl::genFill},
      {"full", {"shape", "value", "dtype"}, 2, &MLIRGenImpl::genFill},
      {"load", {"ptrs", "mask", "other"}, 1, &MLIRGenImpl::genLoadStore},
      {"desc_load",
       {"desc", "offsets", "shape", "row_end"},
       3,
       &MLIRGenImpl::genDescLoad},
      {"store", {"ptrs", "value", "mask"}, 2, &MLIRGenImpl::genLoadStore},
      {"dot", {"a", "b", "acc", "trans_b"}, 2, &MLIRGenImpl::genDot},
      {"sum", {"x", "axis"}, 1, &MLIRGenImpl::genReduce},
      {"max", {"x", "axis"}, 1, &MLIRGenImpl::genReduce},
      {"min", {"x", "axis"}, 1, &MLIRGenImpl::genReduce},
      {"cumsum", {"x", "axis"}, 1, &MLIRGenImpl::genReduce},
      {"cummax", {"x", "axis"}, 1, &MLIRGenImpl::genReduce},
      {"cummin", {"x", "axis"}, 1, &MLIRGenImpl::genReduce},
      {"exp", {"x"}, 1, &MLIRGenImpl::genMath},
      {"log", {"x"}, 1, &MLIRGenImpl::genMath},
      {"exp2", {"x"}, 1, &MLIRGenImpl::genMath},
      {"log2", {"x"}, 1, &MLIRGenImpl::genMath},
      {"sqrt", {"x"}, 1, &MLIRGenImpl::genMath},
      {"abs", {"x"}, 1, &MLIRGenImpl::genMath},
      {"where", {"cond", "x", "y"}, 3, &MLIRGenImpl::genWhere},
      {"minimum", {"x", "y"}, 2, &MLIRGenImpl::genMinMax},
      {"maximum", {"x", "y"}, 2, &MLIRGenImpl::genMinMax},
      {"cdiv", {"x", "y"}, 2, &MLIRGenImpl::genCdiv},
      {"broadcast_to", {"x", "shape"}, 2, &MLIRGenImpl::genBroadcastTo},
      {"grid_dependency_wait", {}, 0, &MLIRGenImpl::genGridDependency},
      {"launch_dependents", {}, 0, &MLIRGenImpl::genGridDependency},
      {"atomic_add", {"ptr", "value"}, 2, &MLIRGenImpl::genAtomicAdd},
      {"wait_flag", {"ptr", "value"}, 2, &MLIRGenImpl::genWaitFlag},
      {"prefetch_l2", {"ptr", "bytes"}, 2, &MLIRGenImpl::genPrefetchL2},
  };
  for (const BuiltinSpec &spec : registry)
    if (name == spec.name)
      return &spec;
  return nullptr;
}

/// Binds call arguments to `spec`'s parameters; null entries are omitted
/// optional arguments.
static FailureOr<BuiltinCall> bindArgs(tilemla::DiagnosticEngine &diags,
                                       const BuiltinSpec &spec,
                                       const CallExprAST &e) {
  BuiltinCall call{spec, std::vector<const ExprAST *>(spec.params.size()),
                   e.loc()};
  std::vector<const ExprAST *> &bound = call.args;
  std::string fn = (spec.name + "()").str();
  if (e.getArgs().size() > spec.params.size()) {
    diags.error(e.loc(), fn + " takes " +
                             (spec.required == spec.params.size()
                                  ? llvm::Twine("")
                                  : llvm::Twine("at most ")) +
                             llvm::Twine(spec.params.size()) + " argument" +
                             (spec.params.size() == 1 ? "" : "s") + " (" +
                             llvm::Twine(e.getArgs().size()) + " given)");
    return failure();
  }
  for (size_t k = 0; k < e.getArgs().size(); ++k)
    bound[k] = e.getArgs()[k].get();
  for (const KeywordArg &kw : e.getKwargs()) {
    size_t k = 0;
    while (k < spec.params.size() && kw.name != spec.params[k])
      ++k;
    if (k == spec.params.size()) {
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
  for (unsigned k = 0; k < spec.required; ++k)
    if (!bound[k]) {
      diags.error(e.loc(),
                  fn + " missing required argument '" + spec.params[k] + "'");
      return failure();
    }
  return call;
}

FailureOr<TValue> MLIRGenImpl::genBuiltin(const BuiltinSpec &spec,
                                          const CallExprAST &e) {
  FailureOr<BuiltinCall> call = bindArgs(diags, spec, e);
  if (failed(call))
    return failure();
  return (this->*spec.handler)(*call);
}

FailureOr<TValue> MLIRGenImpl::genOptionalValue(const ExprAST *e) {
  if (!e)
    return TValue::none();
  FailureOr<TValue> v = genExpr(*e);
  if (failed(v) || failed(requireValue(*v, e->loc())))
    return failure();
  return v;
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
  if (const BuiltinSpec *builtin = lookupBuiltin(name))
    return genBuiltin(*builtin, e);
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
  static const BuiltinSpec toMethod = {"to", {"dtype"}, 1, nullptr};
  FailureOr<BuiltinCall> call = bindArgs(diags, toMethod, e);
  if (failed(call))
    return failure();
  FailureOr<TValue> x = genExpr(callee.getBase());
  if (failed(x) || failed(requireValue(*x, callee.getBase().loc())))
    return failure();
  FailureOr<Type> t = genDType(*call->args[0], "the argument of .to()");
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
