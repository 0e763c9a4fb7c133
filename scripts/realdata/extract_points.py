#!/usr/bin/env python3
"""Writes the points of each GPX and FIT file of a realdata folder as <file>.csv for the
analytics check (AnalyticsRealDataCheckTests): one point per line, `segment,lat,lon,ele,epoch_s,hr,cad`,
empty fields for absent values. Read with gpxpy and fitdecode (the peers of reference.json), not
with badgectl's readers, so the check measures the analytics alone.

Usage: extract_points.py REALDATA_DIR OUT_DIR
Files the peers refuse are left out (the check then skips them). Records without a position are
left out, as a reader would.
"""
import json, os, sys
from datetime import timezone

import fitdecode
import gpxpy
import gpxpy.gpx

SEMICIRCLE = 180.0 / 2 ** 31


def fmt(value):
    return "" if value is None else repr(float(value))


def gpx_rows(path):
    with open(path, encoding="utf-8") as f:
        gpx = gpxpy.parse(f)
    for t, track in enumerate(gpx.tracks):
        for s, segment in enumerate(track.segments):
            for p in segment.points:
                hr = cad = None
                for ext in p.extensions:
                    for child in ext.iter():
                        tag = child.tag.split("}")[-1]
                        if tag in ("hr", "heartrate") and child.text:
                            hr = float(child.text)
                        elif tag in ("cad", "cadence") and child.text:
                            cad = float(child.text)
                epoch = p.time.replace(tzinfo=p.time.tzinfo or timezone.utc).timestamp() if p.time else None
                yield f"{t}-{s}", p.latitude, p.longitude, p.elevation, epoch, hr, cad


def fit_rows(path):
    with fitdecode.FitReader(path) as fit:
        for frame in fit:
            if not isinstance(frame, fitdecode.FitDataMessage) or frame.name != "record":
                continue
            def get(name):
                return frame.get_value(name, fallback=None) if frame.has_field(name) else None
            lat, lon = get("position_lat"), get("position_long")
            if lat is None or lon is None:
                continue
            ele = get("enhanced_altitude")
            if ele is None:
                ele = get("altitude")
            ts = get("timestamp")
            epoch = ts.replace(tzinfo=ts.tzinfo or timezone.utc).timestamp() if ts else None
            yield "0", lat * SEMICIRCLE, lon * SEMICIRCLE, ele, epoch, get("heart_rate"), get("cadence")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    folder, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    files = json.load(open(os.path.join(folder, "reference.json")))["files"]
    written = 0
    for name in sorted(files):
        reader = gpx_rows if name.endswith(".gpx") else fit_rows if name.endswith(".fit") else None
        if reader is None:
            continue
        try:
            rows = list(reader(os.path.join(folder, name)))
        except Exception as error:  # a file the peers refuse: no CSV, the check skips it
            print(f"extract_points: {name} left out ({type(error).__name__}: {error})", file=sys.stderr)
            continue
        with open(os.path.join(out, name + ".csv"), "w") as f:
            for segment, lat, lon, ele, epoch, hr, cad in rows:
                f.write(",".join([segment, repr(float(lat)), repr(float(lon)), fmt(ele), fmt(epoch), fmt(hr), fmt(cad)]) + "\n")
        written += 1
    print(f"extract_points: {written} files written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
