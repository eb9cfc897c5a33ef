//===- MLIRGenStmt.cpp - AST to tile IR: statements -----------------------===//
//
// Variables live in a flat per-function environment (Env). Runtime loops
// and ifs snapshot it: variables defined before a `for` and assigned in it
// become scf.for iter_args; variables assigned in the branches of a runtime
// `if` become scf.if results. Statement errors do not stop generation: the
// assigned name is bound to a Poison value that fails silently later.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

using namespace mlir;
using namespace tilemla;

static void
collectAssignedStmt(const StmtAST &s,
                    std::vector<std::pair<std::string, SourceLoc>> &out) {
  auto add = [&](llvm::StringRef name, SourceLoc l) {
    for (auto &p : out)
      if (p.first == name)
        return;
    out.emplace_back(name.str(), l);
  };
  if (auto *a = dyn_cast<AssignStmtAST>(&s)) {
    add(a->getTarget(), a->loc());
  } else if (auto *f = dyn_cast<ForStmtAST>(&s)) {
    collectAssigned(f->getBody(), out);
  } else if (auto *i = dyn_cast<IfStmtAST>(&s)) {
    collectAssigned(i->getThen(), out);
    if (i->getElse())
      collectAssigned(*i->getElse(), out);
  }
}

void tilemla::collectAssigned(
    const BlockAST &block,
    std::vector<std::pair<std::string, SourceLoc>> &out) {
  for (const StmtPtr &s : block.stmts)
    collectAssignedStmt(*s, out);
}

LogicalResult MLIRGenImpl::genBlock(const BlockAST &block) {
  bool ok = true;
  for (const StmtPtr &s : block.stmts)
    ok &= succeeded(genStmt(*s));
  return success(ok);
}

LogicalResult MLIRGenImpl::genStmt(const StmtAST &stmt) {
  switch (stmt.getKind()) {
  case StmtAST::Stmt_Assign:
    return genAssign(cast<AssignStmtAST>(stmt));
  case StmtAST::Stmt_Expr:
    return success(succeeded(genExpr(cast<ExprStmtAST>(stmt).getExpr())));
  case StmtAST::Stmt_For: {
    auto &f = cast<ForStmtAST>(stmt);
    return f.isStatic() ? genStaticFor(f) : genFor(f);
  }
  case StmtAST::Stmt_If:
    return genIf(cast<IfStmtAST>(stmt));
  case StmtAST::Stmt_StaticAssert:
    return genStaticAssert(cast<StaticAssertStmtAST>(stmt));
  case StmtAST::Stmt_Return: {
    auto &r = cast<ReturnStmtAST>(stmt);
    if (&stmt != finalStmt) {
      diags.error(stmt.loc(), "'return' is only supported as the last "
                              "statement of a function");
      return failure();
    }
    if (inKernel || !currentReturn) {
      if (r.getValue()) {
        diags.error(stmt.loc(), "a kernel cannot return a value");
        return failure();
      }
      return success();
    }
    currentReturn->seen = true;
    currentReturn->value = TValue::none();
    if (!r.getValue())
      return success();
    FailureOr<TValue> v = genExpr(*r.getValue());
    if (failed(v) || failed(requireValue(*v, r.getValue()->loc())))
      return failure();
    currentReturn->value = *v;
    return success();
  }
  }
  return failure();
}

LogicalResult MLIRGenImpl::genAssign(const AssignStmtAST &s) {
  std::string target = s.getTarget().str();
  FailureOr<TValue> v = genExpr(s.getValue());
  if (succeeded(v) && s.isCompound()) {
    auto it = env.find(target);
    if (it == env.end()) {
      diags.error(s.loc(), "use of undefined name '" + target + "'");
      v = failure();
    } else {
      v = binaryOp(s.getOp(), it->second, *v, s.getValue().loc());
    }
  }
  if (succeeded(v) && (v->kind == TValue::None || v->kind == TValue::String)) {
    diags.error(s.getValue().loc(), v->kind == TValue::None
                                        ? "expression has no value"
                                        : "a string cannot be assigned");
    v = failure();
  }
  if (failed(v)) {
    env[target] = TValue(); // poison: later uses fail silently
    return failure();
  }
  env[target] = *v;
  return success();
}

