#!/usr/bin/env python3
"""The device's own totals and laps, and our climb and moving time beside them, on the real files.

Usage: scripts/realdata/check_devices.py REALDATA_DIR BADGECTL
(one of the checks scripts/check-realdata runs; its tables are docs/accuracy.md's "Device totals,
climb and moving time")

Every file of MANIFEST.tsv is summarised with `badgectl summarize --format json`; the peers read the
same file on their own: fitdecode (FIT session and lap messages) and the standard library's XML parser
(TCX laps). Checks, with the tolerances docs/accuracy.md states:
- device fields equal what the file records: `device_ascent_m`, `device_descent_m`,
  `device_avg_heart_rate_bpm`, `device_max_heart_rate_bpm`, `device_moving_s` and `device_laps` equal the
  FIT session's total_ascent, total_descent, avg_heart_rate, max_heart_rate, total_moving_time and
  num_laps (else the number of lap messages); for TCX the laps' heart rates (the average weighted by
  each lap's TotalTimeSeconds, the largest maximum) and their number; a GPX has none;
- each lap of `laps` equals the file's lap (start, distance, elapsed, timer, heart rates, trigger,
  intensity), a TCX lap's distance within single precision (exporters write floats' full expansion);
- `device_distance_m` of a TCX is the shortest decimal of the single-precision value it wrote;
- our `elevation.gain_m` within 10% of the device's barometric total (FIT session total_ascent > 0;
  the GPX and TCX exports of the same activity against their FIT file), and within 15% of the peer's
  figure on the phone recordings (sports-lib's test expectations: no device total there);
- our `moving_s` within 3% of the device's total_moving_time where the file records one, within 3% of
  the peer's on the files with big climbs and within 5% of it elsewhere (sports-lib's expectations).
Needs fitdecode (pip install fitdecode). Exits 1 when a check fails.
"""
import json, os, struct, subprocess, sys
import xml.etree.ElementTree as ET

import fitdecode

# sports-lib's own test expectations (src/specs/activity-parsing.spec.ts at
# sports-alliance/sports-lib@a96f6d8b734ca0cd910d4e85eb7729ce3c38baa2) for the two files reference.json
# predates; for the others reference.json's `sports_lib_test_assertions` holds them.
SPORTS_LIB = {
    "sl_run_6910052863.fit": {"ascent_m": "== 1817", "moving_time": "~02:35:40", "timer_time": "~02:39:03"},
    "sl_run_6909258631.gpx": {"ascent_m": "~2780 (+-0.5)", "moving_time": "~04:51:49", "timer_time": "~06:30:22"},
}
# The phone recordings of the set: GPS altitude (or an app's), no device total to compare with.
PHONES = ["sl_run_6909258631.gpx", "sl_run_1681613317_strava_android.gpx"]
# Files whose climb is big (over 1,000 m): moving time within 3% of the peer's there.
BIG_CLIMBS = ["sl_run_6910052863.fit", "sl_run_6909258631.gpx", "sl_sample_garmin_28km.fit"]
# Where the peer's moving time is known to miss, and why (docs/accuracy.md): reported, not held against ours.
MOVING_EXPLAINED = {
    "ODD_sl_run_6037744996_unbound_prefix_bom.gpx":
        "1,636 of its 4,039 one-second records repeat the previous position (no new fix): the peer, judging each "
        "record alone, reads them as stops (28:35 moving of 1:07:19, over 5.1 km and 516 m of climb); the profile "
        "shows two stops of about 4 and 2 minutes",
}

FIT_TRIGGERS = {"manual": "manual", "time": "time", "distance": "distance", "position_start": "position",
                "position_lap": "position", "position_waypoint": "position", "position_marked": "position",
                "session_end": "session_end", "fitness_equipment": "fitness_equipment"}
TCX_TRIGGERS = {"Manual": "manual", "Distance": "distance", "Location": "position", "Time": "time", "HeartRate": "heart_rate"}
TCX_INTENSITY = {"Active": "active", "Resting": "rest"}


def number(text):
    """The number of an 'h:mm:ss' / 'mm:ss' time or of '== 1817' / '~2780 (+-0.5)'."""
    text = text.lstrip("=~ ").split(" ")[0]
    if ":" in text:
        total = 0.0
        for part in text.split(":"):
            total = total * 60 + float(part)
        return total
    return float(text)


def close(a, b, tolerance=1e-6):
    return a is not None and b is not None and abs(a - b) <= tolerance * max(1.0, abs(b))


def within_single(a, b):
    """a equals b, or b read as a single-precision float (a TCX exporter's float32 written in full)."""
    if a is None or b is None:
        return a is None and b is None
    single = struct.unpack("f", struct.pack("f", b))[0]
    return abs(a - b) <= abs(b) * 2 ** -23 or abs(a - single) <= abs(single) * 2 ** -23


