"""Playability of a generated world: can a player walk its ground, do its towns stand level?

Usage:
    playability.py --tiff H.tif [--sidecar H.tif.json] --geojson world.geojson --splat SPLAT_DIR
                   [--json OUT.json]

Inputs (all from one world's MapData_Seed_S.dat):
* the float32 GeoTIFF of `islagen export heightmap --format tiff` (metres above sea, row 0 =
  north, column 0 = west) and its JSON sidecar (`metres_per_pixel` = mpp; without it 8192 m / N;
  `sea_level_m` is subtracted, always 0 for this format);
* `islagen export geojson`: towns are Point features with properties kind == "town" and tier in
  capitol / hub / village / outpost / poi; coordinates are metres from the map's SOUTH-WEST
  corner, y north, at pixel centres, so a town's pixel is column = rint(x / mpp - 0.5),
  row = rint((8192 - y) / mpp - 0.5) (the world is always 8192 m wide), clamped to the map;
* `islagen export splat` directory: splat_1.png (RGBA = forest, foothills, plateau, mountain) and
  splat_2.png (R = snow), 8-bit weights that sum to 255 over all biome channels of a pixel.

Heights are kept in float32 (one N x N array, plus an N x N float32 slope and two N x N bool
masks); every other full-size quantity is computed in bands of 512 rows, in float64.

Figures:
(slope) "over 8 m": k = max(1, round(8 / mpp)) pixels; gx = (h[r, c+k] - h[r, c-k]) / (2 k mpp),
    gy = (h[r+k, c] - h[r-k, c]) / (2 k mpp), slope = hypot(gx, gy) in m/m. Indices past the map
    edge are clamped to the edge (the denominator stays 2 k mpp). Used by (towns) and (steep).
(towns) tier limits in m/m: capitol 0.10, hub 0.12, village 0.15, outpost 0.30, poi 0.60. Per
    town: the slope at its pixel, and its footprint share = the share of the pixels within 25 m
    of its pixel centre (disc: (dr^2 + dc^2) mpp^2 <= 25^2, pixels off the map not counted) whose
    slope is <= the tier's limit. A town FAILS if its pixel's slope > limit or its footprint
    share < 0.90. Reported per tier: count, failures, median and max pixel slope in degrees
    (atan of the slope); and the total of failing towns.
(walk) on an 8 m grid: for mpp < 8 with f = 8 / mpp an integer dividing N, the heights are
    block-averaged over f x f pixels; mpp == 8 is used as is (for mpp > 8, or f not an integer
    divisor, the native grid is used with steps of mpp). A town's cell is its pixel // f.
    Walkable cells: h > 0. Breadth-first search with 8-neighbour steps from the Capitol's cell
    (if that cell is not walkable, the nearest walkable cell, Euclidean in cells); a step from a
    walkable cell to a walkable neighbour is allowed when |dh| / d <= tan(45 deg), d = 8 m or
    8 sqrt(2) m. Mainland = the 8-connected component of cells with h > 0 containing the start
    cell (slope ignored). Reported: % of mainland cells reached; % of mainland cells with
    h > 110 m reached; settlements (capitol, hub, village, outpost; all of them, wherever they
    stand) whose cell is reached / total; POIs whose cell is in the mainland: reached / total.
    A step rule lets a path cross a smooth slope along the contour: of the 8 directions the most
    level lies within 22.5 deg of the contour and climbs at most sin(22.5 deg) |grad| = 0.38
    |grad| per metre, so on a plane it stops a path only where the slope exceeds ~69 deg; it
    measures walls and cliffs, not steep ground. Hence also the CELL
    VARIANT on the same grid: a cell is passable when h > 0 and its own slope (the (slope)
    formula on the walk grid, with mpp = the cell size: k = 1, +-1 cell) is <= tan(45 deg);
    reached = the cells 8-connected to the start cell through passable cells (the start always
    counts); reported with the same four figures.
(steep) on the native grid, land with h > 110 m: % of those pixels with slope > tan(40 deg);
    median slope in degrees over land with 110 m < h <= 200 m.
(grid) grid imprint, any size. Massif = pixels with plateau + mountain + snow splat weight
    >= 128 (of 255) and h > 0. d2x[r, c] = |h[r, c-1] - 2 h[r, c] + h[r, c+1]| (c = 1 .. N-2);
    the mean of d2x over massif pixels grouped by column phase c mod 16 gives 16 phase means;
    ratio = max phase mean / median of the 16 phase means (the phase of the max is reported).
    Likewise rows: d2y[r, c] = |h[r-1, c] - 2 h[r, c] + h[r+1, c]| grouped by r mod 16. The
    same with mod 8. A surface without a grid imprint gives ratios near 1.
(fine) only when mpp <= 1: windows of 1024 x 1024 pixels on a stride of 1024 (from the
    north-west corner, whole windows only) whose pixels are >= 95 % massif. Per window: remove
    the least-squares plane z = a + b x + c y, multiply by a 2D Hann window (outer product of
    numpy.hanning(1024)), FFT power |F|^2; fine share = the power at radial frequency
    sqrt(fx^2 + fy^2) > 1/32 per metre (wavelengths under 32 m; fx, fy = numpy.fft.fftfreq(1024,
    mpp)) over all power except DC. Reported: median, min, max of the share over the windows,
    and the window count. --fine-window and --fine-massif change the 1024 and the 95 % (e.g. for
    a world whose massifs are too small to fill a 1024 px window).
"""
import argparse
import json
import math
import os
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, "target", "numba-cache"))

