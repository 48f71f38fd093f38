#!/usr/bin/env bash
# The rivers stage's flow kernel beside a peer's on the same heights (issue 17): islagen's
# ε-Priority-Flood + multiple-flow-direction accumulation (examples/flow_dump) against pysheds'
# fill_depressions + resolve_flats + MFD flowdir + accumulation (scripts/flow-peer.py), timed in
# the same run. pysheds goes into a virtual environment under target/ (never a project
# dependency). Usage: scripts/flow-peer.sh [SEED]   (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/peer-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet pysheds
fi
cargo run --release --quiet -p islagen-tools --example flow_dump -- "${1:-7}" target/flow-peer
"$venv/bin/python" scripts/flow-peer.py target/flow-peer
