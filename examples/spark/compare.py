"""scripts/spark-check's comparison: the Spark job's awards against `badgectl evaluate` per athlete.

    python3 compare.py OUT_DIR EVALUATED_DIR

OUT_DIR/awards holds the job's JSON part files; EVALUATED_DIR holds one `<athlete>.json` per athlete
(`badgectl evaluate --format json`). Every athlete's awards must be the same (badge, tier, run, at,
pack, rule, detail, as many times each), and every award_id must be the documented hash
(docs/worker.md). Exits 1 on the first difference, naming it.
"""

import collections
import glob
import hashlib
import json
import os
import sys


def award_id(pack, athlete, badge, tier, run, occurrence):
    digest = hashlib.sha256()
    for field in (pack, athlete, badge, tier, run):
        digest.update(field.encode("utf-8") + b"\0")
    if occurrence > 1:
        digest.update(str(occurrence).encode())
    return digest.hexdigest()[:32]


def main():
    out, evaluated = sys.argv[1], sys.argv[2]
    spark = collections.defaultdict(list)
    for part in sorted(glob.glob(os.path.join(out, "awards", "*.json"))):
        with open(part, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    award = json.loads(line)
                    spark[award["athlete"]].append(award)
    failures = 0
    total = 0
    for path in sorted(glob.glob(os.path.join(evaluated, "*.json"))):
        athlete = os.path.basename(path)[: -len(".json")]
        with open(path, encoding="utf-8") as handle:
            report = json.load(handle)
        key = lambda a: (a["badge"], a["tier"], a["run"], a.get("at"), a["pack"], a["rule"], a["detail"])
        from_job = spark.pop(athlete, [])
        expected = collections.Counter(key(a) for a in report["awards"])
        got = collections.Counter(key(a) for a in from_job)
        total += sum(expected.values())
        if expected != got:
            failures += 1
            print(f"{athlete}: awards differ: only from evaluate {sorted((expected - got).elements())[:5]}, "
                  f"only from the job {sorted((got - expected).elements())[:5]}")
            continue
        # award_id: recomputed from evaluate's awards, in evaluate's order (the order the worker
        # numbers a repeated award in).
        seen = collections.Counter()
        ids = collections.Counter()
        for a in report["awards"]:
            k = (a["pack"], a["badge"], a["tier"], a["run"])
            seen[k] += 1
            ids[award_id(a["pack"], athlete, a["badge"], a["tier"], a["run"], seen[k])] += 1
        if ids != collections.Counter(a["award_id"] for a in from_job):
            failures += 1
            print(f"{athlete}: award ids are not the documented hash of pack, athlete, badge, tier and run")
    for athlete, awards in spark.items():
        failures += 1
        print(f"{athlete}: {len(awards)} awards from the job, none from evaluate")
    if total == 0:
        print("spark-check: no awards at all: nothing was compared")
        failures += 1
    if failures:
        print(f"spark-check: {failures} athletes differ")
        sys.exit(1)
    print(f"spark-check: identical awards for every athlete ({total} awards)")


if __name__ == "__main__":
    main()