/// A loop bound as an i32 SSA value.
static FailureOr<Value> loopBound(MLIRGenImpl &gen, const TValue &v,
                                  SourceLoc l) {
  if (v.kind == TValue::Int || v.kind == TValue::Bool)
    return gen.constant(v, gen.builder.getI32Type(), l);
  if (v.isRuntime() && v.value.getType().isInteger(32))
    return v.value;
  if (v.kind != TValue::Poison)
    gen.diags.error(l, "range() bounds must be i32 scalars, got " +
                           gen.describe(v));
  return failure();
}

LogicalResult MLIRGenImpl::genFor(const ForStmtAST &s) {
  TValue startV = TValue::ofInt(0), stepV = TValue::ofInt(1), endV;
  SourceLoc startLoc = s.loc(), stepLoc = s.loc();
  if (s.getStart()) {
    FailureOr<TValue> v = genExpr(*s.getStart());
    if (failed(v))
      return failure();
    startV = *v;
    startLoc = s.getStart()->loc();
  }
  FailureOr<TValue> e = genExpr(s.getEnd());
  if (failed(e))
    return failure();
  endV = *e;
  if (s.getStep()) {
    FailureOr<TValue> v = genExpr(*s.getStep());
    if (failed(v))
      return failure();
    stepV = *v;
    stepLoc = s.getStep()->loc();
    if (stepV.kind == TValue::Int && stepV.i <= 0) {
      diags.error(stepLoc,
                  "range() step must be positive, got " + llvm::Twine(stepV.i));
      return failure();
    }
  }
  int64_t stages = 1;
  if (const ExprAST *stagesExpr = s.getStages()) {
    FailureOr<int64_t> v = genConstInt(*stagesExpr, "range() stages");
    if (failed(v))
      return failure();
    if (*v < 1 || *v > mlir::tile::kMaxPipelineStages) {
      diags.error(stagesExpr->loc(),
                  "range() stages must be between 1 and " +
                      llvm::Twine(mlir::tile::kMaxPipelineStages) + ", got " +
                      llvm::Twine(*v));
      return failure();
    }
    stages = *v;
  }
  FailureOr<Value> lb = loopBound(*this, startV, startLoc);
  FailureOr<Value> ub = loopBound(*this, endV, s.getEnd().loc());
  FailureOr<Value> step = loopBound(*this, stepV, stepLoc);
  if (failed(lb) || failed(ub) || failed(step))
    return failure();

  // Loop-carried: defined before the loop and assigned in it.
  std::vector<std::pair<std::string, SourceLoc>> assigned;
  collectAssigned(s.getBody(), assigned);
  std::vector<std::pair<std::string, SourceLoc>> carried;
  SmallVector<Value> inits;
  bool ok = true;
  for (auto &[name, firstLoc] : assigned) {
    auto it = env.find(name);
    if (it == env.end() || name == s.getVar() ||
        it->second.kind == TValue::Poison)
      continue;
    const TValue &v = it->second;
    if (!v.isRuntime() && !v.isConst()) {
      diags.error(firstLoc, "'" + name + "' holds " + describe(v) +
                                " and cannot be reassigned inside a loop");
      ok = false;
      continue;
    }
    FailureOr<Value> init = materialize(v, firstLoc);
    if (failed(init)) {
      ok = false;
      continue;
    }
    carried.emplace_back(name, firstLoc);
    inits.push_back(*init);
  }
  if (!ok)
    return failure();

  auto forOp =
      scf::ForOp::create(builder, loc(s.loc()), *lb, *ub, *step, inits);
  if (stages > 1) // read by tile-pipeline-loops
    forOp->setAttr(tile::TileDialect::NumStagesAttrHelper::getNameStr(),
                   builder.getI32IntegerAttr(stages));
  Block *body = forOp.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    body->back().erase();

  Env saved = env;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(body);
  env[s.getVar().str()] = TValue::runtime(forOp.getInductionVar());
  for (size_t k = 0; k < carried.size(); ++k)
    env[carried[k].first] = TValue::runtime(forOp.getRegionIterArgs()[k]);
  ++loopDepth;
  ok = succeeded(genBlock(s.getBody()));
  --loopDepth;

  SmallVector<Value> yields;
  for (size_t k = 0; k < carried.size(); ++k) {
    Value iterArg = forOp.getRegionIterArgs()[k];
    Type want = iterArg.getType();
    const TValue &nv = env[carried[k].first];
    Value y = iterArg;
    if (nv.isConst()) {
      y = constant(nv, want, carried[k].second);
    } else if (nv.isRuntime()) {
      if (nv.value.getType() != want) {
        diags.error(carried[k].second,
                    "loop-carried variable '" + carried[k].first +
                        "' changes type from " + typeStr(want) + " to " +
                        typeStr(nv.value.getType()) + " inside the loop");
        ok = false;
      } else {
        y = nv.value;
      }
    } else if (nv.kind != TValue::Poison) {
      diags.error(carried[k].second, "loop-carried variable '" +
                                         carried[k].first + "' becomes " +
                                         describe(nv) + " inside the loop");
      ok = false;
    }
    yields.push_back(y);
  }
  scf::YieldOp::create(builder, loc(s.loc()), yields);

  env = std::move(saved);
  for (size_t k = 0; k < carried.size(); ++k)
    env[carried[k].first] = TValue::runtime(forOp.getResult(k));
  return success(ok);
}

