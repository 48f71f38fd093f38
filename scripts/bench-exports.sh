#!/usr/bin/env bash
# Times every export of issue 19 on one MapSize 8192 world, as a user runs them: the CLI,
# reading the blueprint, exporting, writing atomically (synced). Each figure is the median of
# RUNS fresh processes (timing on a shared 2-core machine is noisy: say so with the figures),
# beside a same-run baseline: reading the same blueprint alone (`islagen inspect`) and `cat`.
#
#   scripts/bench-exports.sh [SEED] [RUNS]          # default seed 1, 5 runs
#   DIR=/somewhere scripts/bench-exports.sh 1 5     # reuse a world already generated there
#
# The world (with roads) is generated once into DIR (default target/bench-exports) if its
# blueprint is missing: islagen --seed SEED --size 8192 --out DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
SEED=${1:-1}
RUNS=${2:-5}
DIR=${DIR:-target/bench-exports}
BIN=target/release/islagen
[ -x "$BIN" ] || cargo build --release
mkdir -p "$DIR"
DAT="$DIR/MapData_Seed_$SEED.dat"
[ -f "$DAT" ] || "$BIN" --seed "$SEED" --size 8192 --out "$DIR" -q >/dev/null
OUT="$DIR/exports-bench"
mkdir -p "$OUT"
TIMES=$(mktemp)
trap 'rm -f "$TIMES"' EXIT

# run NAME CMD...: RUNS runs, prints the median wall time, the range and the median peak RSS
run() {
    local name=$1
    shift
    : >"$TIMES"
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %M" -a -o "$TIMES" "$@" >/dev/null 2>&1
    done
    sort -n "$TIMES" | awk -v name="$name" '
        { t[NR] = $1; m[NR] = $2 }
        END {
            mid = int((NR + 1) / 2)
            printf "%-34s median %5.2f s  (min %.2f, max %.2f)  peak RSS %5.0f MiB\n",
                name, t[mid], t[1], t[NR], m[mid] / 1024
        }'
}

echo "world: $DAT ($(du -h "$DAT" | cut -f1)), $RUNS runs each, $(nproc) cores"
run "baseline: cat FILE > /dev/null" sh -c "cat '$DAT' > /dev/null"
run "baseline: islagen inspect (read)" "$BIN" inspect "$DAT"
run "heightmap --format png16" "$BIN" export heightmap --from "$DAT" --format png16 --out "$OUT/h.png"
run "heightmap --format r16" "$BIN" export heightmap --from "$DAT" --format r16 --out "$OUT/h.r16"
run "heightmap r16 --resample 8193" "$BIN" export heightmap --from "$DAT" --format r16 --resample 8193 --out "$OUT/h8193.r16"
run "heightmap --format tiff" "$BIN" export heightmap --from "$DAT" --format tiff --out "$OUT/h.tif"
run "splat" "$BIN" export splat --from "$DAT" --out "$OUT/splat"
run "splat --blur 16" "$BIN" export splat --from "$DAT" --out "$OUT/splat16" --blur 16
run "geojson" "$BIN" export geojson --from "$DAT" --out "$OUT/w.geojson"
ls -l "$OUT" "$OUT/splat" | awk 'NF > 5 { printf "    %-16s %12s bytes\n", $NF, $5 }'
