#!/usr/bin/env bash
# Checks a portable install folder (default: install/, from
# `cmake --preset portable && cmake --build build-portable -j2 &&
#  cmake --install build-portable`) before it travels to the GPU machine:
# every ELF file needs only glibc + libgcc_s, no symbol newer than GLIBC_2.36,
# and tilec compiles a kernel with an empty environment.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-install}
allowed='^(libc|libm|libdl|libpthread|librt|libgcc_s|ld-linux-x86-64|libtilemla)\.so'
max_glibc=2.36
status=0
# lib/, or wherever GNUInstallDirs put the library (lib64, lib/<multiarch>).
for f in "$dir"/bin/* $(find "$dir"/lib* -name '*.so*'); do
  [ -f "$f" ] || continue
  while read -r lib; do
    if ! [[ $lib =~ $allowed ]]; then
      echo "check-portable: $f needs $lib" >&2
      status=1
    fi
  done < <(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  newest=$(objdump -T "$f" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)
  if [ -n "$newest" ] &&
     [ "$(printf '%s\n%s\n' "$newest" "$max_glibc" | sort -V | tail -1)" != "$max_glibc" ]; then
    echo "check-portable: $f needs GLIBC_$newest (> $max_glibc)" >&2
    status=1
  fi
done
if env -i ldd "$dir/bin/tilec" | grep -Eq 'libLLVM|libMLIR|not found'; then
  echo "check-portable: tilec resolves LLVM/MLIR or misses a library" >&2
  status=1
fi
env -i "$dir/bin/tilec" kernels/examples/vector_add.tile --emit=summary || status=1
size=$(du -sb "$dir" | cut -f1)
echo "check-portable: $dir is $((size / 1048576)) MiB (cap 64 MiB, before xz)"
exit $status
