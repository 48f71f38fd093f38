#!/usr/bin/env bash
# The radially averaged power spectrum of land heights (issue 16, detail to the metre): the fit
# slope over 64-512 m and, per wavelength, the measured power over that power law.
# Usage: scripts/spectrum.sh [SIZE] [SEED] [CONFIG.json]   (defaults 8192 7)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet -p islagen-tools --example spectrum -- "${1:-8192}" "${2:-7}" ${3:+"$3"}
