#!/usr/bin/env bash
# Renders the HTML report in a real browser (headless Chromium) and checks what it drew.
#
# Usage:
#   scripts/browser-test.sh [REPORT.html] [SCREENSHOT.png]
#
#   REPORT.html     the report to check (e.g. from `badgectl report runs/ -o report.html`).
#                   Without it, the sample report is written by the BadgeReportTests helper:
#                   BADGECTL_REPORT_OUT=... swift test --filter SampleReportTests/testWriteSampleReport
#   SCREENSHOT.png  where to keep the full-page screenshot (default: a temporary file).
#                   `scripts/browser-test.sh "" docs/report.png` refreshes the README picture.
#
# Environment: CHROMIUM (browser command; default `chromium`, else `chromium-browser`),
#              WINDOW (default 1280,2200).
#
# Installs Debian's `chromium` package when no browser is found (apt-get update first; needs root
# or sudo). Chromium runs with --no-sandbox: as root (CI containers) it refuses to start without
# it, and the page is a local file whose Content-Security-Policy forbids scripts and fetches.
#
# Checks:
#   1. DOM (`--dump-dom`): the badge wall with one article.badge per card in the file, earned and
#      unearned cards, route SVGs with speed-coloured paths (class b0…b16), every checkpoint marker
#      of the file, split bars, no <script>, no NaN.
#   2. Pixels: the full screenshot is not blank; a second screenshot with everything but the routes
#      hidden (badges, splits and legends) has red-ish, yellow-ish and green-ish route pixels.
# Needs python3 (standard library only: the PNG is decoded here with zlib).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
report="${1:-}"
screenshot="${2:-}"
window="${WINDOW:-1280,2200}"
work="$(mktemp -d "${TMPDIR:-/tmp}/badgectl-browser.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fail() { echo "browser-test: FAIL: $*" >&2; exit 1; }
say() { echo "browser-test: $*"; }

# --- the browser -------------------------------------------------------------------------------
browser="${CHROMIUM:-}"
if [[ -z "$browser" ]]; then
    for candidate in chromium chromium-browser; do
        if command -v "$candidate" >/dev/null 2>&1; then browser="$candidate"; break; fi
    done
fi
if [[ -z "$browser" ]]; then
    say "no chromium found: installing Debian's chromium package"
    sudo=""
    if [[ "$(id -u)" != 0 ]]; then
        command -v sudo >/dev/null 2>&1 || fail "chromium is missing and installing it needs root or sudo"
        sudo="sudo"
    fi
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends chromium
    browser=chromium
fi
command -v python3 >/dev/null 2>&1 || fail "python3 is needed for the DOM and pixel checks"
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-extensions
       --user-data-dir="$work/profile")
run_browser() { timeout 180 "$browser" "${flags[@]}" "$@" 2>"$work/browser.log"; }

# --- the report --------------------------------------------------------------------------------
if [[ -z "$report" ]]; then
    report="$work/report.html"
    say "writing the sample report with the BadgeReportTests helper"
    (cd "$here" && BADGECTL_REPORT_OUT="$report" swift test --filter 'BadgeReportTests.SampleReportTests/testWriteSampleReport' >"$work/swift-test.log" 2>&1) \
        || { tail -40 "$work/swift-test.log" >&2; fail "could not write the sample report"; }
fi
[[ -s "$report" ]] || fail "$report: no such report (or empty)"
report="$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
say "report: $report ($(wc -c <"$report") bytes), browser: $("$browser" --version 2>/dev/null || echo "$browser")"

# --- 1. the DOM as Chromium built it -----------------------------------------------------------
run_browser --dump-dom "file://$report" >"$work/dom.html" || { cat "$work/browser.log" >&2; fail "chromium --dump-dom failed"; }
python3 - "$report" "$work/dom.html" <<'PY' || fail "DOM check"
import re, sys
source = open(sys.argv[1], encoding="utf-8").read()
dom = open(sys.argv[2], encoding="utf-8").read()
def count(pattern, text): return len(re.findall(pattern, text))
checks = []
def check(name, ok, detail=""):
    checks.append(ok)
    print(("  ok   " if ok else "  FAIL ") + name + (f" ({detail})" if detail else ""))
