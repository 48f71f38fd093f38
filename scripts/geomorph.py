"""Geomorphometry of a generated world: is its drainage a fluvial landscape's?

Usage:
    geomorph.py --tiff H.tif --sidecar H.tif.json [--rivers splat/rivers.png] [--resample N]
                [--channel-km2 0.05] [--min-height 30] [--splat SPLAT_DIR] [--json OUT.json]

Input: the float32 GeoTIFF of `islagen export heightmap --format tiff` (metres above sea, row 0 =
north) and its JSON sidecar (`sea_level_m`, always 0 for the float format, and
`metres_per_pixel`; without the latter the world's 8192 m width / N is used). Optionally the
river mask `rivers.png` of `islagen export splat` (nonzero = river). `--resample N`
block-averages the heights to N x N first (N must divide the size) and ORs the river mask over
the same blocks (a coarse pixel is river when any of its fine pixels is), so that worlds of
different MapSize are measured on the same grid. Optionally (`--splat DIR`) the directory of
`islagen export splat`, for the massif mask of (h): splat_1.png (RGBA = forest, foothills,
plateau, mountain) and splat_2.png (R = snow), 8-bit weights; massif = pixels with plateau +
mountain + snow weight >= 128 (of 255) and h > 0 (scripts/playability.py's definition). With
--resample the summed weight is block-averaged before the >= 128 test.

Method (all in numpy + numba, no landlab components; landlab is only used by the self-test):

* Base level: every cell at or below sea level, and every cell on the grid's border, is an
  outlet. Land = cells above sea level.
* Depressions are filled by Priority-Flood + epsilon (Barnes, Lehman & Mulla 2014): a cell
  reached from a lower-or-equal neighbour is raised to that neighbour's filled height + 1e-7 m,
  so every non-outlet cell has a strictly lower neighbour and flats drain towards their spill.
* Receivers: D8 steepest descent on the filled surface, (f - f_n) / d with d = dx or dx*sqrt 2.
* Drainage area A (km^2) counts the cell itself (landlab's convention), accumulated in
  Braun & Willett's (2013) stack order. L = the longest upstream flow path to a cell (km,
  measured along D8 steps from the divide).
* Downstream slope S = (h - h_receiver) / d on the ORIGINAL (unfilled) heights.
* "Above 30 m" (`--min-height`) means the FILLED height exceeds sea + 30 m (identical to the
  original height except inside filled depressions; filled heights never decrease downstream,
  so every flow path crosses the threshold once and chi basins are whole trees).
* Channels: A >= A_c (`--channel-km2`, default 0.05 km^2) on land. The statistics (a)-(d) use
  channel cells above 30 m; (e) and (f) use all land channels.

Figures:
(a) slope-area (Flint 1974; Whipple 2004): channel cells above 30 m, binned in 0.1-decade bins
    of log10 A; per bin the median S (of all its cells, zeros included) and the median log10 A;
    bins with >= 20 cells and median S > 0 are fitted by least squares,
    log10 S = log10 ks - theta log10 A; reports theta, ks (S at A = 1 km^2) and R^2 of the fit.
(b) chi (Perron & Royden 2013): a chi basin is a connected tree of channel cells above 30 m; its
    base is the cell whose receiver is not in the tree (the channel drops below 30 m there, or
    reaches an outlet). chi = 0 at the base and chi_i = chi_receiver + (A0 / A_i)^theta * d_i
    upstream, A0 = 1 km^2, d in metres. For each theta_ref in 0.10, 0.15, ..., 1.00, each basin
    with >= 50 cells gets an OLS fit of original elevation on chi and its R^2; the score is the
    mean of the basins' R^2 weighted by the drainage area at their base ("area-weighted"; the
    cell-count-weighted mean is reported too). Reports the theta with the highest area-weighted
    score and that score, the best cell-weighted theta, and the median over basins of the fitted
    dz/dchi at that theta (the normalised steepness ksn for A0 = 1 km^2: S at A = 1 km^2).
(c) of channel cells above 30 m, the share with S exactly 0 (h equals the receiver's h) and,
    separately, the share with S <= 0 (flats plus reverse steps inside filled pits).
(d) Hack's law (Hack 1957): channel cells above 30 m with A >= 0.1 km^2, OLS of
    log10 L = log10 c + h log10 A over all those cells; reports h, c, R^2.
(e) channel heads: cells of the network (A >= A_c, all land) that no network cell drains into;
    their count and the share above 30 m.
(f) with --rivers: the share of river-mask pixels within 2 pixels (Chebyshev, a 5 x 5 window,
    on the analysed grid) of a network cell; and the converse, channels near a river pixel.
(g) land slope from central differences (numpy.gradient, one-sided at the border), in degrees:
    the median over land and the share of land below 2 degrees.
(h) with --splat: branching. Its own channels: land cells with a receiver and A >= 0.01 km^2
    (BRANCH_KM2, independent of --channel-km2). Shreve (1966) magnitude, in stack order: a
    channel cell no channel cell drains into has magnitude 1, any other the sum of its channel
    donors' magnitudes. Reports the mean magnitude of the channel cells with 0.08 <= A <= 0.15
    km^2 (8-15x the threshold), over all land and over massif cells only. Massif exits: channel
    cells in the massif whose receiver is not (a massif valley leaving it, into lower ground or
    the sea); each exit's tree = the channel cells in the massif that drain to it through
    massif channel cells; an exit WITHOUT A JUNCTION is one whose tree has no cell with >= 2
    channel donors in the massif, i.e. its Shreve magnitude counted over massif channel cells
    only is 1. Reports the exits' count, the share without a junction, and the count of massif
    channel heads (massif channel cells with no channel donor at all) and their density per
    km^2 of massif. With --rivers too, river heads: river-mask land pixels whose FILLED height
    (flats broken towards their spill) is >= that of every river-mask land pixel within 2
    pixels (a 5 x 5 window: a 3 x 3 one also takes small bumps of a river's bed for heads), an
    8-connected cluster of them (a two-pixel-wide source) being one head, at the original
    height of its highest pixel; their count and the median of those heights above sea.

References:
    Barnes, R., Lehman, C., Mulla, D. (2014) Priority-flood: an optimal depression-filling and
        watershed-labeling algorithm for digital elevation models. Computers & Geosciences 62.
    Braun, J., Willett, S. D. (2013) A very efficient O(n), implicit and parallel method to
        solve the stream power equation governing fluvial incision and landscape evolution.
        Geomorphology 180-181.
    Flint, J. J. (1974) Stream gradient as a function of order, magnitude, and discharge.
        Water Resources Research 10(5).
    Hack, J. T. (1957) Studies of longitudinal stream profiles in Virginia and Maryland. USGS
        Professional Paper 294-B.
    Perron, J. T., Royden, L. (2013) An integral approach to bedrock river profile analysis.
        Earth Surface Processes and Landforms 38.
    Shreve, R. L. (1966) Statistical law of stream numbers. Journal of Geology 74(1).
    Whipple, K. X. (2004) Bedrock rivers and the geomorphology of active orogens. Annual Review
        of Earth and Planetary Sciences 32.

Steady-state stream-power landscapes (detachment-limited, S = (U/K)^(1/n) A^(-m/n)) give
theta = m/n by both (a) and (b); scripts/geomorph-selftest.py checks that on a landlab one.
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
from numba import njit  # noqa: E402

EPS = 1e-7  # metres added per step across a filled flat
DR = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)
DC = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)
DIAG = np.array([1, 0, 1, 0, 0, 1, 0, 1], dtype=np.bool_)
BRANCH_KM2 = 0.01  # (h) channel threshold
BRANCH_BAND_KM2 = (0.08, 0.15)  # (h) the cells whose mean Shreve magnitude is reported
MASSIF_W = 128  # (h) plateau + mountain + snow splat weight, as in scripts/playability.py


# ----------------------------------------------------------------------------- numba kernels


@njit(cache=True)
def _heap_push(keys, seqs, vals, size, key, seq, val):
    i = size
    keys[i] = key
    seqs[i] = seq
    vals[i] = val
    while i > 0:
        p = (i - 1) >> 1
        if keys[p] < keys[i] or (keys[p] == keys[i] and seqs[p] < seqs[i]):
            break
        keys[p], keys[i] = keys[i], keys[p]
        seqs[p], seqs[i] = seqs[i], seqs[p]
        vals[p], vals[i] = vals[i], vals[p]
        i = p
    return size + 1


@njit(cache=True)
def _heap_pop(keys, seqs, vals, size):
    top = vals[0]
    size -= 1
    keys[0] = keys[size]
    seqs[0] = seqs[size]
    vals[0] = vals[size]
    i = 0
    while True:
        lo = i
        a = 2 * i + 1
        b = a + 1
        if a < size and (keys[a] < keys[lo] or (keys[a] == keys[lo] and seqs[a] < seqs[lo])):
            lo = a
        if b < size and (keys[b] < keys[lo] or (keys[b] == keys[lo] and seqs[b] < seqs[lo])):
            lo = b
        if lo == i:
            break
        keys[lo], keys[i] = keys[i], keys[lo]
        seqs[lo], seqs[i] = seqs[i], seqs[lo]
        vals[lo], vals[i] = vals[i], vals[lo]
        i = lo
    return top, size


@njit(cache=True)
def fill_route(h, base, dx, eps):
    """Priority-Flood + eps fill; D8 receivers on the filled surface; stack order; A and L.

    h: (R, C) float64 heights; base: (R, C) bool outlets. Returns filled, receiver (flat
    index, self for base cells), distance to receiver (m), stack order (downstream first),
    area in cells, longest upstream path (m)."""
    R, C = h.shape
    n = R * C
    hf = h.ravel()
    bf = base.ravel()
    f = hf.copy()
    closed = bf.copy()
    keys = np.empty(n, np.float64)
    seqs = np.empty(n, np.int64)
    vals = np.empty(n, np.int64)
    pit = np.empty(n, np.int64)
    size = 0
    seq = 0
    for i in range(n):
        if not bf[i]:
            continue
        r, c = i // C, i % C
        seed = False
        for k in range(8):
            rr, cc = r + DR[k], c + DC[k]
            if 0 <= rr < R and 0 <= cc < C and not bf[rr * C + cc]:
                seed = True
                break
        if seed:
            size = _heap_push(keys, seqs, vals, size, f[i], seq, i)
            seq += 1
    ph = 0
    pt = 0
    while size > 0 or pt > ph:
        if pt > ph:
            i = pit[ph]
            ph += 1
        else:
            i, size = _heap_pop(keys, seqs, vals, size)
        r, c = i // C, i % C
        for k in range(8):
            rr, cc = r + DR[k], c + DC[k]
            if rr < 0 or rr >= R or cc < 0 or cc >= C:
                continue
            j = rr * C + cc
            if closed[j]:
                continue
            closed[j] = True
            if f[j] <= f[i] + eps:
                f[j] = f[i] + eps
                pit[pt] = j
                pt += 1
            else:
                size = _heap_push(keys, seqs, vals, size, f[j], seq, j)
                seq += 1
        if ph == pt:
            ph = 0
            pt = 0
    # receivers
    rec = np.arange(n)
    dist = np.zeros(n, np.float64)
    s2 = math.sqrt(2.0)
    for i in range(n):
        if bf[i]:
            continue
        r, c = i // C, i % C
        best = 0.0
        for k in range(8):
            rr, cc = r + DR[k], c + DC[k]
            if rr < 0 or rr >= R or cc < 0 or cc >= C:
                continue
            j = rr * C + cc
            d = dx * s2 if DIAG[k] else dx
            g = (f[i] - f[j]) / d
            if g > best:
                best = g
                rec[i] = j
                dist[i] = d
    # donors (CSR) and stack order
    ndon = np.zeros(n + 1, np.int64)
    for i in range(n):
        if rec[i] != i:
            ndon[rec[i] + 1] += 1
    for i in range(n):
        ndon[i + 1] += ndon[i]
    fillp = ndon[:n].copy()
    don = np.empty(max(ndon[n], 1), np.int64)
    for i in range(n):
        if rec[i] != i:
            don[fillp[rec[i]]] = i
            fillp[rec[i]] += 1
    order = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    k = 0
    for b in range(n):
        if rec[b] != b:
            continue
        sp = 0
        stack[sp] = b
        sp += 1
        while sp > 0:
            sp -= 1
            c = stack[sp]
            order[k] = c
            k += 1
            for q in range(ndon[c], ndon[c + 1]):
                stack[sp] = don[q]
                sp += 1
    area = np.ones(n, np.float64)
    length = np.zeros(n, np.float64)
    for q in range(n - 1, -1, -1):
        c = order[q]
        r = rec[c]
        if r != c:
            area[r] += area[c]
            lc = length[c] + dist[c]
            if lc > length[r]:
                length[r] = lc
    return f.reshape(R, C), rec, dist, order[:k], area, length


@njit(cache=True)
def chi_basins(order, rec, dist, member, area_km2):
    """Basin id (-1 outside) of each member cell; the base's cell; the chi increments'
    geometry is done per theta in chi_values."""
    n = rec.size
    basin = np.full(n, -1, np.int64)
    nb = 0
    bases = np.empty(n, np.int64)
    for q in range(order.size):
        c = order[q]
        if not member[c]:
            continue
        r = rec[c]
        if r != c and member[r]:
            basin[c] = basin[r]
        else:
            basin[c] = nb
            bases[nb] = c
            nb += 1
    return basin, bases[:nb].copy()


@njit(cache=True)
def chi_values(order, rec, dist, basin, area_km2, theta):
    n = rec.size
    chi = np.zeros(n, np.float64)
    for q in range(order.size):
        c = order[q]
        if basin[c] < 0:
            continue
        r = rec[c]
        if r != c and basin[r] == basin[c]:
            chi[c] = chi[r] + (1.0 / area_km2[c]) ** theta * dist[c]
    return chi


@njit(cache=True)
def shreve(order, rec, member):
    """Shreve magnitude of the member cells (0 elsewhere) and each cell's count of member
    donors; a member's downstream neighbour counts only when it is a member too."""
    n = rec.size
    mag = np.zeros(n, np.int64)
    ndon = np.zeros(n, np.int64)
    for q in range(order.size - 1, -1, -1):
        c = order[q]
        if not member[c]:
            continue
        if mag[c] == 0:
            mag[c] = 1
        r = rec[c]
        if r != c and member[r]:
            mag[r] += mag[c]
            ndon[r] += 1
    return mag, ndon


