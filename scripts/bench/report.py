#!/usr/bin/env python3
"""Writes BENCHMARKS.md from scripts/bench.sh's results (`section.name value` lines)."""
import os
import subprocess
import sys
import time

results_path, out_path, runs, folder_runs, folder_minutes = sys.argv[1:6]
r = {}
for line in open(results_path):
    parts = line.split()
    if len(parts) == 2:
        r[parts[0]] = float(parts[1])


def get(key):
    return r.get(key)


def fmt(value, spec="%.3f"):
    return "—" if value is None else spec % value


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def mem_total():
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal"):
            return "%.1f GB" % (int(line.split()[1]) / 1024 / 1024)
    return "unknown"


def swift_version():
    try:
        return subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except Exception:
        return "unknown"


L = []
L.append("# Benchmarks")
L.append("")
L.append("Written by `scripts/bench.sh` on %s. Re-run it to refresh this file." % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
L.append("")
L.append("## Machine")
L.append("")
L.append("- cores (nproc): %s" % os.cpu_count())
L.append("- CPU: %s" % cpu_model())
L.append("- memory: %s" % mem_total())
L.append("- %s, release build with the flags of `scripts/release-flags.sh` (`swift build -c release --static-swift-stdlib -Xlinker --no-export-dynamic`, lld with the link order)" % swift_version())
L.append("- Python peers: gpxpy and fitdecode from pip, CPython %s" % sys.version.split()[0])
L.append("")
L.append("The machine is shared (2 cores, other builds running): wall times are noisy. Every figure is a median "
         "of %s runs (peers: 3 runs, gpxpy on 1M points: 1 run), and ours and XMLParser alternate run by run so "
         "that noise hits both alike. Ratios are taken within one run of the script." % runs)
L.append("")
L.append("## Commands")
L.append("")
L.append("```")
L.append("scripts/bench.sh                       # everything below; BENCH_GPXPY_1M=1 adds gpxpy on 1M points")
L.append(".build/release/BadgeBench gen-gpx 100000 gpx-100k.gpx   # Garmin Connect style (hr, cadence extensions), 1 s points")
L.append(".build/release/BadgeBench gpx gpx-100k.gpx 5            # GPXReader.read + RunAnalyzer.summarize vs XMLParser scan")
L.append("python3 scripts/bench/peers.py gpxpy gpx-100k.gpx 3     # gpxpy.parse + length_2d")
L.append(".build/release/BadgeBench fit fit-100k.fit 5            # FITReader.read + summarize")
L.append("python3 scripts/bench/peers.py fitdecode fit-100k.fit 3 # fitdecode, every frame")
L.append("badgectl generate runs --count %s --minutes %s" % (folder_runs, folder_minutes))
L.append(".build/release/BadgeBench folder runs cache.sqlite 5    # one core / both cores / cold cache on one and both cores / warm")
L.append(".build/release/BadgeBench cache-parts runs cache.sqlite   # where a cold cache's extra time goes (hash, JSON, store)")
L.append(".build/release/BadgeBench folder-measures runs cache.sqlite rules  # cold and warm with every shipped measure vs without")
L.append(".build/release/BadgeBench rules 10000 badges.json rules # every shipped pack over 10,000 summaries")
L.append("/usr/bin/time -v ...                                    # peak RSS")
L.append("```")
L.append("")
L.append("## 1. Reading one file")
L.append("")
L.append("| input | size | ours (read + full summary) | throughput | peer | peer time | ratio | target |")
L.append("|---|---|---|---|---|---|---|---|")
for key, label in (("gpx100k", "GPX 100,000 points"), ("gpx1m", "GPX 1,000,000 points")):
    ours, xml, size = get(key + ".ours_s"), get(key + ".xmlparser_s"), get(key + ".bytes")
    mbs = None if ours is None or size is None else size / 1e6 / ours
    L.append("| %s | %s MB | %s s | %s MB/s | XMLParser (scan only, empty handlers) | %s s | **%s×** | ≥ 10× |" % (
        label, fmt(size / 1e6 if size else None, "%.1f"), fmt(ours), fmt(mbs, "%.0f"), fmt(xml), fmt(ratio(xml, ours), "%.1f")))
    peer = get(key + ".peer_s")
    if peer is not None:
        L.append("| %s | | | | gpxpy parse + length_2d | %s s | **%s×** | ≥ 100× |" % (label, fmt(peer, "%.2f"), fmt(ratio(peer, ours), "%.0f")))
    else:
        L.append("| %s | | | | gpxpy parse + length_2d | not run (BENCH_GPXPY_1M=1) | | ≥ 100× |" % label)
    ro = get(key + ".read_only_s")
    L.append("| %s | | read only (no summary): %s s | %s MB/s | XMLParser | %s s | %s× | |" % (
        label, fmt(ro), fmt(size / 1e6 / ro if ro and size else None, "%.0f"), fmt(xml), fmt(ratio(xml, ro), "%.1f")))
for key, label in (("fit100k", "FIT 100,000 records"), ("fit1m", "FIT 1,000,000 records")):
    ours, recs = get(key + ".ours_s"), get(key + ".records")
    rate = None if ours is None or recs is None else recs / ours / 1e6
    peer = get(key + ".peer_s")
    L.append("| %s | | %s s | %s M records/s | fitdecode | %s | %s | ≥ 200× |" % (
        label, fmt(ours), fmt(rate, "%.2f"), fmt(peer, "%.2f s") if peer else "not run (100k only)",
        ("**%s×**" % fmt(ratio(peer, ours), "%.0f")) if peer else ""))
    ro = get(key + ".read_only_s")
    if ro:
        L.append("| %s | | read only (no summary): %s s | %s M records/s | fitdecode | %s | %s | |" % (
            label, fmt(ro), fmt(recs / ro / 1e6 if recs else None, "%.2f"), fmt(peer, "%.2f s") if peer else "",
            ("%s×" % fmt(ratio(peer, ro), "%.0f")) if peer else ""))
L.append("")
L.append("## 2. Evaluating a folder")
L.append("")
files, size = get("folder.files"), get("folder.bytes")
single, par, cold, warm = get("folder.single_s"), get("folder.parallel_s"), get("folder.cold_cache_s"), get("folder.warm_cache_s")
cores = get("folder.cores") or 2
L.append("%s runs of %s minutes at 1 s (`badgectl generate`), %s MB in all — scaled down from the 2,000 × 1 hour target (about 3 GB). "
         "Reading + summarising only (no rules):" % (fmt(files, "%.0f"), folder_minutes, fmt(size / 1e6 if size else None, "%.0f")))
L.append("")
L.append("| mode | median | throughput | note |")
L.append("|---|---|---|---|")
L.append("| one core, file after file (RunLoader.load loop) | %s s | %s MB/s | |" % (fmt(single), fmt(size / 1e6 / single if single else None, "%.0f")))
eff = None if single is None or par is None else single / par / cores
L.append("| both cores, no cache (RunFolder.read) | %s s | %s MB/s | speed-up %s×, **%s%% of single-file throughput per core** (target ≥ 80%%) |" % (
    fmt(par), fmt(size / 1e6 / par if par else None, "%.0f"), fmt(ratio(single, par), "%.2f"), fmt(eff * 100 if eff else None, "%.0f")))
cold1 = get("folder.cold_cache_single_s")
L.append("| one core, cold cache (read + hash + store, RunFolder.read serial) | %s s | %s MB/s | the same work as the next line, on one core |" % (
    fmt(cold1), fmt(size / 1e6 / cold1 if cold1 else None, "%.0f")))
eff_cold = None if cold1 is None or cold is None else cold1 / cold / cores
eff_cold_raw = None if single is None or cold is None else single / cold / cores
L.append("| both cores, cold cache (what `badgectl evaluate` does on a first run) | %s s | %s MB/s | **%s%% of the one-core cold throughput per core**; "
         "%s%% of the uncached one-core throughput (the cache's first write adds %s%% of work) |" % (
    fmt(cold), fmt(size / 1e6 / cold if cold else None, "%.0f"), fmt(eff_cold * 100 if eff_cold else None, "%.0f"),
    fmt(eff_cold_raw * 100 if eff_cold_raw else None, "%.0f"), fmt((cold1 / single - 1) * 100 if cold1 and single else None, "%.0f")))
L.append("| warm cache (files unchanged) | %s s | | path + size + mtime lookups, no hashing, no reading |" % fmt(warm))
L.append("| `badgectl evaluate` warm, whole process (rules included) | %s s | | median of 3 |" % fmt(get("evaluate_warm.wall_s"), "%.2f"))
scpu, pcpu = get("folder.single_cpu_s"), get("folder.parallel_cpu_s")
L.append("")
L.append("CPU time (user + system) of the uncached passes: one core %s s, both cores %s s (%s): the threads do not slow each other "
         "down, so a shortfall in wall time is cores taken by other work. 1-minute load average before and after the folder runs: %s / %s." % (
    fmt(scpu), fmt(pcpu), ("+%.0f%%" % ((pcpu / scpu - 1) * 100)) if scpu and pcpu else "—",
    fmt(get("folder.load_before"), "%.2f"), fmt(get("folder.load_after"), "%.2f")))
if get("cacheparts.hash_s") is not None:
    L.append("")
    L.append("A cold cache's extra work on one core, part by part (`BadgeBench cache-parts`, the same folder): hashing every file in a "
             "pass of its own %s s (now done while reading instead, when no cached file has the same size), JSON-encoding the summaries "
             "%s s, lookups %s s, storing the rows in one transaction %s s; reading and summarising %s s." % (
        fmt(get("cacheparts.hash_s")), fmt(get("cacheparts.encode_s")), fmt(get("cacheparts.lookups_s")),
        fmt(get("cacheparts.store_s")), fmt(get("cacheparts.read_s"))))
if get("measures.cold_ratio") is not None:
    L.append("")
    L.append("Measures (`BadgeBench folder-measures`, the same folder, both cores, a new cache each cold read, ours with and "
             "without alternating): every measure the shipped packs declare (%s, zones from a profile) costs a cold read "
             "%s s against %s s without (**%.2f×**, target ≤ 1.3×) and a warm read %s s against %s s (%.2f×)." % (
        fmt(get("measures.measures"), "%.0f"), fmt(get("measures.cold_with_s")), fmt(get("measures.cold_without_s")),
        get("measures.cold_ratio"), fmt(get("measures.warm_with_s")), fmt(get("measures.warm_without_s")), get("measures.warm_ratio")))
if warm is not None and files:
    L.append("")
    L.append("Warm cost per file: %.2f ms, so 2,000 unchanged runs would take about %.2f s (target < 1 s)." % (warm / files * 1000, warm / files * 2000))
L.append("")
L.append("## 3. Rules")
L.append("")
L.append("Every shipped pack (`rules/`, %s rule files) over %s summaries: median **%s s** (target < 0.5 s), %s awards, %s failures. "
         "`badgectl evaluate --profile` prints each rule's calls and time on stderr." % (
             fmt(get("rules.rules"), "%.0f"), fmt(get("rules.summaries"), "%.0f"), fmt(get("rules.rules_s")),
             fmt(get("rules.awards"), "%.0f"), fmt(get("rules.failures"), "%.0f")))
costs = sorted(((k.split(":", 1)[1], v) for k, v in r.items() if k.startswith("rules.rule_s:")), key=lambda kv: -kv[1])
if costs:
    L.append("")
    L.append("Per rule (one profiled pass, the figures `--profile` prints):")
    L.append("")
    L.append("| rule | seconds |")
    L.append("|---|---|")
    for name, seconds in costs:
        L.append("| %s | %.3f |" % (name, seconds))
L.append("")
L.append("## 4. Memory (peak RSS, /usr/bin/time -v)")
L.append("")
L.append("| what | peak RSS | target |")
L.append("|---|---|---|")
L.append("| read the 1,000,000-point GPX file (getrusage after the read) | %s MB | |" % fmt(get("rss_gpx1m_read.max_rss_mb"), "%.1f"))
L.append("| read + summarise the 1,000,000-point GPX file | %s MB | < 100 MB |" % fmt(get("rss_gpx1m.peak_rss_mb"), "%.1f"))
L.append("| 10,000 summaries held + all packs evaluated over them | %s MB | < 150 MB |" % fmt(get("rss_rules10k.peak_rss_mb"), "%.1f"))
L.append("| `badgectl evaluate` on the folder, cold (both cores, cache written) | %s MB | |" % fmt(get("rss_evaluate_cold.peak_rss_mb"), "%.1f"))
L.append("| `badgectl evaluate` on the folder, warm | %s MB | |" % fmt(get("rss_evaluate_warm.peak_rss_mb"), "%.1f"))
L.append("")
full = os.path.join(os.path.dirname(results_path), "full-size.txt")
if os.path.exists(full):
    L.append("## Full size: 2,000 runs of 1 hour")
    L.append("")
    L.append("One run of each mode, from the last `BENCH_FULL=1 scripts/bench.sh`:")
    L.append("")
    L.append("```")
    L.extend(line.rstrip() for line in open(full))
    L.append("```")
    L.append("")
# The notes on how the figures are made.
for name in ("NOTES.md",):
    extra = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    if os.path.exists(extra):
        L.extend(line.rstrip("\n") for line in open(extra))
        L.append("")
L.append("## Raw results")
L.append("")
L.append("```")
L.extend(line.rstrip() for line in open(results_path))
L.append("```")
open(out_path, "w").write("\n".join(L) + "\n")
