#!/usr/bin/env python3
# paired-gated.py ROUNDS DEADLINE_EPOCH FILE label=BINARY[:VAR=VALUE,...] ...: `BINARY summarize --no-cache FILE`
# side by side, each round running every configuration once (order alternating), medians of wall and CPU
# (user+sys) ms; a round starts only when no other process uses more than 5% CPU (a compiler, a benchmark).
import os, resource, statistics, subprocess, sys, time
rounds, deadline, path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
cfgs = []
for a in sys.argv[4:]:
    label, rest = a.split("=", 1)
    binary, _, envs = rest.partition(":")
    env = dict(os.environ)
    for kv in filter(None, envs.split(",")):
        k, v = kv.split("=", 1); env[k] = v
    cfgs.append((label, binary, env))
def busy():
    out = subprocess.run(["ps", "-eo", "pcpu,comm"], capture_output=True, text=True).stdout.split("\n")[1:]
    return any(float(l.split()[0]) > 5 for l in out if l.strip() and l.split()[1] not in ("ps", "python3", "quiet.py"))
res = {c[0]: ([], []) for c in cfgs}
r = 0
while r < rounds and time.time() < deadline:
    if busy():
        time.sleep(0.5); continue
    for label, binary, env in (cfgs if r % 2 == 0 else cfgs[::-1]):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run([binary, "summarize", "--no-cache", path], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        wall = (time.perf_counter() - t) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[label][0].append(wall); res[label][1].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    r += 1
for label, _, _ in cfgs:
    w, c = res[label]
    if len(w) < 4: print(label, "only", len(w), "rounds"); continue
    q = lambda xs: statistics.quantiles(xs, n=4)
    print(f"{label:14s} wall median {statistics.median(w):6.1f} ms (IQR {q(w)[0]:.1f}-{q(w)[2]:.1f})  cpu median {statistics.median(c):6.1f} ms (IQR {q(c)[0]:.1f}-{q(c)[2]:.1f})  n={len(w)}", flush=True)
