#!/usr/bin/env bash
# Regenerates golden/ on purpose: the world digests (golden/manifest.json) and the snapshots of
# the fixed golden seeds. Run it when a change to generation is intended, look at the new
# images (git diff shows which changed), and commit them with the change that caused them.
set -euo pipefail
cd "$(dirname "$0")/.."
ISLAGEN_UPDATE_GOLDEN=1 cargo test --release --test integration golden:: -- --nocapture
git status --short golden/
