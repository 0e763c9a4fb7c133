"""Badges for many athletes with Spark: badgectl as the per-partition worker.

Reads a manifest of runs (JSON lines: {"athlete", "file", "start"[, "tz", "id"]}; "start" is the
run's start, ISO 8601, as the platform knows it from the upload; or {"athlete", "summary"[, "tz",
"id"]} for a run kept as a JSON run summary), partitions the runs by athlete and
sorts them by start within each partition (repartitionAndSortWithinPartitions), pipes every
partition through `badgectl worker` (exit status checked: a bad line or a failing rule fails the
task) and writes the awards and the athletes' status lines as JSON (or Parquet).

    spark-submit examples/spark/awards_job.py --manifest runs.jsonl --out out/ --root /data/runs \
        --badgectl .build/release/badgectl --rules rules --badges badges.json

See README.md, "Run it on Spark", and docs/worker.md for the line format.

With --league, the job computes `badgectl league`'s cross-athlete lines instead (docs/league.md,
"Map and reduce"): every partition (an athlete's runs together, as for the worker) is piped through
`badgectl league --facts` (the map: one facts line per group an athlete is in, keyed by the group);
the global group is summed on the driver into one line given to every reduce partition; the other
facts are range-partitioned and sorted by group key and each partition is piped through
`badgectl league --from-facts`, written as out/league/part-*: in partition order, the lines a
single `badgectl league` over the whole manifest writes. A manifest entry's "team", "sex" and
"birth_date" are passed on.

    spark-submit examples/spark/awards_job.py --league --league-args "--by sex team --club distance=100000" \
        --manifest runs.jsonl --out out/ --root /data/runs --badgectl .build/release/badgectl --rules rules/places --badges badges.json
"""

import argparse
import itertools
import json
import shlex
import time
import zlib
from datetime import datetime

from pyspark.sql import SparkSession


# Every key a worker line may have (docs/worker.md); the reader leaves a line's other keys null.
LINE_SCHEMA = ("type string, athlete string, badge string, tier string, run string, at string, award_id string, "
               "pack string, rule string, detail string, runs long, awards long, next string, line long, message string")
AWARD_COLUMNS = ["athlete", "badge", "tier", "run", "at", "award_id", "pack", "rule", "detail"]


def athlete_partition(count):
    """Which partition an athlete's runs go to: a stable hash of the name (not Python's seeded hash)."""
    def partition(key):
        return zlib.crc32(key[0].encode("utf-8")) % count
    return partition


