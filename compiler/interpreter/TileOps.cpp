//===- TileOps.cpp - tile dialect ops: shapes, memory, dot, reduce --------===//
#include "FloatOps.h"
#include "Program.h"

#include "tilemla/Dialect/TileDialect.h"

#include <cmath>
#include <cstring>
#include <fmt/format.h>

using namespace mlir;
using namespace mlir::tile;

namespace tilemla::interp {
namespace {
size_t lane(const RtValue &v, size_t i) { return v.size() == 1 ? 0 : i; }

/// Copies `src` into `dst`, stretching src's unit dimensions to dst's shape.
void broadcastInto(const RtValue &src, RtValue &dst) {
  size_t rank = dst.shape.size(), n = dst.size();
  llvm::SmallVector<int64_t> srcStrides(rank, 0);
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    int64_t dim = src.isScalar() ? 1 : src.shape[d];
    srcStrides[d] = dim == 1 ? 0 : stride;
    stride *= dim;
  }
  llvm::SmallVector<int64_t> index(rank, 0);
  int64_t srcIndex = 0;
  for (size_t i = 0; i < n; ++i) {
    if (dst.isFloat())
      dst.floats[i] = src.floats[srcIndex];
    else
      dst.ints[i] = src.ints[srcIndex];
    for (size_t d = rank; d-- > 0;) { // odometer increment
      srcIndex += srcStrides[d];
      if (++index[d] < dst.shape[d])
        break;
      srcIndex -= srcStrides[d] * index[d];
      index[d] = 0;
    }
  }
}

/// Checks every active lane of `ptrs` against its buffer; throws otherwise.
void checkAccess(ProgramInterpreter &interp, Operation *op, const char *what,
                 const RtValue &ptrs, const RtValue *mask) {
  unsigned bytes = byteSize(ptrs.pointee);
  const Memory &memory = interp.launch.memory;
  bool bad = false;
  for (size_t i = 0, e = ptrs.ints.size(); i < e && !bad; ++i)
    bad = (!mask || (mask->ints[lane(*mask, i)] & 1)) &&
          !memory.translate(ptrs.ints[i], bytes);
  if (!bad)
    return;
  llvm::SmallVector<bool> activeFlags(ptrs.ints.size());
  for (size_t i = 0; i < activeFlags.size(); ++i)
    activeFlags[i] = !mask || (mask->ints[lane(*mask, i)] & 1);
  interp.fail(
      op,
      fmt::format("out-of-bounds {}: {}", what,
                  memory.describeBadAccesses(ptrs.ints, activeFlags, bytes)),
      /*outOfBounds=*/true);
}

void readElement(const void *address, RtValue &r, size_t i) {
  switch (r.kind) {
  case ElemKind::F32:
    std::memcpy(&r.floats[i], address, 4);
    return;
  case ElemKind::F16:
  case ElemKind::BF16: {
    uint16_t bits;
    std::memcpy(&bits, address, 2);
    r.floats[i] =
        r.kind == ElemKind::F16 ? f16ToFloat(bits) : bf16ToFloat(bits);
    return;
  }
  case ElemKind::F8E4M3:
    r.floats[i] = fp8e4m3ToFloat(*static_cast<const uint8_t *>(address));
    return;
  case ElemKind::F8E5M2:
    r.floats[i] = fp8e5m2ToFloat(*static_cast<const uint8_t *>(address));
    return;
  case ElemKind::I32: {
    int32_t v;
    std::memcpy(&v, address, 4);
    r.ints[i] = v;
    return;
  }
  case ElemKind::I64:
    std::memcpy(&r.ints[i], address, 8);
    return;
  case ElemKind::I1:
    r.ints[i] = *static_cast<const uint8_t *>(address) != 0;
    return;
  case ElemKind::Ptr:
    return;
  }
}

void writeElement(void *address, const RtValue &v, size_t i) {
  switch (v.kind) {
  case ElemKind::F32:
    std::memcpy(address, &v.floats[i], 4);
    return;
  case ElemKind::F16:
  case ElemKind::BF16: {
    uint16_t bits = v.kind == ElemKind::F16 ? floatToF16(v.floats[i])
                                            : floatToBF16(v.floats[i]);
    std::memcpy(address, &bits, 2);
    return;
  }
  case ElemKind::F8E4M3:
    *static_cast<uint8_t *>(address) = floatToFP8E4M3(v.floats[i]);
    return;
  case ElemKind::F8E5M2:
    *static_cast<uint8_t *>(address) = floatToFP8E5M2(v.floats[i]);
    return;
  case ElemKind::I32: {
    int32_t value = int32_t(v.ints[i]);
    std::memcpy(address, &value, 4);
    return;
  }
  case ElemKind::I64:
    std::memcpy(address, &v.ints[i], 8);
    return;
  case ElemKind::I1:
    *static_cast<uint8_t *>(address) = uint8_t(v.ints[i] & 1);
    return;
  case ElemKind::Ptr:
    return;
  }
}

RtValue runLoad(ProgramInterpreter &interp, LoadOp op) {
  const RtValue &ptrs = interp.get(op.getPtr());
  const RtValue *mask = op.getMask() ? &interp.get(op.getMask()) : nullptr;
  const RtValue *other = op.getOther() ? &interp.get(op.getOther()) : nullptr;
  checkAccess(interp, op, "load", ptrs, mask);
  RtValue r = zerosOfType(op.getType());
  unsigned bytes = byteSize(ptrs.pointee);
  for (size_t i = 0, e = r.size(); i < e; ++i) {
    if (!mask || (mask->ints[lane(*mask, i)] & 1)) {
      readElement(interp.launch.memory.translate(ptrs.ints[i], bytes), r, i);
    } else if (other) {
      if (r.isFloat())
        r.floats[i] = other->floats[lane(*other, i)];
      else
        r.ints[i] = other->ints[lane(*other, i)];
    }
  }
  return r;
}

void runStore(ProgramInterpreter &interp, StoreOp op) {
  const RtValue &ptrs = interp.get(op.getPtr());
  const RtValue &value = interp.get(op.getValue());
  const RtValue *mask = op.getMask() ? &interp.get(op.getMask()) : nullptr;
  checkAccess(interp, op, "store", ptrs, mask);
  unsigned bytes = byteSize(ptrs.pointee);
  for (size_t i = 0, e = ptrs.ints.size(); i < e; ++i)
    if (!mask || (mask->ints[lane(*mask, i)] & 1))
      writeElement(interp.launch.memory.translate(ptrs.ints[i], bytes), value,
                   lane(value, i));
}

/// A hint with nothing to do here, but the range the GPU would prefetch
/// (rounded in to 16 bytes) must lie in one buffer, as a read's would.
void runPrefetchL2(ProgramInterpreter &interp, PrefetchL2Op op) {
  int64_t address = interp.get(op.getPtr()).ints[0];
  int64_t bytes = interp.get(op.getBytes()).ints[0];
  int64_t begin = (address + 15) & ~int64_t(15);
  int64_t end = (address + bytes) & ~int64_t(15);
  const Memory &memory = interp.launch.memory;
  if (end > begin && !memory.translate(begin, unsigned(end - begin)))
    interp.fail(op,
                fmt::format("out-of-bounds prefetch_l2: {}",
                            memory.describeBadAccesses({begin}, {true},
                                                       unsigned(end - begin))),
                /*outOfBounds=*/true);
}

/// Programs run one at a time here: the add is simply done, once.
RtValue runAtomicAdd(ProgramInterpreter &interp, AtomicAddOp op) {
  const RtValue &ptr = interp.get(op.getPtr());
  const RtValue &value = interp.get(op.getValue());
  checkAccess(interp, op, "atomic_add", ptr, nullptr);
  void *address = interp.launch.memory.translate(ptr.ints[0], 4);
  RtValue old = RtValue::scalarInt(ElemKind::I32, 0);
  readElement(address, old, 0);
  RtValue sum = RtValue::scalarInt(
      ElemKind::I32, wrapInt(ElemKind::I32, old.ints[0] + value.ints[0]));
  writeElement(address, sum, 0);
  return old;
}

/// Programs run one at a time, in order: the value a program waits for must
/// already be there (set by an earlier program or launch), or the wait would
/// never end.
void runWaitFlag(ProgramInterpreter &interp, WaitFlagOp op) {
  const RtValue &ptr = interp.get(op.getPtr());
  const RtValue &value = interp.get(op.getValue());
  checkAccess(interp, op, "wait_flag", ptr, nullptr);
  RtValue held = RtValue::scalarInt(ElemKind::I32, 0);
  readElement(interp.launch.memory.translate(ptr.ints[0], 4), held, 0);
  int64_t have = toSigned(ElemKind::I32, held.ints[0]);
  int64_t want = toSigned(ElemKind::I32, value.ints[0]);
  if (have < want)
    interp.fail(op, fmt::format("wait_flag would wait forever: the i32 holds "
                                "{}, it waits for at least {}, and no earlier "
                                "program raised it (the interpreter runs "
                                "programs one at a time, in order)",
                                have, want));
}

/// result[m, n] = acc[m, n] + sum_k a[m, k] * b[k, n] (b[n, k] with transB):
/// f32 fused multiply-adds in k order, as the FMA lowering does per thread.
RtValue runDot(ProgramInterpreter &interp, DotOp op) {
  const RtValue &a = interp.get(op.getA());
  const RtValue &b = interp.get(op.getB());
  RtValue r = interp.get(op.getAcc());
  bool transB = op.getTransB();
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[transB ? 0 : 1];
  int64_t kStride = transB ? 1 : n, nStride = transB ? k : 1;
  for (int64_t i = 0; i < m; ++i) {
    float *row = &r.floats[i * n];
    for (int64_t kk = 0; kk < k; ++kk) {
      float x = a.floats[i * k + kk];
      for (int64_t j = 0; j < n; ++j)
        row[j] = std::fma(x, b.floats[kk * kStride + j * nStride], row[j]);
    }
  }
  return r;
}

/// Calls visit(first, len, inner) for each line of a row-major tensor along
/// `axis`: `len` elements at first, first + inner, ...
template <typename Visit>
void forEachLine(llvm::ArrayRef<int64_t> shape, unsigned axis, Visit visit) {
  int64_t outer = 1, len = shape[axis], inner = 1;
  for (unsigned d = 0; d < axis; ++d)
    outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    inner *= shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in)
      visit(size_t(o * len * inner + in), len, size_t(inner));
}

