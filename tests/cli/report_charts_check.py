#!/usr/bin/env python3
"""klab report's charts as a browser draws them, with one run and with many (tests/fixtures/runs/
rowsweep-many: 26 runs; and report_golden's): headless Chromium runs report_charts_check.js over the page (every text
inside its chart, none over another, no chart past the window, the sweep's lines each their own look
with the copy's red among them), then a screenshot of single charts is read pixel by pixel
(png_pixels.py): nothing drawn at a chart's left edge where a cut label would show, the copy's red in
the sweep's plot, the legend's last line drawn.
    report_charts_check.py KLAB        TAP; exit 77 (skipped) without chromium, unless CI is set
    report_charts_check.py --page HTML the page-wide checks over another page (test_report's)"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures")
WINDOW = (1280, 1000)
TALLEST = 1000       # px: a chart in parts of 40 rows, a sweep with 25 lines in its legend
CLOSED_PAGE = 10000  # px: over 26 runs, the page before its folded parts open (13300 when charts had no parts)


class Tap:
    def __init__(self):
        self.n, self.failed = 0, 0

    def ok(self, cond, what, detail=""):
        self.n += 1
        self.failed += not cond
        print(f"{'ok' if cond else 'not ok'} {self.n} - {what}")
        for line in str(detail).splitlines()[:40] if not cond and detail else []:
            print(f"#   {line}")


def chromium():
    for b in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(b):
            return b
    return None


def browse(browser, tmp, page, *args):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--user-data-dir={tmp}/profile", *args, "file://" + page]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def report(klab, tmp, label, runs):
    out = os.path.join(tmp, label)
    r = subprocess.run([klab, "report", "--experiments", os.path.join(FIX, "experiments-many"), "--out-dir", out,
                        *runs], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"Bail out! klab report failed:\n{r.stdout}{r.stderr}")
    return os.path.join(out, "report.html")


def measure(browser, tmp, page):
    text = open(page, encoding="utf-8").read()
    js = open(os.path.join(HERE, "report_charts_check.js"), encoding="utf-8").read()
    checked = os.path.join(tmp, "checked.html")
    with open(checked, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", f"<script>{js}</script></body>"))
    r = browse(browser, tmp, checked, f"--window-size={WINDOW[0]},{WINDOW[1]}", "--dump-dom")
    found = re.findall(r'<pre id="check">(\{.*?)</pre>', r.stdout, re.S)
    if not found:
        raise SystemExit(f"Bail out! no findings in chromium's DOM:\n{r.stderr[-2000:]}")
    return json.loads(html.unescape(found[-1]))


def svgs(page):
    return re.findall(r"<svg .*?</svg>", open(page, encoding="utf-8").read(), re.S)


def shot(browser, tmp, svg, name):
    """A screenshot of one chart alone, at its own size; its path, width and height."""
    w, h = (int(v) for v in re.match(r'<svg [^>]*?width="(\d+)" height="(\d+)"', svg).groups())
    page = os.path.join(tmp, name + ".html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(f'<!DOCTYPE html><html><body style="margin:0">{svg}</body></html>')
    png = os.path.join(tmp, name + ".png")
    browse(browser, tmp, page, f"--window-size={w},{h}", f"--screenshot={png}")
    return png, w, h


def pixels(png, box, *colors):
    r = subprocess.run([sys.executable, os.path.join(HERE, "..", "support", "png_pixels.py"), png, "--box", ",".join(map(str, box)),
                        *colors], capture_output=True, text=True, check=True)
    return {k: int(v) for k, v in (line.split() for line in r.stdout.splitlines()) if k != "size"}


def check_page(t, what, m, many=None, closed=CLOSED_PAGE):
    """many: None for a page without sweeps, else whether the sweeps hold more lines than their cap;
    closed: how tall the page may be before its folded parts open, None for no bound."""
    t.ok(not m["problems"], f"{what}: every text inside its chart, none over another, none past the window",
         "\n".join(m["problems"]))
    t.ok(m["pageWidth"] <= m["viewWidth"], f"{what}: the page is no wider than the window ({m['pageWidth']} px)")
    t.ok(0 < m["tallest"] <= TALLEST, f"{what}: no chart taller than {TALLEST} px (tallest {m['tallest']:.0f})")
    if closed:
        t.ok(m["closedHeight"] <= closed, f"{what}: the page as it opens is {m['closedHeight']} px, at most {closed}")
    if many is None:
        return
    t.ok(len(m["sweeps"]) >= 3, f"{what}: a sweep chart per dtype ({len(m['sweeps'])})")
    for s in m["sweeps"]:
        t.ok(s["copy"], f"{what}: {s['name']}: the copy's line is drawn")
        t.ok(s["looks"] == s["lines"], f"{what}: {s['name']}: {s['lines']} lines, each its own colour and dash",
             f"{s['looks']} looks")
        if many:
            said = "not drawn: 6 lines of the oldest runs, 2026-11-01-h200-rowsweep-nightly-01 to"
            t.ok(s["lines"] == 25 and len(s["note"]) == 1 and said in s["note"][0],
                 f"{what}: {s['name']}: 24 lines and the copy, and it says what it left out", s)
        else:
            t.ok(not s["note"], f"{what}: {s['name']}: nothing left out, nothing said", s)


def check_parts(t, page):
    """90 bars: three charts of at most 40 rows, the second and third folded under one <details>."""
    text = open(page, encoding="utf-8").read()
    labels = re.findall(r'aria-label="n65536: GB/s per row, 95 % interval([^"]*)"', text)
    t.ok(labels == [" (rows 1–40 of 90)", " (rows 41–80 of 90)", " (rows 81–90 of 90)"],
         "26 runs: the rate chart of 90 rows in three parts", labels)
    first = text.index('aria-label="n65536: GB/s per row')
    fold = text.find("<details>", first)
    t.ok(first < fold < text.index("(rows 41–80 of 90)") and text.find("</details>", fold) > text.index("(rows 81–90"),
         "26 runs: the later parts folded under <details>")


def check_pixels(t, browser, tmp, what, page):
    charts = svgs(page)
    sweep = next(s for s in charts if 'aria-label="row-length sweep' in s)
    png, w, h = shot(browser, tmp, sweep, "sweep")
    plot = pixels(png, (70, 48, w - 30, 328), "d00000")
    t.ok(plot["d00000"] > 100, f"{what}: the copy's red in the sweep's plot ({plot['d00000']} px)")
    legend = pixels(png, (0, 362, w, h))
    t.ok(legend["nonwhite"] > 500, f"{what}: the sweep's legend drawn under the plot ({legend['nonwhite']} px)")
    last = pixels(png, (0, h - 12, w, h))
    t.ok(last["nonwhite"] == 0, f"{what}: the legend ends inside the chart (the last 12 rows of pixels are blank)",
         last)
    claim = next(s for s in charts if 'aria-label="claim copy_rate' in s)
    png, w, h = shot(browser, tmp, claim, "claim")
    edge = pixels(png, (0, 40, 3, h))
    labels = pixels(png, (0, 40, w // 2, h))
    t.ok(edge["nonwhite"] == 0 and labels["nonwhite"] > 1000,
         f"{what}: the claim chart's labels drawn whole (nothing at its left edge, {labels['nonwhite']} px of labels)",
         edge)


def main():
    browser = chromium()
    if not browser:
        if os.environ.get("CI"):
            print("not ok 1 - chromium is not installed, and CI must draw the report (tools/deps.sh installs it)")
            return 1
        print("1..0 # SKIP chromium is not installed (apt-get install chromium; tools/deps.sh installs it)")
        return 77
    t = Tap()
    if sys.argv[1] == "--page":
        with tempfile.TemporaryDirectory() as tmp:
            check_page(t, os.path.basename(sys.argv[2]), measure(browser, tmp, os.path.abspath(sys.argv[2])),
                       closed=None)
        print(f"1..{t.n}")
        return 1 if t.failed else 0
    klab = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        many = report(klab, tmp, "many", [os.path.join(FIX, "runs", "rowsweep-many")])
        one = report(klab, tmp, "one", [os.path.join(FIX, "runs", "rowsweep-many", "2026-11-13-h200-rowsweep-nightly-26")])
        for what, page, is_many in (("26 runs", many, True), ("one run", one, False)):
            check_page(t, what, measure(browser, tmp, page), is_many)
            check_pixels(t, browser, tmp, what, page)
        check_parts(t, many)
        # the report_golden fixtures: PyTorch's bars beside klab's, TFLOP/s, counters, wide tables
        os.chdir(FIX)
        golden = subprocess.run([klab, "report", "--experiments", "experiments", "--out-dir", os.path.join(tmp, "golden"),
                                 *[f"runs/{r}" for r in ("copy", "copy-quick", "reduction", "gemm", "rows", "prof")]],
                                capture_output=True, text=True)
        t.ok(golden.returncode == 0, "klab report over the golden fixtures", golden.stdout + golden.stderr)
        check_page(t, "golden fixtures", measure(browser, tmp, os.path.join(tmp, "golden", "report.html")),
                   closed=None)
    print(f"1..{t.n}")
    return 1 if t.failed else 0


sys.exit(main())