import numpy as np  # noqa: E402
import tifffile  # noqa: E402
from PIL import Image  # noqa: E402
from scipy import ndimage  # noqa: E402

from geomorph import json_safe, read_massif_weight  # noqa: E402  (scripts/ is on the path)

WORLD_M = 8192.0
BAND = 512  # rows per band of the full-size computations
TIERS = ["capitol", "hub", "village", "outpost", "poi"]
LIMITS = {"capitol": 0.10, "hub": 0.12, "village": 0.15, "outpost": 0.30, "poi": 0.60}
FOOTPRINT_M = 25.0
FOOTPRINT_SHARE = 0.90
WALK_GRID_M = 8.0
WALK_DEG = 45.0
HIGH_M = 110.0
MID_TOP_M = 200.0
STEEP_DEG = 40.0
MASSIF_W = 128
FINE_WIN = 1024
FINE_MASSIF = 0.95
FINE_WAVELENGTH_M = 32.0
SQRT2 = math.sqrt(2.0)

Image.MAX_IMAGE_PIXELS = None  # 32768^2 splats are legitimate

try:
    from numba import njit
except ImportError:  # numba is optional: a deque BFS does the same, slower
    njit = None


def _deg(s):
    return float(np.degrees(np.arctan(s)))


# ----------------------------------------------------------------------------- slope


def slope_field(h, mpp):
    """Slope over 8 m (m/m, float32), computed in bands of rows."""
    n_r, n_c = h.shape
    k = max(1, int(round(8.0 / mpp)))
    inv = 1.0 / (2.0 * k * mpp)
    cp = np.minimum(np.arange(n_c) + k, n_c - 1)
    cm = np.maximum(np.arange(n_c) - k, 0)
    out = np.empty(h.shape, np.float32)
    for r0 in range(0, n_r, BAND):
        r1 = min(n_r, r0 + BAND)
        rows = np.arange(r0, r1)
        b = h[r0:r1].astype(np.float64)
        gx = (b[:, cp] - b[:, cm]) * inv
        del b
        gy = (h[np.minimum(rows + k, n_r - 1)].astype(np.float64) - h[np.maximum(rows - k, 0)]) * inv
        out[r0:r1] = np.hypot(gx, gy)
    return out, k


# ----------------------------------------------------------------------------- towns


