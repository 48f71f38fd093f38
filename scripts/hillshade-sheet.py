"""A contact sheet of land hillshades: pairs of float32 GeoTIFFs (islagen export heightmap
--format tiff) side by side, sea flat blue, each world downsampled to TILE px.

Usage: hillshade-sheet.py [--names A,B] [--crop ROW,COL,SIZE] OUT.png TILE COLUMNS LABEL=BEFORE.tif,AFTER.tif ...
  --names  what the pair's two sides are called in the labels (default off,v2)
  --crop   hillshade only the SIZE x SIZE pixel window at (ROW, COL) of each raster (with
           TILE = SIZE, a 1:1 crop)
"""
import sys

import numpy as np
import tifffile
from PIL import Image, ImageDraw


def hillshade(path, tile, crop=None):
    a = tifffile.imread(path).astype(np.float64)
    px = 8192.0 / a.shape[0]
    if crop:
        r, c, n = crop
        a = a[r : r + n, c : c + n]
    sea = a <= 0
    b = np.where(sea, 0, a) * 2.0  # 2x vertical exaggeration
    gy, gx = np.gradient(b, px)
    az, alt = np.radians(315), np.radians(40)
    slope = np.arctan(np.hypot(gx, gy))
    aspect = np.arctan2(-gx, gy)
    hs = np.sin(alt) * np.cos(slope) + np.cos(alt) * np.sin(slope) * np.cos(az - aspect)
    g = np.clip(hs * 255, 0, 255)
    rgb = np.stack([g, g, g], -1)
    rgb[sea] = [40, 60, 90]
    img = Image.fromarray(rgb.astype(np.uint8))
    return img.resize((tile, tile), Image.LANCZOS)


def main():
    args, names, crop = sys.argv[1:], ("off", "v2"), None
    while args and args[0].startswith("--"):
        if args[0] == "--names":
            names = tuple(args[1].split(",", 1))
        elif args[0] == "--crop":
            crop = tuple(int(v) for v in args[1].split(","))
        else:
            sys.exit(f"hillshade-sheet.py: unknown option {args[0]}")
        args = args[2:]
    out, tile, columns = args[0], int(args[1]), int(args[2])
    pairs = [arg.split("=", 1) for arg in args[3:]]
    rows = (len(pairs) + columns - 1) // columns
    sheet = Image.new("RGB", (columns * (2 * tile + 8), rows * (tile + 20)), (255, 255, 255))
    draw = ImageDraw.Draw(sheet)
    for k, (label, files) in enumerate(pairs):
        before, after = files.split(",")
        x, y = (k % columns) * (2 * tile + 8), (k // columns) * (tile + 20)
        sheet.paste(hillshade(before, tile, crop), (x, y + 18))
        sheet.paste(hillshade(after, tile, crop), (x + tile, y + 18))
        draw.text((x + 4, y + 3), f"{label}: {names[0]} | {names[1]}", fill=(0, 0, 0))
    sheet.save(out)


main()
