#!/usr/bin/env python3
"""Peer timings for scripts/bench.sh: gpxpy (parse + length_2d) and fitdecode (decode every record).
Usage: peers.py gpxpy FILE RUNS | peers.py fitdecode FILE RUNS. Prints `name value` lines (medians)."""
import statistics
import sys
import time


def gpxpy_once(path):
    import gpxpy
    with open(path) as f:
        gpx = gpxpy.parse(f)
    return gpx.length_2d(), sum(len(s.points) for t in gpx.tracks for s in t.segments)


def fitdecode_once(path):
    import fitdecode
    records = 0
    with fitdecode.FitReader(path) as fit:
        for frame in fit:
            if frame.frame_type == fitdecode.FIT_FRAME_DATA and frame.name == "record":
                records += 1
    return records


def main():
    tool, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        if tool == "gpxpy":
            length, points = gpxpy_once(path)
        else:
            points = fitdecode_once(path)
        times.append(time.perf_counter() - start)
    print("points", points)
    if tool == "gpxpy":
        print("length_2d_m", "%.1f" % length)
    print("peer_s", "%.6f" % statistics.median(times))
    print("peer_runs", runs)


main()
