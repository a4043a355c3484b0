#!/usr/bin/env python3
"""The concurrency-limit tables (issue 34) of a bench/ratelimit/run.sh run, appended to its summary:
concurrency_summary.py <results dir> <interference limit %> <JMH seconds per row (warm-up + measured)>."""
import csv
import json
import os
import re
import sys

OUT = sys.argv[1]
LIMIT = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
ROW_SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 16.0

rows = {}
path = os.path.join(OUT, "rows.tsv")
if os.path.exists(path):
    with open(path) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows[r["row"]] = r


def jmh(row_id):
    """(score, alloc B/op) of the single benchmark in the row's JSON, or None."""
    p = os.path.join(OUT, row_id + ".json")
    if rows.get(row_id, {}).get("exit", "0") != "0" or not os.path.exists(p) or os.path.getsize(p) == 0:
        return None
    data = json.load(open(p))
    if not data:
        return None
    b = data[0]
    alloc = b.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
    return b["primaryMetric"]["score"], alloc


def ops(v):
    return "-" if v is None else "{:,.0f}".format(v[0])


def ratio(a, b):
    return "-" if a is None or b is None or b[0] == 0 else "{:.2f}".format(a[0] / b[0])


def alloc(v):
    return "-" if v is None or v[1] is None else "%.1f" % v[1]


def worst_other(prefix):
    values = [float(r["other_pct"]) for i, r in rows.items() if i.startswith(prefix)]
    if not values:
        return "-"
    worst = max(values)
    return "%.1f%%%s" % (worst, " NOISY" if worst > LIMIT else "")


def commands_per_op(row_id, v):
    """Redis commands the row ran per operation (setup and warm-up included, so approximate):
    scripts (EVALSHA + EVAL) and every other command above 1% of them."""
    def read(p):
        d = {}
        if os.path.exists(p):
            for line in open(p):
                m = re.match(r"cmdstat_([\w|]+):calls=(\d+)", line)
                if m:
                    d[m.group(1)] = int(m.group(2))
        return d
    if v is None:
        return "-"
    a = read(os.path.join(OUT, row_id + ".stats-before"))
    b = read(os.path.join(OUT, row_id + ".stats-after"))
    delta = {c: b[c] - a.get(c, 0) for c in b if b[c] - a.get(c, 0) > 0}
    n = v[0] * ROW_SECONDS
    if not delta or n <= 0:
        return "-"
    scripts = delta.get("evalsha", 0) + delta.get("eval", 0)
    parts = ["scripts %.2f" % (scripts / n)]
    for c in sorted(delta, key=lambda c: -delta[c]):
        if c not in ("evalsha", "eval") and delta[c] > 0.01 * max(scripts, 1):
            parts.append("%s %.2f" % (c.upper(), delta[c] / n))
    return ", ".join(parts)


mem = sorted({tuple(map(int, re.match(r"cc-mem-t(\d+)-k(\d+)-", i).groups())) for i in rows if i.startswith("cc-mem-")})
if mem:
    print("## Concurrency limits in memory: acquire + release per second (issue 34)\n")
    print("| threads | keys | Retrysafe ops/s | Resilience4j Bulkhead ops/s | (ref.) Semaphore per key ops/s"
          " | **/ Bulkhead** (target >= 1.5) | B/op Retrysafe / Bulkhead | other work (max) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t, k in mem:
        p = "cc-mem-t%d-k%d-" % (t, k)
        r, b, s = jmh(p + "retrysafe"), jmh(p + "resilience4jBulkhead"), jmh(p + "semaphorePerKey")
        print("| %d | %s | %s | %s | %s | **%s** | %s / %s | %s |" % (
            t, "{:,}".format(k), ops(r), ops(b), ops(s), ratio(r, b), alloc(r), alloc(b), worst_other(p)))
    print()

red = sorted({int(re.match(r"cc-redis-c(\d+)-", i).group(1)) for i in rows if i.startswith("cc-redis-")})
if red:
    print("## Concurrency limits on Redis: acquire + release per second (issue 34)\n")
    print("| callers | Retrysafe ops/s | Redisson RPermitExpirableSemaphore ops/s | (ref.) Retrysafe through Lettuce only ops/s"
          " | **/ Redisson** (target >= 2) | Retrysafe / through Lettuce only | other work (max) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for c in red:
        p = "cc-redis-c%d-" % c
        r, d, l = jmh(p + "retrysafe"), jmh(p + "redisson"), jmh(p + "retrysafeLettuce")
        print("| %d | %s | %s | %s | **%s** | %s | %s |" % (
            c, ops(r), ops(d), ops(l), ratio(r, d), ratio(r, l), worst_other(p)))
    print()
    print("Redis commands per operation (INFO commandstats over the whole row, set-up and warm-up included,"
          " divided by the measured rate times %.0f s: approximate):\n" % ROW_SECONDS)
    for c in red:
        for lib in ("retrysafe", "redisson", "retrysafeLettuce"):
            i = "cc-redis-c%d-%s" % (c, lib)
            if i in rows:
                print("- %s: %s" % (i, commands_per_op(i, jmh(i))))
    print()
