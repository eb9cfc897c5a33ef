//===- TileAttrs.td - layout encodings ---------------------*- tablegen -*-===//
//
// A layout encoding rides on a tensor type and says which thread of the
// program (warp, lane, register) holds which element. Distributed layouts
// implement Tile_DistributedLayout; the shared-memory, mma accumulator and
// dot-operand encodings of the tensor-core path join as further attributes.
//
//===----------------------------------------------------------------------===//
#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "tilemla/Dialect/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_DistributedLayout : AttrInterface<"DistributedLayoutAttr"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A layout that spreads a tensor over the registers of the program's
    threads. Shapes and layout extents are powers of two; a dimension smaller
    than the layout's tile is replicated (several threads hold the element).
  }];
  let methods = [
    InterfaceMethod<"Registers per thread along each dimension of `shape`.",
      "::llvm::SmallVector<unsigned>", "getElemsPerThreadPerDim",
      (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"Rank of the tensors this layout describes.",
      "unsigned", "getRank">,
    InterfaceMethod<"Warps the layout spans.", "unsigned", "getNumWarps">,
  ];
  let extraClassDeclaration = [{
    unsigned getTotalElemsPerThread(::llvm::ArrayRef<int64_t> shape) {
      unsigned total = 1;
      for (unsigned n : getElemsPerThreadPerDim(shape))
        total *= n;
      return total;
    }
  }];
}

def Tile_BlockedEncodingAttr : AttrDef<Tile_Dialect, "BlockedEncoding",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let mnemonic = "blocked";
  let summary = "row-major blocked layout: registers, then lanes, then warps";
  let description = [{
    Along dimension d a thread holds `sizePerThread[d]` contiguous elements;
    `threadsPerWarp[d]` lanes and `warpsPerCTA[d]` warps tile the dimension,
    and the tile repeats to cover larger shapes. Lanes and warps are numbered
    with the last dimension fastest, which makes accesses along the last
    (contiguous) dimension coalesced.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The default layout for `shape` with `numWarps` warps: up to
    /// `vectorWidth` contiguous elements per thread along the last dim,
    /// lanes along the last dim first, warps along the first dim first.
    static BlockedEncodingAttr getDefault(::mlir::MLIRContext *ctx,
                                          ::llvm::ArrayRef<int64_t> shape,
                                          unsigned numWarps,
                                          unsigned vectorWidth);
  }];
}

