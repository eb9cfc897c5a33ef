//===- Passes.td - tile-level passes -----------------------*- tablegen -*-===//
#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSpecializeConstexprs : Pass<"tile-specialize-constexprs", "mlir::ModuleOp"> {
  let summary = "Replace constexpr kernel arguments by their values";
  let description = [{
    MLIRGen keeps each `constexpr` parameter as a kernel argument carrying a
    `tile.constexpr` value. This pass replaces every use by a constant and
    removes the argument, so the kernel's ABI holds runtime arguments only and
    later folding sees the values.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileApplyArgFacts : Pass<"tile-apply-arg-facts", "mlir::ModuleOp"> {
  let summary = "Specialize kernels on what their launch arguments guarantee";
  let description = [{
    The runtime compiles one specialization per set of argument facts, as
    Triton does: pointers 16-byte aligned or not, integers divisible by 16,
    integers equal to 1. Indices count the kernel's runtime arguments (after
    tile-specialize-constexprs). An integer argument listed in `ones` is
    replaced by the constant 1 in every use (a unit stride makes accesses
    contiguous; the argument stays in the signature); a non-zero
    `divisibility` entry becomes the argument attribute
    `tile.divisibility`, which the access-width analysis reads.
  }];
  let options = [
    ListOption<"divisibility", "divisibility", "unsigned",
               "per runtime argument: bytes of alignment (pointers) or a "
               "divisor (integers) it is known to have; 0: nothing known">,
    ListOption<"ones", "ones", "unsigned",
               "runtime integer arguments known to equal 1">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every tensor a distributed layout (tile IR -> tile-gpu IR)";
  let description = [{
    Sources (ranges, splats, constants, loads) get the default blocked layout
    of their shape, vectorized along the contiguous dimension (16 bytes of the
    narrowest element loaded or stored in that shape); reductions give slice
    layouts. f16/bf16 dots of whole 16x8x16 tiles get the `#tile.mma`
    accumulator layout (tensor cores), and with `fp8-dots` (sm_89+) fp8 x
    fp8 dots of whole 16x8x32 tiles (mma.sync's e4m3 and e5m2 forms; the
    interleaved layout for a [K, N] b; other fp8 dots are refused when
    lowered); with
    `warpgroups` (sm_90a), dots of
    one 64-row tile per warpgroup get its version 3 (wgmma); with
    `own-narrow-dots`, one whose columns would be split over warpgroups
    into blocks narrower than 64 runs on warpgroup 0 alone (an owned
    layout; tile-predicate-warpgroups). Elementwise ops take the layout of
    their costliest operand (broadcasts and splats count as their source),
    so accumulators stay in place; loops carry values in the layout their
    body yields. `tile.convert_layout` goes where operands disagree.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4", "warps per program">,
    Option<"vectorBytes", "vector-bytes", "unsigned", "16",
           "bytes per thread along the contiguous dimension">,
    Option<"tensorCores", "tensor-cores", "bool", "true",
           "give eligible dots the mma.sync accumulator layout">,
    Option<"warpgroups", "warpgroups", "bool", "false",
           "give dots that fit wgmma (sm_90a) the warpgroup layout">,
    Option<"ownNarrowDots", "own-narrow-dots", "bool", "false",
           "run a wgmma dot on one warpgroup (an owned layout) when "
           "splitting its columns would leave each fewer than 64">,
    Option<"fp8InPlace", "fp8-in-place", "bool", "false",
           "give an mma.sync dot whose [K, N] b is a loop's fp8 load widened "
           "to 16 bits the interleaved accumulator, for tile-pipeline-loops' "
           "fp8-in-place (sm_89+)">,
    Option<"fp8Dots", "fp8-dots", "bool", "false",
           "give fp8 x fp8 dots (e4m3 or e5m2) of whole 16x8x32 tiles the "
           "mma.sync accumulator layout, interleaved for a [K, N] b "
           "(sm_89+)">,
  ];
}

def TilePipelineLoops : Pass<"tile-pipeline-loops", "mlir::ModuleOp"> {
  let summary = "Stream the tiles of tensor-core dots through shared memory";
  let description = [{
    In a loop marked `tile.num_stages = S` (`range(..., stages=S)` in the
    tile language) whose body writes no memory, every 16-bit 2-D load read
    only by tensor-core dots (or fp8 one, read by fp8 x fp8 dots) becomes a
    `!tile.smem` buffer of S stages filled with `tile.async_copy` (cp.async)
    S - 1 iterations ahead, and the dots read `tile.local_view`s of it. Masked-off elements must load as zero.
    When the load's address depends on a loop-carried value, the lookahead
    is one iteration (S = 2): the next iteration's value is what this one
    yields, and its read-only computation moves to the top of the body.
    Dot operands defined before the loop become resident in shared memory
    (`tile.local_alloc` with an initial value) and are not staged again on
    every iteration; one read only as the a of mma.sync dots against fp8
    codes of an [N, K] b is stored in their k order (`evenWordsFirst`), so
    that ldmatrix gives its fragments in place. Buffers read only by wgmma
    dots (the version 3 #tile.mma layout) get the swizzled layout its
    descriptors read, and the wait fences the async proxy; buffers read
    only by mma.sync dots keep padded rows; a load read by both kinds is
    left alone.

    A 2-D load of any element width that reaches tensor-core dots only
    through elementwise casts giving a 16-bit tile (an fp8 cache widened to
    bf16) is streamed the same way in its own type; after the wait each
    thread reads its part of the landed stage (`tile.local_load`), casts it
    in registers and writes it (`tile.local_store`) to a one-stage buffer
    of the cast type (swizzled for wgmma readers), and after a `tile.barrier`
    the dots read a view of that buffer. One stage is enough: mma.sync dots
    are done with it when their thread reaches the next iteration's first
    barrier, and tile-place-dot-waits waits for the wgmma groups that read
    it before the barrier ahead of the store.

    A `tile.desc_load` (kept for TMA by tile-lower-descriptor-loads) is
    streamed the same way with `tile.tma_copy` into a swizzled buffer, one
    `!tile.mbarrier` per stage: iteration i waits for the parity of its
    stage's (i / S)-th phase where the load was, then `tile.zero_rows`
    clears the rows at or past `row_end`. Where the loop cannot be
    pipelined, the copy is issued in place, one stage, no lookahead. The
    buffer is swizzled as the descriptor's tensor map: the narrowest
    swizzle every TMA load of that descriptor allows. A TMA load of 8-bit
    codes read through casts to a 16-bit tile lands in 8-bit panels and is
    converted like a cast tile, where the load was, after its wait.

    With `fp8-in-place` (sm_89+), a cast tile whose one cast widens fp8
    codes to 16 bits and whose every reader is an mma.sync dot taking it as
    b (transposed, or into an interleaved accumulator: tile-assign-layouts'
    option of the same name) is not widened: the dots read a view of the
    landed codes and widen their fragments in registers (no widened buffer,
    no barrier).

    A loop inside another loop (a persistent program's work loop) is
    entered many times: its buffers and mbarriers are made once, before the
    outermost loop; each entry starts with a `tile.barrier` (the previous
    entry's readers are done with the stages), and a `tile.pipeline_base`
    gives the TMA ring's trips in earlier entries, added to every trip
    index, so stages and phases go on instead of restarting at 0.
  }];
  let options = [
    Option<"fp8InPlace", "fp8-in-place", "bool", "false",
           "let mma.sync dots read a widened fp8 tile's codes in place">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "mlir::ModuleOp"> {
  let summary = "Give a pipelined TMA loop's copies to a producer warpgroup";
  let description = [{
    In a module marked `tile.warp_specialize` (`with warp_specialize = True`
    on the kernel), the first loop tile-pipeline-loops streams with TMA that
    sits in the kernel's body, in the then branches of result-less
    `scf.if`s, or in loops carrying scalars only (a persistent work loop,
    with a running offset), nested in any order, splits the kernel at that top-level op into a
    `tile.warp_specialize`:
    - allocations without an initial value (stage buffers, mbarriers) move
      before the split: every thread makes them;
    - the producer region replays the control: the enclosing conditions
      and loops (with the scalars they carry, computed the same way), what
      they and the loop's bounds are computed from (its own
      `tile.pipeline_base` too, so trip indices go on across entries), and
      per trip i the
      refill copies' coordinates (scalar code and scalar loads such as a
      page-table entry, and scalar `scf.for`/`scf.if` made of them such as
      a running sum over a table of lengths, cloned with the trip's own
      induction value); then it
      waits until stage i mod S is free (an `empty` mbarrier per stage,
      phase parity ((i / S) & 1) ^ 1, so the first round passes) and issues
      the trip's copies;
    - the consumer region holds the top-level op with the loop minus its
      refill barrier and copies, and everything after it. A loop that only
      accumulates on its last dot releases the previous trip's stage after
      that dot (`tile.mbarrier_arrive ... releases`, one arrival per
      consumer warp), so the group stays in flight; a loop whose next trip
      reads the accumulator (a rescale) releases its own stage at the end
      of the trip. An accumulating loop entered again also releases its
      last trip's stage after the loop;
    - the prologue copies go: the producer's first trips are theirs.
    The module gets `tile.producer_warps`. A loop whose copies depend on a
    loop-carried value or on memory it writes, that is nested in anything
    but such `scf.if`s and loops, or whose top-level op follows tensor
    code (which would run on the producer warps too, outside the layouts)
    is left as it is.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def TileLowerDescriptorLoads : Pass<"tile-lower-descriptor-loads",
                                    "mlir::ModuleOp"> {
  let summary = "Turn descriptor loads TMA will not serve into pointer loads";
  let description = [{
    With `tma` (sm_90a), a `tile.desc_load` stays when TMA can serve it: a
    2-D box of 16-bit elements (rows a multiple of 8, at most 256) read
    directly in the body of a pipelined loop (`tile.num_stages` >= 2) only
    by dots that tile-assign-layouts will make wgmma dots, or of 8-bit
    codes whose elementwise casts give such a 16-bit tile (fp8 widened),
    with the rows of every other TMA load of its descriptor (one tensor map
    per argument: 16-bit loads of one swizzle; codes in the narrowest swizzle
    their loads allow). tile-pipeline-loops then streams it with TMA. Every
    other one becomes a masked `tile.load` of base + row * stride + col from
    the descriptor's fields: elements outside the tensor, or at or past
    `row_end`, read zero. Runs before tile-assign-layouts.
  }];
  let options = [
    Option<"numWarps", "num-warps", "unsigned", "4", "warps per program">,
    Option<"tma", "tma", "bool", "false",
           "keep the loads TMA can serve (sm_90a)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def TileSeesawPairs : Pass<"tile-seesaw-pairs", "mlir::ModuleOp"> {
  let summary = "Run a loop's trips in pairs, the second's owned work on "
                "warpgroup 1";
  let description = [{
    With `tile.seesaw` (`with seesaw = True`) in a program of two
    warpgroups (8 warps) whose narrow dots warpgroup 0 owns: each loop
    whose own body holds an owned dot (MLA's score tiles and their
    softmax) runs two trips per iteration. The first is the old body; the
    second is a copy in which every layout warpgroup 0 owned (`#tile.mma<...,
    warpgroup = 0>` and slices of it) belongs to warpgroup 1, so the two
    warpgroups compute the owned values of alternate trips (FlashMLA's
    "seesaw": one warpgroup's softmax can run beside the other's dots once
    each has its own instruction stream). Owned values the second trip
    reads from elsewhere cross with a layout conversion: at its top for the
    loop-carried ones and the first trip's, before the loop for what is
    defined above it (splat constants are remade in the new layout); the
    second trip's owned results go back through a conversion to what the
    loop carries. An odd last trip runs after the pairs as the old body.
    Runs after tile-warp-specialize and before tile-predicate-warpgroups,
    which gives each owner's runs to its warpgroup. `seesaw` with
    `score_warpgroup`, or in a program of other than 8 warps, is an error.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def TileSeesawHandoffs : Pass<"tile-seesaw-handoffs", "mlir::ModuleOp"> {
  let summary = "Inside a seesaw pair, hand values over one way and issue "
                "the second trip's score dots early";
  let description = [{
    With `tile.seesaw`, after tile-predicate-warpgroups: in each pair loop of
    tile-seesaw-pairs behind a producer warpgroup, the conversions out of
    warpgroup j's owned layout (the row scale, the running max and sums)
    and the staging of j's p for `p . v` were exchanges, which both
    warpgroups meet at. Each becomes a one-way hand-off: j writes a slot
    right after computing the value (p goes into the trip's stage of the
    buffer only j's score dot read) and arrives on the slot's "full"
    mbarrier; the readers (both warpgroups for an unowned result, the other
    warpgroup for an owned one) wait for it, read, and arrive on its
    "empty" mbarrier, which j waits for before writing it again (for p,
    the readers arrive once their dot is done, before the stage's
    release). Both phases count the pairs each thread ran
    (`tile.pipeline_base`). Then warpgroup 1's score dots of the second
    trip move, with copies of the stage waits and views they read, into a
    run of their own right after warpgroup 0's scores of the first trip
    (everyone still waits for the stage where the trip did): both
    warpgroups' score dots are then on the tensor cores together, and
    tile-place-dot-waits leaves the run's dots in flight until warpgroup
    1's softmax, which also waits for the first trip's running max. A
    crossing that does not fit (a type a slot cannot hold, a p with no
    free stage buffer) stays an exchange.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect", "mlir::ub::UBDialect"];
}

def TileSplitWarpgroups : Pass<"tile-split-warpgroups", "mlir::ModuleOp"> {
  let summary = "With the seesaw, give each compute warpgroup a copy of the "
                "code without the other's owned runs";
  let description = [{
    With `tile.seesaw` both warpgroups of an 8-warp program own values (the
    scores of alternate tiles, tile-seesaw-pairs), and one instruction
    stream holding both sets spills. This pass makes the compute code (the
    consumer region of `tile.warp_specialize`, or the kernel's body) into
    `scf.if (tile.warpgroup_id == 0) { ... } else { ... }`, two copies, and
    removes from each the `scf.if` runs marked `tile.owner_warpgroup` of the
    other warpgroup (whose threads skipped them anyway; what they yielded
    becomes poison, read only where the other warpgroup's threads do not
    look). Each thread runs what it ran before, so what the earlier passes
    decided over the one stream (elided barriers, dot waits, the shared
    memory layout) holds for both copies, which meet at the same barriers
    in the same order: it runs after tile-elide-scratch-barriers, right
    before the lowering. Behind a producer warpgroup each copy starts by
    raising its registers (`tile.set_max_registers`; ptxas compiles a
    branch for a `setmaxnreg` only at its start), and the consumer region
    then sets none of its own.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect", "mlir::ub::UBDialect"];
}

def TilePredicateWarpgroups : Pass<"tile-predicate-warpgroups",
                                   "mlir::ModuleOp"> {
  let summary = "Run the ops on a warpgroup-owned layout on that warpgroup only";
  let description = [{
    A tensor whose layout is owned by warpgroup g (`#tile.mma<[4, 1],
    version = 3, warpgroup = g>`, or a slice of it) is held by that
    warpgroup alone. The ops that make or read such tensors (not layout
    conversions) are gathered into runs: ops between them that touch no
    memory and read nothing the run makes move above it. Each run becomes
    the then branch of `scf.if (tile.warpgroup_id == g)`, marked
    `tile.owner_warpgroup`; what it yields to later ops is poison in the
    other warpgroups, which never read it except through a conversion (its
    lowering lets only the owner write) or another run of g.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect", "mlir::ub::UBDialect"];
}

def TileSplitRoles : Pass<"tile-split-roles", "mlir::ModuleOp"> {
  let summary = "Give a score warpgroup and the kernel's warps loops of their own";
  let description = [{
    With `tile.score_warpgroup` (`with score_warpgroup = True`), the narrow
    dots live on warpgroup W = num_warps / 4, past the kernel's warps, and
    tile-predicate-warpgroups put the ops on them under
    `scf.if (warpgroup_id == W)`. This pass splits the consumer region of
    `tile.warp_specialize` into two roles: `scf.if (warpgroup_id == W)`
    (marked `tile.owner_warpgroup`: the score role) and
    `scf.if (warpgroup_id != W)` (the accumulate role, the kernel's warps),
    each a copy of the region without the other role's work, so that a
    thread's loops carry only its own role's values (one instruction
    stream holding both would spill).

    What crosses goes through shared memory: an exchange out of W's layout
    becomes `tile.local_store` / `tile.local_load`; a dot whose a operand W
    holds reads it through `tile.local_view` of a buffer the score role
    wrote; a buffer the kernel's warps fill (`tile.local_alloc` of a tensor)
    for the score role's dots is made once above the split, written with
    `tile.local_store` and handed over. In a pipelined loop the crossings
    of a trip use slots indexed by the ring's stage, each written as soon
    as the score role has it and signalled by its own per-stage mbarrier,
    which the other role waits for just before reading it; a
    dot operand reuses a ring buffer of its shape only the score role read
    (in the dots it is computed from); the ring's release orders reuse.
    A tile a trip stores into a buffer the score role's dots read (codes
    widened where TMA landed them, tile-pipeline-loops) is stored by the
    kernel's warps, which then arrive on a per-stage mbarrier of its own;
    the score role waits for it before its first view of the buffer.
    Elsewhere each crossing has one slot and full / empty mbarriers with
    per-thread phase counts. `tile.warp_specialize` gets `scoreWarps = 4`
    and the consumers' register budget for num_warps + 4 warps, the module
    `tile.producer_warps` plus 4 (the warps a launch adds).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect", "mlir::ub::UBDialect"];
}

#endif
