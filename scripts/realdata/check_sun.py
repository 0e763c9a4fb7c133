#!/usr/bin/env python3
"""Sunrise and sunset from badgectl's `Sun` (through `BadgeBench sun`) against the astral package.

    check_sun.py BADGEBENCH [--count N] [--seed S]

At least 1,000 random places and dates between 60°S and 60°N (a fixed seed: the same cases every
run), each within 2 minutes of astral's sunrise and sunset for the same local date (the local mean
solar date, UTC + longitude / 15 hours; each of ours matched to astral's nearest), plus polar days and nights
at high latitudes, where both must agree that the sun does not rise or set. astral uses the same
definition of the events: the upper limb on the horizon with 0.833° of refraction, at sea level.
Exits 1 on any disagreement, listing the worst cases.
"""
import argparse
import datetime as dt
import random
import subprocess
import sys

from astral import Observer
from astral.sun import sunrise, sunset

TOLERANCE_S = 120.0

# Places and dates where the sun stays up or down all day: (lat, lon, date, expected).
POLAR = [
    (69.65, 18.96, "2026-06-21", "polar-day"),     # Tromsø, midnight sun
    (69.65, 18.96, "2026-12-21", "polar-night"),   # Tromsø, polar night
    (78.22, 15.65, "2025-05-01", "polar-day"),     # Longyearbyen
    (78.22, 15.65, "2025-11-20", "polar-night"),
    (-77.85, 166.67, "2026-12-21", "polar-day"),   # McMurdo
    (-77.85, 166.67, "2026-06-21", "polar-night"),
    (89.9, 0.0, "2026-06-01", "polar-day"),        # near the North Pole
    (-89.9, 0.0, "2026-06-01", "polar-night"),     # near the South Pole
]


def astral_events(lat, lon, date):
    """astral's sunrises and sunsets (epoch seconds) on the UTC dates around `date`, or 'polar-…'.

    astral answers for a date in a zone and misses an event that falls right at that zone's midnight
    ("Unable to find a sunrise time on the date specified", or the next day's event instead), so the
    events of the days around `date` in three zones 8 hours apart are gathered (an event at one zone's
    midnight is mid-morning or mid-afternoon in another) and ours is matched to the nearest (events a
    day apart cannot be confused).
    """
    observer = Observer(latitude=lat, longitude=lon, elevation=0)
    day = dt.date.fromisoformat(date)
    rises, sets, polar = [], [], set()
    for hours in (0, 8, -8):
        zone = dt.timezone(dt.timedelta(hours=hours))
        for delta in (-1, 0, 1):
            when = day + dt.timedelta(days=delta)
            for event, into in ((sunrise, rises), (sunset, sets)):
                try:
                    into.append(event(observer, when, tzinfo=zone).timestamp())
                except ValueError as error:
                    text = str(error).lower()
                    polar.add("polar-day" if "above" in text else "polar-night" if "below" in text else "polar-?")
    polar.discard("polar-?")
    # astral computes an event on a UTC date and wraps one that falls just before that date's midnight
    # into the same date, a day late (1996-01-30 at 56.3°N 120.8°E: 23:57 on the 30th for 23:57 on the
    # 29th); near UTC midnight its raw answer, a day earlier or later, is taken too.
    def unwrapped(events):
        more = []
        for e in events:
            seconds = e % 86400
            if seconds >= 86400 - 1800:
                more.append(e - 86400)
            elif seconds < 1800:
                more.append(e + 86400)
        return events + more
    rises, sets = unwrapped(rises), unwrapped(sets)
    if not rises or not sets:
        return polar.pop() if len(polar) == 1 else "polar-?"
    if polar:
        return "polar-?"  # events on some days, none on others: not a clean case
    return rises, sets


def local_date(epoch, lon):
    """The local mean solar date of an instant."""
    return dt.datetime.fromtimestamp(epoch + lon * 240, dt.timezone.utc).date().isoformat()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("badgebench")
    parser.add_argument("--count", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=20261124)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    cases = []
    start = dt.date(1990, 1, 1)
    for _ in range(args.count):
        lat = rng.uniform(-60, 60)
        lon = rng.uniform(-180, 180)
        date = start + dt.timedelta(days=rng.randrange(0, 365 * 60))
        cases.append((round(lat, 5), round(lon, 5), date.isoformat(), None))
    cases += POLAR

    stdin = "".join(f"{lat} {lon} {date}\n" for lat, lon, date, _ in cases)
    result = subprocess.run([args.badgebench, "sun"], input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"check_sun: BadgeBench sun failed: {result.stderr.strip()}", file=sys.stderr)
        return 1
    ours_lines = result.stdout.splitlines()
    if len(ours_lines) != len(cases):
        print(f"check_sun: {len(ours_lines)} answers for {len(cases)} cases", file=sys.stderr)
        return 1

    failures = []
    worst = 0.0
    for (lat, lon, date, expected), line in zip(cases, ours_lines):
        theirs = astral_events(lat, lon, date)
        ours = line.strip()
        case = f"{lat:9.4f} {lon:10.4f} {date}"
        if expected is not None:
            if ours != expected or theirs != expected:
                failures.append((float("inf"), f"{case}: ours {ours}, astral {theirs}, expected {expected}"))
            continue
        if isinstance(theirs, str) or ours.startswith("polar"):
            failures.append((float("inf"), f"{case}: ours {ours}, astral {theirs}"))
            continue
        rise, fall = (float(x) for x in ours.split())
        if local_date(rise, lon) != date or local_date(fall, lon) != date:
            failures.append((float("inf"), f"{case}: our events {rise:.0f}, {fall:.0f} are not on that local date"))
            continue
        error = max(min(abs(rise - r) for r in theirs[0]), min(abs(fall - f) for f in theirs[1]))
        worst = max(worst, error)
        if error > TOLERANCE_S:
            failures.append((error, f"{case}: {error:.0f} s from astral's nearest event"))

    checked = len(cases)
    if failures:
        failures.sort(key=lambda f: -f[0])
        print(f"check_sun: {len(failures)} of {checked} cases beyond {TOLERANCE_S:.0f} s of astral (or polar disagreements):")
        for _, text in failures[:20]:
            print("  " + text)
        return 1
    print(f"check_sun: {checked} places and dates ({len(POLAR)} polar) within {TOLERANCE_S:.0f} s of astral; worst {worst:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