# ----------------------------------------------------------------------------- helpers


def ols(x, y):
    """slope, intercept, R^2 of y on x."""
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    if x.size < 2:
        return float("nan"), float("nan"), float("nan")
    xm, ym = x.mean(), y.mean()
    sxx = ((x - xm) ** 2).sum()
    syy = ((y - ym) ** 2).sum()
    if sxx == 0:
        return float("nan"), float("nan"), float("nan")
    sxy = ((x - xm) * (y - ym)).sum()
    b = sxy / sxx
    r2 = sxy * sxy / (sxx * syy) if syy > 0 else float("nan")
    return float(b), float(ym - b * xm), float(r2)


def grown(mask, k=2):
    """Cells within Chebyshev distance k of a True cell."""
    R, C = mask.shape
    p = np.pad(mask, k)
    out = np.zeros_like(mask)
    for dr in range(-k, k + 1):
        for dc in range(-k, k + 1):
            out |= p[k + dr : k + dr + R, k + dc : k + dc + C]
    return out


def block(a, n, how):
    s = a.shape[0]
    if a.shape[0] != a.shape[1]:
        sys.exit(f"geomorph: grid {a.shape} is not square")
    if s % n:
        sys.exit(f"geomorph: --resample {n} does not divide the size {s}")
    k = s // n
    v = a.reshape(n, k, n, k)
    return v.mean(axis=(1, 3)) if how == "mean" else v.any(axis=(1, 3))


