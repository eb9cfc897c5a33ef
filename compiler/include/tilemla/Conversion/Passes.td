//===- Passes.td - lowering to LLVM + NVVM -----------------*- tablegen -*-===//
#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAllocateShared : Pass<"tile-allocate-shared", "mlir::ModuleOp"> {
  let summary = "Size the shared-memory scratch of every op that needs one";
  let description = [{
    Cross-warp reductions, scans (two copies of the tensor), layout
    conversions and dots stage data through shared memory. Ops run one after another and fence their scratch with
    barriers, so one buffer of the largest size serves them all; its size in
    bytes is recorded as the module attribute `tile.shared`.

    Tensor-core dots stage their b operand above that buffer, at the byte
    offset `tile.dot_b_offset`, where other ops never write. A dot whose b is
    the value the previous tensor-core dot of its block staged (attention's
    keys, then the same rows as values) is marked `tile.reuse_staged_b` and
    reads the staged copy instead of writing it again: the staging is the
    same for a [K, N] b and a transposed [N, K] one. Operands that are
    `#tile.shared` views are read in place and need neither.

    Every `tile.local_alloc` buffer (pipeline stages, resident operands)
    gets its own region above those, recorded as its `offset` attribute.

    In a module with wgmma dots, cross-warp reductions (and scans and layout
    conversions) get a region of their own above everything else (`tile.reduce_offset`) when the budget allows,
    so that tile-elide-scratch-barriers can order them against the layout
    conversions and operand staging around them with fewer barriers.

    A module that needs more than its target's opt-in shared memory per
    program (227 KB on sm_90a, 163 KB on sm_80) fails here, with the
    kernel's name and its bytes, instead of at launch.
  }];
  let options = [
    Option<"arch", "arch", "std::string", "\"sm_90a\"",
           "target architecture (its shared-memory budget)">,
  ];
}

def TileElideScratchBarriers
    : Pass<"tile-elide-scratch-barriers", "mlir::ModuleOp"> {
  let summary = "Drop the leading barrier of scratch writes barriers already order";
  let description = [{
    A cross-warp `tile.reduce`, a `tile.convert_layout` and a wgmma
    `tile.dot` staging a register operand write shared-memory scratch, pass
    a barrier and read it back (the dot: the tensor cores read it until its
    group is waited for). Their lowering begins with a barrier as well, so
    that no thread overwrites what another still reads from an earlier use.

    This pass marks such an op `tile.scratch_ordered`, and its lowering
    omits that leading barrier, when every path reaching it meets a barrier
    after the last access to the same region: a `tile.barrier`, an op that
    ends in one (`tile.mbarrier_alloc`, a `tile.local_alloc` with an initial
    value, `tile.async_wait`), or another scratch user's own barrier when its
    bytes are elsewhere. Regions: the common scratch (layout conversions,
    staged a operands, and reductions, scans and layout conversions unless
    tile-allocate-shared placed them at `tile.reduce_offset`), the b
    region, the reductions' region. A
    `tile.dot_wait` on the way counts as an access to every region a wgmma
    dot of the module stages into. Paths are followed through enclosing
    `scf.if`, `scf.for` (the first trip and the back edge) and
    `tile.warp_specialize` to the kernel's entry; any other region, or an op
    with regions holding scratch users or barriers, keeps the barrier.

    Runs after tile-allocate-shared and tile-place-dot-waits.
  }];
}

def TilePlaceDotWaits : Pass<"tile-place-dot-waits", "mlir::ModuleOp"> {
  let summary = "Make wgmma dots asynchronous and wait for each at its first use";
  let description = [{
    Every wgmma dot (a version 3 `#tile.mma` result) issues its group and
    returns a `!tile.pending` value; one `tile.dot_wait` is placed before
    the first op that needs the group done: a reader of the result (an
    asynchronous dot accumulating on it as its only user does not count: it
    queues behind the group on the same registers), a write to shared
    memory the group reads (a copy into or zeroing of the buffer stage it
    reads, the scratch its register operand was staged in, the b region),
    an op with regions that holds either or holds dots, or the end of the
    block. The wait's `pending` is the number of groups issued after the
    awaited one, which stay in flight: groups retire in issue order.

    A dot whose only use is its loop's yield, and whose iter_arg the next
    trip only accumulates on, stays in flight across the back edge: its
    iter_arg becomes pending (initialized with `tile.as_pending`) and the
    loop's result is waited for after the loop. An accumulator the next trip
    reads (a rescale) is waited for at the end of the trip instead: ptxas
    serializes every wgmma of the kernel when a group from the previous
    trip is read after a wait that leaves other groups in flight. Pipeline stages are
    compared as (trip index + c) mod S, so refilling the stage the previous
    trip's dot reads waits for that dot only; a loop running k trips per
    iteration (tile-seesaw-pairs) indexes its later trips from iv + j * d,
    the trip index plus j. A copy or zeroing is written by one thread or
    each thread for itself: its wait goes before the barrier that precedes
    it, or brings one, so every warpgroup's reads are done before it. An
    arrival hands over only the buffers it names as released.

    Runs of one warpgroup (`scf.if` marked `tile.owner_warpgroup`): one
    without dots is part of the stream around it, and what it needs is
    waited for inside it, by its owner alone. One that only issues a chain
    of dots and yields the last (tile-seesaw-handoffs) yields it pending:
    the dots stay in flight past it. A group one warpgroup issued is not in
    the others' count, so a wait keeps in flight only the later groups that
    every waiting thread issued.

    Runs before tile-allocate-shared; dots that are not wgmma are left as
    they are (they complete before the next op).
  }];
}

def ConvertTileToLLVM : Pass<"convert-tile-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower tile-gpu IR to the LLVM and NVVM dialects";
  let description = [{
    Every tensor becomes the registers one thread holds (an LLVM struct);
    tile ops become per-thread code with NVVM intrinsics for thread ids,
    shuffles and barriers; scf, arith, math and func follow into LLVM.
  }];
  let options = [
    Option<"arch", "arch", "std::string", "\"sm_90a\"", "target architecture">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::scf::SCFDialect"];
}

#endif
