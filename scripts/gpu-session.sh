#!/usr/bin/env bash
# One lease of a GPU machine, several checks: unpacks a portable install
# (tar.xz of `cmake --install build-portable`, built elsewhere), then runs the
# named steps in order, each line of results on stdout and the full logs in
# OUT_DIR. For the developer on a GPU machine, not CI.
#   scripts/gpu-session.sh INSTALL.tar.xz|INSTALL_DIR STEP...
# Steps:
#   tests         the GPU tests (GPU_FILTER, a gtest filter; default all;
#                 GPU_SHARD=i/n runs the i-th of n shards, 0-based: the whole
#                 suite takes longer than one 600-second device call)
#   grid          the H200 anchor shapes (shared/design/H200_ANCHORS.md)
#   fp8           an fp8 cache at H=64 and 128 (L=8192, B=32,128): cp.async,
#                 TMA (the score warpgroup; the producer at 32- and 64-token
#                 steps; neither), f16 dots, and bf16
#   race          racecheck and synccheck on short fp8-on-TMA and bf16 calls
#                 at H=64 and 128
#   profile       ncu on stage 1 (PROFILE_ARGS: mla-bench flags; default
#                 fp8 on TMA, H=128 B=32 L=8192): sections and per-SASS
#                 stall samples (OUT_DIR/sass.csv)
# Environment: OUT_DIR (default $OUT or gpu-session-out), RUNS (timed calls
# per case, default 40), STEP_TIMEOUT (seconds a step, default 300).
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,21p' "$0"; exit 2; }
install=$1
shift
if [ -f "$install" ]; then
  dir=/tmp/tilemla-install-$(basename "$install" .tar.xz)
  [ -x "$dir/bin/mla-bench" ] || { mkdir -p "$dir" && tar -xJf "$install" -C "$dir"; } ||
    { echo "gpu-session: cannot unpack $install" >&2; exit 2; }
  install=$dir
fi
bin=$install/bin
[ -x "$bin/mla-bench" ] || { echo "gpu-session: no mla-bench in $bin" >&2; exit 2; }
out=${OUT_DIR:-${OUT:-gpu-session-out}}
mkdir -p "$out"
runs=${RUNS:-40}
limit=${STEP_TIMEOUT:-300}
export TILEMLA_CACHE_DIR=${TILEMLA_CACHE_DIR:-/tmp/tilemla-cache-$(basename "$install")}

# mla-bench on one grid, uniform lengths, the auto policy; result rows only.
bench() {
  local label=$1
  shift
  echo "== $label: $*"
  timeout "$limit" "$bin/mla-bench" --no-ragged --policy=auto --runs="$runs" \
    --host-calls=50 "$@" 2>&1 | tee -a "$out/bench.log" |
    grep -E '^ *[0-9]+ +[0-9]+ |error' || true
}

sanitize() { # tool, mla-bench flags
  local tool=$1
  shift
  echo "== $tool: $*"
  timeout "$limit" compute-sanitizer --tool "$tool" --print-limit 5 \
    "$bin/mla-bench" --b=2 --l=300 --page=64 --policy=auto --runs=2 \
    --warmup=1 --host-calls=1 --no-ragged --copy-mib=16 --flush-mib=16 "$@" \
    2>&1 | tee -a "$out/sanitize.log" | grep -E 'SUMMARY|rror' | head -5
}

for step in "$@"; do
  SECONDS=0
  case $step in
  tests)
    echo "== tests ${GPU_FILTER:-*} ${GPU_SHARD:-}"
    shard=()
    if [ -n "${GPU_SHARD:-}" ]; then
      shard=(env GTEST_SHARD_INDEX="${GPU_SHARD%/*}" GTEST_TOTAL_SHARDS="${GPU_SHARD#*/}")
    fi
    timeout "$limit" "${shard[@]}" "$bin/tilemla-gpu-tests" --gtest_brief=1 \
      --gtest_filter="${GPU_FILTER:-*}" >"$out/tests.log" 2>&1
    echo "exit $?"
    grep -E '^\[ mla \]|FAILED|PASSED|SKIPPED \]|Failure' "$out/tests.log" |
      cut -c1-160 | head -60
    ;;
  grid)
    while read -r h b l; do
      bench grid --h="$h" --b="$b" --l="$l" --page=64
    done <<'SHAPES'
16 1 32768
16 8 4096
16 32 4096
16 64 8192
16 128 8192
64 64 8192
64 128 4096
128 1 32768
128 8 4096
128 32 4096
128 64 8192
128 128 8192
SHAPES
    ;;
  fp8)
    for h in 128 64; do
      grid=(--h="$h" --b=32,128 --l=8192 --page=64)
      bench "fp8 cp.async" "${grid[@]}" --kv-dtype=fp8 --no-fp8-tma
      bench "fp8 TMA, score warpgroup" "${grid[@]}" --kv-dtype=fp8 --fp8-tma
      producer=(--kv-dtype=fp8 --fp8-tma --no-fp8-score-warpgroup)
      bench "fp8 TMA, producer" "${grid[@]}" "${producer[@]}"
      bench "fp8 TMA, producer, 64-token steps" "${grid[@]}" "${producer[@]}" --block-n=64
      bench "fp8 TMA, no producer" "${grid[@]}" "${producer[@]}" --no-ws
      bench "fp8 TMA, f16 dots" "${grid[@]}" --kv-dtype=fp8 --fp8-tma --f16-dots
      bench bf16 "${grid[@]}"
    done
    ;;
  race)
    for tool in racecheck synccheck; do
      for h in 64 128; do
        sanitize "$tool" --h="$h" --kv-dtype=fp8 --fp8-tma
        sanitize "$tool" --h="$h" --kv-dtype=fp8 --fp8-tma --no-fp8-score-warpgroup
        sanitize "$tool" --h="$h"
      done
    done
    ;;
  profile)
    read -ra args <<<"${PROFILE_ARGS:---h=128 --b=32 --l=8192 --kv-dtype=fp8 --fp8-tma}"
    echo "== profile: ${args[*]}"
    timeout "$limit" ncu --clock-control none -k regex:stage1 -s 3 -c 1 -f \
      --section SpeedOfLight --section WarpStateStats --section Occupancy \
      --section LaunchStats --section ComputeWorkloadAnalysis \
      --section SourceCounters -o "$out/stage1" \
      "$bin/mla-bench" --no-ragged --policy=auto --runs=2 --warmup=2 \
      --host-calls=1 --page=64 --copy-mib=16 "${args[@]}" >"$out/profile.log" 2>&1
    ncu -i "$out/stage1.ncu-rep" --page details >"$out/profile.txt" 2>&1
    ncu -i "$out/stage1.ncu-rep" --page source --csv --print-source sass \
      >"$out/sass.csv" 2>&1
    grep -E 'Duration|Registers Per|Issue Slots|Warp Cycles Per Issued' \
      "$out/profile.txt" || tail -5 "$out/profile.log"
    ;;
  *)
    echo "gpu-session: unknown step '$step'" >&2
    ;;
  esac
  echo "-- $step: ${SECONDS} s"
done
