"""Per-upload badge evaluation on Spark Structured Streaming, with each athlete's state in Spark's
state store (docs/streaming.md).

    python examples/spark/stream.py --input DIR --checkpoint DIR --output FILE.sqlite \
        [--trigger-seconds N | --available-now] [--badgectl PATH] [-- badgectl worker options]

Reads JSON-lines files as they appear in --input: the lines of `badgectl worker` (one run each:
{"athlete", "path" | "summary", "id"?, "tz"?, profile fields?}) and {"athlete": ID, "remove": RUN}.
An upload is a file; its lines apply in order, files in the order Spark's file source takes them
(modification time, then name). Per athlete, `transformWithStateInPandas` keeps in the state store
(RocksDB provider) the athlete's history, one line per run id (a run given again replaces it, a
remove takes it out), and the award ids it holds. Each micro-batch hands every athlete with uploads
to a long-lived `badgectl worker --any-order` in the Python worker (one process per Python worker,
fed one athlete at a time and flushed with {"flush": true}): the awards of the history now, against
those held, give the rows written: awards given, awards withdrawn.

Writes FILE.sqlite's table awards(award_id PRIMARY KEY, athlete, pack, badge, tier, run, earned_at,
withdrawn_at) idempotently from foreachBatch: a batch written again (after a failure) changes
nothing; an award given again clears its withdrawn_at. Deleting the checkpoint and replaying gives
the same awards not withdrawn; a job killed in the middle of a batch and restarted neither loses
nor duplicates one.
"""

import argparse
import datetime
import json
import os
import sqlite3
import subprocess
import sys

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.streaming.stateful_processor import StatefulProcessor, StatefulProcessorHandle
from pyspark.sql.types import LongType, StringType, StructField, StructType

OUTPUT = StructType([
    StructField("award_id", StringType()),
    StructField("athlete", StringType()),
    StructField("pack", StringType()),
    StructField("badge", StringType()),
    StructField("tier", StringType()),
    StructField("run", StringType()),
    StructField("earned_at", StringType()),
    StructField("event", StringType()),  # "given", "withdrawn", or "error" (a line that holds no run, or one badgectl refused)
    StructField("event_at", StringType()),  # the upload that caused it: its file's modification time (UTC)
    StructField("file", StringType()),  # for an error: the upload file ("" when badgectl names the run instead)
    StructField("line", LongType()),  # for an error: the line in that file (1-based; 0 with no file)
    StructField("message", StringType()),  # for an error: what is wrong
])
STATE = StructType([
    StructField("history", StringType()),  # JSON: [[run id, line], ...] in the order given
    StructField("awards", StringType()),  # JSON: {award_id: [pack, badge, tier, run, earned_at]}
])
ENV = "BADGECTL_STREAM_COMMAND"


# One long-lived `badgectl worker --any-order` per Python worker process (a task's athletes are
# handed to it one at a time), made when first needed: nothing here is pickled with the job.
_WORKER = {}


def badgectl_worker():
    process = _WORKER.get("process")
    if process is None or process.poll() is not None:
        _WORKER["sent"] = 0
        command = json.loads(os.environ[ENV])
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   text=True, bufsize=1)
        header = json.loads(process.stdout.readline() or "{}")
        if header.get("type") != "header":
            raise RuntimeError(f"badgectl worker did not start ({command}): {header}")
        _WORKER["process"] = process
    return process


def history_awards(athlete, lines):
    """The award lines of `athlete`'s history `lines` and its errors as (index in `lines` or None,
    message), as `badgectl worker` gives them."""
    process = badgectl_worker()
    first = _WORKER["sent"] + 1  # the worker numbers its input lines from its start
    process.stdin.write("".join(line + "\n" for line in lines) + '{"flush": true}\n')
    process.stdin.flush()
    _WORKER["sent"] += len(lines) + 1
    awards, errors = [], []
    while True:
        text = process.stdout.readline()
        if not text:
            raise RuntimeError(f"badgectl worker ended while evaluating {athlete!r}")
        line = json.loads(text)
        kind = line.get("type")
        if kind == "award":
            awards.append(line)
        elif kind == "error":
            number = line.get("line")
            index = number - first if isinstance(number, int) and 0 <= number - first < len(lines) else None
            errors.append((index, line.get("message")))
        elif kind == "flushed":
            # After the athlete's award and status lines, always: even when none of its lines named it.
            return awards, errors


