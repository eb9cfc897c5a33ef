//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//
#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tilemla/Dialect/TileDialect.td"
include "tilemla/Dialect/TileTypes.td"
include "tilemla/Dialect/TileAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

// The wgmma groups in flight (TileDialect.h).
def Tile_WgmmaGroup : Resource<"::mlir::tile::WgmmaGroupResource">;

//===----------------------------------------------------------------------===//
// Program indexing
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this program along a grid axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of programs along a grid axis";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Tensor construction and shape manipulation
//===----------------------------------------------------------------------===//

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "the i32 tensor [start, end)";
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"result element type matches the scalar", "result", "src",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "a tensor filled with one scalar";
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "stretch unit dimensions to a larger shape";
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "insert a unit dimension at `axis`";
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure, SameOperandsAndResultShape,
                                                      SameOperandsAndResultElementType]> {
  let summary = "move a tensor to another layout";
  let description = [{
    Same values, different owner threads. Lowered through shared memory
    unless both layouts place every element in the same thread.
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by a number of elements";
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>]> {
  let summary = "read one element per pointer; masked-off lanes give `other`";
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                       Optional<Tile_Value>:$other);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` `other` $other^)? attr-dict `:`
      functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "write one element per pointer; masked-off lanes write nothing";
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Value:$value,
                       Optional<Tile_BoolLike>:$mask);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)? attr-dict `:` type(operands)
  }];
  let hasVerifier = 1;
}

def Tile_DescLoadOp : Tile_Op<"desc_load", [
    MemoryEffects<[MemRead]>]> {
  let summary = "read a [rows, cols] box of a tensor descriptor";
  let description = [{
    Element (i, j) is the tensor's element (row + i, col + j), or zero when
    that lies outside the tensor or its row is at or past `row_end`. On
    sm_90a, inside a pipelined loop whose wgmma dots read it, it becomes TMA
    copies (`tile.tma_copy`); elsewhere pointer loads
    (tile-lower-descriptor-loads).
  }];
  let arguments = (ins Tile_TensorDescType:$desc, I32:$row, I32:$col,
                       Optional<I32>:$rowEnd);
  let results = (outs RankedTensorOf<[Tile_Float, Tile_Int]>:$result);
  let assemblyFormat = [{
    $desc `[` $row `,` $col `]` (`row_end` $rowEnd^)? attr-dict `:`
      type($desc) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescFieldsOp : Tile_Op<"desc_fields", [Pure]> {
  let summary = "base pointer, rows, cols and row stride of a descriptor";
  let arguments = (ins Tile_TensorDescType:$desc);
  let results = (outs Tile_PointerType:$base, I64:$rows, I64:$cols,
                      I64:$rowStride);
  let assemblyFormat = "$desc attr-dict `:` type($desc) `->` type($base)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "matrix product with accumulation: a[M,K] x b[K,N] + acc[M,N]";
  let description = [{
    With `transB`, b holds the transposed operand, [N, K], and the product is
    a x transpose(b): rows of b that are contiguous in memory (keys of an
    attention score) feed the instruction without a transposing copy.

    b may be fp8 codes (f8E4M3FN, f8E5M2) beside a 16-bit a when b is a view
    of shared memory (`#tile.shared`): the product is that of the codes
    widened, exactly, to a's type (tile-pipeline-loops hands an mma.sync
    dot the landed codes instead of a widened copy).

    A wgmma dot (version 3 `#tile.mma` result) is asynchronous when its
    result is `!tile.pending<T>`: it issues one group of wgmma instructions
    and returns while they run; `tile.dot_wait` hands out the result. Its
    accumulator may then be pending too (it accumulates on the same
    registers behind the group that produces them). The type after `->` is
    the result's; an accumulator of another type is added before it:
    `: A * B + T -> !tile.pending<T>`.

    A dot that waits for itself is pure. An asynchronous one issues a group
    (a write of the wgmma-group resource, which tile.dot_wait also touches)
    and reads its shared-memory operands while it runs, so it is neither
    merged with an equal dot, moved across waits, barriers or copies, nor
    removed when its result is unused.
  }];
  let arguments = (ins Tile_FloatTensor:$a, Tile_FloatTensor:$b,
                       Tile_Accumulator:$acc, UnitAttr:$transB);
  let results = (outs Tile_Accumulator:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `*` type($b)
      custom<AccumulatorType>(type($acc), type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The accumulator's tensor type (a pending result's value type).
    RankedTensorType getAccType();
    /// True for a dot that returns before its wgmma group completes.
    bool isAsync() { return ::llvm::isa<PendingType>(getResult().getType()); }
  }];
}