def read_towns(path):
    g = json.load(open(path))
    towns = []
    for f in g.get("features", []):
        p = f.get("properties") or {}
        if p.get("kind") != "town" or (f.get("geometry") or {}).get("type") != "Point":
            continue
        x, y = f["geometry"]["coordinates"][:2]
        towns.append({"index": p.get("index"), "tier": p.get("tier"), "x": float(x), "y": float(y)})
    return towns


def town_pixels(towns, n, mpp):
    for t in towns:
        t["col"] = int(min(n - 1, max(0, round(t["x"] / mpp - 0.5))))
        t["row"] = int(min(n - 1, max(0, round((WORLD_M - t["y"]) / mpp - 0.5))))


def towns_figure(towns, slope, mpp):
    n_r, n_c = slope.shape
    rad = int(math.floor(FOOTPRINT_M / mpp))
    dr, dc = np.mgrid[-rad : rad + 1, -rad : rad + 1]
    disc = (dr * dr + dc * dc) * mpp * mpp <= FOOTPRINT_M**2
    dr, dc = dr[disc], dc[disc]
    for t in towns:
        lim = LIMITS.get(t["tier"], float("nan"))
        r, c = t["row"], t["col"]
        rr, cc = r + dr, c + dc
        ok = (rr >= 0) & (rr < n_r) & (cc >= 0) & (cc < n_c)
        fp = slope[rr[ok], cc[ok]]
        s = float(slope[r, c])
        t["slope"] = s
        t["slope_deg"] = _deg(s)
        t["limit"] = lim
        t["footprint_share"] = float((fp <= lim).mean())
        t["footprint_pixels"] = int(fp.size)
        t["fails"] = bool(s > lim or t["footprint_share"] < FOOTPRINT_SHARE)
    tiers = {}
    for tier in TIERS + sorted({t["tier"] for t in towns} - set(TIERS), key=str):
        ts = [t for t in towns if t["tier"] == tier]
        if not ts and tier not in TIERS:
            continue
        deg = np.array([t["slope_deg"] for t in ts])
        tiers[tier] = {
            "limit": LIMITS.get(tier),
            "limit_deg": _deg(LIMITS[tier]) if tier in LIMITS else None,
            "count": len(ts),
            "failures": sum(t["fails"] for t in ts),
            "fail_pixel": sum(t["slope"] > t["limit"] for t in ts),
            "fail_footprint": sum(t["footprint_share"] < FOOTPRINT_SHARE for t in ts),
            "median_deg": float(np.median(deg)) if ts else float("nan"),
            "max_deg": float(deg.max()) if ts else float("nan"),
        }
    return {
        "footprint_radius_m": FOOTPRINT_M,
        "footprint_pixels": int(disc.sum()),
        "count": len(towns),
        "failing": sum(t["fails"] for t in towns),
        "tiers": tiers,
        "towns": towns,
    }


# ----------------------------------------------------------------------------- walk


if njit is not None:

    @njit(cache=True)
    def _bfs(hc, land, r0, c0, step, tanmax):
        n_r, n_c = hc.shape
        seen = np.zeros((n_r, n_c), np.bool_)
        q = np.empty(n_r * n_c, np.int64)
        seen[r0, c0] = True
        q[0] = r0 * n_c + c0
        head, tail = 0, 1
        lim1 = tanmax * step
        lim2 = tanmax * step * 1.4142135623730951
        while head < tail:
            i = q[head]
            head += 1
            r, c = i // n_c, i % n_c
            h0 = hc[r, c]
            for a in range(-1, 2):
                rr = r + a
                if rr < 0 or rr >= n_r:
                    continue
                for b in range(-1, 2):
                    if a == 0 and b == 0:
                        continue
                    cc = c + b
                    if cc < 0 or cc >= n_c or seen[rr, cc] or not land[rr, cc]:
                        continue
                    lim = lim2 if (a != 0 and b != 0) else lim1
                    if abs(hc[rr, cc] - h0) <= lim:
                        seen[rr, cc] = True
                        q[tail] = rr * n_c + cc
                        tail += 1
        return seen

