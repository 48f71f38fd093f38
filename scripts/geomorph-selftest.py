"""Self-test of scripts/geomorph.py on a landscape whose concavity is known.

Builds a steady-state detachment-limited stream-power landscape with landlab: a 256 x 256
RasterModelGrid at 32 m (8192 m wide, like an islagen world), all four edges fixed at 0 m (sea
level), uniform uplift U, FlowAccumulator(D8) + FastscapeEroder(m_sp = 0.5, n_sp = 1) +
LinearDiffuser (weak: D = 0.001 m^2/yr; at 0.01 the 32 m grid never settles and the
concavity drifts to ~0.4), run until the mean |dz/dt| is below 1e-4 U (~1100 steps, ~1 min). At steady state fluvial cells obey
S = (U/K) A^(-m/n), so the concavity is theta = m/n = 0.5 and elevation is linear in chi at
theta = 0.5. The surface goes to a float32 GeoTIFF (tifffile) with a sidecar carrying
islagen's sea_level_m and metres_per_pixel, and geomorph.py must find theta within 0.1 of 0.5
by slope-area and by chi (its grid of 0.05 steps), both with R^2 > 0.9.

Usage: geomorph-selftest.py [--out DIR] [--steps MAX]   (default DIR target/geomorph-selftest)
Exits non-zero when a check fails.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import tifffile
from landlab import RasterModelGrid
from landlab.components import FastscapeEroder, FlowAccumulator, LinearDiffuser

HERE = os.path.dirname(os.path.abspath(__file__))
N, DX = 256, 32.0
U, K, M, NEXP, D, DT = 5e-3, 1e-4, 0.5, 1.0, 0.001, 2000.0

ap = argparse.ArgumentParser()
ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "target", "geomorph-selftest"))
ap.add_argument("--steps", type=int, default=4000)
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)

g = RasterModelGrid((N, N), xy_spacing=DX)
z = g.add_zeros("topographic__elevation", at="node")
z[g.core_nodes] += np.random.default_rng(1).random(g.number_of_core_nodes) * 0.1
fa = FlowAccumulator(g, flow_director="D8")
sp = FastscapeEroder(g, K_sp=K, m_sp=M, n_sp=NEXP)
ld = LinearDiffuser(g, linear_diffusivity=D)
core = g.core_nodes
t = time.perf_counter()
for step in range(1, a.steps + 1):
    z0 = z[core].copy()
    z[core] += U * DT
    fa.run_one_step()
    sp.run_one_step(DT)
    ld.run_one_step(DT)
    rate = np.abs(z[core] - z0).mean() / DT
    if step >= 200 and rate < 1e-4 * U:
        break
A = g.at_node["drainage_area"]
rcv = g.at_node["flow__receiver_node"][core]
dd = g.length_of_d8[g.at_node["flow__link_to_receiver_node"][core]]
S = (z[core] - z[rcv]) / dd
sel = (A[core] >= 0.05e6) & (S > 0)
ref = np.polyfit(np.log10(A[core][sel]), np.log10(S[sel]), 1)
print(
    f"landlab steady state: {N}x{N} at {DX:g} m, U {U:g} m/yr, K {K:g}, m {M}, n {NEXP}, D {D:g} m2/yr, "
    f"dt {DT:g} yr: {step} steps in {time.perf_counter() - t:.1f} s, mean |dz/dt| / U = {rate / U:.4f}, "
    f"relief {z.max():.0f} m; landlab's own S-A fit (cells A >= 0.05 km2): theta {-ref[0]:.3f}, "
    f"U/K {10 ** ref[1]:.2f} (exact: 0.5, {U / K:g})"
)

tif = os.path.join(a.out, "steady.tif")
# row 0 = north: landlab's row 0 is the south edge
tifffile.imwrite(tif, np.flipud(z.reshape(N, N)).astype(np.float32))
with open(tif + ".json", "w") as fh:
    json.dump(
        {
            "format": "tiff",
            "file": "steady.tif",
            "width": N,
            "height": N,
            "sample_type": "float32",
            "height_datum": "metres above sea level (sea level = 0 m)",
            "min_m": float(z.min()),
            "max_m": float(z.max()),
            "metres_per_unit": 1.0,
            "unit_at_sea_level": 0.0,
            "sea_level_m": 0.0,
            "metres_per_pixel": DX,
            "source_map_size": N,
        },
        fh,
        indent=1,
    )
js = os.path.join(a.out, "steady.json")
cmd = [sys.executable, os.path.join(HERE, "geomorph.py"), "--tiff", tif, "--json", js]
print("$", " ".join(cmd))
subprocess.run(cmd, check=True)
o = json.load(open(js))
sa, chi = o["slope_area"], o["chi"]
checks = [
    ("slope-area theta within 0.1 of 0.5", abs(sa["theta"] - 0.5) <= 0.1),
    ("slope-area R2 > 0.9", sa["r2"] > 0.9),
    ("chi best theta within 0.1 of 0.5", abs(chi["theta_best_area_weighted"] - 0.5) <= 0.1 + 1e-9),
    ("chi R2 > 0.9", chi["r2_area_weighted"] > 0.9),
]
for name, ok in checks:
    print(f"{'ok  ' if ok else 'FAIL'} {name}")
sys.exit(0 if all(ok for _, ok in checks) else 1)