def fit_truth(path):
    session, laps = {}, []
    with fitdecode.FitReader(path) as fit:
        for frame in fit:
            if not isinstance(frame, fitdecode.FitDataMessage):
                continue
            if frame.name == "session":
                session = {f.name: f.value for f in frame.fields}
            elif frame.name == "lap":
                laps.append({f.name: f.value for f in frame.fields})
    start = session.get("start_time")
    return {
        "device_ascent_m": session.get("total_ascent"),
        "device_descent_m": session.get("total_descent"),
        "device_avg_heart_rate_bpm": session.get("avg_heart_rate"),
        "device_max_heart_rate_bpm": session.get("max_heart_rate"),
        "device_moving_s": session.get("total_moving_time"),
        "device_laps": session.get("num_laps") if session.get("num_laps") is not None else len(laps),
    }, [{
        "start": lap.get("start_time").timestamp() if lap.get("start_time") else None,
        "distance_m": lap.get("total_distance"),
        "elapsed_s": lap.get("total_elapsed_time"),
        "timer_s": lap.get("total_timer_time"),
        "avg_heart_rate_bpm": lap.get("avg_heart_rate"),
        "max_heart_rate_bpm": lap.get("max_heart_rate"),
        "trigger": FIT_TRIGGERS.get(lap.get("lap_trigger"), lap.get("lap_trigger")) if isinstance(lap.get("lap_trigger"), str)
            else (None if lap.get("lap_trigger") is None else str(lap.get("lap_trigger"))),
        "intensity": lap.get("intensity") if isinstance(lap.get("intensity"), str) or lap.get("intensity") is None else str(lap.get("intensity")),
    } for lap in laps], start


def tcx_truth(path):
    text = open(path, "rb").read().lstrip(b"\xef\xbb\xbf \t\r\n")
    root = ET.fromstring(text)
    local = lambda element: element.tag.rsplit("}", 1)[-1]
    def child(element, name):
        for c in element:
            if local(c) == name:
                return c
        return None
    def value(element, *path):
        for name in path:
            element = child(element, name) if element is not None else None
        return float(element.text) if element is not None and element.text and element.text.strip() else None
    laps = []
    for element in root.iter():
        if local(element) != "Lap":
            continue
        trigger = child(element, "TriggerMethod")
        intensity = child(element, "Intensity")
        laps.append({
            "distance_m": value(element, "DistanceMeters"),
            "timer_s": value(element, "TotalTimeSeconds"),
            "avg_heart_rate_bpm": value(element, "AverageHeartRateBpm", "Value"),
            "max_heart_rate_bpm": value(element, "MaximumHeartRateBpm", "Value"),
            "trigger": TCX_TRIGGERS.get(trigger.text.strip(), trigger.text.strip().lower()) if trigger is not None and trigger.text else None,
            "intensity": TCX_INTENSITY.get(intensity.text.strip(), intensity.text.strip().lower()) if intensity is not None and intensity.text else None,
        })
    weighted = [(l["avg_heart_rate_bpm"], l["timer_s"]) for l in laps if l["avg_heart_rate_bpm"] is not None and l["timer_s"]]
    maxima = [l["max_heart_rate_bpm"] for l in laps if l["max_heart_rate_bpm"] is not None]
    return {
        "device_ascent_m": None, "device_descent_m": None, "device_moving_s": None,
        "device_avg_heart_rate_bpm": sum(a * t for a, t in weighted) / sum(t for _, t in weighted) if weighted else None,
        "device_max_heart_rate_bpm": max(maxima) if maxima else None,
        "device_laps": len(laps) if laps else None,
    }, laps


def fmt(x, digits=0):
    return "—" if x is None else f"{x:.{digits}f}"


