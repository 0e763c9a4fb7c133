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
to a long-lived `badgectl worker --any-order --state-dir` in the Python worker (one process per
Python worker, fed one athlete at a time and flushed with {"flush": true}).

The worker's store is a cache, on the machine, of what badgectl made of each history, one per
partition of the job (PARTITION_STORES); `synced.sqlite` beside it says which history (its SHA-256)
each athlete's state there was made from. When it is the history in Spark's state, only the
batch's lines go to the worker, which adds them to the athlete's state (and says which awards it
gave and took back); otherwise (a new Python worker on another machine, a retried batch, a
replay) the athlete is forgotten there ({"forget": true}) and their whole history evaluated again.
Either way the awards are those of the history, against those held: the rows written, awards
given and awards withdrawn. Spark's state stays the one that counts.

Writes FILE.sqlite's table awards(award_id PRIMARY KEY, athlete, pack, badge, tier, run, earned_at,
withdrawn_at) idempotently from foreachBatch: a batch written again (after a failure) changes
nothing; an award given again clears its withdrawn_at. Deleting the checkpoint and replaying gives
the same awards not withdrawn; a job killed in the middle of a batch and restarted neither loses
nor duplicates one.
"""

import argparse
import datetime
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

import pandas as pd
from pyspark import TaskContext
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
# Where the partitions' stores are, on each machine (a folder per job: made from its checkpoint's path).
STORES = "BADGECTL_STREAM_STORES"
# The fields of a line that hold a run or a removal: a line with others (a profile) is evaluated
# with the whole history (a worker's saved state keeps the profile it was made with).
PLAIN_FIELDS = {"athlete", "id", "path", "summary", "tz", "remove"}


# One long-lived `badgectl worker --any-order --state-dir STORE` per Python worker process and
# partition (a task's athletes are handed to it one at a time), made when first needed: nothing
# here is pickled with the job.
_WORKERS = {}


class PartitionStore:
    """A partition's worker store (`--state-dir`) and `synced.sqlite`: which history each athlete's
    state there was made from."""

    def __init__(self, partition):
        self.folder = os.path.join(os.environ[STORES], f"partition-{partition}")
        os.makedirs(self.folder, exist_ok=True)
        self.synced = sqlite3.connect(os.path.join(self.folder, "synced.sqlite"), timeout=30, isolation_level=None)
        self.synced.execute("PRAGMA journal_mode = WAL")
        self.synced.execute("PRAGMA synchronous = NORMAL")
        self.synced.execute("CREATE TABLE IF NOT EXISTS synced (athlete TEXT PRIMARY KEY, history TEXT NOT NULL)")
        command = json.loads(os.environ[ENV]) + ["--state-dir", os.path.join(self.folder, "store")]
        self.sent = 0
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, bufsize=1)
        header = json.loads(self.process.stdout.readline() or "{}")
        if header.get("type") != "header":
            raise RuntimeError(f"badgectl worker did not start ({command}): {header}")

    def holds(self, athlete, history):
        """Whether the athlete's state in the store was made from `history` (a SHA-256); forgets it either
        way until `made` says what it is made from now (a job killed in between finds none)."""
        row = self.synced.execute("DELETE FROM synced WHERE athlete = ? RETURNING history", (athlete,)).fetchone()
        return row is not None and row[0] == history

    def made(self, athlete, history):
        self.synced.execute("INSERT OR REPLACE INTO synced VALUES (?, ?)", (athlete, history))

    def send(self, athlete, lines):
        """The award and withdrawn lines the worker writes for `lines` of `athlete` (then a flush), and
        its errors as (index in `lines` or None, message)."""
        first = self.sent + 1  # the worker numbers its input lines from its start
        self.process.stdin.write("".join(line + "\n" for line in lines) + '{"flush": true}\n')
        self.process.stdin.flush()
        self.sent += len(lines) + 1
        given, withdrawn, errors = [], [], []
        while True:
            text = self.process.stdout.readline()
            if not text:
                raise RuntimeError(f"badgectl worker ended while evaluating {athlete!r}")
            line = json.loads(text)
            kind = line.get("type")
            if kind == "award":
                given.append(line)
            elif kind == "withdrawn":
                withdrawn.append(line)
            elif kind == "error":
                number = line.get("line")
                index = number - first if isinstance(number, int) and 0 <= number - first < len(lines) else None
                errors.append((index, line.get("message")))
            elif kind == "flushed":
                # After the athlete's award and status lines, always: even when none of its lines named it.
                return given, withdrawn, errors


def partition_store():
    partition = TaskContext.get().partitionId()
    store = _WORKERS.get(partition)
    if store is None or store.process.poll() is not None:
        store = _WORKERS[partition] = PartitionStore(partition)
    return store


def fields(award):
    return [award["pack"], award["badge"], award["tier"], award["run"], award.get("at")]


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
        events = pd.concat(list(rows), ignore_index=True).sort_values(["mtime", "file", "pos"], kind="stable")
        history, held, saved_text = [], {}, "[]"
        if self.state.exists():
            saved = self.state.get()
            saved_text = saved[0]
            history, held = json.loads(saved[0]), json.loads(saved[1])
        runs = dict((rid, line) for rid, line in history)
        order = [rid for rid, _ in history]
        event_at = datetime.datetime.fromtimestamp(int(events["mtime"].max()) / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        out = []
        # The batch's lines that change the history, as they came (for a worker that holds it already).
        changes, plain = [], True

        def error(file, line, message):
            out.append((None, athlete, None, None, None, None, None, "error", event_at, file, line, message))

        for text, file, pos in zip(events["line"], events["file"], events["pos"]):
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
                else:
                    changes.append(text)
                    plain = plain and set(line) <= PLAIN_FIELDS
                    if runs.pop(line["remove"], None) is not None:
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
            changes.append(text)
            plain = plain and set(line) <= PLAIN_FIELDS
        history_text = json.dumps([[rid, runs[rid]] for rid in order])
        now = None
        if athlete != "":
            store = partition_store()
            if store.holds(athlete, hashlib.sha256(saved_text.encode()).hexdigest()) and plain:
                # The store holds the history as Spark saved it: the batch's lines are added to it.
                given, withdrawn, errors = store.send(athlete, changes) if changes else ([], [], [])
                if not errors:
                    now = dict(held)
                    for a in withdrawn:
                        now.pop(a["award_id"], None)
                    for a in given:
                        now[a["award_id"]] = fields(a)
            if now is None:
                # Otherwise (and after a line badgectl refused: it may have replaced a run), the
                # athlete forgotten there and the whole history evaluated.
                store.send(athlete, [json.dumps({"athlete": athlete, "forget": True})])
                now = {}
                if order:
                    given, _, errors = store.send(athlete, [runs[rid] for rid in order])
                    for a in given:
                        now[a["award_id"]] = fields(a)
                    # badgectl's own refusals (a file it cannot read, a summary out of range): by run id.
                    for index, message in errors:
                        error("", 0, (f"run {order[index]}: " if index is not None else "") + str(message))
            store.made(athlete, hashlib.sha256(history_text.encode()).hexdigest())
        now = now or {}
        for award_id, (pack, badge, tier, run, at) in now.items():
            if award_id not in held:
                out.append((award_id, athlete, pack, badge, tier, run, at, "given", event_at, None, None, None))
        for award_id, (pack, badge, tier, run, at) in held.items():
            if award_id not in now:
                out.append((award_id, athlete, pack, badge, tier, run, at, "withdrawn", event_at, None, None, None))
        self.state.update((history_text, json.dumps(now)))
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
    parser.add_argument("--stores", default=os.environ.get(STORES),
                        help="where the partitions' worker stores are kept on each machine (default: a folder of the temporary "
                             "folder named after the checkpoint)")
    args, worker_options = parser.parse_known_args(argv)
    if worker_options and worker_options[0] == "--":
        worker_options = worker_options[1:]
    command = [args.badgectl, "worker", "--any-order"] + worker_options
    os.environ[ENV] = json.dumps(command)
    # The partitions' stores: on each machine, a folder of this job's (its checkpoint's) own.
    checkpoint = os.path.abspath(args.checkpoint)
    stores = os.path.abspath(args.stores) if args.stores else os.path.join(
        tempfile.gettempdir(), "badgectl-stream-" + hashlib.sha256(checkpoint.encode()).hexdigest()[:16])
    os.environ[STORES] = stores
    # The Python workers run this interpreter (its pandas and pyarrow), unless told otherwise.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master(args.master).appName("badgectl-stream")
             .config("spark.sql.shuffle.partitions", str(args.partitions))
             .config("spark.sql.streaming.stateStore.providerClass",
                     "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
             .config("spark.executorEnv." + ENV, json.dumps(command))
             .config("spark.executorEnv." + STORES, stores)
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