LogicalResult MLIRGenImpl::genStaticFor(const ForStmtAST &s) {
  if (const ExprAST *stages = s.getStages()) {
    diags.error(stages->loc(), "static_for is unrolled; it takes no stages");
    return failure();
  }
  int64_t start = 0, step = 1;
  if (s.getStart()) {
    FailureOr<int64_t> v = genConstInt(*s.getStart(), "static_for bound");
    if (failed(v))
      return failure();
    start = *v;
  }
  FailureOr<int64_t> end = genConstInt(s.getEnd(), "static_for bound");
  if (failed(end))
    return failure();
  if (s.getStep()) {
    FailureOr<int64_t> v = genConstInt(*s.getStep(), "static_for step");
    if (failed(v))
      return failure();
    step = *v;
    if (step == 0) {
      diags.error(s.getStep()->loc(), "static_for step must not be zero");
      return failure();
    }
  }
  // Trip count, guarding against overflow and huge unrolls.
  __int128 trips = 0;
  if (step > 0 && *end > start)
    trips = ((__int128)*end - start + step - 1) / step;
  else if (step < 0 && *end < start)
    trips = ((__int128)start - *end - step - 1) / -step;
  if (trips > 4096) {
    diags.error(s.loc(),
                "static_for would unroll " +
                    llvm::Twine((int64_t)std::min<__int128>(trips, INT64_MAX)) +
                    " iterations (limit 4096)");
    return failure();
  }
  std::string var = s.getVar().str();
  auto prev = env.find(var);
  std::optional<TValue> saved;
  if (prev != env.end())
    saved = prev->second;
  unsigned errorsBefore = diags.getNumErrors();
  for (int64_t k = 0; k < (int64_t)trips; ++k) {
    if (++unrolledIterations > kMaxUnrolledIterations) {
      diags.error(s.loc(), "static_for loops would unroll more than " +
                               llvm::Twine(kMaxUnrolledIterations) +
                               " iterations in all (nested loops multiply)");
      break;
    }
    env[var] = TValue::ofInt(start + k * step);
    (void)genBlock(s.getBody());
    if (diags.getNumErrors() != errorsBefore)
      break; // the same errors would repeat for each iteration
  }
  if (saved)
    env[var] = *saved;
  else
    env.erase(var);
  return success(diags.getNumErrors() == errorsBefore);
}

