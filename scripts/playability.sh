#!/usr/bin/env bash
# Playability over seeds: can a player walk the ground, do towns stand on level ground?
# Generates each world (--skip-roads) into target/playability/MODEL-SEED-SIZE, exports the float
# heightmap (GeoTIFF), the GeoJSON (towns) and the splat maps, runs scripts/playability.py (its
# docstring defines every figure) into DIR/playability.json, then prints a per-seed table and a
# summary over the seeds; the table is also written to target/playability/MODEL-SIZE.txt.
# Usage: scripts/playability.sh [--bin BIN] [--config off|v1|v2] [--fine-massif F] SIZE SEEDS...
#   --bin     the islagen binary (default target/release/islagen, built here with cargo first)
#   --config  the erosion model, written as { "Erosion": MODEL } (default v2, islagen's default)
#   --fine-massif  the least massif share of a fine-relief window (playability.py's, default 0.95)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=
model=v2
fine=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --config) model=$2; shift 2 ;;
    --fine-massif) fine=(--fine-massif "$2"); shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    --*) echo "playability.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
case "$model" in off|v1|v2) ;; *) echo "playability.sh: --config is off, v1 or v2, not $model" >&2; exit 2 ;; esac
[ $# -ge 2 ] || { echo "usage: scripts/playability.sh [--bin BIN] [--config off|v1|v2] SIZE SEEDS..." >&2; exit 2; }
size=$1
shift
seeds=("$@")
if [ -z "$bin" ]; then
  cargo build --release --quiet
  bin=target/release/islagen
fi
venv=target/geomorph-venv
# The venv is shared by the geomorph scripts: install what this one imports if it is missing.
if ! "$venv/bin/python" -c 'import numpy, tifffile, PIL, scipy, numba' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy tifffile pillow numba scipy
fi
root=target/playability
mkdir -p "$root"
cfg="$root/$model.json"
printf '{ "Erosion": "%s" }\n' "$model" >"$cfg"
now() { date +%s.%N; }
jsons=()
for seed in "${seeds[@]}"; do
  dir="$root/$model-$seed-$size"
  rm -rf "$dir"
  mkdir -p "$dir"
  t0=$(now)
  "$bin" --seed "$seed" --size "$size" --skip-roads --config "$cfg" --out "$dir" >"$dir/generate.log" 2>&1 ||
    { echo "playability.sh: generating seed $seed failed, see $dir/generate.log" >&2; exit 1; }
  t1=$(now)
  dat="$dir/MapData_Seed_$seed.dat"
  "$bin" export heightmap --from "$dat" --format tiff --out "$dir/h.tif" >"$dir/export.log" 2>&1
  "$bin" export geojson --from "$dat" --out "$dir/world.geojson" >>"$dir/export.log" 2>&1
  "$bin" export splat --from "$dat" --out "$dir/splat" >>"$dir/export.log" 2>&1
  t2=$(now)
  "$venv/bin/python" scripts/playability.py --tiff "$dir/h.tif" --sidecar "$dir/h.tif.json" \
    --geojson "$dir/world.geojson" --splat "$dir/splat" --json "$dir/playability.json" "${fine[@]}" >"$dir/playability.txt"
  t3=$(now)
  awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" \
    'BEGIN { printf "{\"generate\": %.3f, \"export\": %.3f, \"measure\": %.3f}\n", b - a, c - b, d - c }' >"$dir/times.json"
  echo "== seed $seed ($model, $size): $dir" >&2
  grep '^(' "$dir/playability.txt" >&2
  jsons+=("$seed=$dir")
done
"$venv/bin/python" - "$model" "$size" "${jsons[@]}" <<'EOF' | tee "$root/$model-$size.txt"
import json, statistics as st, sys

model, size, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = []
for run in runs:
    seed, d = run.split("=", 1)
    o = json.load(open(f"{d}/playability.json"))
    tm = json.load(open(f"{d}/times.json"))
    tw, wk, sp, gr = o["towns"], o["walk"], o["steep"], o["grid"]
    t = tw["tiers"]
    fine = o.get("fine") or {}
    rows.append({
        "seed": seed,
        "fail": tw["failing"], "towns": tw["count"],
        "fails": "/".join(str(t[k]["failures"]) for k in ("capitol", "hub", "village", "outpost", "poi")),
        "out_med": t["outpost"]["median_deg"], "out_max": t["outpost"]["max_deg"],
        "walk": wk.get("reached_pct"), "walk_hi": wk.get("reached_high_pct"),
        "cell": wk.get("cell_reached_pct"), "cell_hi": wk.get("cell_reached_high_pct"),
        "settle": f"{wk.get('settlements_reached')}/{wk.get('settlements')}",
        "cell_settle": f"{wk.get('cell_settlements_reached')}/{wk.get('settlements')}",
        "pois": f"{wk.get('pois_reached')}/{wk.get('pois_mainland')}",
        "steep": sp["steep_pct"], "mid": sp["mid_median_deg"],
        "x16": gr["x16"]["ratio"], "y16": gr["y16"]["ratio"], "x8": gr["x8"]["ratio"], "y8": gr["y8"]["ratio"],
        "x8p": f"{gr['x8']['max_phase']},{gr['x8']['second_phase']}",
        "fine": fine.get("median"), "finen": fine.get("windows"),
        "gen": tm["generate"], "exp": tm["export"], "meas": tm["measure"],
    })

def f(v, p=1):
    return "-" if v is None else f"{v:.{p}f}"

print(f"playability, Erosion {model}, MapSize {size}: towns failing (capitol/hub/village/outpost/poi); outpost pixel slope; "
      "walk = step rule, cell = cell-slope variant: % of mainland / % of mainland above 110 m reached; "
      "steep = % of land > 110 m over 40 deg, mid = median slope 110..200 m; grid = d2 phase max/median")
hdr = (f"{'seed':>4} {'fail':>7} {'c/h/v/o/p':>11} {'out med':>7} {'out max':>7} {'walk':>5} {'walk>110':>8} {'settl':>5} "
       f"{'pois':>5} {'cell':>5} {'cell>110':>8} {'settl':>5} {'steep':>5} {'mid':>5} {'x16':>5} {'y16':>5} {'x8':>5} "
       f"{'y8':>5} {'x8ph':>4} {'fine':>6} {'gen s':>6} {'exp s':>5} {'meas s':>6}")
print(hdr)
for r in rows:
    print(f"{r['seed']:>4} {str(r['fail']) + '/' + str(r['towns']):>7} {r['fails']:>11} {f(r['out_med']):>7} {f(r['out_max']):>7} "
          f"{f(r['walk']):>5} {f(r['walk_hi']):>8} {r['settle']:>5} {r['pois']:>5} {f(r['cell']):>5} {f(r['cell_hi']):>8} "
          f"{r['cell_settle']:>5} {f(r['steep']):>5} {f(r['mid']):>5} {f(r['x16'], 2):>5} {f(r['y16'], 2):>5} "
          f"{f(r['x8'], 2):>5} {f(r['y8'], 2):>5} {r['x8p']:>4} {f(r['fine'], 3):>6} {f(r['gen']):>6} {f(r['exp']):>5} "
          f"{f(r['meas']):>6}")

def col(k):
    return [r[k] for r in rows if r[k] is not None]

def mm(k, lo=True):
    v = col(k)
    if not v:
        return "-"
    return f"{'min' if lo else 'max'} {f(min(v) if lo else max(v))}, median {f(st.median(v))}"

print(f"summary over {len(rows)} seeds: failing towns {sum(r['fail'] for r in rows)} of {sum(r['towns'] for r in rows)}; "
      f"walk {mm('walk')} %, above 110 m {mm('walk_hi')} %; cell variant {mm('cell')} %, above 110 m {mm('cell_hi')} %; "
      f"steep {mm('steep', False)} %; grid max x16 {f(max(col('x16')), 2)}, y16 {f(max(col('y16')), 2)}, "
      f"x8 {f(max(col('x8')), 2)}, y8 {f(max(col('y8')), 2)}"
      + (f"; fine median {f(st.median(col('fine')), 3)}" if col("fine") else "")
      + f"; seconds per world: generate {f(st.median(col('gen')))}, export {f(st.median(col('exp')))}, "
        f"measure {f(st.median(col('meas')))} (medians)")
EOF