cards_in_file = count(r'<article class="badge ', source)
cards = count(r'<article class="badge (?:earned|unearned)"', dom)
check("badge wall present", '<section class="badge-wall"' in dom)
check("one card per badge", cards > 0 and cards == cards_in_file, f"{cards} in the DOM, {cards_in_file} in the file")
check("earned cards", count(r'<article class="badge earned"', dom) > 0)
check("unearned (dimmed) cards", count(r'<article class="badge unearned"', dom) > 0)
routes = count(r'<svg class="route"', dom)
check("route SVGs", routes > 0 and routes == count(r'<svg class="route"', source), f"{routes}")
bins = set(int(b) for b in re.findall(r'<path class="b(\d+)" d="M', dom))
check("speed-coloured route paths", len(bins) >= 3, f"bins {sorted(bins)}")
markers, markers_in_file = (count(r'<g class="checkpoint" data-badge="', t) for t in (dom, source))
check("checkpoint markers", markers == markers_in_file, f"{markers} in the DOM, {markers_in_file} in the file")
check("split bars", count(r'<rect class="split b\d+', dom) > 0)
check("no script", "<script" not in dom.lower())
check("no NaN or infinity", not re.search(r'[^A-Za-z](?:nan|NaN|inf|Infinity)[^A-Za-z]', dom))
sys.exit(0 if all(checks) else 1)
PY

# --- 2. pixels -------------------------------------------------------------------------------
full="${screenshot:-$work/full.png}"
[[ -n "$screenshot" ]] && mkdir -p "$(dirname "$screenshot")"
run_browser --screenshot="$full" --window-size="$window" "file://$report" >/dev/null || { cat "$work/browser.log" >&2; fail "screenshot failed"; }
# The same page with only the routes visible, so their colours cannot come from bars or legends.
python3 - "$report" "$work/routes.html" <<'PY'
import sys
html = open(sys.argv[1], encoding="utf-8").read()
hide = "<style>.badge-wall,.splits-chart,.legend,.headline{display:none!important}</style>"
open(sys.argv[2], "w", encoding="utf-8").write(html.replace("</head>", hide + "</head>", 1))
PY
run_browser --screenshot="$work/routes.png" --window-size="$window" "file://$work/routes.html" >/dev/null || fail "routes screenshot failed"

python3 - "$full" "$work/routes.png" <<'PY' || fail "pixel check"
import struct, sys, zlib
from collections import Counter

def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n": raise SystemExit(f"{path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace: raise SystemExit(f"{path}: unsupported PNG {depth}/{colour}/{interlace}")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT": idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return width, height, [(r[i], r[i + 1], r[i + 2]) for r in rows for i in range(0, stride, bpp)]

ok = True
w, h, pixels = read_png(sys.argv[1])
counts = Counter(pixels)
background = counts.most_common(1)[0][1] / len(pixels)
print(f"  full screenshot {w}x{h}: {len(counts)} colours, most common covers {background:.0%}")
if len(counts) < 50 or background > 0.9: print("  FAIL screenshot looks blank"); ok = False
w, h, pixels = read_png(sys.argv[2])
targets = {"red": (220, 38, 38), "yellow": (234, 200, 20), "green": (22, 163, 74)}  # PaceScale anchors
for name, (r, g, b) in targets.items():
    n = sum(1 for (pr, pg, pb) in pixels if abs(pr - r) <= 24 and abs(pg - g) <= 24 and abs(pb - b) <= 24)
    good = n >= 200
    ok &= good
    print(f"  {'ok  ' if good else 'FAIL'} {name}-ish route pixels: {n}")
sys.exit(0 if ok else 1)
PY

say "PASS${screenshot:+ (screenshot: $screenshot)}"
