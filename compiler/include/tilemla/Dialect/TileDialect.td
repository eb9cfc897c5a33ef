//===- TileDialect.td - the tile dialect -------------------*- tablegen -*-===//
#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level GPU programming: programs over static tensors";
  let description = [{
    Values are scalars or ranked tensors of static power-of-two shape. Before
    layout assignment tensors carry no encoding ("tile IR"); afterwards every
    tensor carries a layout attribute saying which thread holds which element
    ("tile-gpu IR").
  }];
  let dependentDialects = ["arith::ArithDialect", "math::MathDialect",
                           "scf::SCFDialect", "func::FuncDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;

  // Every discardable `tile.*` attribute, declared once: passes, the
  // frontend, the driver and the interpreter name them through the
  // generated helpers (e.g. TileDialect::KernelAttrHelper::getNameStr()),
  // and verifyOperationAttribute / verifyRegionArgAttribute check where each
  // may appear and what it holds.
  let discardableAttrs = (ins
    // On func.func: the function is a kernel (a PTX entry point).
    "::mlir::UnitAttr":$kernel,
    // On a kernel argument: a constexpr parameter's value (the argument is
    // removed by tile-specialize-constexprs).
    "::mlir::TypedAttr":$constexpr,
    // On a kernel argument: what the runtime guarantees it is divisible by
    // (bytes of alignment for pointers, the value for integers).
    "::mlir::IntegerAttr":$divisibility,
    // On scf.for: software-pipeline the loop over this many stages.
    "::mlir::IntegerAttr":$num_stages,
    // On the module: warps per program (the kernel's `with num_warps`,
    // from the frontend; then what tile-assign-layouts lays out for).
    "::mlir::IntegerAttr":$num_warps,
    // On the module: the kernel asks for warp-specialized TMA loops (`with
    // warp_specialize = True`), and the producer warps tile-warp-specialize
    // added to each program.
    "::mlir::UnitAttr":$warp_specialize,
    // On the module: the kernel's `with own_narrow_dots = ...`, whether a
    // wgmma dot too narrow to split over warpgroups runs on one (absent:
    // tile-assign-layouts' option decides).
    "::mlir::BoolAttr":$own_narrow_dots,
    // On the module: the kernel's `with score_warpgroup = ...`: an owned
    // narrow dot, and what is computed from it, runs on a warpgroup of its
    // own past the kernel's warps (tile-split-roles gives it its own loops).
    "::mlir::BoolAttr":$score_warpgroup,
    // On the module: the kernel's `with seesaw = ...`: a loop whose trips
    // compute owned values runs them in pairs, the second trip's owned
    // work on the next warpgroup (tile-seesaw-pairs), so that two
    // warpgroups take the scores of alternate tiles.
    "::mlir::BoolAttr":$seesaw,
    // On the module: the warps added to num_warps (a producer warpgroup,
    // tile-warp-specialize; a score warpgroup, tile-split-roles); a program
    // runs num_warps + producer_warps warps.
    "::mlir::IntegerAttr":$producer_warps,
    // On the module: dynamic shared memory per program, in bytes, and the
    // offset where tensor-core dots stage their b operand (set by
    // tile-allocate-shared).
    "::mlir::IntegerAttr":$shared,
    "::mlir::IntegerAttr":$dot_b_offset,
    // On the module: where cross-warp reductions exchange their partial
    // results and layout conversions their elements, apart from the dots'
    // staging (set by tile-allocate-shared in wgmma kernels when the budget
    // allows; else they share one scratch).
    "::mlir::IntegerAttr":$reduce_offset,
    // On tile.reduce, tile.convert_layout or tile.dot: every earlier access
    // to the scratch it writes is already ordered before it by a barrier,
    // so its lowering emits no leading barrier (tile-elide-scratch-barriers).
    "::mlir::UnitAttr":$scratch_ordered,
    // On tile.load / tile.store: registers one vector access covers.
    "::mlir::IntegerAttr":$access_width,
    // On tile.store of 16-bit values in a tensor-core accumulator layout:
    // each row's 32 columns are contiguous, 16-byte aligned every 8, and
    // masked alike every 8, so the four lanes holding them may swap values
    // and store 16 bytes each (tile-to-llvm's quad-transposed store).
    "::mlir::UnitAttr":$quad_store,
    // On tile.dot: reads the b operand the previous dot staged.
    "::mlir::UnitAttr":$reuse_staged_b,
    // On scf.if: only this warpgroup runs the then branch, which holds the
    // ops on its owned layouts (tile-predicate-warpgroups); barriers there
    // hold that warpgroup's threads only.
    "::mlir::IntegerAttr":$owner_warpgroup
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
}

#endif
