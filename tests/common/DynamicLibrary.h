//===- DynamicLibrary.h - binding symbols of dlopen'ed libraries ----------===//
#ifndef TILEMLA_TESTS_DYNAMICLIBRARY_H
#define TILEMLA_TESTS_DYNAMICLIBRARY_H

#include <dlfcn.h>

namespace tilemla::test {
/// Points `slot` at `name` in `library`; false if the symbol is missing.
template <typename Fn>
bool bindSymbol(void *library, const char *name, Fn &slot) {
  slot = reinterpret_cast<Fn>(dlsym(library, name));
  return slot != nullptr;
}
} // namespace tilemla::test

#endif
