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
    `stages` copies of a [rows, cols] tile, stored row-major with every row
    padded by 16 bytes (so the eight rows one ldmatrix phase reads fall into
    distinct bank groups). Written by `tile.local_alloc` or
    `tile.async_copy`, read through `tile.local_view`.
  }];
  let parameters = (ins "int64_t":$stages, "int64_t":$rows, "int64_t":$cols,
                        "Type":$elementType);
  let assemblyFormat = "`<` $stages `x` $rows `x` $cols `x` $elementType `>`";
  let extraClassDeclaration = [{
    /// Elements between the starts of two rows (cols plus the padding).
    int64_t getRowStride() const;
    /// Elements between the starts of two stages.
    int64_t getStageElements() const { return getRows() * getRowStride(); }
  }];
}

def Tile_Float : AnyTypeOf<[F16, BF16, F32, F8E4M3FN]>;
def Tile_Int : AnyTypeOf<[I1, I32, I64]>;
def Tile_Scalar : AnyTypeOf<[Tile_Float, Tile_Int, Tile_PointerType]>;
def Tile_Tensor : RankedTensorOf<[Tile_Float, Tile_Int, Tile_PointerType]>;
def Tile_Value : AnyTypeOf<[Tile_Scalar, Tile_Tensor]>;
def Tile_PtrLike : AnyTypeOf<[Tile_PointerType, RankedTensorOf<[Tile_PointerType]>]>;
def Tile_IntLike : AnyTypeOf<[I32, I64, RankedTensorOf<[I32, I64]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Tile_FloatTensor : RankedTensorOf<[Tile_Float]>;

#endif
