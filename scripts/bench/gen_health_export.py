#!/usr/bin/env python3
"""Writes an Apple Health export.xml of about SIZE_MB megabytes in the shape of a real account's
(the fragments of ../shared/realdata/archives/apple-health): the DOCTYPE and HealthData root, mostly
Record elements (step counts, energy and heart rate, with MetadataEntry children as the Health app
writes them), then WORKOUTS workouts (running, walking, cycling), each with its WorkoutStatistics,
HKTimeZone and a route FileReference, and the heart-rate records inside each workout's time.

Usage: gen_health_export.py OUT SIZE_MB [WORKOUTS]    (deterministic: the same arguments give the same bytes)
"""
import sys

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
<!ATTLIST HealthData
  locale CDATA #REQUIRED
>
]>
<HealthData locale="en_GB">
 <ExportDate value="2026-04-01 09:00:00 +0200"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1985-05-05" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexMale"/>
"""


def stamp(t):
    days, rest = divmod(int(t), 86400)
    # days since 2015-01-01 (a Thursday); months are approximated as 30 days: only the shape matters.
    year, day = 2015 + days // 360, days % 360
    return "%04d-%02d-%02d %02d:%02d:%02d +0100" % (year, day // 30 + 1, day % 30 + 1, rest // 3600, rest % 3600 // 60, rest % 60)


def main():
    out, size_mb = sys.argv[1], int(sys.argv[2])
    workouts = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    target = size_mb * 1_000_000
    span = 360 * 86400 * 10  # ten (360-day) years
    starts = [(i + 0.5) * span / workouts for i in range(workouts)]
    with open(out, "w", encoding="utf-8") as f:
        f.write(HEADER)
        written = len(HEADER)
        # Workouts and their records are written last; reserve their room.
        tail_estimate = workouts * (1300 + 720 * 227)
        t = 0.0
        k = 0
        chunk = []
        while written < target - tail_estimate:
            kind = k % 3
            s, e = stamp(t), stamp(t + 60)
            if kind == 0:
                r = (' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="iPhone" sourceVersion="17.1" '
                     'device="&lt;&lt;HKDevice: 0x28329c0f0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, '
                     'hardware:iPhone14,2, software:17.1&gt;" unit="count" creationDate="%s" startDate="%s" endDate="%s" value="%d"/>\n'
                     % (e, s, e, 20 + k % 97))
            elif kind == 1:
                r = (' <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" sourceName="Apple\u00a0Watch" sourceVersion="10.1" '
                     'unit="kcal" creationDate="%s" startDate="%s" endDate="%s" value="0.%03d"/>\n' % (e, s, e, k % 997))
            else:
                r = (' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple\u00a0Watch" sourceVersion="10.1" '
                     'unit="count/min" creationDate="%s" startDate="%s" endDate="%s" value="%d">\n'
                     '  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>\n </Record>\n' % (e, s, s, 55 + k % 40))
            chunk.append(r)
            written += len(r.encode())
            t += 37
            k += 1
            if len(chunk) >= 10000:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))
        types = ["HKWorkoutActivityTypeRunning", "HKWorkoutActivityTypeRunning", "HKWorkoutActivityTypeWalking", "HKWorkoutActivityTypeCycling"]
        for i, start in enumerate(starts):
            # The workout's heart rate: one record every 5 s for an hour, written before the workouts as the app does.
            f.write("".join(
                ' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple\u00a0Watch" sourceVersion="10.1" unit="count/min" '
                'creationDate="%s" startDate="%s" endDate="%s" value="%d"/>\n' % (stamp(start + j * 5), stamp(start + j * 5), stamp(start + j * 5), 120 + j % 40)
                for j in range(720)))
        for i, start in enumerate(starts):
            end = start + 3600
            f.write('<Workout workoutActivityType="%s" duration="60" durationUnit="min" sourceName="Apple Watch" sourceVersion="11.6.1" '
                    'device="&lt;&lt;HKDevice: 0xc937f6fa0&gt;, name:Apple Watch&gt;" creationDate="%s" startDate="%s" endDate="%s">\n'
                    % (types[i % 4], stamp(end), stamp(start), stamp(end)))
            f.write('  <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>\n')
            f.write('  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="%s" duration="10" durationUnit="min"/>\n' % stamp(start))
            f.write('  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="%s" endDate="%s" sum="650.2" unit="kcal"/>\n'
                    % (stamp(start), stamp(end)))
            f.write('  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="%s" endDate="%s" sum="%.5f" unit="km"/>\n'
                    % (stamp(start), stamp(end), 10 + (i % 50) / 10))
            f.write('  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="%s" endDate="%s" average="139.5" minimum="120" maximum="159" unit="count/min"/>\n'
                    % (stamp(start), stamp(end)))
            f.write("</Workout>\n")
        f.write("</HealthData>\n")


if __name__ == "__main__":
    main()
