#!/usr/bin/env python3
"""Counts the pixels of a PNG (8-bit RGB or RGBA, as Chromium's screenshots are) that are not white,
and those of each colour given as RRGGBB, within the rectangle x0,y0,x1,y1 if one is given:
    png_pixels.py FILE [--box x0,y0,x1,y1] [RRGGBB ...]   prints "nonwhite N" and "RRGGBB N" lines
The standard library only (zlib): the test that renders klab's report needs no imaging package."""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit(f"{path}: only 8-bit RGB/RGBA, not interlaced (got depth {depth}, type {ctype})")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    args = sys.argv[1:]
    box = None
    if "--box" in args:
        k = args.index("--box")
        box = [int(v) for v in args[k + 1].split(",")]
        del args[k:k + 2]
    w, h, bpp, rows = read_png(args[0])
    x0, y0, x1, y1 = box or (0, 0, w, h)
    want = {bytes.fromhex(c): 0 for c in args[1:]}
    nonwhite = 0
    for y in range(max(0, y0), min(h, y1)):
        r = rows[y]
        for x in range(max(0, x0), min(w, x1)):
            px = r[x * bpp:x * bpp + 3]
            if px != b"\xff\xff\xff":
                nonwhite += 1
            if px in want:
                want[px] += 1
    print(f"size {w}x{h}")
    print(f"nonwhite {nonwhite}")
    for c, n in want.items():
        print(f"{c.hex()} {n}")


main()