else:

    def _bfs(hc, land, r0, c0, step, tanmax):
        from collections import deque

        n_r, n_c = hc.shape
        seen = np.zeros((n_r, n_c), np.bool_)
        seen[r0, c0] = True
        q = deque([(r0, c0)])
        lims = {1: tanmax * step, 2: tanmax * step * SQRT2}
        while q:
            r, c = q.popleft()
            h0 = hc[r, c]
            for a in (-1, 0, 1):
                for b in (-1, 0, 1):
                    rr, cc = r + a, c + b
                    if (a or b) and 0 <= rr < n_r and 0 <= cc < n_c and land[rr, cc] and not seen[rr, cc]:
                        if abs(hc[rr, cc] - h0) <= lims[abs(a) + abs(b)]:
                            seen[rr, cc] = True
                            q.append((rr, cc))
        return seen


def walk_figure(h, mpp, towns):
    n = h.shape[0]
    f = WALK_GRID_M / mpp
    if mpp < WALK_GRID_M and abs(f - round(f)) < 1e-9 and n % int(round(f)) == 0:
        f = int(round(f))
        m = n // f
        hc = np.empty((m, m), np.float64)
        rows_per = max(1, BAND // f) * f
        for r0 in range(0, n, rows_per):
            r1 = min(n, r0 + rows_per)
            hc[r0 // f : r1 // f] = h[r0:r1].astype(np.float64).reshape((r1 - r0) // f, f, m, f).mean(axis=(1, 3))
        step = WALK_GRID_M
    else:
        f = 1
        hc = h.astype(np.float64)
        step = mpp
    land = hc > 0
    cap = [t for t in towns if t["tier"] == "capitol"]
    if not cap or not land.any():
        return {"error": "no capitol" if not cap else "no land"}
    r0, c0 = cap[0]["row"] // f, cap[0]["col"] // f
    moved = 0.0
    if not land[r0, c0]:
        lr, lc = np.nonzero(land)
        j = int(np.argmin((lr - r0) ** 2 + (lc - c0) ** 2))
        moved = math.hypot(lr[j] - r0, lc[j] - c0) * step
        r0, c0 = int(lr[j]), int(lc[j])
    lab, _ = ndimage.label(land, structure=np.ones((3, 3), bool))
    main = lab == lab[r0, c0]
    del lab
    tanmax = math.tan(math.radians(WALK_DEG))
    seen = _bfs(hc, land, r0, c0, float(step), tanmax)
    high = main & (hc > HIGH_M)
    n_main, n_high = int(main.sum()), int(high.sum())
    # the cell variant: cells whose own slope is walkable, 8-connected to the start
    cs, _ = slope_field(hc.astype(np.float32), float(step))
    passable = land & (cs <= np.float32(tanmax))
    del cs
    passable[r0, c0] = True
    lab, _ = ndimage.label(passable, structure=np.ones((3, 3), bool))
    cell_seen = lab == lab[r0, c0]
    del lab, passable
    settle = [t for t in towns if t["tier"] in ("capitol", "hub", "village", "outpost")]
    pois = [t for t in towns if t["tier"] == "poi" and main[t["row"] // f, t["col"] // f]]
    for t in towns:
        t["walk_reached"] = bool(seen[t["row"] // f, t["col"] // f])
        t["on_mainland"] = bool(main[t["row"] // f, t["col"] // f])
    pct = lambda a, b: 100.0 * a / b if b else float("nan")  # noqa: E731
    return {
        "grid": [int(hc.shape[0]), int(hc.shape[1])],
        "cell_m": float(step),
        "block": f,
        "max_step_deg": WALK_DEG,
        "start_cell": [int(r0), int(c0)],
        "start_moved_m": moved,
        "land_cells": int(land.sum()),
        "mainland_cells": n_main,
        "reached_cells": int(seen.sum()),
        "reached_pct": pct(int(seen.sum()), n_main),
        "mainland_high_cells": n_high,
        "reached_high_pct": pct(int((seen & high).sum()), n_high),
        "cell_reached_pct": pct(int((cell_seen & main).sum()), n_main),
        "cell_reached_high_pct": pct(int((cell_seen & high).sum()), n_high),
        "cell_settlements_reached": sum(bool(cell_seen[t["row"] // f, t["col"] // f]) for t in settle),
        "cell_pois_reached": sum(bool(cell_seen[t["row"] // f, t["col"] // f]) for t in pois),
        "settlements": len(settle),
        "settlements_reached": sum(t["walk_reached"] for t in settle),
        "pois_mainland": len(pois),
        "pois_reached": sum(t["walk_reached"] for t in pois),
    }


# ----------------------------------------------------------------------------- steep, grid


def steep_figure(h, slope):
    tan40 = math.tan(math.radians(STEEP_DEG))
    n_high = 0
    n_steep = 0
    mids = []
    for r0 in range(0, h.shape[0], BAND):
        hb, sb = h[r0 : r0 + BAND], slope[r0 : r0 + BAND]
        hi = hb > HIGH_M
        n_high += int(hi.sum())
        n_steep += int((sb[hi] > tan40).sum())
        mids.append(sb[hi & (hb <= MID_TOP_M)])
    mids = np.concatenate(mids)
    return {
        "high_m": HIGH_M,
        "high_pixels": n_high,
        "steep_deg": STEEP_DEG,
        "steep_pct": 100.0 * n_steep / n_high if n_high else float("nan"),
        "mid_pixels": int(mids.size),
        "mid_median_deg": _deg(np.median(mids)) if mids.size else float("nan"),
    }


def read_massif(splat_dir, h):
    w = read_massif_weight(splat_dir)
    if w.shape != h.shape:
        sys.exit(f"playability: splat is {w.shape}, heights {h.shape}")
    m = w >= MASSIF_W
    del w
    m &= h > 0
    return m


def _phase_ratio(sums, counts, mod):
    idx = np.arange(sums.size) % mod
    s = np.bincount(idx, weights=sums, minlength=mod)
    c = np.bincount(idx, weights=counts, minlength=mod)
    means = np.where(c > 0, s / np.maximum(c, 1), np.nan)
    med = float(np.nanmedian(means)) if np.isfinite(means).any() else float("nan")
    ratio = float(np.nanmax(means) / med) if med > 0 else float("nan")
    order = np.argsort(-np.nan_to_num(means, nan=-1.0))
    return {"ratio": ratio, "max_phase": int(order[0]), "second_phase": int(order[1]), "means": means.tolist()}


def grid_figure(h, massif):
    n_r, n_c = h.shape
    col_s = np.zeros(n_c)
    col_n = np.zeros(n_c)
    row_s = np.zeros(n_r)
    row_n = np.zeros(n_r)
    for r0 in range(0, n_r, BAND):
        r1 = min(n_r, r0 + BAND)
        b = h[r0:r1].astype(np.float64)
        m = massif[r0:r1, 1:-1]
        d = np.abs(b[:, :-2] - 2.0 * b[:, 1:-1] + b[:, 2:])
        col_s[1:-1] += np.where(m, d, 0.0).sum(axis=0)
        col_n[1:-1] += m.sum(axis=0)
        a0, a1 = max(r0, 1), min(r1, n_r - 1)  # centre rows with both neighbours
        if a1 > a0:
            c = h[a0 - 1 : a1 + 1].astype(np.float64)
            m = massif[a0:a1]
            d = np.abs(c[:-2] - 2.0 * c[1:-1] + c[2:])
            row_s[a0:a1] = np.where(m, d, 0.0).sum(axis=1)
            row_n[a0:a1] = m.sum(axis=1)
    return {
        "massif_pixels": int(massif.sum()),
        "x16": _phase_ratio(col_s, col_n, 16),
        "y16": _phase_ratio(row_s, row_n, 16),
        "x8": _phase_ratio(col_s, col_n, 8),
        "y8": _phase_ratio(row_s, row_n, 8),
    }


def fine_figure(h, massif, mpp, w=FINE_WIN, need=FINE_MASSIF):
    fr = np.fft.fftfreq(w, mpp)
    rad = np.hypot(fr[:, None], fr[None, :])
    hi = rad > 1.0 / FINE_WAVELENGTH_M
    dc = rad == 0
    han = np.hanning(w)
    win = np.outer(han, han)
    x = np.arange(w) - (w - 1) / 2.0
    sxx = float((x * x).sum()) * w
    shares = []
    cells = []
    for r0 in range(0, h.shape[0] - w + 1, w):
        for c0 in range(0, h.shape[1] - w + 1, w):
            if massif[r0 : r0 + w, c0 : c0 + w].mean() < need:
                continue
            z = h[r0 : r0 + w, c0 : c0 + w].astype(np.float64)
            # least-squares plane on the centred regular grid: the three columns are orthogonal
            z -= z.mean()
            z -= x[None, :] * ((z * x[None, :]).sum() / sxx)
            z -= x[:, None] * ((z * x[:, None]).sum() / sxx)
            p = np.abs(np.fft.fft2(z * win)) ** 2
            tot = p.sum() - p[dc].sum()
            shares.append(float(p[hi].sum() / tot) if tot > 0 else float("nan"))
            cells.append([r0 // w, c0 // w])
    s = np.array(shares)
    return {
        "window_px": w,
        "min_massif_share": need,
        "wavelength_m": FINE_WAVELENGTH_M,
        "windows": len(shares),
        "median": float(np.median(s)) if s.size else float("nan"),
        "min": float(s.min()) if s.size else float("nan"),
        "max": float(s.max()) if s.size else float("nan"),
        "shares": shares,
        "window_cells": cells,
    }


# ----------------------------------------------------------------------------- report


def summary(o, name=""):
    tw, wk, st, gr = o["towns"], o["walk"], o["steep"], o["grid"]
    lines = [f"{name} {o['size']}x{o['size']} at {o['metres_per_pixel']:g} m/px; slope over {o['slope_span_px']} px either side"]
    for tier, d in tw["tiers"].items():
        lim = f"limit {d['limit']:.2f} ({d['limit_deg']:.1f} deg)" if d["limit"] is not None else "no limit"
        lines.append(
            f"(towns) {tier:8s} {d['count']:3d}, failing {d['failures']:3d} (pixel {d['fail_pixel']}, footprint "
            f"{d['fail_footprint']}); pixel slope median {d['median_deg']:.1f} deg, max {d['max_deg']:.1f} deg; {lim}"
        )
    lines.append(f"(towns) failing {tw['failing']} of {tw['count']}")
    if "error" in wk:
        lines.append(f"(walk) {wk['error']}")
    else:
        lines.append(
            f"(walk) {wk['cell_m']:g} m grid, steps <= {wk['max_step_deg']:g} deg from the capitol: mainland reached "
            f"{wk['reached_pct']:.1f} % of {wk['mainland_cells']} cells, above {HIGH_M:g} m {wk['reached_high_pct']:.1f} % "
            f"of {wk['mainland_high_cells']}; settlements {wk['settlements_reached']}/{wk['settlements']}, "
            f"mainland POIs {wk['pois_reached']}/{wk['pois_mainland']}"
            + (f" (start moved {wk['start_moved_m']:.0f} m to land)" if wk["start_moved_m"] else "")
        )
        lines.append(
            f"(walk) cell variant, cells with slope <= {wk['max_step_deg']:g} deg: mainland reached "
            f"{wk['cell_reached_pct']:.1f} %, above {HIGH_M:g} m {wk['cell_reached_high_pct']:.1f} %; settlements "
            f"{wk['cell_settlements_reached']}/{wk['settlements']}, mainland POIs {wk['cell_pois_reached']}/{wk['pois_mainland']}"
        )
    lines.append(
        f"(steep) land above {HIGH_M:g} m steeper than {STEEP_DEG:g} deg: {st['steep_pct']:.1f} % of {st['high_pixels']} px; "
        f"median slope {HIGH_M:g}..{MID_TOP_M:g} m: {st['mid_median_deg']:.1f} deg"
    )
    lines.append(
        f"(grid) massif {gr['massif_pixels']} px; d2 phase max/median: mod 16 x {gr['x16']['ratio']:.2f} "
        f"(phase {gr['x16']['max_phase']}), y {gr['y16']['ratio']:.2f} (phase {gr['y16']['max_phase']}); "
        f"mod 8 x {gr['x8']['ratio']:.2f} (phases {gr['x8']['max_phase']},{gr['x8']['second_phase']}), "
        f"y {gr['y8']['ratio']:.2f} (phases {gr['y8']['max_phase']},{gr['y8']['second_phase']})"
    )
    fi = o.get("fine")
    if fi is not None:
        if fi["windows"]:
            lines.append(
                f"(fine) power share under {fi['wavelength_m']:g} m: median {fi['median']:.4f}, min {fi['min']:.4f}, "
                f"max {fi['max']:.4f} over {fi['windows']} windows of {fi['window_px']} px >= "
                f"{fi['min_massif_share']:.0%} massif"
            )
        else:
            lines.append(f"(fine) no {fi['window_px']} px window is >= {fi['min_massif_share']:.0%} massif")
    sec = o["seconds"]
    lines.append("time: " + ", ".join(f"{k} {v:.2f} s" for k, v in sec.items()))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tiff", required=True, help="float32 GeoTIFF of metres above sea")
    ap.add_argument("--sidecar", help="its JSON sidecar (default: TIFF.json)")
    ap.add_argument("--geojson", required=True, help="islagen export geojson (the towns)")
    ap.add_argument("--splat", required=True, help="islagen export splat directory")
    ap.add_argument("--fine-window", type=int, default=FINE_WIN, help="(fine) window and stride in pixels")
    ap.add_argument("--fine-massif", type=float, default=FINE_MASSIF, help="(fine) least massif share of a window")
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args(argv)
    sec = {}
    t0 = t = time.perf_counter()
    h = tifffile.imread(a.tiff)
    if h.ndim != 2 or h.shape[0] != h.shape[1]:
        sys.exit(f"playability: {a.tiff} has shape {h.shape}, want one square band")
    h = np.ascontiguousarray(h, dtype=np.float32)
    side = json.load(open(a.sidecar or a.tiff + ".json"))
    sea = float(side.get("sea_level_m", 0.0) or 0.0)
    if sea:
        h -= np.float32(sea)
    n = h.shape[0]
    mpp = float(side.get("metres_per_pixel") or WORLD_M / n)
    towns = read_towns(a.geojson)
    town_pixels(towns, n, mpp)
    sec["read"] = time.perf_counter() - t
    t = time.perf_counter()
    slope, k = slope_field(h, mpp)
    sec["slope"] = time.perf_counter() - t
    o = {"input": {"tiff": a.tiff, "geojson": a.geojson, "splat": a.splat, "sea_level_m": sea}}
    o.update(size=n, metres_per_pixel=mpp, slope_span_px=k)
    t = time.perf_counter()
    o["towns"] = towns_figure(towns, slope, mpp)
    sec["towns"] = time.perf_counter() - t
    t = time.perf_counter()
    o["steep"] = steep_figure(h, slope)
    del slope
    sec["steep"] = time.perf_counter() - t
    t = time.perf_counter()
    o["walk"] = walk_figure(h, mpp, towns)
    sec["walk"] = time.perf_counter() - t
    t = time.perf_counter()
    massif = read_massif(a.splat, h)
    o["grid"] = grid_figure(h, massif)
    sec["grid"] = time.perf_counter() - t
    if mpp <= 1.0:
        t = time.perf_counter()
        o["fine"] = fine_figure(h, massif, mpp, a.fine_window, a.fine_massif)
        sec["fine"] = time.perf_counter() - t
    sec["total"] = time.perf_counter() - t0
    o["seconds"] = sec
    print(summary(o, os.path.basename(a.tiff)))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(json_safe(o), fh, indent=1)
    return o


if __name__ == "__main__":
    main()
