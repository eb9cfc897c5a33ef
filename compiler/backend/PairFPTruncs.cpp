//===- PairFPTruncs.cpp - paired float narrowing next to its use ----------===//
#include "PairFPTruncs.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;
using namespace llvm::PatternMatch;

namespace tilemla {
namespace {
/// The floats a vector of 16-bit floats is built from, in element order,
/// when `last` ends a chain of insertelements into poison or undef that
/// sets every element once, each to an `fptrunc float`.
std::optional<SmallVector<Value *>> truncatedFloats(InsertElementInst *last) {
  auto *type = cast<FixedVectorType>(last->getType());
  SmallVector<Value *> floats(type->getNumElements(), nullptr);
  Value *vector = last;
  while (auto *insert = dyn_cast<InsertElementInst>(vector)) {
    auto *index = dyn_cast<ConstantInt>(insert->getOperand(2));
    Value *source = nullptr;
    if (!index || index->getValue().uge(floats.size()) ||
        floats[index->getZExtValue()] ||
        !match(insert->getOperand(1), m_FPTrunc(m_Value(source))) ||
        !source->getType()->isFloatTy())
      return std::nullopt;
    floats[index->getZExtValue()] = source;
    vector = insert->getOperand(0);
  }
  if (!isa<UndefValue>(vector) || llvm::is_contained(floats, nullptr))
    return std::nullopt;
  return floats;
}
} // namespace

PreservedAnalyses PairFPTruncsPass::run(Function &function,
                                        FunctionAnalysisManager &) {
  SmallVector<WeakTrackingVH> replaced;
  for (BasicBlock &block : function)
    for (Instruction &inst : make_early_inc_range(block)) {
      auto *last = dyn_cast<InsertElementInst>(&inst);
      auto *type = last ? dyn_cast<FixedVectorType>(last->getType()) : nullptr;
      if (!type || type->getNumElements() % 2 != 0 ||
          !type->getElementType()->is16bitFPTy())
        continue;
      // Only the chain's last insert: the others feed another insert.
      if (llvm::any_of(last->users(), [&](User *user) {
            auto *next = dyn_cast<InsertElementInst>(user);
            return next && next->getOperand(0) == last;
          }))
        continue;
      std::optional<SmallVector<Value *>> floats = truncatedFloats(last);
      if (!floats)
        continue;
      IRBuilder<> builder(last);
      Value *wide = PoisonValue::get(
          FixedVectorType::get(builder.getFloatTy(), floats->size()));
      for (auto [i, value] : llvm::enumerate(*floats))
        wide = builder.CreateInsertElement(wide, value, uint64_t(i));
      Value *narrow = builder.CreateFPTrunc(wide, type);
      narrow->takeName(last);
      replaced.push_back(last->getOperand(0));
      replaced.push_back(last->getOperand(1));
      last->replaceAllUsesWith(narrow);
      last->eraseFromParent();
    }
  if (replaced.empty())
    return PreservedAnalyses::all();
  // The scalar truncations and the old chains are usually dead now.
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(replaced);
  return PreservedAnalyses::none();
}
} // namespace tilemla
