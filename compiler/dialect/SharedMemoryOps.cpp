//===- SharedMemoryOps.cpp - shared buffers, async copies, views ----------===//
#include "tilemla/Dialect/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

int64_t SharedBufferType::getRowStride() const {
  unsigned bits = getElementType().getIntOrFloatBitWidth();
  return getCols() + 128 / bits; // 16 bytes of padding per row
}

/// `shape` as [rows, cols] of the buffer, or an error naming `what`.
static LogicalResult checkTile(Operation *op, StringRef what,
                               RankedTensorType type, SharedBufferType buffer) {
  if (type.getRank() != 2 || type.getDimSize(0) != buffer.getRows() ||
      type.getDimSize(1) != buffer.getCols())
    return op->emitOpError() << what << " must be a [" << buffer.getRows()
                             << ", " << buffer.getCols() << "] tile";
  return success();
}

LogicalResult LocalAllocOp::verify() {
  SharedBufferType buffer = getResult().getType();
  unsigned bits = buffer.getElementType().getIntOrFloatBitWidth();
  if (bits != 16 && bits != 32)
    return emitOpError() << "buffers hold 16- or 32-bit elements";
  if (!getInit())
    return success();
  if (buffer.getStages() != 1)
    return emitOpError() << "an initialized buffer has one stage";
  if (getInit().getType().getElementType() != buffer.getElementType())
    return emitOpError() << "init element type must be "
                         << buffer.getElementType();
  return checkTile(*this, "init", getInit().getType(), buffer);
}

LogicalResult AsyncCopyOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  auto pointee =
      cast<PointerType>(getPtr().getType().getElementType()).getPointeeType();
  if (pointee != buffer.getElementType())
    return emitOpError() << "pointers to " << pointee
                         << " cannot fill a buffer of "
                         << buffer.getElementType();
  if (getMask() &&
      getMask().getType().getShape() != getPtr().getType().getShape())
    return emitOpError() << "mask shape must match the pointers";
  return checkTile(*this, "the pointer tile", getPtr().getType(), buffer);
}

LogicalResult LocalViewOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  RankedTensorType type = getResult().getType();
  auto encoding = dyn_cast_or_null<SharedEncodingAttr>(type.getEncoding());
  if (!encoding || encoding.getRowStride() != buffer.getRowStride())
    return emitOpError() << "result must carry #tile.shared<rowStride = "
                         << buffer.getRowStride() << ">";
  if (type.getElementType() != buffer.getElementType())
    return emitOpError() << "result element type must be "
                         << buffer.getElementType();
  int64_t column = getColumn();
  if (type.getRank() != 2 || type.getDimSize(0) != buffer.getRows() ||
      column < 0 || column + type.getDimSize(1) > buffer.getCols())
    return emitOpError() << "window [" << buffer.getRows() << ", columns "
                         << column << ".." << column + type.getDimSize(1)
                         << ") is outside the [" << buffer.getRows() << ", "
                         << buffer.getCols() << "] tile";
  return success();
}
