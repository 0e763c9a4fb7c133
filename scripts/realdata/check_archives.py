#!/usr/bin/env python3
"""Account archives and device logs (issue 27) on the real files of REALDATA_DIR/archives.

Usage: scripts/realdata/check_archives.py REALDATA_DIR BADGECTL
(one of the checks scripts/check-realdata runs; its table is docs/accuracy.md's "Archives and device logs")

The peers are Python's standard library reading the same files on their own: xml.etree's iterparse
(export.xml, SML), json (Suunto and Polar logs), zipfile and zoneinfo. Checks, with the tolerances
docs/accuracy.md states:
- Apple Health, as export.zip, as its apple_health_export/ folder, as export.xml given alone, and
  zipped again inside another zip, each under --tz UTC and --tz Pacific/Kiritimati: `evaluate` counts
  exactly the running workouts of export.xml (walks, rides and swims are excluded as other sports;
  no route file is read as a run of its own); each run's device_distance_m equals the workout's
  own distance (WorkoutStatistics of a distance type, else totalDistance, in metres) within 0.1 m,
  device_timer_s its duration within 0.01 s, local_start its start in its HKTimeZone (else the
  dates' offset) to the second, zone_source `file`; heart-rate average within 1% of the mean of
  the heart-rate Records inside the workout (where it has any); and the awards (badge, run) are
  the same from the zip, the folder, the file and the zip in a zip, under either --tz.
- Suunto SML: device_distance_m and device_elapsed_s equal the header's Distance and Duration;
  distance within 0.5% of the header's; heart-rate average within 1% of the header's HR Avg (Hz x 60);
  utc_offset_s what DateTime (local) and the first UTC say; the sport the header's Activity.
- Suunto JSON (Suunto 9): device_distance_m and device_elapsed_s equal the header's; distance
  within 1.5% of the header's; heart-rate average (from R-R only) within 3% of the mean of
  60000 / interval over the intervals within 250-2000 ms; utc_offset_s the header DateTime's offset.
- Polar Flow: device_distance_m, device averages equal the session's; heart-rate average within 1%
  of the mean of its heart-rate samples; distance within 3% of the session's; local_start its
  startTime; utc_offset_s its timeZoneOffset x 60.
Exits 1 when a check fails.
"""
import datetime, io, json, os, shutil, subprocess, sys, tempfile, zipfile
import xml.etree.ElementTree as ET
from zoneinfo import ZoneInfo

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def run(badgectl, args):
    out = subprocess.run([badgectl] + args, capture_output=True, text=True)
    if out.returncode not in (0, 2):
        raise SystemExit(f"badgectl {' '.join(args)} exited {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)


def apple_date(text):
    return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z")


METRES = {"m": 1, "km": 1000, "mi": 1609.344}


def apple_peer(xml_path):
    """The workouts of export.xml and the heart-rate records inside them, by iterparse."""
    workouts, rates = [], []
    for _, el in ET.iterparse(xml_path, events=("end",)):
        if el.tag == "Record" and el.get("type") == "HKQuantityTypeIdentifierHeartRate":
            rates.append((apple_date(el.get("startDate")).timestamp(), float(el.get("value"))))
        elif el.tag == "Workout":
            w = {"type": el.get("workoutActivityType"), "start": apple_date(el.get("startDate")),
                 "end": apple_date(el.get("endDate")), "duration_s": float(el.get("duration")) * 60}
            if el.get("totalDistance"):
                w["distance_m"] = float(el.get("totalDistance")) * METRES[el.get("totalDistanceUnit")]
            for child in el:
                if child.tag == "WorkoutStatistics" and child.get("type", "").startswith("HKQuantityTypeIdentifierDistance"):
                    w["distance_m"] = float(child.get("sum")) * METRES[child.get("unit")]
                if child.tag == "MetadataEntry" and child.get("key") == "HKTimeZone":
                    w["zone"] = child.get("value")
            workouts.append(w)
            el.clear()
    for w in workouts:
        inside = [v for t, v in rates if w["start"].timestamp() <= t <= w["end"].timestamp()]
        w["hr_mean"] = sum(inside) / len(inside) if inside else None
        local = w["start"].astimezone(ZoneInfo(w["zone"])) if w.get("zone") else w["start"]
        w["local_start"] = local.strftime("%Y-%m-%dT%H:%M:%S")
    return workouts


def awards(report):
    return sorted((a["badge"], a["run"].split("export.xml")[-1]) for a in report["awards"])


def check_apple(base, badgectl, work):
    apple = os.path.join(base, "apple-health")
    peer = apple_peer(os.path.join(apple, "apple_health_export", "export.xml"))
    running = [w for w in peer if w["type"] == "HKWorkoutActivityTypeRunning"]
    zipped = os.path.join(work, "account.zip")
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(os.path.join(apple, "export.zip"), "downloads/export.zip")
    sources = {"export.zip": os.path.join(apple, "export.zip"), "folder": os.path.join(apple, "apple_health_export"),
               "export.xml": os.path.join(apple, "apple_health_export", "export.xml"), "zip in a zip": zipped}
    seen = {}
    for zone in ["UTC", "Pacific/Kiritimati"]:
        for name, path in sources.items():
            report = run(badgectl, ["evaluate", path, "--format", "json", "--tz", zone, "--no-cache"])
            runs = [r for r in report["runs"] if r["sport"] == "running"]
            others = sorted(r["sport"] for r in report["runs"] if r["sport"] != "running")
            check(len(runs) == len(running) and len(report["runs"]) == len(peer),
                  f"apple {name} --tz {zone}: {len(runs)} running of {len(report['runs'])} workouts "
                  f"(export.xml: {len(running)} of {len(peer)}; others {others})")
            check(not any(r["id"].endswith(".gpx") for r in report["runs"]), f"apple {name}: no route file read as a run")
            for r in runs:
                index = int(r["id"].rsplit("#", 1)[1]) - 1
                w = peer[index]
                check(abs(r["device_distance_m"] - w["distance_m"]) <= 0.1,
                      f"apple {name} {r['id'][-13:]}: device_distance_m {r['device_distance_m']:.1f} vs {w['distance_m']:.1f}")
                check(abs(r["device_timer_s"] - w["duration_s"]) <= 0.01,
                      f"apple {name} {r['id'][-13:]}: device_timer_s {r['device_timer_s']:.2f} vs duration {w['duration_s']:.2f}")
                check(r["local_start"] == w["local_start"] and r["zone_source"] == "file",
                      f"apple {name} {r['id'][-13:]} --tz {zone}: local_start {r['local_start']} vs {w['local_start']} "
                      f"({w.get('zone', 'dates offset')}), zone_source {r['zone_source']}")
                if w["hr_mean"]:
                    ours = (r.get("heart_rate") or {}).get("avg")
                    check(ours is not None and abs(ours - w["hr_mean"]) <= 0.01 * w["hr_mean"],
                          f"apple {name} {r['id'][-13:]}: heart rate {ours} vs records' mean {w['hr_mean']:.1f}")
            seen[(name, zone)] = awards(report)
    first = next(iter(seen.values()))
    check(all(a == first for a in seen.values()) and first,
          f"apple: the same {len(first)} awards from the zip, the folder, the file and the zip in a zip under both zones")


def summarize(badgectl, path):
    return run(badgectl, ["summarize", path, "--format", "json", "--tz", "Asia/Tokyo", "--no-cache"])["runs"][0]


def check_sml(base, badgectl):
    for name, sport in [("gc_Ambit2S_2014-10-07_run.sml", "running"), ("gc_Ambit2_2015-10-01_cycling.sml", "cycling")]:
        path = os.path.join(base, "suunto", name)
        ns = {"s": "http://www.suunto.com/schemas/sml"}
        root = ET.parse(path).getroot()
        header = root.find("s:DeviceLog/s:Header", ns)
        distance = float(header.find("s:Distance", ns).text)
        duration = float(header.find("s:Duration", ns).text)
        hr = float(header.find("s:HR/s:Avg", ns).text) * 60
        local = datetime.datetime.fromisoformat(header.find("s:DateTime", ns).text)
        first_utc = next(s.find("s:UTC", ns).text for s in root.iter("{%s}Sample" % ns["s"]) if s.find("s:UTC", ns) is not None)
        utc = datetime.datetime.fromisoformat(first_utc.replace("Z", "+00:00")).replace(tzinfo=None)
        offset = round((local - utc).total_seconds() / 900) * 900
        r = summarize(badgectl, path)
        check(r["device_distance_m"] == distance and abs(r["device_elapsed_s"] - duration) < 1e-6,
              f"sml {name}: device {r['device_distance_m']} m {r['device_elapsed_s']} s vs header {distance} m {duration} s")
        check(abs(r["distance_m"] - distance) <= 0.005 * distance, f"sml {name}: distance {r['distance_m']:.0f} vs header {distance:.0f} (0.5%)")
        ours = (r.get("heart_rate") or {}).get("avg")
        check(ours is not None and abs(ours - hr) <= 0.01 * hr, f"sml {name}: heart rate {ours} vs header {hr:.1f} (1%)")
        check(r["utc_offset_s"] == offset and r["zone_source"] == "file", f"sml {name}: utc_offset_s {r['utc_offset_s']} vs {offset}")
        check(r["sport"] == sport and r["format"] == "sml", f"sml {name}: sport {r['sport']} ({sport}), format {r['format']}")


def check_suunto_json(base, badgectl):
    path = os.path.join(base, "suunto", "sportslib_suunto9_2018-03-13.json")
    log = json.load(open(path))["DeviceLog"]
    header = log["Header"]
    beats = [60000 / i for i in log["R-R"]["Data"] if 250 <= i <= 2000]
    mean = sum(beats) / len(beats)
    offset = datetime.datetime.fromisoformat(header["DateTime"]).utcoffset().total_seconds()
    r = summarize(badgectl, path)
    check(r["device_distance_m"] == header["Distance"] and abs(r["device_elapsed_s"] - header["Duration"]) < 1e-6,
          f"suunto json: device {r['device_distance_m']} m {r['device_elapsed_s']} s vs header {header['Distance']} m {header['Duration']} s")
    check(abs(r["distance_m"] - header["Distance"]) <= 0.015 * header["Distance"],
          f"suunto json: distance {r['distance_m']:.0f} vs header {header['Distance']} (1.5%)")
    ours = (r.get("heart_rate") or {}).get("avg")
    check(ours is not None and abs(ours - mean) <= 0.03 * mean, f"suunto json: heart rate from R-R {ours} vs beats' mean {mean:.1f} (3%)")
    check(r["utc_offset_s"] == offset and r["format"] == "suunto_json", f"suunto json: utc_offset_s {r['utc_offset_s']} vs {offset}")


def check_polar(base, badgectl):
    path = os.path.join(base, "polar", "slither_polarflow_running.json")
    session = json.load(open(path))
    exercise = session["exercises"][0]
    rates = [s["value"] for s in exercise["samples"]["heartRate"]]
    mean = sum(rates) / len(rates)
    r = summarize(badgectl, path)
    check(r["device_distance_m"] == exercise["distance"] and r["device_avg_heart_rate_bpm"] == exercise["heartRate"]["avg"]
          and r["device_max_heart_rate_bpm"] == exercise["heartRate"]["max"],
          f"polar: device {r['device_distance_m']} m, {r['device_avg_heart_rate_bpm']}/{r['device_max_heart_rate_bpm']} bpm vs the session's")
    ours = (r.get("heart_rate") or {}).get("avg")
    check(ours is not None and abs(ours - mean) <= 0.01 * mean, f"polar: heart rate {ours} vs samples' mean {mean:.1f} (1%)")
    check(abs(r["distance_m"] - exercise["distance"]) <= 0.03 * exercise["distance"],
          f"polar: distance {r['distance_m']:.0f} vs session {exercise['distance']:.0f} (3%)")
    check(r["local_start"] == exercise["startTime"][:19] and r["utc_offset_s"] == exercise["timezoneOffset"] * 60,
          f"polar: local_start {r['local_start']} vs {exercise['startTime']}, utc_offset_s {r['utc_offset_s']}")
    check(r["sport"] == "running" and r["format"] == "polar_json", f"polar: sport {r['sport']}, format {r['format']}")


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    base, badgectl = os.path.join(sys.argv[1], "archives"), sys.argv[2]
    if not os.path.isdir(base):
        print(f"check_archives: no {base}: skipped")
        return 0
    work = tempfile.mkdtemp()
    try:
        check_apple(base, badgectl, work)
        check_sml(base, badgectl)
        check_suunto_json(base, badgectl)
        check_polar(base, badgectl)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"check_archives: {len(failures)} failed" if failures else "check_archives: all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
