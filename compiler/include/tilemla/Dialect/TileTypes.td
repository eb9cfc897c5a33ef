//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//
#ifndef TILE_TYPES_TD
#define TILE_TYPES_TD

include "tilemla/Dialect/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_PointerType : TypeDef<Tile_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "pointer to global memory holding elements of one type";
  let parameters = (ins "Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "Type":$pointeeType), [{
      return $_get(pointeeType.getContext(), pointeeType);
    }]>
  ];
}

def Tile_SharedBufferType : TypeDef<Tile_Dialect, "SharedBuffer"> {
  let mnemonic = "smem";
  let summary = "a multi-buffered tile in shared memory";
  let description = [{
    `stages` copies of a [rows, cols] tile. With `swizzle` = 0 a stage is
    row-major with every row padded by 16 bytes (so the eight rows one
    ldmatrix phase reads fall into distinct bank groups). With `swizzle` = W
    (32, 64 or 128 bytes) it is the layout wgmma's matrix descriptors read:
    columns are cut into panels W bytes wide, stored one after the other;
    within a panel row r starts at r * W, and its 16-byte chunk c sits at
    chunk c ^ ((r / (128 / W)) % (W / 16)). Written by `tile.local_alloc`
    or `tile.async_copy`, read through `tile.local_view`.

    `evenWordsFirst` (padded rows of 16-bit elements only) reorders each
    16-column block of a row by words (element pairs): words 0, 2, 4, 6 of
    the block first, then 1, 3, 5, 7. An mma.sync dot against fp8 codes read
    in place takes k slots (2q, 2q + 1, 2q + 8, 2q + 9) from columns
    4q .. 4q + 3; in this order a plain ldmatrix.x4 gives its a fragments in
    the registers the instruction wants (see MmaDotOpToLLVM.cpp). Not filled
    by `tile.async_copy` (its runs would be one word).
  }];
  let parameters = (ins "int64_t":$stages, "int64_t":$rows, "int64_t":$cols,
                        "Type":$elementType,
                        DefaultValuedParameter<"int64_t", "0">:$swizzle,
                        DefaultValuedParameter<"bool", "false">:$evenWordsFirst);
  let assemblyFormat = [{
    `<` $stages `x` $rows `x` $cols `x` $elementType
        (`,` struct($swizzle, $evenWordsFirst)^)? `>`
  }];
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilder<(ins "int64_t":$stages, "int64_t":$rows, "int64_t":$cols,
        "Type":$elementType, CArg<"int64_t", "0">:$swizzle,
        CArg<"bool", "false">:$evenWordsFirst), [{
      return $_get($_ctxt, stages, rows, cols, elementType, swizzle,
                   evenWordsFirst);
    }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Padded layout: elements between the starts of two rows (cols plus
    /// the padding). Swizzled layout: elements in one panel row.
    int64_t getRowStride() const;
    /// Whether `type` is a stage's [rows, cols] tile (what tile.local_store
    /// and tile.local_load move in the buffer's layout; any other shape
    /// sits row-major in a stage of one row).
    bool isStageTile(::mlir::RankedTensorType type) const {
      return type.getRank() == 2 && type.getDimSize(0) == getRows() &&
             type.getDimSize(1) == getCols();
    }
    /// The encoding of a window of a stage (`tile.local_view`).
    SharedEncodingAttr getViewEncoding() const;
    /// Elements between the starts of two stages.
    int64_t getStageElements() const {
      return getSwizzle() ? getRows() * getCols() : getRows() * getRowStride();
    }
  }];
}

def Tile_TensorDescType : TypeDef<Tile_Dialect, "TensorDesc"> {
  let mnemonic = "tensordesc";
  let summary = "a 2-D row-major tensor in global memory, described by the host";
  let description = [{
    A kernel argument (`desc<T>` in the tile language): base address, rows,
    columns and row stride, and on sm_90a the tensor map TMA copies read.
    `tile.desc_load` reads boxes of it; elements outside read as zero.
  }];
  let parameters = (ins "Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Tile_MBarrierType : TypeDef<Tile_Dialect, "MBarrier"> {
  let mnemonic = "mbarrier";
  let summary = "shared-memory barriers that TMA copies complete";
  let description = [{
    `count` mbarrier objects (8 bytes each), one per pipeline stage: a TMA
    copy into a stage signals its barrier when all its bytes have landed,
    and waiting threads test the phase parity. A phase completes after
    `arrivals` arrivals (1: the thread that announces a copy's bytes; more
    for barriers that several warps arrive on, `tile.mbarrier_arrive`).
  }];
  let parameters = (ins "int64_t":$count,
                        DefaultValuedParameter<"int64_t", "1">:$arrivals);
  let assemblyFormat = "`<` $count (`,` `arrivals` `=` $arrivals^)? `>`";
  let genVerifyDecl = 1;
}

def Tile_PendingType : TypeDef<Tile_Dialect, "Pending"> {
  let mnemonic = "pending";
  let summary = "a wgmma accumulator whose instructions may be in flight";
  let description = [{
    The result of an asynchronous `tile.dot` (version 3 `#tile.mma` layout,
    sm_90a): it lowers to the same registers as `valueType`, but the tensor
    cores may still be writing them. Only another asynchronous dot (which
    accumulates on the same registers, in order), `tile.dot_wait` (which
    hands out the finished tensor) and control flow (loop-carried values,
    yields) may take it. Made by tile-place-dot-waits.
  }];
  let parameters = (ins "RankedTensorType":$valueType);
  let assemblyFormat = "`<` $valueType `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "RankedTensorType":$valueType), [{
      return $_get(valueType.getContext(), valueType);
    }]>
  ];
}

def Tile_Float : AnyTypeOf<[F16, BF16, F32, F8E4M3FN, F8E5M2]>;
def Tile_Int : AnyTypeOf<[I1, I32, I64]>;
def Tile_Scalar : AnyTypeOf<[Tile_Float, Tile_Int, Tile_PointerType]>;
def Tile_Tensor : RankedTensorOf<[Tile_Float, Tile_Int, Tile_PointerType]>;
def Tile_Value : AnyTypeOf<[Tile_Scalar, Tile_Tensor]>;
def Tile_PtrLike : AnyTypeOf<[Tile_PointerType, RankedTensorOf<[Tile_PointerType]>]>;
def Tile_IntLike : AnyTypeOf<[I32, I64, RankedTensorOf<[I32, I64]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Tile_FloatTensor : RankedTensorOf<[Tile_Float]>;
def Tile_Accumulator : AnyTypeOf<[RankedTensorOf<[F32]>, Tile_PendingType]>;

#endif