def pct(ours, ref):
    return None if ours is None or not ref else (ours - ref) / ref * 100


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    folder, exe = sys.argv[1], sys.argv[2]
    names = [line.split("\t")[0] for line in open(os.path.join(folder, "MANIFEST.tsv")).read().splitlines()[1:] if line.strip()]
    reference = json.load(open(os.path.join(folder, "reference.json")))["files"] if os.path.exists(os.path.join(folder, "reference.json")) else {}
    failures = []
    runs, truths = {}, {}
    for name in sorted(names):
        path = os.path.join(folder, name)
        proc = subprocess.run([exe, "summarize", path, "--format", "json", "--tz", "UTC"], capture_output=True, text=True)
        if proc.returncode != 0 or not proc.stdout.strip():
            continue  # refused files are compare_summaries.py's business
        run = json.loads(proc.stdout)["runs"][0]
        runs[name] = run
        if name.endswith(".fit"):
            totals, laps, _ = fit_truth(path)
        elif name.endswith(".tcx"):
            totals, laps = tcx_truth(path)
        else:
            totals = {k: None for k in ("device_ascent_m", "device_descent_m", "device_avg_heart_rate_bpm",
                                        "device_max_heart_rate_bpm", "device_moving_s", "device_laps")}
            laps = []
        truths[name] = totals
        for key, expected in totals.items():
            ours = run.get(key)
            same = (ours is None and expected is None) or close(ours, expected)
            if not same:
                failures.append(f"{name}: {key} is {ours}, the file records {expected}")
        if len(run.get("laps", [])) != len(laps):
            failures.append(f"{name}: {len(run.get('laps', []))} laps, the file has {len(laps)}")
        else:
            start = run.get("start_epoch_s")
            for i, (ours, theirs) in enumerate(zip(run["laps"], laps), 1):
                for key, expected in theirs.items():
                    if key == "start":
                        if expected is not None and start is not None and not close(ours.get("start_elapsed_s"), expected - start, 1e-9):
                            failures.append(f"{name}: lap {i} starts at {ours.get('start_elapsed_s')} s, the file at {expected - start} s")
                        continue
                    value = ours.get(key)
                    good = within_single(value, expected) if isinstance(expected, float) or isinstance(value, float) else value == expected
                    if not good:
                        failures.append(f"{name}: lap {i} {key} is {value}, the file records {expected}")
        if name.endswith(".tcx") and laps and run.get("device_distance_m") is not None:
            written = run["device_distance_m"]
            if written != float(repr(written)) or len(repr(written)) > 16:
                failures.append(f"{name}: device_distance_m {written} keeps single precision's expansion")

    print("| file | device laps | device ascent / descent (m) | ours gain / loss (m) | gain vs device | device HR avg / max | ours HR avg / max (avg by) | moving s: ours / device / peer | vs peer |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in sorted(runs):
        run, totals = runs[name], truths[name]
        elevation = run.get("elevation") or {}
        hr = run.get("heart_rate") or {}
        # The device total of the same activity: the FIT file's for its GPX and TCX exports.
        stem = name.rsplit(".", 1)[0]
        device = totals.get("device_ascent_m") or (truths.get(stem + ".fit") or {}).get("device_ascent_m")
        peer = dict(reference.get(name, {}).get("peer", {}).get("sports_lib_test_assertions", {}))
        peer.update(SPORTS_LIB.get(name, {}))
        gain = elevation.get("gain_m")
        gain_vs = None
        if device:
            gain_vs = pct(gain, device)
            if gain_vs is None or abs(gain_vs) > 10:
                failures.append(f"{name}: gain {gain} m is {fmt(gain_vs, 1)}% from the device's barometric {device} m (limit 10%)")
        elif name in PHONES and "ascent_m" in peer:
            gain_vs = pct(gain, number(peer["ascent_m"]))
            if gain_vs is None or abs(gain_vs) > 15:
                failures.append(f"{name}: gain {gain} m is {fmt(gain_vs, 1)}% from the peer's {peer['ascent_m']} on a phone recording (limit 15%)")
        moving, device_moving = run.get("moving_s"), totals.get("device_moving_s")
        if device_moving and abs(pct(moving, device_moving)) > 3:
            failures.append(f"{name}: moving {moving} s is over 3% from the device's {device_moving} s")
        peer_moving = number(peer["moving_time"]) if "moving_time" in peer else None
        moving_vs = pct(moving, peer_moving)
        limit = 3 if name in BIG_CLIMBS else 5
        if moving_vs is not None and abs(moving_vs) > limit and name not in MOVING_EXPLAINED:
            failures.append(f"{name}: moving {moving} s is {moving_vs:+.1f}% from the peer's {peer['moving_time']} (limit {limit}%)")
        print(f"| {name} | {fmt(run.get('device_laps'))} ({len(run.get('laps', []))} in laps) | {fmt(totals.get('device_ascent_m'))} / {fmt(totals.get('device_descent_m'))} | "
              f"{fmt(gain, 1)} / {fmt(elevation.get('loss_m'), 1)} | {'—' if gain_vs is None else f'{gain_vs:+.1f}%' + ('' if totals.get('device_ascent_m') or not device else ' (its FIT)') + (' (peer)' if not device else '')} | "
              f"{fmt(run.get('device_avg_heart_rate_bpm'), 1)} / {fmt(run.get('device_max_heart_rate_bpm'))} | "
              f"{fmt(hr.get('avg'), 2)} / {fmt(hr.get('max'))} ({hr.get('avg_weighting', '—')}) | "
              f"{fmt(moving)} / {fmt(device_moving)} / {fmt(peer_moving)} | {'—' if moving_vs is None else f'{moving_vs:+.1f}%'} |")
    for name, why in MOVING_EXPLAINED.items():
        if name in runs:
            print(f"\nMoving time of {name} not held to the peer's: {why}.")
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures))
        return 1
    print(f"\nAll device checks passed ({len(runs)} files).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
