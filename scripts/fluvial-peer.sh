#!/usr/bin/env bash
# A peer's fluvial landscape-evolution step on the same heights as islagen's: landlab's
# FlowAccumulator(D8) + FastscapeEroder + LinearDiffuser with uniform uplift
# (scripts/fluvial-peer.py), timed per step at 1024², beside islagen's own numbers printed by
# examples/fluvial_dump. landlab goes into a virtual environment under target/ (never a project
# dependency), shared with scripts/geomorph.py.
# Usage: scripts/fluvial-peer.sh [SEED [STEPS]]   (default 7, 20; more flags of fluvial-peer.py
# after them, e.g. --depressions, --uplift 1e-3)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/geomorph-venv
# The venv is shared by the geomorph scripts: install what this one imports if it is missing.
if ! "$venv/bin/python" -c 'import numpy, tifffile, landlab, numba' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy tifffile pillow landlab 'requireit<0.9' numba
fi
seed=${1:-7}
steps=${2:-20}
shift $(( $# < 2 ? $# : 2 ))
cargo run --release --quiet -p islagen-tools --example fluvial_dump -- "$seed" target/fluvial-peer
"$venv/bin/python" scripts/fluvial-peer.py target/fluvial-peer/heights.f32 1024 "$steps" "$@"