float combineF(ReduceKind kind, float acc, float x) {
  return kind == ReduceKind::Sum   ? acc + x
         : kind == ReduceKind::Max ? maximumF(acc, x)
                                   : minimumF(acc, x);
}
int64_t combineI(ReduceKind kind, int64_t acc, int64_t x) {
  return kind == ReduceKind::Sum   ? int64_t(uint64_t(acc) + uint64_t(x))
         : kind == ReduceKind::Max ? std::max(acc, x)
                                   : std::min(acc, x);
}

RtValue runReduce(ProgramInterpreter &interp, ReduceOp op) {
  const RtValue &src = interp.get(op.getSrc());
  RtValue r = zerosOfType(op.getType());
  ReduceKind kind = op.getKind();
  size_t out = 0; // lines come in the result's row-major order
  forEachLine(
      src.shape, op.getAxis(), [&](size_t first, int64_t len, size_t inner) {
        if (src.isFloat()) {
          float acc = src.floats[first];
          for (int64_t l = 1; l < len; ++l)
            acc = combineF(kind, acc, src.floats[first + l * inner]);
          r.floats[out++] = roundFloat(r.kind, acc);
        } else {
          int64_t acc = toSigned(src.kind, src.ints[first]);
          for (int64_t l = 1; l < len; ++l)
            acc = combineI(kind, acc,
                           toSigned(src.kind, src.ints[first + l * inner]));
          r.ints[out++] = wrapInt(r.kind, acc);
        }
      });
  return r;
}

