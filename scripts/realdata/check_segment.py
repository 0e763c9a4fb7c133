#!/usr/bin/env python3
"""Segment matching on real runs (scripts/check-realdata, check `segment`).

For each chosen real GPX run, draws a segment along a stretch of it the way a person would in a GPX
editor: the run's own points from 35% to 60% of its distance, moved 4 m north (a drawing is never on
the recorded line) and thinned with Douglas-Peucker at 5 m, written as a GPX route in a scratch pack
with `{ kind = "segment", tolerance_m = 25 }`. Then `badgectl summarize FILE --rules PACK --format json`
must find an effort whose gate times are within 15 s of the times gpxpy reads at the stretch's first and
last points (the gates are at the drawing's ends), and the same segment drawn backwards must find no
effort over that stretch (the reverse direction is no pass).

    check_segment.py DATA_DIR BADGECTL
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import gpxpy

FILES = ["sl_run_6782987395.gpx", "sl_run_1681613317_strava_android.gpx", "sl_sample_amazfit.gpx"]
R = 6371008.8


def plane(lat0, lon0):
    kx = R * math.pi / 180 * math.cos(math.radians(lat0))
    ky = R * math.pi / 180
    return (lambda lat, lon: ((lon - lon0) * kx, (lat - lat0) * ky),
            lambda x, y: (lat0 + y / ky, lon0 + x / kx))


def simplify(points, tolerance):
    """Douglas-Peucker on (x, y) points; keeps the ends."""
    if len(points) < 3:
        return points
    (ax, ay), (bx, by) = points[0], points[-1]
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy)
    worst, index = -1.0, 0
    for i, (px, py) in enumerate(points[1:-1], 1):
        if length == 0:
            d = math.hypot(px - ax, py - ay)
        else:
            f = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length ** 2))
            d = math.hypot(px - ax - f * dx, py - ay - f * dy)
        if d > worst:
            worst, index = d, i
    if worst <= tolerance:
        return [points[0], points[-1]]
    return simplify(points[: index + 1], tolerance)[:-1] + simplify(points[index:], tolerance)


def efforts(badgectl, run, pack):
    out = subprocess.run([badgectl, "summarize", run, "--rules", pack, "--format", "json", "--tz", "UTC"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    measures = json.loads(out.stdout)["measures"]
    (only,) = measures.values()
    value = only["drawn"]["seg"]
    return [] if value is None else value["efforts"]


def write_pack(folder, points):
    os.makedirs(os.path.join(folder, "segments"), exist_ok=True)
    with open(os.path.join(folder, "pack.lua"), "w") as f:
        f.write('return { name = "drawn", version = "1.0.0", measures = {\n'
                '  seg = { kind = "segment", file = "segments/drawn.gpx", tolerance_m = 25 },\n} }\n')
    with open(os.path.join(folder, "segments", "drawn.gpx"), "w") as f:
        f.write('<?xml version="1.0"?>\n<gpx version="1.1" creator="check_segment"><rte>\n')
        for lat, lon in points:
            f.write(f'  <rtept lat="{lat:.7f}" lon="{lon:.7f}"/>\n')
        f.write("</rte></gpx>\n")


def main():
    data, badgectl = sys.argv[1], sys.argv[2]
    failures = 0
    for name in FILES:
        path = os.path.join(data, name)
        with open(path, encoding="utf-8-sig") as f:
            gpx = gpxpy.parse(f)
        pts = [p for t in gpx.tracks for s in t.segments for p in s.points if p.time is not None]
        along = [0.0]
        for a, b in zip(pts, pts[1:]):
            along.append(along[-1] + (a.distance_2d(b) or 0.0))
        total = along[-1]
        first = next(i for i, d in enumerate(along) if d >= 0.35 * total)
        last = next(i for i, d in enumerate(along) if d >= 0.60 * total)
        to_plane, to_degrees = plane(pts[first].latitude, pts[first].longitude)
        stretch = [to_plane(p.latitude, p.longitude) for p in pts[first:last + 1]]
        drawn = [to_degrees(x, y + 4.0) for x, y in simplify(stretch, 5.0)]
        start_s = (pts[first].time - pts[0].time).total_seconds()
        end_s = (pts[last].time - pts[0].time).total_seconds()
        with tempfile.TemporaryDirectory() as scratch:
            write_pack(os.path.join(scratch, "drawn"), drawn)
            forward = efforts(badgectl, path, os.path.join(scratch, "drawn"))
            write_pack(os.path.join(scratch, "drawn"), list(reversed(drawn)))
            backward = efforts(badgectl, path, os.path.join(scratch, "drawn"))
        match = [e for e in forward if abs(e["start_elapsed_s"] - start_s) <= 15 and abs(e["end_elapsed_s"] - end_s) <= 15]
        reverse = [e for e in backward if e["start_elapsed_s"] < end_s + 15 and e["end_elapsed_s"] > start_s - 15]
        ok = len(match) == 1 and not reverse
        failures += not ok
        got = ", ".join(f'{e["start_elapsed_s"]:.0f}-{e["end_elapsed_s"]:.0f} s' for e in forward) or "none"
        print(f"{'ok  ' if ok else 'FAIL'} {name}: segment of {len(drawn)} points over {along[last] - along[first]:.0f} m, "
              f"expected {start_s:.0f}-{end_s:.0f} s, found {got}; reversed: {len(backward)} effort(s), {len(reverse)} over the stretch")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