def Tile_DotWaitOp : Tile_Op<"dot_wait", [
    MemoryEffects<[MemRead, MemWrite, MemRead<Tile_WgmmaGroup>,
                   MemWrite<Tile_WgmmaGroup>]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "wait for asynchronous dots; at most `pending` groups stay in flight";
  let description = [{
    Waits until at most `pending` of the wgmma groups this warp issued are
    still running (`wgmma.wait_group`). Groups complete in issue order, so
    every group older than those is done; the inputs must be among them,
    and the results are their finished tensors, the only way to read them.
    Without inputs it only waits (a stage the groups read may be
    overwritten afterwards). Placed by tile-place-dot-waits.
  }];
  let arguments = (ins Variadic<Tile_PendingType>:$inputs,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$pending);
  let results = (outs Variadic<RankedTensorOf<[F32]>>:$results);
  let assemblyFormat = [{
    ($inputs^ `:` type($inputs))? attr-dict
  }];
}

def Tile_AsPendingOp : Tile_Op<"as_pending", [Pure]> {
  let summary = "a finished tensor as a pending accumulator";
  let description = [{
    No group is in flight for the result; it lets a finished tensor (a
    loop's initial accumulator) stand where a pending one is carried.
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$src);
  let results = (outs Tile_PendingType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let builders = [
    OpBuilder<(ins "Value":$src), [{
      build($_builder, $_state,
            PendingType::get(::llvm::cast<RankedTensorType>(src.getType())),
            src);
    }]>
  ];
}

//===----------------------------------------------------------------------===//
// Shared memory and asynchronous copies (made by tile-pipeline-loops)
//===----------------------------------------------------------------------===//

// fp8 views are codes a dot widens as it reads them (tile.dot).
def Tile_SharedView : RankedTensorOf<[F16, BF16, F8E4M3FN, F8E5M2]>;

def Tile_LocalAllocOp : Tile_Op<"local_alloc", [
    MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "a shared-memory buffer, optionally holding a tensor";
  let description = [{
    `tile-allocate-shared` places the buffer at byte `offset` of the
    program's shared memory. With `init` (a [rows, cols] tensor in registers,
    one stage) the buffer starts holding it, visible to every thread.
  }];
  let arguments = (ins Optional<Tile_FloatTensor>:$init,
                       OptionalAttr<I32Attr>:$offset);
  let results = (outs Tile_SharedBufferType:$result);
  let assemblyFormat = "($init^ `:` type($init))? attr-dict `->` type($result)";
  let hasVerifier = 1;
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start copying a tile from global memory into a buffer stage";
  let description = [{
    Each thread copies the elements its pointers hold into stage `stage` of
    `buffer` with cp.async (16-byte pieces where the pointers allow);
    masked-off elements become zero. The copies of one op form one group;
    `tile.async_wait` waits for groups to land.
  }];
  let arguments = (ins RankedTensorOf<[Tile_PointerType]>:$ptr,
                       Tile_SharedBufferType:$buffer, I32:$stage,
                       Optional<RankedTensorOf<[I1]>>:$mask);
  let assemblyFormat = [{
    $ptr `,` $buffer `[` $stage `]` (`,` $mask^)? attr-dict `:`
      type($ptr) `,` type($buffer) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` copy groups are in flight";
  let description = [{
    Then a barrier, so every thread sees what every thread's copies wrote.
    With `async_proxy`, a proxy fence comes before the barrier: the copies
    are read by wgmma, which reads shared memory through the async proxy.
  }];
  let arguments = (ins I32Attr:$pending, UnitAttr:$async_proxy);
  let assemblyFormat = "$pending (`async_proxy` $async_proxy^)? attr-dict";
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "split the program into producer and consumer warps";
  let description = [{
    The program's `tile.num_warps` warps run `consumer`; `producerWarps`
    more warps (a whole warpgroup, numbered after them) run `producer`.
    Each side first sets its registers per thread (`setmaxnreg`): the
    producer gives up registers the consumers take. The consumer region
    runs to the end of the kernel (the op is the last before the return);
    values flow into both regions from above, never between them: the
    regions talk through shared memory and mbarriers.

    Consumers keep warp numbers 0..num_warps-1, so layouts and lowerings
    are unchanged; their CTA barriers become a named barrier over the
    consumer threads. Producers run only scalar code, TMA copies and
    mbarrier operations (no tensors, no CTA barriers), and their first
    thread issues the copies.

    With `scoreWarps` (a warpgroup, set by tile-split-roles), the consumer
    region holds two roles: the warps numbered num_warps.. run the code of
    the layouts that warpgroup owns, the first num_warps warps the rest;
    the producers come after both. tile-split-roles also splits a program
    without producers into roles: `producerWarps` = 0, an empty producer
    region, and no setmaxnreg (the register counts are then unused).
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$producerWarps,
                       I32Attr:$producerRegisters, I32Attr:$consumerRegisters,
                       DefaultValuedAttr<I32Attr, "0">:$scoreWarps);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = "attr-dict `producer` $producer `consumer` $consumer";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// What each of `consumerWarps` warps' threads may take once
    /// `producerWarps` warps keep `producerRegisters` each: a multiple of
    /// 8, at most 240.
    static int32_t consumerRegisterBudget(int64_t consumerWarps,
                                          int64_t producerWarps,
                                          int32_t producerRegisters);
  }];
}

def Tile_SetMaxRegistersOp : Tile_Op<"set_max_registers", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "this warpgroup's threads hold `count` registers from here on";
  let description = [{
    setmaxnreg: the warpgroup gives registers back to the program's pool
    (without `increase`) or takes them from it. At the start of a role's
    code (tile-split-roles without a producer warpgroup), so that ptxas
    compiles that code for `count` registers; the program's warpgroups
    together must not take more than it entered with.
  }];
  let arguments = (ins I32Attr:$count, UnitAttr:$increase);
  let assemblyFormat = "$count (`increase` $increase^)? attr-dict";
  let hasVerifier = 1;
}

def Tile_WarpgroupIdOp : Tile_Op<"warpgroup_id", [Pure]> {
  let summary = "the warpgroup (four consecutive warps) this thread is in";
  let description = [{
    Thread index / 128. tile-predicate-warpgroups branches on it, so that
    only the owner of a warpgroup-owned layout runs the ops on it.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_BarrierOp : Tile_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "all threads of the program reach this point";
  let description = [{
    Orders shared-memory reads before later writes, e.g. a stage read by one
    iteration and refilled by the next.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "add to an i32 in global memory once per program";
  let description = [{
    One thread of the program (of the warps that run it, after a warp split)
    adds `value` to the i32 at `ptr`; every thread gets the value it held
    before. The add is ordered after every write the program's threads made
    before it and before every read they make after it, at GPU scope
    (acquire-release): a program that sees the adds of others also sees what
    they wrote before adding. Counting arrivals this way lets the last of
    several programs finish their common work (split-K style merges).
    Lowered with a barrier before and after (the old value is exchanged
    through the reductions' shared-memory scratch).
  }];
  let arguments = (ins Tile_PointerType:$ptr, I32:$value);
  let results = (outs I32:$result);
  let assemblyFormat = "$ptr `,` $value attr-dict `:` qualified(type($ptr))";
  let hasVerifier = 1;
}

def Tile_WaitFlagOp : Tile_Op<"wait_flag", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until an i32 in global memory reaches a value";
  let description = [{
    Every thread that runs it reads the i32 at `ptr` until it is at least
    `value`, each read an acquire at GPU scope: what another program wrote
    before it raised the value with a release (`atomic_add`) is visible to
    this program's reads after the wait. Lets programs wait for work one
    program does for all of them (a schedule), which only terminates when
    that program runs: on the GPU the waiter must not be what keeps it from
    running (it is an earlier program of the grid, or of an earlier grid).
  }];
  let arguments = (ins Tile_PointerType:$ptr, I32:$value);
  let assemblyFormat = "$ptr `,` $value attr-dict `:` qualified(type($ptr))";
  let hasVerifier = 1;
}

def Tile_GridDependencyWaitOp : Tile_Op<"grid_dependency_wait",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for the kernels this launch depends on to finish";
  let description = [{
    A kernel launched as a programmatic dependent (sm_90+) may start while
    the previous kernel of its stream still runs; this waits until that
    kernel has finished and its writes are visible. Reads of what it wrote
    must come after. In any other launch it returns at once.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_LaunchDependentsOp : Tile_Op<"launch_dependents",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "let the next kernel of the stream start early";
  let description = [{
    Once every program of this kernel has run this (or finished), a kernel
    launched after it as a programmatic dependent may start its programs;
    they still wait for this kernel's writes in `grid_dependency_wait`.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_PrefetchL2Op : Tile_Op<"prefetch_l2",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "hint: start bringing `bytes` bytes at `ptr` into L2";
  let description = [{
    One thread of the program (of the warps that run it, after a warp split)
    asks for the `bytes` bytes at `ptr` to be brought into L2 and goes on;
    nothing waits for it and nothing else changes (L2 is coherent, so a
    later read sees later writes). Where `bytes` is not positive it does
    nothing. On sm_90+ one bulk prefetch of the 16-byte-aligned part of
    the range (it never touches a byte outside [ptr, ptr + bytes)),
    elsewhere nothing. Declared to read and write memory only so that it
    keeps its place.
  }];
  let arguments = (ins Tile_PointerType:$ptr, I32:$bytes);
  let assemblyFormat = "$ptr `,` $bytes attr-dict `:` qualified(type($ptr))";
}

def Tile_MBarrierAllocOp : Tile_Op<"mbarrier_alloc", [
    MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "shared-memory mbarriers, initialized for their type's arrivals";
  let description = [{
    One thread initializes them; a barrier makes that visible to every
    thread (and a fence to the TMA unit) before any copy or wait uses them.
    `tile-allocate-shared` sets `offset`.
  }];
  let arguments = (ins OptionalAttr<I32Attr>:$offset);
  let results = (outs Tile_MBarrierType:$result);
  let assemblyFormat = "attr-dict `->` type($result)";
}

def Tile_TmaCopyOp : Tile_Op<"tma_copy", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "start TMA copies of a box into a swizzled buffer stage";
  let description = [{
    When `pred` holds, one thread announces the stage's bytes to barrier
    `stage` of `barriers` and starts one TMA copy per swizzle panel of the
    [rows, cols] box at (`row`, `col`) of `desc`; the barrier's phase
    completes when all bytes have landed (out-of-bounds elements as zero).
  }];
  let arguments = (ins Tile_TensorDescType:$desc, I32:$row, I32:$col,
                       Tile_SharedBufferType:$buffer, I32:$stage,
                       Tile_MBarrierType:$barriers, I1:$pred);
  let assemblyFormat = [{
    $desc `[` $row `,` $col `]` `,` $buffer `[` $stage `]` `,` $barriers
      `,` $pred attr-dict `:` type($desc) `,` type($buffer) `,` type($barriers)
  }];
  let hasVerifier = 1;
}

def Tile_MBarrierWaitOp : Tile_Op<"mbarrier_wait", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until barrier `index` completes the phase of `parity`";
  let arguments = (ins Tile_MBarrierType:$barriers, I32:$index, I32:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $parity attr-dict `:` type($barriers)
  }];
}

def Tile_MBarrierArriveOp : Tile_Op<"mbarrier_arrive", [
    AttrSizedOperandSegments, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "arrive on barrier `index`: once per warp, or once per thread";
  let description = [{
    With `perWarp`, the first lane of each warp that runs it arrives (the
    barrier's `arrivals` counts warps); otherwise every thread does; with
    `if`, only where `pred` holds. The arrival releases what the arriving
    threads did before it (e.g. their wgmma reads of a stage) to threads
    that wait for the phase. `releases` names the buffers whose stage
    `index` the waiters may then overwrite: wgmma groups still reading it
    must be done first (tile-place-dot-waits waits for them, and only them).
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, I32:$index,
                       Optional<I1>:$pred,
                       Variadic<Tile_SharedBufferType>:$releases,
                       UnitAttr:$perWarp);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`if` $pred^)?
      (`releases` $releases^ `:` type($releases))? attr-dict
      `:` type($barriers)
  }];
}

def Tile_PipelineBaseOp : Tile_Op<"pipeline_base", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "trips a TMA stage ring ran before this entry of its loop";
  let description = [{
    A pipelined loop inside another loop (a persistent program's work loop)
    is entered many times, and its ring's mbarriers keep their phases from
    one entry to the next: the trip index that picks a stage and a parity
    is `result + (iv - lower) / step`. Each run of this op returns the trips
    of every earlier run in this thread and adds those of this entry of
    [`lower`, `upper`) by `step` (none when `upper <= lower`). `ring` names
    the stage ring (its full barriers); the producer and the consumers of a
    warp split each count in their own op. Lowered to a per-thread counter
    that LLVM keeps in a register.
  }];
  let arguments = (ins Tile_MBarrierType:$ring, I32:$lower, I32:$upper,
                       I32:$step);
  let results = (outs I32:$result);
  let assemblyFormat = [{
    $ring `,` $lower `to` $upper `step` $step attr-dict `:` type($ring)
  }];
}

def Tile_ZeroRowsOp : Tile_Op<"zero_rows", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "zero the rows of a buffer stage from `first` on";
  let description = [{
    When `first` is below the stage's row count, all threads write zeros
    into rows [first, rows), fence the async proxy (wgmma reads them) and
    meet at a barrier; otherwise nothing happens. `first` is the same in
    every thread.
  }];
  let arguments = (ins Tile_SharedBufferType:$buffer, I32:$stage, I32:$first);
  let assemblyFormat = [{
    $buffer `[` $stage `]` `from` $first attr-dict `:` type($buffer)
  }];
}

def Tile_LocalViewOp : Tile_Op<"local_view", [MemoryEffects<[MemRead]>]> {
  let summary = "a [rows, n] window of one stage of a buffer, from `column`";
  let arguments = (ins Tile_SharedBufferType:$buffer, I32:$stage,
                       I32Attr:$column);
  let results = (outs Tile_SharedView:$result);
  let assemblyFormat = [{
    $buffer `[` $stage `]` attr-dict `:` type($buffer) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "write a tensor in registers into one stage of a buffer";
  let description = [{
    A [rows, cols] tensor is written in the buffer's layout (swizzled: as a
    wgmma operand reads it, with a fence for the async proxy after it). A
    tensor of another shape goes into a stage of one unswizzled row of as
    many elements, in row-major order. Only the threads holding the tensor
    write (a warpgroup-owned layout: its owner); no barrier follows: the
    readers learn of the write through an mbarrier (tile-split-roles).
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_SharedBufferType:$buffer,
                       I32:$stage);
  let assemblyFormat = [{
    $value `,` $buffer `[` $stage `]` attr-dict `:` type($value) `,`
      type($buffer)
  }];
  let hasVerifier = 1;
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [MemoryEffects<[MemRead]>]> {
  let summary = "read a tensor into registers from one stage of a buffer";
  let description = [{
    The stage holds the tensor as `tile.local_store` writes it: the
    stage's [rows, cols] tile in the buffer's layout (read in vectors of
    up to 16 bytes), or any other shape row-major in a stage of one
    unswizzled row. Each thread reads the elements its layout gives it.
  }];
  let arguments = (ins Tile_SharedBufferType:$buffer, I32:$stage);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $buffer `[` $stage `]` attr-dict `:` type($buffer) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceKindAttr : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::mlir::tile";
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "combine the elements along one axis";
  let description = [{
    The result drops `axis`; reducing a 1-D tensor gives a scalar. `max` and
    `min` on floats propagate NaN.
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis, Tile_ReduceKindAttr:$kind);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = "$kind $src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, AllTypesMatch<["src", "result"]>]> {
  let summary = "inclusive running combination along one axis";
  let description = [{
    Element i along `axis` of the result combines elements 0..i of the
    source along that axis (`sum`: prefix sums, as `cumsum`; `max`, `min`:
    running extremes, floats propagating NaN). Same shape, element type and
    layout as the source. Lowered through shared memory with three
    barriers: a thread per segment of each line, the segments' totals
    scanned across lanes with shuffles; for the small tensors of work
    schedules.
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis, Tile_ReduceKindAttr:$kind);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$kind $src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

#endif
