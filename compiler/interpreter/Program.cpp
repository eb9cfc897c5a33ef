//===- Program.cpp - executes one program: values and control flow --------===//
#include "Program.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Location.h"

#include <fmt/format.h>

using namespace mlir;

namespace tilemla::interp {
std::string formatLocation(Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return fmt::format("{}:{}:{}", fileLoc.getFilename().str(),
                       fileLoc.getLine(), fileLoc.getColumn());
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(callSite.getCallee()) + " (inlined at " +
           formatLocation(callSite.getCaller()) + ")";
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return formatLocation(nameLoc.getChildLoc());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations()) {
      std::string text = formatLocation(inner);
      if (text != "<unknown location>")
        return text;
    }
  return "<unknown location>";
}

const RtValue &ProgramInterpreter::get(Value value) const {
  auto it = values.find(value.getAsOpaquePointer());
  if (it == values.end())
    fail(value.getDefiningOp() ? value.getDefiningOp()
                               : value.getParentBlock()->getParentOp(),
         "internal error: value used before it was computed");
  return it->second;
}

void ProgramInterpreter::set(Value value, RtValue result) {
  values[value.getAsOpaquePointer()] = std::move(result);
}

void ProgramInterpreter::fail(Operation *op, const llvm::Twine &message,
                              bool outOfBounds) const {
  std::string text = fmt::format(
      "{}: kernel '{}', program ({}, {}, {}): {}", formatLocation(op->getLoc()),
      launch.kernelName, pid[0], pid[1], pid[2], message.str());
  if (outOfBounds)
    throw OutOfBoundsError(text);
  throw InterpreterError(text);
}

void ProgramInterpreter::run(func::FuncOp func, std::vector<RtValue> args) {
  Block &entry = func.getBody().front();
  for (auto [arg, value] : llvm::zip_equal(entry.getArguments(), args))
    set(arg, std::move(value));
  runBlock(entry);
}

std::vector<RtValue> ProgramInterpreter::runBlock(Block &block) {
  for (Operation &op : block) {
    if (isa<scf::YieldOp, func::ReturnOp>(op)) {
      std::vector<RtValue> results;
      for (Value operand : op.getOperands())
        results.push_back(get(operand));
      return results;
    }
    runOp(op);
  }
  return {};
}

void ProgramInterpreter::runOp(Operation &op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    const RtValue &lbValue = get(forOp.getLowerBound());
    ElemKind ivKind = lbValue.kind;
    int64_t lb = toSigned(ivKind, lbValue.ints[0]);
    int64_t ub = toSigned(ivKind, get(forOp.getUpperBound()).ints[0]);
    int64_t step = toSigned(ivKind, get(forOp.getStep()).ints[0]);
    if (step <= 0)
      fail(&op, fmt::format("scf.for with step {} (must be positive)", step));
    std::vector<RtValue> carried;
    for (Value init : forOp.getInitArgs())
      carried.push_back(get(init));
    Block &body = *forOp.getBody();
    for (int64_t iv = lb; iv < ub; iv += step) {
      set(forOp.getInductionVar(), RtValue::scalarInt(ivKind, iv));
      for (auto [arg, value] :
           llvm::zip_equal(forOp.getRegionIterArgs(), carried))
        set(arg, std::move(value));
      carried = runBlock(body);
    }
    for (auto [result, value] : llvm::zip_equal(forOp.getResults(), carried))
      set(result, std::move(value));
    return;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    bool cond = get(ifOp.getCondition()).ints[0] & 1;
    Region &region = cond ? ifOp.getThenRegion() : ifOp.getElseRegion();
    if (region.empty())
      return;
    std::vector<RtValue> results = runBlock(region.front());
    for (auto [result, value] : llvm::zip_equal(ifOp.getResults(), results))
      set(result, std::move(value));
    return;
  }
  if (runTileOp(*this, op) || runArithOp(*this, op))
    return;
  fail(&op, "the interpreter does not support '" + op.getName().getStringRef() +
                "'");
}
} // namespace tilemla::interp
