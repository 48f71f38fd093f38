#!/usr/bin/env bash
# The preview while painting: a painted IslandMask's draft (Erosion and Rivers off, what the page
# shows first after a stroke) against the full preview that follows it, same server, same run,
# interleaved, N rounds (default 5). Prints each time and the medians.
#
#   scripts/bench-paint-preview.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
cargo build --release --quiet
dir=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
./target/release/islagen serve "$dir" --port "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
sleep 1
python3 - "$port" "$rounds" <<'PY'
import base64, json, math, struct, sys, time, urllib.request, zlib
port, rounds = int(sys.argv[1]), int(sys.argv[2])
def png(n, f):
    raw = b''.join(b'\0' + bytes(255 * f(x / n, y / n) for x in range(n)) for y in range(n))
    chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
    ihdr = struct.pack('>IIBBBBB', n, n, 8, 0, 0, 0, 0)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
disc = lambda x, y: int(math.hypot(x - 0.45, y - 0.55) < 0.32)
mask = 'data:image/png;base64,' + base64.b64encode(png(256, disc)).decode()
def ask(draft):
    body = json.dumps({"seed": 7, "layer": "height", "draft": draft, "shape": {"IslandMask": mask}})
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/preview", data=body.encode(),
                                 headers={"Content-Type": "application/json"})
    t = time.time(); urllib.request.urlopen(req).read(); return time.time() - t
times = {True: [], False: []}
for _ in range(rounds):
    for d in (True, False):
        times[d].append(ask(d))
for d in (True, False):
    v = sorted(times[d])
    print(f"{'draft' if d else 'full '} {' '.join(f'{x:.3f}' for x in v)}  median {v[len(v) // 2]:.3f} s")
print(f"draft / full: {sorted(times[True])[rounds // 2] / sorted(times[False])[rounds // 2]:.2f}x")
PY
