#!/usr/bin/env python3
"""Compares badgectl with established tools on a folder of real activity files.

Usage: scripts/realdata/compare_summaries.py /path/to/realdata [--badgectl .build/release/badgectl]
(one of the checks scripts/check-realdata runs; its output is the table of docs/accuracy.md)

The folder must hold the files and a reference.json (values computed by gpxpy, tcxreader,
fitdecode/fitparse and GeographicLib). Prints a Markdown table per file: our distance vs gpxpy's
formulas on the same points (must be within 0.5%), vs the WGS84 geodesic, our elapsed time vs the
FIT session's total_elapsed_time or the last-first timestamp (within 1 s), the device's own total;
then our timer and heart-rate average beside the device's own totals (device_timer_s must be the FIT
session's total_timer_time, the average within 1 bpm of the session's avg_heart_rate); then checks that
the same activity in several formats gives the same distance (within 0.5%) and the same badges, and that
`evaluate` on the whole folder lists exactly the other formats of each such activity as duplicates of its
FIT file. Exits 1 when a check fails. Standard library only.
"""
import json, os, subprocess, sys, tempfile, shutil
from datetime import datetime

def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__); return 2
    folder = args[0]
    exe = args[args.index("--badgectl") + 1] if "--badgectl" in args else ".build/release/badgectl"
    ref = json.load(open(os.path.join(folder, "reference.json")))["files"]
    rows, failures = [], []
    summaries = {}
    for name in sorted(ref):
        path = os.path.join(folder, name)
        r = ref[name]
        proc = subprocess.run([exe, "summarize", path, "--format", "json"], capture_output=True, text=True)
        if proc.returncode != 0 or not proc.stdout.strip():
            rows.append((name, "refused: " + proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "refused", "", "", "", "", ""))
            peer_errors = [v.get("error") for v in r.get("peer", {}).values() if isinstance(v, dict) and v.get("error")]
            if not peer_errors:
                failures.append(f"{name}: refused but the peers read it")
            continue
        runs = json.loads(proc.stdout)["runs"]
        run = runs[0]
        summaries[name] = run
        own = r.get("own", {})
        # gpxpy's formulas on all points: gpxpy itself for GPX, gpxpy objects built from FIT records,
        # else (TCX) the reference script's gpxpy-formula distance over the timed points.
        gpxpy_d = r.get("peer", {}).get("gpxpy", {}).get("length_2d_m")
        if gpxpy_d is None:
            gpxpy_d = (own.get("gpxpy_formulas_on_fit_records") or {}).get("length_2d_m")
        acts = own.get("activities") or []
        if gpxpy_d is None and acts:
            gpxpy_d = (acts[0].get("gpxpy_formulas_on_tcx_points") or {}).get("length_2d_m")
        if gpxpy_d is None:
            gpxpy_d = (own.get("efforts", {}).get("gpxpy_2d") or {}).get("distance_m")
        geo = r.get("peer", {}).get("geographiclib_wgs84_geodesic_length_m") or own.get("geographiclib_wgs84_geodesic_length_m")
        ours = run["distance_m"]
        diff = (ours - gpxpy_d) / gpxpy_d * 100 if gpxpy_d else None
        # Elapsed: FIT session total, else last - first timestamp.
        ref_elapsed = None
        fd = r.get("peer", {}).get("fitdecode", {})
        if fd.get("sessions"):
            ref_elapsed = fd["sessions"][0].get("total_elapsed_time")
        gp = r.get("peer", {}).get("gpxpy", {})
        last_first = None
        if gp.get("start_time") and gp.get("end_time"):
            last_first = (datetime.fromisoformat(gp["end_time"].replace("Z", "+00:00")) - datetime.fromisoformat(gp["start_time"].replace("Z", "+00:00"))).total_seconds()
        if fd.get("first_record_time") and fd.get("last_record_time"):
            last_first = (datetime.fromisoformat(fd["last_record_time"].replace("Z", "+00:00")) - datetime.fromisoformat(fd["first_record_time"].replace("Z", "+00:00"))).total_seconds()
        tr = r.get("peer", {}).get("tcxreader", {})
        if tr.get("duration_s_last_minus_first_trackpoint") is not None:
            last_first = tr["duration_s_last_minus_first_trackpoint"]
        el = run.get("elapsed_s")
        el_ok = el is not None and any(x is not None and abs(el - x) <= 1.0 for x in (ref_elapsed, last_first))
        if diff is not None and abs(diff) > 0.5 and not name.startswith("ODD_opentracks"):
            failures.append(f"{name}: distance {ours:.1f} m is {diff:+.3f}% from gpxpy's {gpxpy_d:.1f} m")
        if el is not None and (ref_elapsed is not None or last_first is not None) and not el_ok:
            failures.append(f"{name}: elapsed {el} s vs reference {ref_elapsed} / {last_first}")
        rows.append((name, f"{ours:.1f}", f"{gpxpy_d:.1f}" if gpxpy_d else "—", f"{diff:+.3f}%" if diff is not None else "—",
                     f"{geo:.1f}" if geo else "—",
                     f"{el:.1f} / {ref_elapsed if ref_elapsed is not None else last_first}" if el is not None else "— (no times)",
                     f"{run['device_distance_m']:.1f}" if run.get("device_distance_m") else "—"))
    print("| file | ours (m) | gpxpy formulas (m) | diff | WGS84 geodesic (m) | elapsed s: ours / reference | device (m) |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    timer_and_heart(ref, summaries, failures)
    duplicates(folder, exe, summaries, failures)
    # The same activity in several formats.
    stem = "sl_run_6782987395"
    same = [n for n in summaries if n.startswith(stem + ".")]
    if len(same) > 1:
        ds = {n: summaries[n]["distance_m"] for n in same}
        spread = (max(ds.values()) - min(ds.values())) / min(ds.values()) * 100
        awards = {}
        here = os.path.dirname(os.path.abspath(__file__))
        for n in same:
            tmp = tempfile.mkdtemp()
            shutil.copy(os.path.join(folder, n), tmp)
            proc = subprocess.run([exe, "evaluate", tmp, "--format", "json", "--rules", os.path.join(here, "..", "..", "rules", "checkpoints"),
                                   "--badges", os.path.join(here, "..", "..", "badges.json")], capture_output=True, text=True)
            shutil.rmtree(tmp)
            awards[n] = sorted((a["badge"], a["tier"]) for a in json.loads(proc.stdout)["awards"])
        same_badges = len({tuple(v) for v in awards.values()}) == 1
        print()
        print(f"Same activity ({', '.join(same)}): distances " + ", ".join(f"{ds[n]:.1f}" for n in same)
              + f" m (spread {spread:.3f}%); badges " + ("identical" if same_badges else "DIFFER") + f": {awards[same[0]]}")
        if spread > 0.5: failures.append("same activity: distance spread over 0.5%")
        if not same_badges: failures.append("same activity: badges differ")
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures)); return 1
    print("\nAll checks passed.")
    return 0