def epoch(start):
    """Seconds since 1970 of an ISO 8601 start (`Z` or an offset)."""
    return datetime.fromisoformat(start.replace("Z", "+00:00")).timestamp()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", required=True, help="JSON lines: athlete, file, start (or summary)[, tz, id]")
    parser.add_argument("--out", required=True, help="output folder (awards/ and status/ are written in it)")
    parser.add_argument("--badgectl", required=True, help="the badgectl binary (on every executor)")
    parser.add_argument("--rules", action="append", default=[], help="a pack folder or a folder of packs (repeat)")
    parser.add_argument("--badges", required=True, help="the badge catalogue")
    parser.add_argument("--root", default=None,
                        help="the folder holding the manifest's files: the worker reads run files only inside it "
                             "(worker --root); required when the manifest names files")
    parser.add_argument("--tz", default="UTC", help="zone of runs whose manifest entry has no tz")
    parser.add_argument("--partitions", type=int, default=0, help="partitions (default: Spark's default parallelism)")
    parser.add_argument("--format", choices=["json", "parquet"], default="json")
    parser.add_argument("--master", default=None, help="Spark master (default: spark-submit's, else local[*])")
    parser.add_argument("--league", action="store_true", help="compute badgectl league's lines (map: --facts, reduce: --from-facts)")
    parser.add_argument("--league-args", default="", help="options for badgectl league (both steps), e.g. \"--by sex --club distance=100000\"")
    args = parser.parse_args()

    builder = SparkSession.builder.appName("badgectl-awards").config("spark.ui.showConsoleProgress", "false")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    context = spark.sparkContext
    context.setLogLevel("ERROR")
    partitions = args.partitions or context.defaultParallelism

    command = [args.badgectl, "worker", "--badges", args.badges, "--tz", args.tz]
    if args.root:
        command += ["--root", args.root]
    for rules in args.rules:
        command += ["--rules", rules]

    def keyed(line):
        entry = json.loads(line)
        request = {"athlete": entry["athlete"], "tz": entry.get("tz", args.tz)}
        if "summary" in entry:  # a run the platform keeps as a JSON summary (docs/worker.md)
            request["summary"] = entry["summary"]
            start = entry.get("start") or entry["summary"]["start"]
        else:
            if not args.root:
                # Without --root the worker opens any path a manifest line names (docs/worker.md).
                raise ValueError("the manifest names files (athlete %r): give --root, the folder they are in" % entry["athlete"])
            request["path"] = entry["file"]
            start = entry["start"]
        if "id" in entry:
            request["id"] = entry["id"]
        for key in ("team", "sex", "birth_date"):  # badgectl league's fields (docs/league.md)
            if key in entry:
                request[key] = entry[key]
        # Sorted by athlete, then start, then file or id: an athlete's runs together, in start order.
        return (entry["athlete"], epoch(start), entry.get("file") or entry.get("id") or ""), json.dumps(request)

    started = time.time()
    requests = (
        context.textFile(args.manifest)
        .filter(lambda line: line.strip())
        .map(keyed)
        .repartitionAndSortWithinPartitions(partitions, athlete_partition(partitions))
        .values()
    )
    if args.league:
        league = [args.badgectl, "league", "--badges", args.badges, "--tz", args.tz] + shlex.split(args.league_args)
        for rules in args.rules:
            league += ["--rules", rules]
        facts = requests.pipe(shlex.join(league + ["--facts"] + (["--root", args.root] if args.root else [])), checkCode=True)
        # Each facts line is "KEY<tab>JSON" (docs/league.md, "Map and reduce"): the global group "0"
        # (one line per athlete: counted or not, the end of its latest run), then a line per
        # segment, badge and tier, and team the athlete is in.
        keyed = facts.map(lambda line: (line.split("\t", 1)[0], line)).cache()
        # The global group, summed here (athletes with a counted run, the latest end) into one line
        # that every reduce partition gets first: rarity's denominator and the as-of instant of the
        # windows are the whole population's wherever a group lands.
        totals = keyed.filter(lambda pair: pair[0] == "0").map(lambda pair: json.loads(pair[1].split("\t", 1)[1])).map(
            lambda fact: (fact.get("athletes", 0), fact.get("latest_end"), fact.get("athlete"), 1)).cache()
        twice = totals.map(lambda t: (t[2], 1)).reduceByKey(lambda a, b: a + b).filter(lambda pair: pair[1] > 1).keys().take(5)
        if twice:
            raise ValueError("athletes whose facts came from two map partitions (their lines were split): %s" % ", ".join(twice))
        athletes = totals.map(lambda t: t[0]).sum()
        ends = totals.map(lambda t: t[1]).filter(lambda end: end is not None)
        total = {"athletes": int(athletes)}
        if not ends.isEmpty():
            total["latest_end"] = ends.max()
        global_line = "0\t" + json.dumps(total, sort_keys=True)
        # The reduce: the other groups range-partitioned by key (a group's lines in one partition, the
        # partitions in key order) and sorted within each, every partition (the global line first)
        # piped through `badgectl league --from-facts`: part files in order are the lines a single
        # `badgectl league` writes. A reduce task holds its partition's facts in badgectl's bounded sort.
        groups = keyed.filter(lambda pair: pair[0] != "0").sortByKey(numPartitions=partitions)
        lines = groups.mapPartitions(lambda pairs: itertools.chain([global_line], (line for _, line in pairs))).pipe(
            shlex.join(league + ["--from-facts"]), checkCode=True)
        lines.saveAsTextFile(args.out + "/league")
        print(json.dumps({"league_lines": lines.count(), "seconds": round(time.time() - started, 3), "partitions": partitions}))
        spark.stop()
        return
    output = requests.pipe(shlex.join(command), checkCode=True)
    # The worker's lines are parsed by Spark's JSON reader (in the JVM, with the schema given: no
    # inference pass, no Python per line); `next` is kept as its JSON text.
    lines = spark.read.schema(LINE_SCHEMA).json(output).cache()
    award_rows = lines.filter(lines.type == "award").select(*AWARD_COLUMNS)
    status_rows = lines.filter(lines.type == "status").select("athlete", "runs", "awards", "next")
    getattr(award_rows.write.mode("overwrite"), args.format)(args.out + "/awards")
    getattr(status_rows.write.mode("overwrite"), args.format)(args.out + "/status")
    runs = status_rows.agg({"runs": "sum"}).collect()[0][0] or 0
    seconds = time.time() - started
    print(json.dumps({"runs": runs, "athletes": status_rows.count(), "awards": award_rows.count(),
                      "seconds": round(seconds, 3), "runs_per_second": round(runs / seconds, 1) if seconds else None,
                      "partitions": partitions}))
    spark.stop()


if __name__ == "__main__":
    main()
