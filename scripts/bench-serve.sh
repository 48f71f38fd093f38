#!/usr/bin/env bash
# Load benchmark of `islagen serve`'s tiles (issue 20): generates a world (8192 by default) into
# a temporary folder (deleted afterwards), then 1000 distinct tile requests from 8 clients over
# loopback, cold then warm. Extra arguments go to the example: --size N, --world FILE,
# --requests N, --clients N, --seed N. Figures: BENCHMARKS.md, "islagen serve".
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p islagen-tools --example serve_load
/usr/bin/time -f "%e s wall, %M KB peak RSS" ./target/release/examples/serve_load "$@"