def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"

def timer_and_heart(ref, summaries, failures):
    """Our timer and heart-rate average beside the device's own totals and the peers' figures.

    timer_s is ours (elapsed less segment gaps and recorded timer pauses); device_timer_s is the
    file's own total as we read it, which must equal fitdecode's session total_timer_time (FIT)
    within 0.01 s. heart_rate.avg is ours, weighted by time; the device's (FIT session
    avg_heart_rate) is an integer, so ours must be within 1 bpm of it; the peers average per sample.
    """
    print("| file | timer s: ours / device (read) / fitdecode | sports-lib timer | HR avg: ours by time / device / peer per sample | HR max: ours / peer |")
    print("|---|---|---|---|---|")
    for name in sorted(summaries):
        run, peer, own = summaries[name], ref[name].get("peer", {}), ref[name].get("own", {})
        session = (peer.get("fitdecode", {}).get("sessions") or [{}])[0]
        fit_timer = session.get("total_timer_time")
        device_timer = run.get("device_timer_s")
        if fit_timer is not None and (device_timer is None or abs(device_timer - fit_timer) > 0.01):
            failures.append(f"{name}: device_timer_s {device_timer} is not fitdecode's total_timer_time {fit_timer}")
        hr = run.get("heart_rate") or {}
        device_hr = session.get("avg_heart_rate")
        peer_hr = peer.get("tcxreader", {}).get("hr_avg") or (own.get("heart_rate") or {}).get("avg")
        peer_max = peer.get("tcxreader", {}).get("hr_max") or (own.get("heart_rate") or {}).get("max") or session.get("max_heart_rate")
        if device_hr is not None and hr.get("avg") is not None and abs(hr["avg"] - device_hr) > 1:
            failures.append(f"{name}: heart-rate average {hr['avg']:.2f} is more than 1 bpm from the device's {device_hr}")
        sl = peer.get("sports_lib_test_assertions", {}).get("timer_time", "—")
        print(f"| {name} | {fmt(run.get('timer_s'))} / {fmt(device_timer, 3)} / {fmt(fit_timer, 3)} | {sl} | "
              f"{fmt(hr.get('avg'), 2)} / {fmt(device_hr, 0)} / {fmt(peer_hr, 2)} | {fmt(hr.get('max'), 0)} / {fmt(peer_max, 0)} |")
    print()

def duplicates(folder, exe, summaries, failures):
    """`evaluate` on the whole folder: each activity kept as several files counts once, as its FIT file."""
    here = os.path.dirname(os.path.abspath(__file__))
    # The run files of the folder only, copied apart: archives/ holds account exports (issue A)
    # whose route fragments are, rightly, the same activities as the assembled export's routes.
    import shutil, tempfile
    apart = tempfile.mkdtemp(prefix="badgectl-realdata-")
    for name in summaries:
        shutil.copy(os.path.join(folder, name), os.path.join(apart, name))
    proc = subprocess.run([exe, "evaluate", apart, "--format", "json", "--no-cache", "--rules", os.path.join(here, "..", "..", "rules", "checkpoints"),
                           "--badges", os.path.join(here, "..", "..", "badges.json")], capture_output=True, text=True)
    try:
        found = sorted((d["id"], d["same_as"], d["reason"]) for d in json.loads(proc.stdout)["duplicates"])
    except (ValueError, KeyError) as error:
        failures.append(f"duplicates: evaluate gave no duplicates list ({error})"); return
    finally:
        shutil.rmtree(apart, ignore_errors=True)
    stems = {}
    for name in summaries:
        stems.setdefault(name.rsplit(".", 1)[0], []).append(name)
    rank = {"fit": 0, "tcx": 1, "gpx": 2, "json": 3}
    expected = []
    for names in stems.values():
        if len(names) > 1:
            kept = min(names, key=lambda n: rank.get(n.rsplit(".", 1)[1], 9))
            expected += [(n, kept, "same activity") for n in names if n != kept]
    expected.sort()
    print("Duplicates found by `evaluate` on the whole folder: " + "; ".join(f"{a} same activity as {b}" for a, b, _ in found))
    if found != expected:
        failures.append(f"duplicates: found {found}, expected {expected}")

if __name__ == "__main__":
    sys.exit(main())
