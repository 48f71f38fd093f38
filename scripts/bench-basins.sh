#!/usr/bin/env bash
# Priority-flood depression filling at MapSize 8192 against RichDEM's FillDepressions on the
# same heights, in the same run:
#   islagen:  examples/basins_bench (edge outlets, RichDEM's convention; and ocean outlets, the
#             generator's, with the basin statistics), three runs each
#   RichDEM:  py-richdem's FillDepressions(epsilon=False) in a private virtualenv under target/,
#             three runs, and a cell-by-cell comparison of its result with islagen's
# The project never depends on Python; this script alone does, and installs what it needs.
# Usage: scripts/bench-basins.sh [SIZE] [SEED] [--reuse] [--previous]   (defaults 8192 and 1)
#   --reuse     fill the heights and ocean the last run left in target/bench-basins (no world
#               generation; they must be of SIZE)
#   --previous  also time the single-flood fill islagen used before issue 18, same run, and
#               check that both agree bit for bit (fills and statistics)
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
flags=()
for a in "$@"; do
  case "$a" in
    --*) flags+=("$a") ;;
    *) args+=("$a") ;;
  esac
done
size=${args[0]:-8192}
seed=${args[1]:-1}
dir=target/bench-basins
mkdir -p "$dir"
if [ ! -x "$dir/venv/bin/python" ]; then
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install --quiet py-richdem numpy
fi
cargo build --release -p islagen-tools --example basins_bench >/dev/null 2>&1
target/release/examples/basins_bench "$size" "$seed" "$dir" ${flags[@]+"${flags[@]}"} \
  | tee "$dir/islagen.txt"
"$dir/venv/bin/python" - "$dir" "$size" <<'PY' 2>/dev/null | tee "$dir/richdem.txt"
import sys, time
import numpy as np
import richdem as rd
d, n = sys.argv[1], int(sys.argv[2])
heights = np.fromfile(f"{d}/heights.f32", dtype="<f4").reshape(n, n)
ours = np.fromfile(f"{d}/filled.f32", dtype="<f4").reshape(n, n)
times = []
for run in range(3):
    a = rd.rdarray(heights.copy(), no_data=-9999.0)
    t = time.perf_counter()
    rd.FillDepressions(a, epsilon=False, in_place=True)
    times.append(time.perf_counter() - t)
    print(f"RichDEM FillDepressions, run {run + 1}: {times[-1]:.3f} s")
diff = np.abs(np.asarray(a) - ours)
print(f"RichDEM vs islagen: {int((diff > 0).sum())} cells differ, "
      f"max |difference| {diff.max():.3g}")
PY
median() { awk "/$1/ {print \$(NF-1)}" "$2" | sort -g | awk 'NR==2'; }
ours=$(median 'islagen edge-outlet fill' "$dir/islagen.txt")
theirs=$(median 'RichDEM FillDepressions' "$dir/richdem.txt")
awk -v a="$ours" -v b="$theirs" 'BEGIN {
  printf "median: islagen %.3f s, RichDEM %.3f s, ratio islagen / RichDEM = %.2f\n", a, b, a / b
}'
