//===- SplitGEPOffsets.cpp - constant offsets out of GEP indices ----------===//
#include "SplitGEPOffsets.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace tilemla {
namespace {
/// The index's variable part X and constant offset C when the index is
/// X + C exactly: X | C with a disjoint or (no carry), or X + C with no
/// signed wrap, directly or through a sext (sext(X + C) == sext(X) +
/// sext(C)); through a zext, a disjoint or or an add with no unsigned wrap.
/// C comes back in the index's type.
bool matchConstantOffset(Value *index, Value *&x, Constant *&c) {
  Value *inner = index;
  auto *ext = dyn_cast<CastInst>(index);
  if (ext && (isa<SExtInst>(ext) || isa<ZExtInst>(ext)))
    inner = ext->getOperand(0);
  else
    ext = nullptr;
  auto *op = dyn_cast<BinaryOperator>(inner);
  auto *offset = op ? dyn_cast<ConstantInt>(op->getOperand(1)) : nullptr;
  if (!offset)
    return false;
  bool exact = false;
  if (op->getOpcode() == Instruction::Or)
    exact = cast<PossiblyDisjointInst>(op)->isDisjoint();
  else if (op->getOpcode() == Instruction::Add)
    // A GEP sign-extends a narrower index, as a sext does.
    exact = ext && isa<ZExtInst>(ext) ? op->hasNoUnsignedWrap()
                                      : op->hasNoSignedWrap();
  if (!exact)
    return false;
  unsigned bits = index->getType()->getIntegerBitWidth();
  const APInt &value = offset->getValue();
  c = ConstantInt::get(index->getType(), !ext || isa<SExtInst>(ext)
                                             ? value.sext(bits)
                                             : value.zext(bits));
  x = op->getOperand(0);
  return true;
}
} // namespace

PreservedAnalyses SplitGEPOffsetsPass::run(Function &function,
                                           FunctionAnalysisManager &) {
  // One base per (pointer, element type, X, extension) and block, made
  // before the first GEP that needs it, or that GEP itself when it indexes
  // with ext(X) alone: the block's later GEPs share it (a base in one block
  // need not dominate another's). The extension is part of the key: sext X
  // and zext X differ when X is negative.
  using BaseKey =
      std::tuple<Value *, Type *, Value *, unsigned, Type *, BasicBlock *>;
  DenseMap<BaseKey, Value *> bases;
  auto keyOf = [](GetElementPtrInst *gep, Value *x, BasicBlock *block) {
    auto *ext = dyn_cast<CastInst>(gep->getOperand(1));
    unsigned opcode = ext ? ext->getOpcode() : 0;
    return BaseKey{gep->getPointerOperand(),
                   gep->getSourceElementType(),
                   x,
                   opcode,
                   gep->getOperand(1)->getType(),
                   block};
  };
  SmallVector<WeakTrackingVH> oldIndices;
  for (BasicBlock &block : function)
    for (Instruction &inst : make_early_inc_range(block)) {
      auto *gep = dyn_cast<GetElementPtrInst>(&inst);
      if (!gep || gep->getNumIndices() != 1)
        continue;
      Value *x = nullptr;
      Constant *offset = nullptr;
      if (!matchConstantOffset(gep->getOperand(1), x, offset)) {
        // gep P, ext(X): the base of the GEPs at X + C that follow.
        auto *ext = dyn_cast<CastInst>(gep->getOperand(1));
        if (ext && (isa<SExtInst>(ext) || isa<ZExtInst>(ext)))
          bases.try_emplace(keyOf(gep, ext->getOperand(0), &block), gep);
        continue;
      }
      Type *element = gep->getSourceElementType();
      IRBuilder<> builder(gep);
      Value *&base = bases[keyOf(gep, x, &block)];
      if (!base) {
        Value *index = x;
        if (auto *ext = dyn_cast<CastInst>(gep->getOperand(1)))
          index = builder.CreateCast(ext->getOpcode(), x, ext->getType());
        base =
            builder.CreateGEP(element, gep->getPointerOperand(), index, "base");
      }
      Value *split = builder.CreateGEP(element, base, offset);
      split->takeName(gep);
      oldIndices.push_back(gep->getOperand(1));
      gep->replaceAllUsesWith(split);
      gep->eraseFromParent();
    }
  if (oldIndices.empty())
    return PreservedAnalyses::all();
  // The replaced indices (ext of the or) are usually dead now.
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(oldIndices);
  return PreservedAnalyses::none();
}
} // namespace tilemla
