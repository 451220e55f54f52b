#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Render an "entropyctl plot" SVG in headless Chromium, keep a screenshot,
and check what a person would see:

  - the screenshot is not blank (many pixels differ from the background,
    in more than a handful of colours), in light mode and in dark mode,
    and the dark one has a dark background (prefers-color-scheme);
  - the expected labels are real text in the rendered DOM;
  - with --cold: in the first boot drawn, the "crng init done" line is left
    of every bar of a unit ordered after entropy-ready.target, as laid out
    by the browser (getBoundingClientRect), not as written in the file.

Usage: svg-check.py [--cold] [--label TEXT]... SVG PNG
Exit: 0 ok, 1 a check failed, 77 no Chromium (says so).
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(exe, args, timeout=120):
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    base = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", "--mute-audio",
            "--user-data-dir=" + tempfile.mkdtemp(prefix="eg-chromium-")]
    try:
        return subprocess.run(base + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    finally:
        shutil.rmtree(base[-1].split("=", 1)[1], ignore_errors=True)


def png_pixels(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError(f"PNG depth {depth} colour type {ctype}")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def look(png):
    """What the screenshot shows: background colour, share of other pixels, colours used."""
    w, h, rows = png_pixels(png)
    bg = rows[2][2]
    other, colours = 0, set()
    for row in rows[::2]:
        for p in row[::2]:
            if p != bg:
                other += 1
                colours.add((p[0] >> 4, p[1] >> 4, p[2] >> 4))
    return {"size": [w, h], "background": bg, "other_share": other / ((h + 1) // 2 * ((w + 1) // 2)),
            "colours": len(colours)}


PROBE = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}</style></head><body>
%s
<pre id="eg-result"></pre>
<script>
const svg = document.querySelector("svg");
const boot = document.querySelector("g.boot");
const crng = boot && boot.querySelector("line.crng");
const bars = boot ? Array.from(boot.querySelectorAll("rect.bar.consumer")) : [];
const r = {
  text: svg.textContent.replace(/\\s+/g, " "),
  texts: Array.from(svg.querySelectorAll("text")).length,
  boots: Array.from(document.querySelectorAll("g.boot")).map(g => g.dataset.label),
  crng_x: crng ? crng.getBoundingClientRect().right : null,
  bars: bars.map(b => ({unit: b.dataset.unit, x: b.getBoundingClientRect().left})),
};
document.getElementById("eg-result").textContent = JSON.stringify(r);
</script></body></html>"""


def main():
    args = sys.argv[1:]
    cold, labels = False, []
    while args and args[0].startswith("--"):
        if args[0] == "--cold":
            cold = True
            args = args[1:]
        elif args[0] == "--label":
            labels.append(args[1])
            args = args[2:]
        else:
            sys.exit(f"unknown option {args[0]}")
    svg_path, png_path = args
    exe = chromium()
    if not exe:
        print("SKIP: no chromium (scripts/install-deps installs Debian's chromium)")
        return 77

    failed = []

    def check(ok, what):
        print(("ok: " if ok else "FAIL: ") + what)
        if not ok:
            failed.append(what)

    svg = open(svg_path, encoding="utf-8").read()
    height = 800
    for tok in svg.split('height="')[1:2]:
        height = int(float(tok.split('"', 1)[0]))
    url = "file://" + os.path.abspath(svg_path)

    # The screenshot, light and dark.
    shots = {}
    for mode, extra in (("light", []), ("dark", ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"])):
        out = png_path if mode == "light" else png_path[:-4] + "-dark.png"
        if os.path.exists(out):
            os.unlink(out)
        p = run_chromium(exe, extra + [f"--window-size=1280,{height}", "--screenshot=" + os.path.abspath(out), url])
        if not os.path.exists(out):
            check(False, f"{mode}: chromium wrote no screenshot (status {p.returncode}): {p.stderr.decode()[-500:]}")
            continue
        shots[mode] = look(out)
        print(f"{mode}: {out}: {json.dumps(shots[mode])}")
        s = shots[mode]
        check(s["other_share"] > 0.02 and s["colours"] >= 6,
              f"{mode}: not blank ({s['other_share']:.1%} of pixels differ from the background, {s['colours']} colours)")
    if "light" in shots and "dark" in shots:
        lb, db = sum(shots["light"]["background"]), sum(shots["dark"]["background"])
        check(lb > 600 and db < 150, f"light background {shots['light']['background']}, dark {shots['dark']['background']}")

    # The DOM as laid out: text and positions.
    with tempfile.TemporaryDirectory() as d:
        page = os.path.join(d, "probe.html")
        body = svg.split("?>", 1)[1] if svg.startswith("<?xml") else svg
        open(page, "w", encoding="utf-8").write(PROBE % body)
        p = run_chromium(exe, ["--dump-dom", "file://" + page])
    dom = p.stdout.decode("utf-8", "replace")
    try:
        res = json.loads(dom.split('<pre id="eg-result">', 1)[1].split("</pre>", 1)[0]
                         .replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
    except (IndexError, ValueError) as e:
        check(False, f"the probe page gave no result ({e}): {dom[-400:]!r} {p.stderr.decode()[-400:]}")
        return 1
    print(f"DOM: {res['texts']} text elements, boots {res['boots']}, crng line right edge {res['crng_x']}, "
          f"consumer bars {res['bars']}")
    for want in ["crng init done", "entropy-seed.service", "entropy-gate.service", "entropy-ready.target",
                 "Seed:", "Credential:", "Gate:"] + labels:
        check(want in res["text"], f"DOM text has {want!r}")
    if cold:
        check(res["crng_x"] is not None and len(res["bars"]) > 0, "cold boot: a crng line and consumer bars are drawn")
        for b in res["bars"]:
            check(res["crng_x"] is not None and res["crng_x"] <= b["x"] + 0.5,
                  f"cold boot: crng line (right edge {res['crng_x']}) left of {b['unit']}'s bar (left edge {b['x']})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
