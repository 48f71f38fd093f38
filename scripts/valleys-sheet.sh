#!/usr/bin/env bash
# The README's valleys contact sheet (issue 26): 12 seeds at 2048, Erosion "off" beside the
# default "v2", as land hillshades (scripts/hillshade-sheet.py, in the geomorph venv), and the
# drainage figures of every v2 world (scripts/geomorph.py) into target/valleys/figures.txt.
# Usage: scripts/valleys-sheet.sh [SIZE] [SEEDS...]   (default 2048, seeds 1..12)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/geomorph-venv
# The venv is shared by the geomorph scripts: install what this one imports if it is missing.
if ! "$venv/bin/python" -c 'import numpy, tifffile, PIL, numba' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy tifffile pillow numba
fi
size=${1:-2048}
shift || true
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3 4 5 6 7 8 9 10 11 12)
cargo build --release --quiet
bin=target/release/islagen
out=target/valleys
mkdir -p "$out"
echo '{ "Erosion": "off" }' >"$out/off.json"
pairs=()
: >"$out/figures.txt"
for seed in "${seeds[@]}"; do
  for model in off v2; do
    dir="$out/$model-$seed-$size"
    if [ "$model" = off ]; then cfg=(--config "$out/off.json"); else cfg=(); fi
    "$bin" --seed "$seed" --size "$size" --skip-roads "${cfg[@]}" --out "$dir" >/dev/null 2>&1
    "$bin" export heightmap --from "$dir/MapData_Seed_$seed.dat" --format tiff --out "$dir/h.tif" >/dev/null
  done
  dir="$out/v2-$seed-$size"
  "$bin" export splat --from "$dir/MapData_Seed_$seed.dat" --out "$dir/splat" >/dev/null
  { echo "== seed $seed at $size (v2)"; "$venv/bin/python" scripts/geomorph.py --tiff "$dir/h.tif" \
    --sidecar "$dir/h.tif.json" --rivers "$dir/splat/rivers.png" --json "$dir/gm.json" | grep '^('; } >>"$out/figures.txt"
  pairs+=("seed $seed=$out/off-$seed-$size/h.tif,$dir/h.tif")
done
"$venv/bin/python" scripts/hillshade-sheet.py "$out/valleys-$size.png" 256 3 "${pairs[@]}"
echo "wrote $out/valleys-$size.png and $out/figures.txt"
