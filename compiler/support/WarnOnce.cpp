//===- WarnOnce.cpp - one stderr line per problem a library cannot fail for
//===//
#include "tilemla/Support/WarnOnce.h"

#include <cstdio>
#include <mutex>
#include <set>

void tilemla::warnOnce(const std::string &key, const std::string &message) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard<std::mutex> lock(mutex);
  if (warned.insert(key).second)
    std::fprintf(stderr, "tilemla: %s\n", message.c_str());
}