LogicalResult MLIRGenImpl::genIf(const IfStmtAST &s) {
  FailureOr<TValue> c = genExpr(s.getCond());
  if (failed(c))
    return failure();
  if (c->isConst()) {
    // Constexpr condition: only the taken branch is compiled.
    bool taken = c->kind == TValue::Bool  ? c->b
                 : c->kind == TValue::Int ? c->i != 0
                                          : c->f != 0;
    if (taken)
      return genBlock(s.getThen());
    if (s.getElse())
      return genBlock(*s.getElse());
    return success();
  }
  if (!c->isRuntime() || !c->value.getType().isInteger(1)) {
    if (c->kind != TValue::Poison)
      diags.error(s.getCond().loc(), "if condition must be a scalar i1, got " +
                                         describe(*c) + " (use a comparison)");
    return failure();
  }

  auto ifOp = scf::IfOp::create(builder, loc(s.loc()), TypeRange{}, c->value,
                                /*withElseRegion=*/true);
  Env saved = env;
  bool ok;
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(ifOp.thenYield());
    ok = succeeded(genBlock(s.getThen()));
  }
  Env thenEnv = std::move(env);
  env = saved;
  if (s.getElse()) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(ifOp.elseYield());
    ok &= succeeded(genBlock(*s.getElse()));
  }
  Env elseEnv = std::move(env);
  env = std::move(saved);

  // Variables present after both branches and different between them.
  std::vector<std::string> merged;
  SmallVector<Value> thenVals, elseVals;
  SmallVector<Type> types;
  for (auto &[name, tv] : thenEnv) {
    auto it = elseEnv.find(name);
    if (it == elseEnv.end() || tv.sameAs(it->second))
      continue;
    const TValue &ev = it->second;
    if (tv.kind == TValue::Poison || ev.kind == TValue::Poison) {
      env[name] = TValue();
      continue;
    }
    if ((!tv.isRuntime() && !tv.isConst()) ||
        (!ev.isRuntime() && !ev.isConst())) {
      diags.error(s.loc(), "'" + name +
                               "' is assigned different "
                               "compile-time values in the branches of a "
                               "runtime if");
      ok = false;
      continue;
    }
    Type tt = tv.isRuntime() ? tv.value.getType() : Type();
    Type et = ev.isRuntime() ? ev.value.getType() : Type();
    if (tt && et && tt != et) {
      diags.error(s.loc(), "'" + name + "' has type " + typeStr(tt) +
                               " in the then branch but " + typeStr(et) +
                               " in the else branch");
      ok = false;
      continue;
    }
    Type t = tt ? tt : et;
    if (!t)
      t = promote(constType(tv, Type()), constType(ev, Type()));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(ifOp.thenYield());
    Type elem = getElementTypeOrSelf(t);
    FailureOr<Value> a = toValue(tv, elem, shapeOf(t), s.loc());
    builder.setInsertionPoint(ifOp.elseYield());
    FailureOr<Value> b = toValue(ev, elem, shapeOf(t), s.loc());
    if (failed(a) || failed(b)) {
      ok = false;
      continue;
    }
    merged.push_back(name);
    thenVals.push_back(*a);
    elseVals.push_back(*b);
    types.push_back(t);
  }
  if (merged.empty())
    return success(ok);

  // Rebuild the scf.if with results, moving the generated regions over.
  auto newIf = scf::IfOp::create(builder, loc(s.loc()), types, c->value,
                                 /*withElseRegion=*/true);
  newIf.getThenRegion().takeBody(ifOp.getThenRegion());
  newIf.getElseRegion().takeBody(ifOp.getElseRegion());
  ifOp.erase();
  for (auto [region, vals] :
       {std::make_pair(&newIf.getThenRegion(), &thenVals),
        std::make_pair(&newIf.getElseRegion(), &elseVals)}) {
    Block &blk = region->front();
    Operation *oldYield = blk.getTerminator();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(oldYield);
    scf::YieldOp::create(builder, oldYield->getLoc(), *vals);
    oldYield->erase();
  }
  for (size_t k = 0; k < merged.size(); ++k)
    env[merged[k]] = TValue::runtime(newIf.getResult(k));
  return success(ok);
}

LogicalResult MLIRGenImpl::genStaticAssert(const StaticAssertStmtAST &s) {
  FailureOr<TValue> c = genConst(s.getCond(), "static_assert condition");
  if (failed(c))
    return failure();
  bool holds = c->kind == TValue::Bool  ? c->b
               : c->kind == TValue::Int ? c->i != 0
                                        : c->f != 0;
  if (holds)
    return success();
  if (s.getMessage().empty())
    diags.error(s.loc(), "static assertion failed");
  else
    diags.error(s.loc(), "static assertion failed: " + s.getMessage());
  return failure();
}
