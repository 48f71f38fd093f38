#!/usr/bin/env bash
# How different the seeds' islands are (issue 16's figures) for any seed range:
# mean and least pairwise land IoU, the summit spread, the crater rim's lift, land fractions.
# Usage: scripts/variety.sh [FIRST..LAST] [SIZE] [CONFIG.json]   (defaults 1..24 512)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet -p islagen-tools --example variety -- "${1:-1..24}" "${2:-512}" ${3:+"$3"}
