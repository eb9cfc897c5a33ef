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
}

#endif
