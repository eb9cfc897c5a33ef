#!/usr/bin/env bash
# Installs what building tilemla needs (Debian 12 + LLVM/MLIR 22 packages),
# only when something is missing. Safe to run repeatedly.
set -euo pipefail
packages=(cmake g++ llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
          libzstd-dev zlib1g-dev libfmt-dev libgtest-dev libdlpack-dev python3 python3-dev
          python3-venv pkg-config)
# --fuzz: also clang-22 and its runtimes (libFuzzer, ASan, UBSan) for
# scripts/fuzz.sh.
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang-22 libclang-rt-22-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi
