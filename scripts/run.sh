#!/usr/bin/env bash
# The main job: builds tilemla and compiles the example kernels to PTX,
# printing one summary line each (plus ptxas' register/shared-memory report
# when ptxas is installed); then runs mla-decode: a DeepSeek-V3-like MLA
# decode on the GPU (checked, timed, GB/s), or without a GPU the PTX
# statistics of the two MLA kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset dev >/dev/null
cmake --build build -j"$(nproc)" --target tilec mla-decode >/dev/null
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for kernel in kernels/examples/*.tile; do
  name=$(basename "$kernel" .tile)
  line=$(build/bin/tilec "$kernel" --emit=summary)
  if [ -x "$ptxas" ]; then
    build/bin/tilec "$kernel" --emit=ptx -o "$tmp/$name.ptx"
    info=$("$ptxas" -arch=sm_90a -v "$tmp/$name.ptx" -o "$tmp/$name.cubin" 2>&1 |
           grep -o 'Used [0-9]* registers' | head -1)
    line="$line ptxas: $info"
  fi
  echo "$line"
done
build/bin/mla-decode
