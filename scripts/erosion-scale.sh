#!/usr/bin/env bash
# Whether erosion means the same at every MapSize (issue 16): land shares carved past 0.5 m and
# 5 m per size and each size's carve correlation with the smallest size's.
# Usage: scripts/erosion-scale.sh [SEED] [SIZES] [CONFIG.json]   (defaults 7 1024,2048,8192)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet -p islagen-tools --example erosion_scale -- "${1:-7}" "${2:-1024,2048,8192}" ${3:+"$3"}
