//===- CheckedInputs.cpp - what mla_decode_check.tile found, as errors ----===//
//
// TritonMLAOptions::checkInputs: mla_decode_check.tile writes a report per
// request on the device; once its stream is done, the host turns the first
// bad request into an Error naming the request and the table column.
//
//===----------------------------------------------------------------------===//
#include "tilemla/mla/TritonMLA.h"

#include <fmt/format.h>

namespace tilemla::mla {

void TritonMLAImpl::throwIfReported(int64_t entries, int64_t maxPages,
                                    int64_t pageSize, int64_t numPages,
                                    const char *when) {
  std::vector<int32_t> report(size_t(entries) * 3);
  checkReport->download(report.data(), report.size() * 4);
  for (int64_t b = 0; b < entries; ++b) {
    const int32_t kind = report[3 * b], column = report[3 * b + 1],
                  value = report[3 * b + 2];
    if (kind == 0)
      continue;
    checkReport->fill(0);
    std::string what;
    if (kind == 1)
      what = fmt::format("seq_lens[{}] = {}: a negative length", b, value);
    else if (kind == 2)
      what = fmt::format("seq_lens[{}] = {}: more tokens than block_table's "
                         "row holds ({} pages of {} tokens)",
                         b, value, maxPages, pageSize);
    else
      what =
          fmt::format("block_table[{}, {}] = {}: not a page of kv_cache "
                      "({} pages), used by request {}'s tokens {}..{}",
                      b, column, value, numPages, b, int64_t(column) * pageSize,
                      (int64_t(column) + 1) * pageSize - 1);
    throw Error(fmt::format("{} (checked inputs: {})", what, when));
  }
}
} // namespace tilemla::mla
