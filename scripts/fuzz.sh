#!/usr/bin/env bash
# Fuzzes the compiler: builds the libFuzzer target (tests/fuzz, the `fuzz`
# preset: clang-22 with ASan and UBSan) and runs it for SECONDS (default 60)
# from a corpus of every .tile file in the repository (MLA kernels with
# `#-D H=16`, see tests/fuzz/FuzzCompile.cpp for the header lines). Fails on
# a crash, an abort, an LLVM fatal error, a sanitizer report, a leak, a hang
# or a blow-up; the input is left in build-fuzz/crashes/ (run the target on it to
# reproduce). Inputs it finds interesting go to build-fuzz/corpus/.
#   scripts/fuzz.sh [SECONDS] [libFuzzer options...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
scripts/install-deps.sh --fuzz
cmake --preset fuzz >/dev/null
cmake --build build-fuzz --target tilemla-fuzz-compile -j"$(nproc)"

corpus=build-fuzz/corpus seeds=build-fuzz/seeds
rm -rf "$seeds" && mkdir -p "$seeds" "$corpus" build-fuzz/crashes
n=0
while IFS= read -r -d '' file; do
  n=$((n + 1))
  case "$file" in
  kernels/mla/*) { echo "#-D H=16"; cat "$file"; } >"$seeds/$n.tile" ;;
  *) cp "$file" "$seeds/$n.tile" ;;
  esac
done < <(find kernels tests -name '*.tile' -print0 | sort -z)
echo "fuzz: $n seed files, ${seconds} s"
# 300 s for one input is a hang, 6 GiB a blow-up. (Slow is not: LLVM's
# straight-line strength reduction is quadratic in a long unrolled body;
# 4096 unrolled stores take 8 s under ASan.)
build-fuzz/bin/tilemla-fuzz-compile "$corpus" "$seeds" \
  -max_total_time="$seconds" -timeout=300 -rss_limit_mb=6144 -max_len=16384 \
  -artifact_prefix=build-fuzz/crashes/ -print_final_stats=1 "$@"
