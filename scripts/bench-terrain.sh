#!/usr/bin/env bash
# Terrain at MapSize 8192 on this machine: three runs of
#   1. examples/terrain_bench — the noise crate's raw 7-octave fBm over the map (the baseline)
#      and islagen's topography stage over the same map, in one process; then every stage,
#   2. the real command, `islagen --seed S --size 8192 --skip-roads`, under /usr/bin/time -v
#      for wall time and peak memory (generation, both blueprint writes and both snapshots).
# Usage: scripts/bench-terrain.sh [SIZE] [SEED]   (defaults 8192 and 1)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-8192}
seed=${2:-1}
dir=target/bench-terrain
mkdir -p "$dir"
cargo build --release -p islagen-tools --example terrain_bench >/dev/null 2>&1
cargo build --release >/dev/null 2>&1
for run in 1 2 3; do
  echo "== run $run"
  target/release/examples/terrain_bench "$size" "$seed" "$dir"
  /usr/bin/time -v target/release/islagen --seed "$seed" --size "$size" --skip-roads -q \
      --out "$dir" 2> "$dir/time.txt" >/dev/null
  awk -F': ' '/Elapsed \(wall clock\)/ {print "islagen wall        ", $2}
              /Maximum resident set size/ {printf "islagen peak RSS     %.0f MiB\n", $2 / 1024}' "$dir/time.txt"
  rm -f "$dir"/MapData_Seed_"$seed"*.dat "$dir"/Map_Seed_"$seed"_*.png
done