def run_id(line):
    """The run's id as `badgectl worker` names it: `id`, else the file's name, else the summary's start."""
    if isinstance(line.get("id"), str):
        return line["id"]
    if isinstance(line.get("path"), str):
        return os.path.basename(line["path"])
    summary = line.get("summary")
    if isinstance(summary, dict) and isinstance(summary.get("start"), str):
        return summary["start"]
    return None


class AwardsProcessor(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        self.state = handle.getValueState("athlete", STATE)

    def handleInputRows(self, key, rows, timerValues=None):
        athlete = key[0]
        # The athlete's lines in upload order (as plain lists: a one-line upload is most athletes'
        # batch, and pandas' concat and sort cost a millisecond each time).
        events = []
        for frame in rows:
            events += zip(frame["mtime"].tolist(), frame["file"].tolist(), frame["pos"].tolist(), frame["line"].tolist())
        events.sort(key=lambda event: event[:3])
        history, held = [], {}
        # (One call to the state store: `get` is None when there is no state.)
        saved = self.state.get()
        if saved is not None:
            history, held = json.loads(saved[0]), json.loads(saved[1])
        runs = dict((rid, line) for rid, line in history)
        order = [rid for rid, _ in history]
        event_at = datetime.datetime.fromtimestamp(int(max(event[0] for event in events)) / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        out = []

        def error(file, line, message):
            out.append((None, athlete, None, None, None, None, None, "error", event_at, file, line, message))

        for _, file, pos, text in events:
            try:
                line = json.loads(text)
            except ValueError as problem:
                error(file, int(pos) + 1, f"not JSON: {problem}")
                continue
            if athlete == "":
                error(file, int(pos) + 1, 'no "athlete" (a non-empty string): the line is not any athlete\'s')
                continue
            if not isinstance(line, dict):
                error(file, int(pos) + 1, "expected a JSON object")
                continue
            if line.get("athlete") != athlete:
                error(file, int(pos) + 1, '"athlete" must be a non-empty string')
                continue
            if "remove" in line:
                if not isinstance(line["remove"], str) or "path" in line or "summary" in line:
                    error(file, int(pos) + 1, 'give "remove" (a run id) alone, not with "path" or "summary"')
                elif runs.pop(line["remove"], None) is not None:
                    order.remove(line["remove"])
                continue
            rid = run_id(line)
            if rid is None:
                error(file, int(pos) + 1, 'missing "path" (a run file) or "summary" (a JSON run summary)')
                continue
            if rid in runs:
                order.remove(rid)
            runs[rid] = text
            order.append(rid)
        now = {}
        if order:
            lines, errors = history_awards(athlete, [runs[rid] for rid in order])
            for a in lines:
                now[a["award_id"]] = [a["pack"], a["badge"], a["tier"], a["run"], a.get("at")]
            # badgectl's own refusals (a file it cannot read, a summary out of range): by run id.
            for index, message in errors:
                error("", 0, (f"run {order[index]}: " if index is not None else "") + str(message))
        for award_id, (pack, badge, tier, run, at) in now.items():
            if award_id not in held:
                out.append((award_id, athlete, pack, badge, tier, run, at, "given", event_at, None, None, None))
        for award_id, (pack, badge, tier, run, at) in held.items():
            if award_id not in now:
                out.append((award_id, athlete, pack, badge, tier, run, at, "withdrawn", event_at, None, None, None))
        self.state.update((json.dumps([[rid, runs[rid]] for rid in order]), json.dumps(now)))
        yield pd.DataFrame(out, columns=[f.name for f in OUTPUT.fields])

    def close(self) -> None:
        pass


def write_batch(output):
    def write(frame, batch_id):
        rows = frame.collect()
        with sqlite3.connect(output) as db:
            db.execute("""CREATE TABLE IF NOT EXISTS awards (award_id TEXT PRIMARY KEY, athlete TEXT NOT NULL,
                pack TEXT NOT NULL, badge TEXT NOT NULL, tier TEXT NOT NULL, run TEXT NOT NULL, earned_at TEXT,
                withdrawn_at TEXT)""")
            # What could not be used, once each: a bad line by its file and line, badgectl's refusal
            # of a run by the run's id in the message.
            db.execute("""CREATE TABLE IF NOT EXISTS errors (file TEXT NOT NULL, line INTEGER NOT NULL, athlete TEXT NOT NULL,
                message TEXT NOT NULL, PRIMARY KEY (file, line, athlete, message))""")
            # Given before withdrawn within a batch does not happen for one id (a batch's rows are
            # the difference of two sets); the order is kept all the same.
            for r in rows:
                if r.event == "error":
                    db.execute("INSERT OR IGNORE INTO errors VALUES (?, ?, ?, ?)", (r.file or "", r.line or 0, r.athlete, r.message))
                elif r.event == "given":
                    db.execute("""INSERT INTO awards VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
                        ON CONFLICT(award_id) DO UPDATE SET athlete = excluded.athlete, pack = excluded.pack,
                        badge = excluded.badge, tier = excluded.tier, run = excluded.run,
                        earned_at = excluded.earned_at, withdrawn_at = NULL""",
                               (r.award_id, r.athlete, r.pack, r.badge, r.tier, r.run, r.earned_at))
                else:
                    db.execute("UPDATE awards SET withdrawn_at = ? WHERE award_id = ?", (r.event_at, r.award_id))
    return write


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--output", required=True)
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--trigger-seconds", type=float, default=None)
    when.add_argument("--available-now", action="store_true")
    parser.add_argument("--badgectl", default=os.environ.get("BADGECTL", "badgectl"))
    parser.add_argument("--master", default=os.environ.get("SPARK_MASTER", "local[2]"))
    parser.add_argument("--files-per-trigger", type=int, default=None, help="at most this many new files a micro-batch")
    parser.add_argument("--partitions", type=int, default=2)
    args, worker_options = parser.parse_known_args(argv)
    if worker_options and worker_options[0] == "--":
        worker_options = worker_options[1:]
    command = [args.badgectl, "worker", "--any-order"] + worker_options
    os.environ[ENV] = json.dumps(command)
    # The Python workers run this interpreter (its pandas and pyarrow), unless told otherwise.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master(args.master).appName("badgectl-stream")
             .config("spark.sql.shuffle.partitions", str(args.partitions))
             .config("spark.sql.streaming.stateStore.providerClass",
                     "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
             .config("spark.executorEnv." + ENV, json.dumps(command))
             .config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    reader = spark.readStream.format("text").option("wholetext", "true")
    if args.files_per_trigger:
        reader = reader.option("maxFilesPerTrigger", str(args.files_per_trigger))
    files = reader.load(args.input).select(
        F.col("value"), F.col("_metadata.file_path").alias("file"),
        (F.col("_metadata.file_modification_time").cast("double") * 1000).cast(LongType()).alias("mtime"))
    lines = (files.select("file", "mtime", F.posexplode(F.split(F.col("value"), "\n")).alias("pos", "line"))
             .where(F.trim(F.col("line")) != "")
             # A line that names no athlete is grouped under "" and comes out as an error.
             .withColumn("athlete", F.coalesce(F.get_json_object(F.col("line"), "$.athlete"), F.lit(""))))
    awards = lines.groupBy("athlete").transformWithStateInPandas(
        statefulProcessor=AwardsProcessor(), outputStructType=OUTPUT, outputMode="Append", timeMode="None")
    writer = awards.writeStream.foreachBatch(write_batch(args.output)).option("checkpointLocation", args.checkpoint)
    if args.available_now:
        writer = writer.trigger(availableNow=True)
    elif args.trigger_seconds:
        writer = writer.trigger(processingTime=f"{args.trigger_seconds} seconds")
    query = writer.start()
    query.awaitTermination()
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
