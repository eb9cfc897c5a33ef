//===- SharedMemoryOps.cpp - shared buffers, async copies, views ----------===//
#include "tilemla/Dialect/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

int64_t SharedBufferType::getRowStride() const {
  unsigned bits = getElementType().getIntOrFloatBitWidth();
  if (getSwizzle())
    return getSwizzle() * 8 / bits;
  return getCols() + 128 / bits; // 16 bytes of padding per row
}

SharedEncodingAttr SharedBufferType::getViewEncoding() const {
  if (getSwizzle()) // panels of getRowStride() columns, one after the other
    return SharedEncodingAttr::get(getContext(), getRows() * getRowStride(),
                                   getSwizzle());
  return SharedEncodingAttr::get(getContext(), getRowStride(), 0,
                                 getEvenWordsFirst());
}

LogicalResult MBarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t count, int64_t arrivals) {
  if (count < 1)
    return emitError() << "an mbarrier array holds at least one barrier";
  // PTX: the expected arrival count of an mbarrier is at most 2^20 - 1.
  if (arrivals < 1 || arrivals >= (1 << 20))
    return emitError() << "mbarrier arrivals must be in [1, 2^20), got "
                       << arrivals;
  return success();
}

LogicalResult SharedBufferType::verify(
    function_ref<InFlightDiagnostic()> emitError, int64_t stages, int64_t rows,
    int64_t cols, Type elementType, int64_t swizzle, bool evenWordsFirst) {
  if (stages < 1 || rows < 1 || cols < 1)
    return emitError() << "buffer extents must be positive";
  if (evenWordsFirst &&
      (swizzle != 0 || !elementType.isIntOrFloat() ||
       elementType.getIntOrFloatBitWidth() != 16 || cols % 16 != 0))
    return emitError() << "evenWordsFirst orders the 16-column blocks of "
                          "unswizzled 16-bit rows";
  if (swizzle == 0)
    return success();
  if (swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes";
  // 16-bit elements (wgmma's operands) or 8-bit ones (fp8 codes landed by
  // TMA, read into registers to be widened).
  unsigned bits =
      elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 0;
  if (bits != 16 && bits != 8)
    return emitError() << "swizzled buffers hold 8- or 16-bit elements";
  if ((cols * bits / 8) % swizzle != 0 || rows % 8 != 0)
    return emitError() << "a " << swizzle << "-byte swizzle needs rows a "
                       << "multiple of 8 and rows of a multiple of " << swizzle
                       << " bytes";
  return success();
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
  if (bits != 8 && bits != 16 && bits != 32)
    return emitOpError() << "buffers hold 8-, 16- or 32-bit elements";
  if (!getInit())
    return success();
  if (buffer.getStages() != 1)
    return emitOpError() << "an initialized buffer has one stage";
  if (getInit().getType().getElementType() != buffer.getElementType())
    return emitOpError() << "init element type must be "
                         << buffer.getElementType();
  return checkTile(*this, "init", getInit().getType(), buffer);
}

/// Whether `type` fits a stage of `buffer` as tile.local_store and
/// tile.local_load see it: the stage's [rows, cols] tile, or any shape in a
/// stage of one unswizzled row.
static LogicalResult checkStageContents(Operation *op, RankedTensorType type,
                                        SharedBufferType buffer) {
  if (type.getElementType() != buffer.getElementType())
    return op->emitOpError()
           << "element type must be " << buffer.getElementType();
  if (buffer.isStageTile(type))
    return success();
  if (buffer.getRows() != 1 || buffer.getSwizzle() ||
      buffer.getEvenWordsFirst() || buffer.getCols() != type.getNumElements())
    return op->emitOpError()
           << "a tensor that is not the stage's tile needs a stage of one "
              "unswizzled row of "
           << type.getNumElements() << " elements";
  return success();
}

LogicalResult LocalStoreOp::verify() {
  return checkStageContents(*this, getValue().getType(), getBuffer().getType());
}

LogicalResult LocalLoadOp::verify() {
  return checkStageContents(*this, getResult().getType(),
                            getBuffer().getType());
}

LogicalResult AsyncCopyOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  auto pointee =
      cast<PointerType>(getPtr().getType().getElementType()).getPointeeType();
  if (pointee != buffer.getElementType())
    return emitOpError() << "pointers to " << pointee
                         << " cannot fill a buffer of "
                         << buffer.getElementType();
  if (buffer.getEvenWordsFirst())
    return emitOpError() << "cannot fill an evenWordsFirst buffer (its "
                            "runs are one word)";
  if (getMask() &&
      getMask().getType().getShape() != getPtr().getType().getShape())
    return emitOpError() << "mask shape must match the pointers";
  return checkTile(*this, "the pointer tile", getPtr().getType(), buffer);
}

LogicalResult LocalViewOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  RankedTensorType type = getResult().getType();
  auto encoding = dyn_cast_or_null<SharedEncodingAttr>(type.getEncoding());
  if (encoding != buffer.getViewEncoding())
    return emitOpError() << "result must carry " << buffer.getViewEncoding();
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
  if (buffer.getSwizzle() && column % buffer.getRowStride() != 0)
    return emitOpError() << "a window of a swizzled buffer starts on a panel "
                         << "(a multiple of " << buffer.getRowStride()
                         << " columns)";
  if (buffer.getEvenWordsFirst() && column % 16 != 0)
    return emitOpError() << "a window of an evenWordsFirst buffer starts on "
                            "a 16-column block";
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor descriptors and TMA
//===----------------------------------------------------------------------===//

LogicalResult DescLoadOp::verify() {
  Type element = getDesc().getType().getElementType();
  RankedTensorType type = getResult().getType();
  if (type.getRank() != 2)
    return emitOpError() << "reads a 2-D box";
  if (type.getElementType() != element)
    return emitOpError() << "result element type must be " << element;
  return success();
}

LogicalResult DescFieldsOp::verify() {
  if (getBase().getType().getPointeeType() !=
      getDesc().getType().getElementType())
    return emitOpError() << "base must point to "
                         << getDesc().getType().getElementType();
  return success();
}

LogicalResult TmaCopyOp::verify() {
  SharedBufferType buffer = getBuffer().getType();
  if (buffer.getElementType() != getDesc().getType().getElementType())
    return emitOpError() << "a descriptor of "
                         << getDesc().getType().getElementType()
                         << " cannot fill a buffer of "
                         << buffer.getElementType();
  if (!buffer.getSwizzle())
    return emitOpError() << "TMA fills swizzled buffers";
  if (buffer.getRows() > 256)
    return emitOpError() << "a TMA box has at most 256 rows";
  if (getBarriers().getType().getCount() != buffer.getStages())
    return emitOpError() << "needs one barrier per buffer stage";
  return success();
}
