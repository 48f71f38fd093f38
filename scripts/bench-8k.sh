#!/usr/bin/env bash
# The end-to-end benchmark: the default pipeline at MapSize 8192, with roads and with
# --skip-roads, under /usr/bin/time -v. Prints (and writes to target/bench-8k/bench-8k.md) a
# markdown table of per-stage wall time, total wall time and peak memory, beside the original
# tool's figures from GENERATOR.md (~25 min with roads, ~80 s with SkipRoads, ~12 s basins).
# Usage: scripts/bench-8k.sh [SEED] [SIZE]   (defaults 1 and 8192)
#        scripts/bench-8k.sh [SEED] ratio     --skip-roads at 8192 and at 16384, and per stage the
#                                             16384 ÷ 8192 ratio (4.0 = linear in pixels)
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${1:-1}
size=${2:-8192}
dir=target/bench-8k
mkdir -p "$dir"
cargo build --release >/dev/null 2>&1
run() { # $1 = label, $2 = MapSize, rest = extra args
  local label=$1 at=$2; shift 2
  /usr/bin/time -v target/release/islagen --seed "$seed" --size "$at" --out "$dir/out" "$@" \
    > "$dir/$label.out" 2> "$dir/$label.err"
  rm -f "$dir"/out/MapData_Seed_"$seed"*.dat "$dir"/out/Map_Seed_"$seed"_*.png
}
# "INFO <stage> in 2.52s" / "in 229.06ms" → seconds, per stage.
stages() {
  sed 's/\x1b\[[0-9;]*m//g' "$dir/$1.err" | awk '
    / INFO / && / in [0-9.]+(ms|s|µs) stage=/ {
      line = $0; sub(/^ *INFO /, "", line); sub(/ stage=.*/, "", line)
      n = split(line, w, " in "); t = w[n]; name = w[1]
      v = t + 0; if (t ~ /ms$/) v /= 1000; else if (t ~ /µs$/) v /= 1000000
      printf "%s\t%.2f\n", name, v }'
}
if [ "$size" = "ratio" ]; then
  for s in 8192 16384; do
    run "ratio-$s" "$s" --skip-roads --no-memory-check
    stages "ratio-$s" > "$dir/ratio-$s.tsv"
  done
  wall_s() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.1f", s}' "$dir/ratio-$1.err"; }
  rss_g() { awk -F': ' '/Maximum resident set size/ {printf "%.2f", $2 / 1048576}' "$dir/ratio-$1.err"; }
  {
    echo "| stage | 8192 | 16384 | ratio |"
    echo "|---|---:|---:|---:|"
    cut -f1 "$dir/ratio-8192.tsv" | while read -r stage; do
      a=$(awk -F'\t' -v s="$stage" '$1 == s {print $2}' "$dir/ratio-8192.tsv")
      b=$(awk -F'\t' -v s="$stage" '$1 == s {print $2}' "$dir/ratio-16384.tsv")
      r=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.1f ×", b / a; else print "—" }')
      echo "| $stage | $a s | ${b:-—} s | $r |"
    done
    a=$(wall_s 8192); b=$(wall_s 16384)
    echo "| **total wall** | **$a s** | **$b s** | **$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f ×", b / a}')** |"
    echo "| peak RSS | $(rss_g 8192) GiB | $(rss_g 16384) GiB | $(awk -v a="$(rss_g 8192)" -v b="$(rss_g 16384)" 'BEGIN {printf "%.1f ×", b / a}') |"
  } | tee "$dir/ratio.md"
  exit 0
fi
run roads "$size"
run skip "$size" --skip-roads
stages roads > "$dir/roads.tsv"
stages skip > "$dir/skip.tsv"
wall() { awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/$1.err"; }
rss() { awk -F': ' '/Maximum resident set size/ {printf "%.2f GiB", $2 / 1048576}' "$dir/$1.err"; }
{
  echo "| stage | with roads | --skip-roads | original (GENERATOR.md) |"
  echo "|---|---:|---:|---:|"
  cut -f1 "$dir/roads.tsv" | while read -r stage; do
    a=$(awk -F'\t' -v s="$stage" '$1 == s {print $2 " s"}' "$dir/roads.tsv")
    b=$(awk -F'\t' -v s="$stage" '$1 == s {print $2 " s"}' "$dir/skip.tsv")
    orig=""
    [ "$stage" = "basins" ] && orig="~12 s"
    [ "$stage" = "roads" ] && orig="(most of ~25 min)"
    echo "| $stage | $a | ${b:-—} | $orig |"
  done
  echo "| **total wall** | **$(wall roads)** | **$(wall skip)** | ~25 min / ~80 s |"
  echo "| peak RSS | $(rss roads) | $(rss skip) | |"
} | tee "$dir/bench-8k.md"