/// Running combination along the axis; each step rounds to the element type
/// like the compiled code (f32 for floats, wrapping ints).
RtValue runScan(ProgramInterpreter &interp, ScanOp op) {
  RtValue r = interp.get(op.getSrc());
  ReduceKind kind = op.getKind();
  forEachLine(
      r.shape, op.getAxis(), [&](size_t first, int64_t len, size_t inner) {
        for (size_t at = first + inner; at < first + len * inner; at += inner) {
          if (r.isFloat())
            r.floats[at] = roundFloat(
                r.kind, combineF(kind, r.floats[at - inner], r.floats[at]));
          else
            r.ints[at] = wrapInt(
                r.kind, combineI(kind, toSigned(r.kind, r.ints[at - inner]),
                                 toSigned(r.kind, r.ints[at])));
        }
      });
  return r;
}
} // namespace

bool runTileOp(ProgramInterpreter &interp, Operation &op) {
  if (!isa<TileDialect>(op.getDialect()))
    return false;
  if (auto store = dyn_cast<StoreOp>(op)) {
    runStore(interp, store);
    return true;
  }
  // Interpreted launches run one after another: nothing to wait for.
  if (isa<GridDependencyWaitOp, LaunchDependentsOp>(op))
    return true;
  if (auto prefetch = dyn_cast<PrefetchL2Op>(op)) {
    runPrefetchL2(interp, prefetch);
    return true;
  }
  if (auto wait = dyn_cast<WaitFlagOp>(op)) {
    runWaitFlag(interp, wait);
    return true;
  }
  // A descriptor's value holds {base, rows, cols, row stride} (launch()).
  if (auto fields = dyn_cast<DescFieldsOp>(op)) {
    const RtValue &desc = interp.get(fields.getDesc());
    RtValue base = RtValue::scalarInt(ElemKind::Ptr, desc.ints[0]);
    base.pointee = desc.pointee;
    interp.set(fields.getBase(), std::move(base));
    interp.set(fields.getRows(),
               RtValue::scalarInt(ElemKind::I64, desc.ints[1]));
    interp.set(fields.getCols(),
               RtValue::scalarInt(ElemKind::I64, desc.ints[2]));
    interp.set(fields.getRowStride(),
               RtValue::scalarInt(ElemKind::I64, desc.ints[3]));
    return true;
  }
  RtValue r;
  if (auto pid = dyn_cast<ProgramIdOp>(op)) {
    r = RtValue::scalarInt(ElemKind::I32, interp.pid[pid.getAxis()]);
  } else if (auto num = dyn_cast<NumProgramsOp>(op)) {
    r = RtValue::scalarInt(ElemKind::I32, interp.launch.grid[num.getAxis()]);
  } else if (auto range = dyn_cast<MakeRangeOp>(op)) {
    r = zerosOfType(range.getType());
    for (size_t i = 0; i < r.ints.size(); ++i)
      r.ints[i] =
          wrapInt(ElemKind::I32, int64_t(range.getStart()) + int64_t(i));
  } else if (isa<SplatOp, BroadcastOp>(op)) {
    r = zerosOfType(op.getResult(0).getType());
    broadcastInto(interp.get(op.getOperand(0)), r);
  } else if (isa<ExpandDimsOp, ConvertLayoutOp>(op)) {
    r = interp.get(op.getOperand(0));
    auto type = cast<RankedTensorType>(op.getResult(0).getType());
    r.shape.assign(type.getShape().begin(), type.getShape().end());
  } else if (auto addptr = dyn_cast<AddPtrOp>(op)) {
    const RtValue &offsets = interp.get(addptr.getOffset());
    r = interp.get(addptr.getPtr());
    uint64_t scale = byteSize(r.pointee);
    for (size_t i = 0; i < r.ints.size(); ++i)
      r.ints[i] = int64_t(
          uint64_t(r.ints[i]) +
          uint64_t(toSigned(offsets.kind, offsets.ints[lane(offsets, i)])) *
              scale);
  } else if (auto load = dyn_cast<LoadOp>(op)) {
    r = runLoad(interp, load);
  } else if (auto atomic = dyn_cast<AtomicAddOp>(op)) {
    r = runAtomicAdd(interp, atomic);
  } else if (auto dot = dyn_cast<DotOp>(op)) {
    r = runDot(interp, dot);
  } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
    r = runReduce(interp, reduce);
  } else if (auto scan = dyn_cast<ScanOp>(op)) {
    r = runScan(interp, scan);
  } else {
    return false;
  }
  interp.set(op.getResult(0), std::move(r));
  return true;
}
} // namespace tilemla::interp
