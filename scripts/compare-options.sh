#!/usr/bin/env bash
# Times MLA decode with and without options, side by side: runs mla-bench on
# one grid once per variant, ROUNDS times over (the variants alternate, so
# the machine's drift shows as each row's spread instead of as a
# difference), and prints per case the median µs of every round of every
# variant and the ratio of each variant's best round to the first
# variant's. For the developer on a GPU machine, not CI.
#   scripts/compare-options.sh [-r ROUNDS] [-b MLA_BENCH] [-o OUT_DIR] \
#       GRID_ARGS -- VARIANT...
# GRID_ARGS: mla-bench's grid and timing flags (e.g. --h=128 --b=32,64
# --l=4096,8192 --no-ragged --policy=auto --runs=30). VARIANT: the flags a
# variant adds, one word per variant with commas for several flags ("" or
# "base" for none), e.g.: -- base --latent-halves --schedule-in-stage1
set -euo pipefail
rounds=2 bench=build/bin/mla-bench out=compare-out
while [ $# -ge 2 ]; do
  case $1 in
  -r) rounds=$2 ;;
  -b) bench=$2 ;;
  -o) out=$2 ;;
  *) break ;;
  esac
  shift 2
done
grid=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  grid+=("$1")
  shift
done
[ $# -gt 1 ] || {
  echo "compare-options: give GRID_ARGS -- VARIANT..." >&2
  exit 2
}
shift
variants=("$@")
[ -x "$bench" ] || { echo "compare-options: no mla-bench at $bench" >&2; exit 2; }
mkdir -p "$out"

for ((round = 1; round <= rounds; ++round)); do
  for i in "${!variants[@]}"; do
    flags=()
    [ "${variants[$i]}" = base ] || IFS=, read -r -a flags <<<"${variants[$i]}"
    # Its own kernel cache per variant: an option that changes a kernel
    # compiles it again, one that does not reuses it.
    TILEMLA_CACHE_DIR="$out/cache-$i" "$bench" "${grid[@]}" "${flags[@]}" \
      --json="$out/v$i-r$round.json" >"$out/v$i-r$round.txt" 2>&1 || {
      echo "compare-options: variant '${variants[$i]}' round $round failed" \
        "($out/v$i-r$round.txt)" >&2
      exit 1
    }
  done
done

python3 - "$out" "$rounds" "${variants[@]}" <<'EOF'
import json, sys
out, rounds, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
table = {}  # case -> variant -> [median per round]
for i in range(len(variants)):
    for r in range(1, rounds + 1):
        with open(f"{out}/v{i}-r{r}.json") as f:
            text = f.read().strip()
        data = json.loads(text if text.startswith("{") else "{" + text + "}")
        for x in data["results"]:
            kind = x.get("mix") or ("ragged" if x["ragged"] else "uniform")
            case = (x["h"], x.get("sq", 1), x["b"], x["l"], x["page"], kind,
                    x["policy"])
            us = x.get("median_us", float("nan"))
            table.setdefault(case, {}).setdefault(i, []).append(us)
names = [v or "base" for v in variants]
print("   H sq     B      L page kind    policy   | " + " | ".join(names)
      + " | best / " + names[0])
for case in sorted(table):
    row = table[case]
    cells = [" / ".join(f"{u:.1f}" for u in row.get(i, [])) or "-"
             for i in range(len(variants))]
    base = min(row.get(0, [float("nan")]))
    ratios = [f"{min(row[i]) / base:.3f}" for i in range(1, len(variants))
              if i in row]
    print("%4d %2d %5d %6d %4d %-7s %-8s | " % case + " | ".join(cells)
          + " | " + " ".join(ratios))
EOF