def share(num, den):
    return float(num) / float(den) if den else float("nan")


def river_heads(riv, f, h, k=2):
    """River heads: river pixels whose filled height is >= that of every river pixel within k
    pixels (Chebyshev), 8-connected clusters of them counting as one head. Returns each head's
    height (the highest original height of its cluster)."""
    from scipy import ndimage

    fr = np.where(riv, f, -np.inf)
    top = ndimage.maximum_filter(fr, size=2 * k + 1, mode="constant", cval=-np.inf)
    lab, n = ndimage.label(riv & (fr >= top), structure=np.ones((3, 3), bool))
    return np.asarray(ndimage.maximum(h, lab, np.arange(1, n + 1)) if n else [], np.float64)


def read_massif_weight(splat_dir):
    """plateau + mountain + snow splat weight (0..255 per pixel, uint16); scripts/playability.py
    reads it from here too."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None  # 32768^2 splats are legitimate
    s1 = np.asarray(Image.open(os.path.join(splat_dir, "splat_1.png")).convert("RGBA"))
    w = s1[:, :, 2].astype(np.uint16)
    w += s1[:, :, 3]
    del s1
    s2 = np.asarray(Image.open(os.path.join(splat_dir, "splat_2.png")).convert("RGBA"))
    w += s2[:, :, 0]
    return w


def branching(h, f, rec, order, A, land, has_rec, massif, rivers, cell_km2):
    """Figure (h); massif: (R, C) bool (already h > 0)."""
    ms = massif.ravel()
    ch = land & (A >= BRANCH_KM2) & has_rec
    mag, ndon = shreve(order, rec, ch)
    band = ch & (A >= BRANCH_BAND_KM2[0]) & (A <= BRANCH_BAND_KM2[1])
    bm = band & ms
    mch = ch & ms
    mmag, _ = shreve(order, rec, mch)
    exits = mch & ~ms[rec]
    heads = mch & (ndon == 0)
    m_km2 = float(ms.sum()) * cell_km2
    o = {
        "channel_km2": BRANCH_KM2,
        "channel_cells": int(ch.sum()),
        "massif_cells": int(ms.sum()),
        "massif_km2": m_km2,
        "massif_channel_cells": int(mch.sum()),
        "band_km2": list(BRANCH_BAND_KM2),
        "band_cells_land": int(band.sum()),
        "mean_shreve_band_land": float(mag[band].mean()) if band.any() else float("nan"),
        "band_cells_massif": int(bm.sum()),
        "mean_shreve_band_massif": float(mag[bm].mean()) if bm.any() else float("nan"),
        "massif_exits": int(exits.sum()),
        "share_exits_no_junction": share((mmag[exits] == 1).sum(), exits.sum()),
        "mean_massif_magnitude_at_exits": float(mmag[exits].mean()) if exits.any() else float("nan"),
        "massif_channel_heads": int(heads.sum()),
        "massif_heads_per_km2": share(heads.sum(), m_km2),
    }
    if rivers is not None:
        riv = rivers & (h > 0)
        z = river_heads(riv, f, h)
        o["river_heads"] = int(z.size)
        o["river_head_median_m"] = float(np.median(z)) if z.size else float("nan")
    return o


# ----------------------------------------------------------------------------- analysis


def analyse(h, dx, rivers=None, channel_km2=0.05, min_height=30.0, log=print, massif=None):
    """h: (R, C) metres above sea level (sea = 0); massif: (R, C) bool or None, for (h).
    Returns the figures as a dict."""
    t0 = time.perf_counter()
    R, C = h.shape
    h = np.ascontiguousarray(h, np.float64)
    base = h <= 0.0
    base[0, :] = base[-1, :] = base[:, 0] = base[:, -1] = True
    land = (h > 0.0).ravel()
    f, rec, dist, order, cells, length = fill_route(h, base, float(dx), EPS)
    t_route = time.perf_counter() - t0
    hf = h.ravel()
    ff = f.ravel()
    cell_km2 = dx * dx / 1e6
    A = cells * cell_km2
    L = length / 1000.0
    idx = np.arange(hf.size)
    has_rec = rec != idx
    S = np.zeros_like(hf)
    S[has_rec] = (hf[has_rec] - hf[rec[has_rec]]) / dist[has_rec]
    above = ff > min_height
    net = land & (A >= channel_km2) & has_rec
    chan = net & above
    out = {
        "grid": [R, C],
        "metres_per_pixel": dx,
        "channel_km2": channel_km2,
        "min_height_m": min_height,
        "land_cells": int(land.sum()),
        "network_cells": int(net.sum()),
        "channel_cells_above": int(chan.sum()),
        "filled_cells": int((land & (ff > hf + 1e-9)).sum()),
        "max_area_km2": float(A[land].max()) if land.any() else 0.0,
    }

    # (a) slope-area
    la = np.log10(A[chan])
    sc = S[chan]
    lo = math.floor(math.log10(channel_km2) * 10 + 1e-9) / 10
    b = np.floor((la - lo) * 10 + 1e-9).astype(np.int64)
    bins = []
    for k in np.unique(b):
        sel = b == k
        if sel.sum() < 20:
            continue
        ms = float(np.median(sc[sel]))
        bins.append((float(np.median(la[sel])), ms, int(sel.sum())))
    fit = [(x, math.log10(s)) for x, s, _ in bins if s > 0]
    if len(fit) >= 2:
        slope, icpt, r2 = ols([p[0] for p in fit], [p[1] for p in fit])
        sa = {"theta": -slope, "ks": 10**icpt, "r2": r2, "bins_fitted": len(fit)}
    else:
        sa = {"theta": float("nan"), "ks": float("nan"), "r2": float("nan"), "bins_fitted": len(fit)}
    sa["bins_dropped_nonpositive"] = sum(1 for _, s, _ in bins if s <= 0)
    sa["bins"] = [{"log10_A_km2": x, "median_S": s, "cells": c} for x, s, c in bins]
    out["slope_area"] = sa

    # (b) chi
    basin, bases = chi_basins(order, rec, dist, chan, A)
    nb = bases.size
    member = basin >= 0
    bid = basin[member]
    counts = np.bincount(bid, minlength=nb)
    keep = counts >= 50
    wa = A[bases] * keep
    wc = counts * keep
    z = hf[member]
    table = []
    for theta in np.round(np.arange(0.10, 1.0001, 0.05), 2):
        chi = chi_values(order, rec, dist, basin, A, float(theta))[member]
        sx = np.bincount(bid, chi, nb)
        sy = np.bincount(bid, z, nb)
        sxx = np.bincount(bid, chi * chi, nb)
        syy = np.bincount(bid, z * z, nb)
        sxy = np.bincount(bid, chi * z, nb)
        nn = np.maximum(counts, 1)
        vxx = sxx - sx * sx / nn
        vyy = syy - sy * sy / nn
        cxy = sxy - sx * sy / nn
        ok = keep & (vxx > 0) & (vyy > 0)
        r2 = np.where(ok, cxy * cxy / np.where(ok, vxx * vyy, 1.0), 0.0)
        ksn = np.where(ok, cxy / np.where(ok, vxx, 1.0), np.nan)
        table.append(
            {
                "theta": float(theta),
                "r2_area_weighted": share((r2 * wa * ok).sum(), (wa * ok).sum()),
                "r2_cell_weighted": share((r2 * wc * ok).sum(), (wc * ok).sum()),
                "ksn_median": float(np.nanmedian(ksn[ok])) if ok.any() else float("nan"),
            }
        )
    good = [t for t in table if not math.isnan(t["r2_area_weighted"])]
    if good:
        ba = max(good, key=lambda t: t["r2_area_weighted"])
        bc = max(good, key=lambda t: t["r2_cell_weighted"])
        out["chi"] = {
            "theta_best_area_weighted": ba["theta"],
            "r2_area_weighted": ba["r2_area_weighted"],
            "ksn_median_at_best": ba["ksn_median"],
            "theta_best_cell_weighted": bc["theta"],
            "r2_cell_weighted": bc["r2_cell_weighted"],
            "basins": int(keep.sum()),
            "basin_cells": int(counts[keep].sum()),
            "table": table,
        }
    else:
        out["chi"] = {"theta_best_area_weighted": float("nan"), "basins": 0, "table": table}

    # (c) flats
    out["flats"] = {
        "share_S_zero": share((sc == 0).sum(), sc.size),
        "share_S_nonpositive": share((sc <= 0).sum(), sc.size),
    }

    # (d) Hack
    hk = chan & (A >= 0.1)
    hs, hc, hr2 = ols(np.log10(A[hk]), np.log10(np.maximum(L[hk], 1e-9)))
    out["hack"] = {"h": hs, "c": 10**hc if not math.isnan(hc) else hc, "r2": hr2, "cells": int(hk.sum())}

    # (e) channel heads
    fed = np.zeros(hf.size, np.bool_)
    src = np.nonzero(net)[0]
    fed[rec[src]] = True
    heads = net & ~fed
    out["heads"] = {"count": int(heads.sum()), "share_above": share((heads & above).sum(), heads.sum())}

    # (f) rivers
    if rivers is not None:
        netg = net.reshape(R, C)
        riv = rivers & (h > 0)
        out["rivers"] = {
            "river_pixels": int(riv.sum()),
            "share_rivers_near_channel": share((riv & grown(netg)).sum(), riv.sum()),
            "share_channels_near_river": share((netg & grown(riv)).sum(), netg.sum()),
        }

    # (g) land slope
    gy, gx = np.gradient(h, dx)
    deg = np.degrees(np.arctan(np.hypot(gx, gy))).ravel()[land]
    out["land_slope"] = {
        "median_deg": float(np.median(deg)) if deg.size else float("nan"),
        "share_below_2deg": share((deg < 2.0).sum(), deg.size),
    }

    # (h) branching
    if massif is not None:
        out["branching"] = branching(h, f, rec, order, A, land, has_rec, massif & (h > 0), rivers, cell_km2)
    out["seconds"] = {"route": t_route, "total": time.perf_counter() - t0}
    return out


def summary(o, name=""):
    sa, chi, fl, hk, hd, ls = o["slope_area"], o["chi"], o["flats"], o["hack"], o["heads"], o["land_slope"]
    lines = [
        f"{name} grid {o['grid'][0]}x{o['grid'][1]} at {o['metres_per_pixel']:.3f} m; land {o['land_cells']} cells, "
        f"network (A>={o['channel_km2']} km2) {o['network_cells']}, above {o['min_height_m']:g} m {o['channel_cells_above']}; "
        f"max A {o['max_area_km2']:.2f} km2",
        f"(a) slope-area: theta {sa['theta']:.3f}, ks {sa['ks']:.4g}, R2 {sa['r2']:.3f} over {sa['bins_fitted']} bins"
        + (f" ({sa['bins_dropped_nonpositive']} bins with median S <= 0 dropped)" if sa["bins_dropped_nonpositive"] else ""),
    ]
    if chi.get("basins"):
        lines.append(
            f"(b) chi: best theta {chi['theta_best_area_weighted']:.2f} (area-weighted R2 {chi['r2_area_weighted']:.3f}, "
            f"median dz/dchi {chi['ksn_median_at_best']:.4g}); cell-weighted best {chi['theta_best_cell_weighted']:.2f} "
            f"(R2 {chi['r2_cell_weighted']:.3f}); {chi['basins']} basins, {chi['basin_cells']} cells"
        )
    else:
        lines.append("(b) chi: no basin with >= 50 channel cells")
    lines += [
        f"(c) channel cells above {o['min_height_m']:g} m with S == 0: {fl['share_S_zero']:.3f}, S <= 0: {fl['share_S_nonpositive']:.3f}",
        f"(d) Hack: h {hk['h']:.3f}, c {hk['c']:.3f}, R2 {hk['r2']:.3f} ({hk['cells']} cells)",
        f"(e) channel heads: {hd['count']}, share above {o['min_height_m']:g} m {hd['share_above']:.3f}",
    ]
    if "rivers" in o:
        rv = o["rivers"]
        lines.append(
            f"(f) river pixels within 2 px of a channel: {rv['share_rivers_near_channel']:.3f} "
            f"({rv['river_pixels']} px); channels within 2 px of a river: {rv['share_channels_near_river']:.3f}"
        )
    lines.append(f"(g) land slope: median {ls['median_deg']:.2f} deg, share < 2 deg {ls['share_below_2deg']:.3f}")
    if "branching" in o:
        br = o["branching"]
        lo, hi = br["band_km2"]
        line = (
            f"(h) branching: channels A>={br['channel_km2']:g} km2 {br['channel_cells']}; mean Shreve magnitude at "
            f"A {lo:g}..{hi:g} km2: land {br['mean_shreve_band_land']:.2f} ({br['band_cells_land']} cells), massif "
            f"{br['mean_shreve_band_massif']:.2f} ({br['band_cells_massif']}); massif ({br['massif_km2']:.2f} km2) exits "
            f"{br['massif_exits']}, without a junction {br['share_exits_no_junction']:.3f}; massif channel heads "
            f"{br['massif_channel_heads']} ({br['massif_heads_per_km2']:.1f}/km2)"
        )
        if "river_heads" in br:
            line += f"; river heads {br['river_heads']}, median height {br['river_head_median_m']:.1f} m"
        lines.append(line)
    lines.append(f"time: routing {o['seconds']['route']:.2f} s, total {o['seconds']['total']:.2f} s")
    return "\n".join(lines)


def json_safe(v):
    """NaN -> null, numpy scalars -> Python, so the JSON is standard (scripts/playability.py
    uses it too)."""
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [json_safe(x) for x in v]
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else None
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tiff", required=True, help="float32 GeoTIFF of metres above sea")
    ap.add_argument("--sidecar", help="its JSON sidecar (default: TIFF.json)")
    ap.add_argument("--rivers", help="river mask PNG (nonzero = river)")
    ap.add_argument("--resample", type=int, help="block-average to N x N first")
    ap.add_argument("--channel-km2", type=float, default=0.05)
    ap.add_argument("--min-height", type=float, default=30.0)
    ap.add_argument("--splat", help="islagen export splat directory: massif mask for (h) branching")
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args(argv)
    t = time.perf_counter()
    h = tifffile.imread(a.tiff).astype(np.float64)
    if h.ndim != 2:
        sys.exit(f"geomorph: {a.tiff} has shape {h.shape}, want one band")
    side = json.load(open(a.sidecar or a.tiff + ".json"))
    sea = float(side.get("sea_level_m", 0.0))
    dx = float(side.get("metres_per_pixel") or 8192.0 / h.shape[0])
    h -= sea
    rivers = None
    if a.rivers:
        from PIL import Image

        rivers = np.asarray(Image.open(a.rivers)) != 0
        if rivers.ndim == 3:
            rivers = rivers.any(axis=2)
    src = h.shape[0]
    shape0 = h.shape
    if a.resample and a.resample != src:
        h = block(h, a.resample, "mean")
        dx *= src / a.resample
    if rivers is not None and rivers.shape != h.shape:
        rivers = block(rivers, h.shape[0], "or")
    massif = None
    if a.splat:
        w = read_massif_weight(a.splat)
        if w.shape != shape0:
            sys.exit(f"geomorph: splat is {w.shape}, heights {shape0}")
        if w.shape != h.shape:
            w = block(w.astype(np.float64), h.shape[0], "mean")
        massif = (w >= MASSIF_W) & (h > 0)
        del w
    t_read = time.perf_counter() - t
    o = analyse(h, dx, rivers, a.channel_km2, a.min_height, massif=massif)
    o["input"] = {"tiff": a.tiff, "source_size": src, "sea_level_m": sea, "rivers": a.rivers, "read_s": t_read}
    if a.splat:
        o["input"]["splat"] = a.splat
    print(summary(o, os.path.basename(a.tiff)))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(json_safe(o), fh, indent=1)
    return o


if __name__ == "__main__":
    main()
