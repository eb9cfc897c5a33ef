//===- WarnOnce.h - one stderr line per problem a library cannot fail for -===//
//
// Where a library degrades instead of failing (a cache or dump folder it
// cannot write), it must not stay silent either: one line on stderr per
// distinct key (a folder), however many calls meet the problem.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_SUPPORT_WARNONCE_H
#define TILEMLA_SUPPORT_WARNONCE_H

#include "tilemla/Export.h"

#include <string>

namespace tilemla {
/// Writes "tilemla: <message>" and a newline to stderr the first time `key`
/// is seen in this process; thread-safe.
TILEMLA_API void warnOnce(const std::string &key, const std::string &message);
} // namespace tilemla

#endif
