"""Time a peer's fluvial landscape-evolution step on islagen heights: landlab.

Usage:
    fluvial-peer.py HEIGHTS.f32 [N [STEPS [DT [K [D [M [N_EXP]]]]]]] [--uplift U] [--dx DX]
                    [--depressions]
    (every positional after HEIGHTS also has a flag: --n, --steps, --dt, --k, --d, --m, --n-exp;
    a flag wins over the positional)

HEIGHTS.f32 is an N x N little-endian float32 raw grid of metres above sea (N defaults to the
square root of the sample count), indexed x * N + y (X outer) like every map in islagen
(examples/fluvial_dump writes it). Cells <= 0 are sea: fixed-value (base-level) nodes that never
move; the grid's perimeter is fixed-value too (landlab's default). The array goes to landlab's
RasterModelGrid as (row = x, column = y) -- a mirrored map, which changes nothing in the timing or
in the physics on a square grid of square cells.

One step is: uniform uplift U * DT of the core nodes, then
    FlowAccumulator(flow_director='D8', depression_finder=None, or 'DepressionFinderAndRouter'
                    with --depressions)
    FastscapeEroder(K_sp=K, m_sp=M, n_sp=N_EXP)    (Braun & Willett 2013, implicit)
    LinearDiffuser(linear_diffusivity=D)
each run_one_step(DT). One warm-up step is run first (and timed apart); then STEPS steps, and
the script prints the median seconds per step, the total, and each component's median.

Defaults: STEPS 20, DT 100 yr, K 1e-5 /yr (m^(1-2m)), D 0.01 m^2/yr, M 0.5, N_EXP 1, U 1e-3 m/yr,
DX 8192 / N m (islagen's world is 8192 m wide).
"""
import argparse
import statistics
import sys
import time

import numpy as np
from landlab import RasterModelGrid
from landlab.components import FastscapeEroder, FlowAccumulator, LinearDiffuser

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("heights", help="N x N little-endian float32 raw, x * N + y")
names = [("n", int, None), ("steps", int, 20), ("dt", float, 100.0), ("k", float, 1e-5),
         ("d", float, 0.01), ("m", float, 0.5), ("n_exp", float, 1.0)]
for name, typ, _ in names:
    ap.add_argument(f"pos_{name}", nargs="?", type=typ, metavar=name.upper())
for name, typ, _ in names:
    ap.add_argument(f"--{name.replace('_', '-')}", dest=f"flag_{name}", type=typ)
ap.add_argument("--uplift", type=float, default=1e-3, help="m/yr (default 1e-3)")
ap.add_argument("--dx", type=float, help="metres between nodes (default 8192 / N)")
ap.add_argument("--depressions", action="store_true",
                help="route across pits with DepressionFinderAndRouter (default: none)")
a = ap.parse_args()
p = {}
for name, _, default in names:
    flag, pos = getattr(a, f"flag_{name}"), getattr(a, f"pos_{name}")
    p[name] = flag if flag is not None else pos if pos is not None else default

z0 = np.fromfile(a.heights, dtype="<f4").astype(np.float64)
n = p["n"] or int(round(z0.size ** 0.5))
if n * n != z0.size:
    sys.exit(f"fluvial-peer: {a.heights} has {z0.size} samples, not {n} x {n}")
dx = a.dx or 8192.0 / n
steps = p["steps"]
if steps < 1:
    sys.exit("fluvial-peer: STEPS must be >= 1")

grid = RasterModelGrid((n, n), xy_spacing=dx)
z = grid.add_field("topographic__elevation", np.maximum(z0, 0.0), at="node")
grid.status_at_node[z0 <= 0.0] = grid.BC_NODE_IS_FIXED_VALUE
core = grid.core_nodes
finder = "DepressionFinderAndRouter" if a.depressions else None
fa = FlowAccumulator(grid, flow_director="D8", depression_finder=finder)
sp = FastscapeEroder(grid, K_sp=p["k"], m_sp=p["m"], n_sp=p["n_exp"])
ld = LinearDiffuser(grid, linear_diffusivity=p["d"])
lift = a.uplift * p["dt"]


def step():
    t0 = time.perf_counter()
    z[core] += lift
    fa.run_one_step()
    t1 = time.perf_counter()
    sp.run_one_step(p["dt"])
    t2 = time.perf_counter()
    ld.run_one_step(p["dt"])
    t3 = time.perf_counter()
    return t3 - t0, t1 - t0, t2 - t1, t3 - t2


warm = step()[0]
times = [step() for _ in range(steps)]
med = [statistics.median(t[i] for t in times) for i in range(4)]
total = sum(t[0] for t in times)
label = f"FlowAccumulator(D8{', DepressionFinderAndRouter' if finder else ''})"
print(
    f"landlab {label} + FastscapeEroder + LinearDiffuser: {n}² cells ({len(core)} core, dx {dx:g} m), "
    f"{steps} steps, {med[0]:.3f} s/step (median; total {total:.2f} s, warm-up {warm:.2f} s)"
)
print(
    f"  per component (median s): flow {med[1]:.3f}, fastscape {med[2]:.3f}, diffuser {med[3]:.3f}; "
    f"K {p['k']:g}, m {p['m']:g}, n {p['n_exp']:g}, D {p['d']:g}, U {a.uplift:g}, dt {p['dt']:g}; "
    f"relief after {z.max():.1f} m"
)
