#!/usr/bin/env bash
# Builds tests/install against an install of a build folder (default build/),
# as a C++ user would, and runs it: once with find_package(tilemla), once
# with a plain compile and link from `pkg-config --cflags --libs tilemla`;
# then the C ABI's test program (tests/capi), built as a C user would.
# The install is made in one folder and used from another (it must move),
# and the consumer's headers must come from it, with none of LLVM, MLIR or
# fmt among them. The CTest `install-consumer` runs this on build/.
#   scripts/test-install.sh [build folder] [work folder (default BUILD/install-test)]
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$source_dir/build}" && pwd)
work=${2:-$build/install-test}
consumer=$source_dir/tests/install
cxx=${CXX:-c++}

fail() {
  echo "test-install: $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
cmake --install "$build" --prefix "$work/staged" >/dev/null
mv "$work/staged" "$work/prefix"
prefix=$work/prefix
# The library folder GNUInstallDirs chose (lib, lib64 or lib/<multiarch>).
config=$(find "$prefix" -name tilemlaConfig.cmake -print -quit)
[ -n "$config" ] || fail "no tilemlaConfig.cmake under $prefix"
lib=${config%/cmake/tilemla/tilemlaConfig.cmake}

echo "== find_package(tilemla) against $prefix"
cmake -S "$consumer" -B "$work/cmake" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
found=$(sed -n 's/^tilemla_DIR:PATH=//p' "$work/cmake/CMakeCache.txt")
[ "$found" = "$lib/cmake/tilemla" ] ||
  fail "find_package found tilemla in '$found', not in $prefix"
cmake --build "$work/cmake"
"$work/cmake/tilemla-consumer"

echo "== the soname: libtilemla.so.MAJOR.MINOR, what the consumer needs"
elf_entries() { # elf_entries FILE TAG: the names of FILE's TAG entries
  readelf -d "$1" | sed -n "s/.*($2).*\[\(.*\)\]/\1/p"
}
soname=$(elf_entries "$lib/libtilemla.so" SONAME)
if grep -q '^TILEMLA_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
  expected=libtilemla.so # a wheel's library keeps the plain name
else
  version=$(sed -n 's/^Version: //p' "$lib/pkgconfig/tilemla.pc")
  expected=libtilemla.so.${version%.*}
fi
[ "$soname" = "$expected" ] ||
  fail "libtilemla.so's soname is '$soname', not $expected"
[ -f "$lib/$soname" ] || fail "no $soname in $lib"
grep -qxF "$soname" <<<"$(elf_entries "$work/cmake/tilemla-consumer" NEEDED)" ||
  fail "the consumer does not need $soname"
echo "$soname"
echo "== the installed tools find the library from where the install moved"
env -i "$prefix/bin/tilec" "$source_dir/kernels/examples/vector_add.tile" \
  --emit=summary >/dev/null || fail "the installed tilec does not run"

echo "== pkg-config tilemla"
export PKG_CONFIG_PATH=$lib/pkgconfig
flags=$(pkg-config --cflags --libs tilemla)
libdir=$(pkg-config --variable=libdir tilemla)
[ "$(cd "$libdir" && pwd)" = "$lib" ] ||
  fail "tilemla.pc's libdir $libdir is not $lib"
# shellcheck disable=SC2086 # the flags are words
"$cxx" -std=c++17 -O1 "$consumer/main.cpp" $flags -Wl,-rpath,"$libdir" \
  -o "$work/pkg-config-consumer"
"$work/pkg-config-consumer"

echo "== the C ABI from C (tests/capi/CApiTest.c) with pkg-config"
# shellcheck disable=SC2086 # the flags are words
"${CC:-cc}" -std=c99 -D_POSIX_C_SOURCE=200112L -O1 \
  "$source_dir/tests/capi/CApiTest.c" $flags -lm -Wl,-rpath,"$libdir" \
  -o "$work/c-consumer"
TILEMLA_CACHE=off "$work/c-consumer"

echo "== the public headers' closure"
cflags=$(pkg-config --cflags tilemla)
# shellcheck disable=SC2086
headers=$("$cxx" -std=c++17 -M "$consumer/main.cpp" $cflags |
  grep -o '[^ \\]*\.h')
leaks=$(grep -E '/(llvm|mlir|fmt)/|/llvm-[0-9]+/' <<<"$headers" || true)
[ -z "$leaks" ] || fail "the public headers include LLVM/MLIR/fmt:"$'\n'"$leaks"
own=$(grep '/include/tilemla/' <<<"$headers" | xargs readlink -f)
outside=$(grep -v "^$prefix/include/" <<<"$own" || true)
[ -z "$outside" ] || fail "headers not from the install:"$'\n'"$outside"
echo "$(wc -l <<<"$own") tilemla headers, all from $prefix/include"
echo "test-install: passed"