def Tile_SliceEncodingAttr : AttrDef<Tile_Dialect, "SliceEncoding",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let mnemonic = "slice";
  let summary = "the parent layout with one dimension removed";
  let description = [{
    What a reduction along `dim` produces: each thread keeps the elements it
    held in the parent layout, with the reduced dimension collapsed. Inserting
    the dimension back (`tile.expand_dims`) gives the parent layout again
    without moving data.
  }];
  let parameters = (ins "unsigned":$dim, "DistributedLayoutAttr":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def Tile_MmaEncodingAttr : AttrDef<Tile_Dialect, "MmaEncoding",
    [DeclareAttrInterfaceMethods<Tile_DistributedLayout>]> {
  let mnemonic = "mma";
  let summary = "accumulator layout of the tensor-core instructions";
  let description = [{
    Version 2, the layout of a `dot` accumulator computed with
    `mma.sync.m16n8k16`: within a warp, lane l holds columns 2(l % 4) and
    2(l % 4) + 1 of row l / 4, as the instruction's D fragment does;
    `warpsPerCTA` warps tile the rows and columns, and the pattern repeats.
    As a register map this is the blocked layout sizePerThread = [1, 2],
    threadsPerWarp = [8, 4], warpsPerCTA = `warpsPerCTA`
    (getBlockedEquivalent), so every op lowers on it as on a blocked layout.
    The instruction's row pairs (r, r + 8) are the layout's register rows 2i
    and 2i + 1; which physical rows those are does not matter to mma.sync,
    only that A's fragments use the same rows.

    Version 3, the accumulator of the warpgroup instruction
    `wgmma.mma_async.m64nNk16` (sm_90a): the same registers per thread as
    version 2, placed as wgmma places them. Warps are numbered along M
    first, so four consecutive warps (one warpgroup) share columns; warp w
    along M holds rows 16w + l / 4 and 16w + 8 + l / 4, and warp n along N
    holds the contiguous column block [n N / wn, (n + 1) N / wn). A tensor
    whose extents differ from a dot's (M != 16 wm, or N < 8 wn) places that
    dimension as version 2 does.

    An owned layout (`warpgroup` = g, version 3, one warpgroup: [4, 1]) is
    held by warpgroup g alone in a program of several: its registers are
    those of a 4-warp program, and the other warpgroups skip the ops that
    make or use it (tile-predicate-warpgroups). A dot too narrow to split
    its columns over the warpgroups well runs on one of them this way.

    Interleaved (`interleave` = 2, version 2): the instruction's n tiles
    come in pairs over 16 columns, the first holding the even columns and
    the second the odd ones, so lane l holds columns 4(l % 4) .. 4(l % 4) + 3
    of each 16-column block: the blocked layout sizePerThread = [1, 4],
    threadsPerWarp = [8, 4], warps owning 16-column blocks. A dot whose b is
    fp8 codes read in place ([K, N], tile-pipeline-loops) fills it from
    `ldmatrix.trans` over the codes: each word holds two tokens of two
    adjacent columns, which is a fragment of the even and of the odd tile.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        DefaultValuedParameter<"unsigned", "2">:$version,
                        DefaultValuedParameter<"int64_t", "-1">:$warpgroup,
                        DefaultValuedParameter<"unsigned", "1">:$interleave);
  // The optional parameters come as `, key = value` in any order (a group
  // per parameter would commit to the first on its comma).
  let assemblyFormat = [{
    `<` `warpsPerCTA` `=` `[` $warpsPerCTA `]` ``
        custom<MmaOptions>($version, $warpgroup, $interleave) `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The same register counts (and, for version 2, register map) as a
    /// blocked layout.
    BlockedEncodingAttr getBlockedEquivalent() const;
    /// Whether this is the warpgroup (wgmma) accumulator layout.
    bool isWarpgroup() const { return getVersion() == 3; }
    /// Whether one warpgroup alone holds the tensor (see above).
    bool isOwned() const { return getWarpgroup() >= 0; }
    /// Whether n tiles pair up over 16 columns (see above).
    bool isInterleaved() const { return getInterleave() == 2; }
    /// Rows and columns of one warp's instruction tile (16 x 8).
    static constexpr unsigned kInstrM = 16, kInstrN = 8, kInstrK = 16;
  }];
}

def Tile_SharedEncodingAttr : AttrDef<Tile_Dialect, "SharedEncoding"> {
  let mnemonic = "shared";
  let summary = "a tensor read in place from shared memory";
  let description = [{
    The tensor is not in registers: it is a window of a `!tile.smem` buffer.
    With `swizzle` = 0 the window is row-major, `rowStride` elements between
    rows; with `swizzle` = 32, 64 or 128 it has the buffer's swizzled panel
    layout (see SharedBufferType) and `rowStride` is the elements between two
    panels; `evenWordsFirst` is the buffer's word order of the same name.
    Only tensor-core dots consume such tensors (as either operand): mma.sync
    reads fragments with ldmatrix, wgmma through matrix descriptors.
  }];
  let parameters = (ins "int64_t":$rowStride,
                        DefaultValuedParameter<"int64_t", "0">:$swizzle,
                        DefaultValuedParameter<"bool", "false">:$evenWordsFirst);
  let assemblyFormat = [{
    `<` `rowStride` `=` $rowStride (`,` struct($swizzle, $evenWordsFirst)^)? `>`
  }];
  let skipDefaultBuilders = 1;
  let builders = [
    AttrBuilder<(ins "int64_t":$rowStride, CArg<"int64_t", "0">:$swizzle,
        CArg<"bool", "false">:$evenWordsFirst), [{
      return $_get($_ctxt, rowStride, swizzle, evenWordsFirst);
    }]>
  ];
}

#endif
