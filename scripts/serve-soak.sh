#!/usr/bin/env bash
# Soak test of `islagen serve` under its memory limits (issue 50): five v2 worlds at 8192 and two
# v1 ones (seeds 1-5; the v1 files of seeds 1 and 2), 200 clients for 2 minutes asking for random
# tiles of every layer and zoom, under --cache-mib 256 --world-mib 2048 --max-worlds 6; then the
# same with the five v2 worlds alone. Prints each run's JSON (tools/examples/serve_soak.rs: requests,
# errors, req/s, p50/p95/p99 latency, peak RSS against cache + world budget + 300 MiB) and
# keeps them in target/serve-soak/{all,v2}.json. The worlds are kept in target/serve-soak/ for
# the next run (~5.6 GB).
# Usage: scripts/serve-soak.sh [SECONDS [CLIENTS]]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-120}
clients=${2:-200}
cargo build --release --quiet
cargo build --release --quiet -p islagen-tools --example serve_soak
bin=target/release/islagen
root=target/serve-soak
mkdir -p "$root/all" "$root/v2"
for seed in 1 2 3 4 5; do
  dat="$root/all/MapData_Seed_$seed.dat"
  if [ ! -f "$dat" ]; then
    gen="$root/gen-$seed"
    rm -rf "$gen"
    "$bin" --seed "$seed" --size 8192 --out "$gen" >/dev/null 2>&1
    mv "$gen/MapData_Seed_$seed.dat" "$dat"
    if [ "$seed" -le 2 ]; then mv "$gen/MapData_Seed_${seed}_v1.dat" "$root/all/"; fi
    rm -rf "$gen"
  fi
  ln -f "$dat" "$root/v2/MapData_Seed_$seed.dat"
done
for set in all v2; do
  echo "== $set: $(ls "$root/$set" | tr '\n' ' ')"
  ./target/release/examples/serve_soak --bin "$bin" --dir "$root/$set" --seconds "$seconds" \
    --clients "$clients" --cache-mib 256 --world-mib 2048 --max-worlds 6 | tee "$root/$set.json"
done
