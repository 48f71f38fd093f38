#!/usr/bin/env python3
"""Figure (h) of scripts/geomorph.py — branching — on a real DEM, for a reference.

The DEM is the one matplotlib ships (Jacksboro fault, Tennessee; 3 arc-seconds, ~74 x 93 m
cells, taken as 83 m; 344 x 403 cells, 236-1076 m; all land, the grid's border the base level).
A "massif" is each connected region of the DEM smoothed by a Gaussian of 3 cells standing above
a percentile of its heights (50, 65, 80): a compact highland whose edge is a smooth contour, as
islagen's massif mask (plateau, mountain and snow biomes) is. islagen measures its massifs
(2.5-4 km2 a world at the defaults) with channels from 0.01 km2, i.e. 250-400 channel
thresholds a massif; here each massif's threshold is its area / RATIO (300 and 1000), skipping
thresholds under MIN_CELLS cells (channels on a handful of cells are noise). For each: the
massif's exits (channel cells whose receiver is outside it), the share of them without a
tributary junction, and the mean Shreve magnitude of massif channel cells at 8-15x the
threshold — exactly geomorph.py's `branching`, whose docstring defines them.

Usage: target/geomorph-venv/bin/python scripts/real-dem-branching.py
(the venv scripts/playability.sh makes, with matplotlib added for its sample data:
`target/geomorph-venv/bin/pip install matplotlib`).
"""

import os
import sys

import numpy as np
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import geomorph as g  # noqa: E402

CELL_M = 83.0
PERCENTILES = (50, 65, 80)
RATIOS = (300, 1000)
MIN_CELLS = 20


def main():
    try:
        from matplotlib import cbook
    except ImportError:
        sys.exit("real-dem-branching: matplotlib (its sample data) is missing: target/geomorph-venv/bin/pip install matplotlib")

    z = cbook.get_sample_data("jacksboro_fault_dem.npz")["elevation"].astype(np.float64)
    h = z - z.min() + 1.0
    base = np.zeros_like(h, bool)
    base[0, :] = base[-1, :] = base[:, 0] = base[:, -1] = True
    f, rec, _dist, order, cells, _length = g.fill_route(h, base, CELL_M, g.EPS)
    cell_km2 = CELL_M * CELL_M / 1e6
    area = cells * cell_km2
    land = np.ones(h.size, bool)
    has_rec = rec != np.arange(h.size)
    smooth = ndimage.gaussian_filter(z, 3)
    print("percentile  ratio  massif km2  threshold km2 (cells)  exits  without a junction  Shreve 8-15x")
    for pct in PERCENTILES:
        lab, n = ndimage.label(smooth > np.percentile(smooth, pct))
        for ratio in RATIOS:
            for k in range(1, n + 1):
                mask = lab == k
                km2 = mask.sum() * cell_km2
                thr = km2 / ratio
                if thr < MIN_CELLS * cell_km2:
                    continue
                g.BRANCH_KM2 = thr
                g.BRANCH_BAND_KM2 = (8 * thr, 15 * thr)
                o = g.branching(h.ravel(), f.ravel(), rec, order, area, land, has_rec, mask, None, cell_km2)
                print(
                    f"{pct:10d}  {ratio:5d}  {km2:10.0f}  {thr:13.3f} ({thr / cell_km2:5.0f})  "
                    f"{o['massif_exits']:5d}  {o['share_exits_no_junction']:18.3f}  {o['mean_shreve_band_massif']:12.2f}"
                )


if __name__ == "__main__":
    main()
