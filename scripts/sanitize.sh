#!/usr/bin/env bash
# Runs the GPU tests under compute-sanitizer's four tools (memcheck,
# racecheck, synccheck, initcheck) and prints one summary line per tool. The
# tests cover every MLA kernel variant the backend chooses (H 16/20/64/128;
# pages 1/16/33/64; cp.async and TMA, with and without the producer
# warpgroup; every split policy and the device schedule; the long 70,000-token
# requests; graph replay; several threads) and the examples, so a tool's zero
# is a zero over all of them. For the developer on a GPU machine, not CI.
#   scripts/sanitize.sh [TESTS_BINARY] [OUT_DIR]
# TESTS_BINARY: tilemla-gpu-tests (default build/bin/, or an install's bin/).
# The environment can narrow it: SANITIZE_TOOLS="racecheck synccheck",
# SANITIZE_FILTER (a gtest filter), SANITIZE_TIMEOUT (seconds per tool,
# default 3000). SANITIZE_SET=variants picks every kernel variant on short
# requests (MlaGpuTest.Variants*, with unpadded block tables, graph replay,
# threads, the fp8 conversions and the examples): minutes rather than the
# hours of the long cases. The tools run side by side (one process each);
# the kernel cache is warmed first by a plain run, which must pass.
set -uo pipefail
bin=${1:-build/bin/tilemla-gpu-tests}
out=${2:-sanitize-out}
tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
filter=${SANITIZE_FILTER:-*}
if [ "${SANITIZE_SET:-}" = variants ]; then
  filter="MlaGpuTest.Variants*:MlaGpuTest.ExactBlockTables:MlaGraphTest.*"
  filter+=":MlaThreadsTest.*:Fp8GpuTest.*:GpuTest.*"
fi
limit=${SANITIZE_TIMEOUT:-3000}
command -v compute-sanitizer >/dev/null ||
  { echo "sanitize: compute-sanitizer not found" >&2; exit 2; }
[ -x "$bin" ] || { echo "sanitize: no test binary at $bin" >&2; exit 2; }
mkdir -p "$out"

start=$(date +%s)
if ! "$bin" --gtest_filter="$filter" >"$out/plain.txt" 2>&1; then
  echo "sanitize: the plain run failed ($out/plain.txt)" >&2
  exit 1
fi
tests=$(grep -c '^\[       OK \]' "$out/plain.txt")
echo "plain: $tests tests passed in $(($(date +%s) - start)) s"

for tool in $tools; do
  # racecheck also reports shared-memory hazards as warnings: print all.
  extra=()
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  # Driver calls that fail are not reported: the runtime checks each one,
  # and RuntimeGpuTest.ImpossibleAllocationsThrow fails one on purpose.
  timeout "$limit" compute-sanitizer --tool "$tool" --print-limit 20 \
    --report-api-errors no --error-exitcode 99 "${extra[@]}" "$bin" \
    --gtest_filter="$filter" \
    >"$out/$tool.txt" 2>&1 &
done
wait

status=0
for tool in $tools; do
  log=$out/$tool.txt
  # memcheck, synccheck and initcheck end with "ERROR SUMMARY: N errors";
  # racecheck with "RACECHECK SUMMARY: N hazards displayed (E errors, W
  # warnings)".
  summary=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | tail -1 |
    sed 's/^========= //')
  passed=$(grep -c '^\[       OK \]' "$log")
  failed=$(grep -c '^\[  FAILED  \]' "$log")
  errors=$(echo "$summary" | grep -oE '[0-9]+ errors?' | tail -1 |
    grep -oE '^[0-9]+')
  if [ -z "$summary" ] || [ "$passed" -ne "$tests" ] || [ "${errors:-1}" -ne 0 ]; then
    status=1
    verdict=FAIL
  else
    verdict=ok
  fi
  # Where the reports point: the kernels named most often.
  kernels=$(grep -oE 'at [A-Za-z_][A-Za-z0-9_]*\+0x' "$log" |
    sed -E 's/^at //; s/\+0x$//' | sort | uniq -c | sort -rn | head -3 |
    awk '{printf " %s x%s", $2, $1}')
  line="$tool: $verdict: ${summary:-no summary (timed out or crashed)}"
  line+="; $passed/$tests tests passed"
  [ "$failed" -ne 0 ] && line+=", $failed failed"
  [ -n "$kernels" ] && line+="; reports in:$kernels"
  echo "$line"
done
echo "total $(($(date +%s) - start)) s; logs in $out/"
exit $status
