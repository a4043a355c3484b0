#!/usr/bin/env python3
"""Summary of a bench/ratelimit/run.sh run: summary.py <results dir> <interference limit %>."""
import csv
import glob
import json
import os
import re
import sys

OUT = sys.argv[1]
LIMIT = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0

rows = {}
with open(os.path.join(OUT, "rows.tsv")) as f:
    for r in csv.DictReader(f, delimiter="\t"):
        rows[r["row"]] = r


def flag(row_id):
    r = rows.get(row_id)
    if r is None:
        return ""
    if r["exit"] != "0":
        return " (failed)"
    return " (noisy: other work %s%%)" % r["other_pct"] if float(r["other_pct"]) > LIMIT else ""


def jmh(row_id):
    """(score, error, alloc B/op) of the single benchmark in the row's JSON, or None."""
    path = os.path.join(OUT, row_id + ".json")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    data = json.load(open(path))
    if not data:
        return None
    b = data[0]
    pm = b["primaryMetric"]
    alloc = b.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
    err = pm.get("scoreError")
    return pm["score"], (err if isinstance(err, float) and err == err else None), alloc


def ops(v):
    return "-" if v is None else "{:,.0f}".format(v[0])


def ratio(a, b):
    return "-" if a is None or b is None or b[0] == 0 else "{:.2f}".format(a[0] / b[0])


def other(row_id):
    r = rows.get(row_id)
    return "-" if r is None else r["other_pct"] + "%"


env = open(os.path.join(OUT, "environment.txt")).read()
print("# Rate-limit benchmarks: %s\n" % os.path.basename(OUT))
print("```\n" + env.strip() + "\n```\n")

ids = [r for r in rows]

# --- in-memory
if any(i.startswith("inmemory-") for i in ids):
    print("## In-memory decisions per second (allowed path)\n")
    libs = ["retrysafe", "retrysafeNoClock", "retrysafeDecide", "bucket4j", "bucket4jSynchronized", "resilience4j"]
    names = {"retrysafe": "Retrysafe tryAcquire", "retrysafeNoClock": "Retrysafe, no clock read (ref.)",
             "retrysafeDecide": "Retrysafe decide (ref.)",
             "bucket4j": "Bucket4j (default, lock-free)", "bucket4jSynchronized": "Bucket4j SYNCHRONIZED",
             "resilience4j": "Resilience4j"}
    cells = sorted({tuple(map(int, re.match(r"inmemory-t(\d+)-k(\d+)-", i).groups())) for i in ids
                    if i.startswith("inmemory-")})
    print("| threads | keys | " + " | ".join(names[l] + " ops/s" for l in libs)
          + " | **vs Bucket4j** (target >= 3) | vs Bucket4j SYNCHRONIZED | vs Resilience4j | other work (max) |")
    print("|---:|---:|" + "---:|" * len(libs) + "---:|---:|---:|---:|")
    for t, k in cells:
        res = {l: jmh("inmemory-t%d-k%d-%s" % (t, k, l)) for l in libs}
        flags = "".join(flag("inmemory-t%d-k%d-%s" % (t, k, l)) for l in libs)
        worst = max((float(rows[i]["other_pct"]) for i in ids if i.startswith("inmemory-t%d-k%d-" % (t, k))),
                    default=0)
        print("| %d | %s | %s | **%s** | %s | %s | %.1f%%%s |" % (
            t, "{:,}".format(k), " | ".join(ops(res[l]) for l in libs),
            ratio(res["retrysafe"], res["bucket4j"]), ratio(res["retrysafe"], res["bucket4jSynchronized"]),
            ratio(res["retrysafe"], res["resilience4j"]), worst, " NOISY" if flags else ""))
    print("\nAllocation per decision (JMH `-prof gc`, gc.alloc.rate.norm, bytes/op; target for Retrysafe: 0):\n")
    print("| threads | keys | " + " | ".join(names[l] for l in libs) + " |")
    print("|---:|---:|" + "---:|" * len(libs))
    for t, k in cells:
        res = {l: jmh("inmemory-t%d-k%d-%s" % (t, k, l)) for l in libs}
        print("| %d | %s | %s |" % (t, "{:,}".format(k), " | ".join(
            "-" if res[l] is None or res[l][2] is None else "{:.1f}".format(res[l][2]) for l in libs)))
    clock = os.path.join(OUT, "clock.json")
    if os.path.exists(clock) and os.path.getsize(clock) > 0:
        print("\nReading the clock (ns per call, 1 thread): " + ", ".join(
            "%s %.1f" % (b["benchmark"].rsplit(".", 1)[1], b["primaryMetric"]["score"]) for b in json.load(open(clock))))
    print()

# --- the filter's path
if any(i.startswith("filterpath-") for i in ids):
    print("## The filter's path: decide over the request's policies, with what the headers need\n")
    cells = sorted({tuple(map(int, re.match(r"filterpath-t(\d+)-k(\d+)-", i).groups())) for i in ids
                    if i.startswith("filterpath-")})
    kinds = [("1 policy", "decide1"), ("2 policies", "decide2"), ("3 policies", "decide3"),
             ("versions + shadow (2)", "versionsShadow")]

    def alloc(v):
        return "-" if v is None or v[2] is None else "{:.1f}".format(v[2])

    print("| threads | keys | request | buffer ops/s | Decision ops/s | Bucket4j ops/s | **buffer / Bucket4j** "
          "(target >= 1.5, 1 policy) | Decision / Bucket4j | B/op buffer (target <= 64) | B/op Decision | other work (max) |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t, k in cells:
        pre = "filterpath-t%d-k%d-" % (t, k)
        peer = jmh(pre + "bucket4j")
        for name, b in kinds:
            buf, lst = jmh(pre + b), jmh(pre + b + "List")
            worst = max((float(rows[i]["other_pct"]) for i in (pre + "bucket4j", pre + b, pre + b + "List")
                         if i in rows), default=0)
            flags = flag(pre + "bucket4j") + flag(pre + b) + flag(pre + b + "List")
            print("| %d | %s | %s | %s | %s | %s | **%s** | %s | %s | %s | %.1f%%%s |" % (
                t, "{:,}".format(k), name, ops(buf), ops(lst), ops(peer), ratio(buf, peer), ratio(lst, peer),
                alloc(buf), alloc(lst), worst, " NOISY" if flags else ""))
        rendered = jmh(pre + "decide1Rendered")
        print("| %d | %s | 1 policy, header strings rendered (ref.) | %s | - | %s | %s | - | %s | - | %s |" % (
            t, "{:,}".format(k), ops(rendered), ops(peer), ratio(rendered, peer), alloc(rendered),
            other(pre + "decide1Rendered")))
    print("\nBucket4j allocates %s B/op (tryConsume)." % ", ".join(sorted({alloc(jmh("filterpath-t%d-k%d-bucket4j" % c))
                                                                           for c in cells})))
    print()

# --- memory
mem = [i for i in ids if i.startswith("memory-")]
if mem:
    print("## Limiter state per tracked key\n")
    print("| library | keys | bytes per key (heap delta) | other work |")
    print("|---|---:|---:|---:|")
    for i in mem:
        out = open(os.path.join(OUT, i + ".out")).read().strip().split(" ", 3)
        if len(out) >= 3:
            extra = (" " + out[3]) if len(out) > 3 else ""
            print("| %s | {:,} | %s%s | %s%s |".format(int(out[1])) % (out[0], out[2], extra, other(i), flag(i)))
        else:
            print("| %s | - | failed | %s |" % (i, other(i)))
    print()


# --- redis
def bench_csv(row_id):
    path = os.path.join(OUT, row_id + ".out")
    if not os.path.exists(path):
        return None
    for line in open(path):
        cols = next(csv.reader([line]))
        if len(cols) >= 2 and cols[0] != "test":
            try:
                return float(cols[1]), None, None
            except ValueError:
                pass
    return None


def mean(before, after):
    """The ceiling measured before and after the rows it is compared with: their mean (either alone
    when the other is missing: runs from before the ceiling was measured twice)."""
    if before is None or after is None:
        return before or after
    return (before[0] + after[0]) / 2, None, None


def server_us(row_id):
    """Redis CPU microseconds per call of the row's commands, from INFO commandstats."""
    def read(p):
        d = {}
        if os.path.exists(p):
            for line in open(p):
                m = re.match(r"cmdstat_(\w+):calls=(\d+),usec=(\d+)", line)
                if m:
                    d[m.group(1)] = (int(m.group(2)), int(m.group(3)))
        return d
    a, b = read(os.path.join(OUT, row_id + ".stats-before")), read(os.path.join(OUT, row_id + ".stats-after"))
    parts = []
    for cmd in sorted(b):
        calls = b[cmd][0] - a.get(cmd, (0, 0))[0]
        usec = b[cmd][1] - a.get(cmd, (0, 0))[1]
        if calls > 1000:
            parts.append("%s %d calls, %.1f µs" % (cmd.upper(), calls, usec / calls))
    return "; ".join(parts) or "-"


callers = sorted({int(re.match(r"(?:redis|ceiling)-c(\d+)-", i).group(1)) for i in ids
                  if i.startswith("redis-") or i.startswith("ceiling-")})
if callers:
    print("## Redis decisions per second (allowed path)\n")
    print("| callers | Retrysafe ops/s | Bucket4j ops/s | ceiling: EVALSHA `return 1` ops/s (mean of before and after) | (ref.) decide.lua via redis-benchmark ops/s | (ref.) Lettuce floor: `return 1` ops/s | (ref.) Retrysafe through Lettuce only ops/s | **vs Bucket4j** (target >= 2) | **vs ceiling** (target >= 0.7) | Lettuce floor / ceiling | Retrysafe / Lettuce floor | Retrysafe / through Lettuce only | other work (max) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    # the ceiling of each caller count: the mean of its measurements before and after the rows
    ceilings = {c: mean(bench_csv("ceiling-c%d-trivial" % c), bench_csv("ceiling-c%d-trivial-after" % c))
                for c in callers}
    for c in callers:
        rs, b4, fl = jmh("redis-c%d-retrysafe" % c), jmh("redis-c%d-bucket4j" % c), jmh("redis-c%d-lettuceFloor" % c)
        al = jmh("redis-c%d-retrysafeLettuce" % c)
        ce = ceilings[c]
        dl = bench_csv("ceiling-c%d-decide.lua" % c)
        group = [i for i in ids if re.match(r"(redis|ceiling)-c%d-" % c, i)]
        worst = max((float(rows[i]["other_pct"]) for i in group), default=0)
        noisy = any(flag(i) for i in group)
        print("| %d | %s | %s | %s | %s | %s | %s | **%s** | **%s** | %s | %s | %s | %.1f%%%s |" % (
            c, ops(rs), ops(b4), ops(ce), ops(dl), ops(fl), ops(al), ratio(rs, b4), ratio(rs, ce), ratio(fl, ce),
            ratio(rs, fl), ratio(rs, al), worst, " NOISY" if noisy else ""))
    if any(i.endswith("-virtual") for i in ids):
        print("\nCallers on virtual threads (`-Djmh.executor=VIRTUAL`: JMH's callers are virtual threads, as the"
              " server's request handlers are; same ceiling as above):\n")
        print("| callers | Retrysafe ops/s | Bucket4j ops/s | (ref.) Lettuce floor ops/s | **vs Bucket4j** | **vs ceiling** | Retrysafe / Lettuce floor | Retrysafe virtual / platform | Bucket4j virtual / platform |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for c in callers:
            rs, b4, fl = (jmh("redis-c%d-%s-virtual" % (c, b)) for b in ("retrysafe", "bucket4j", "lettuceFloor"))
            if rs is None and b4 is None:
                continue
            ce = ceilings[c]
            print("| %d | %s | %s | %s | **%s** | **%s** | %s | %s | %s |" % (
                c, ops(rs), ops(b4), ops(fl), ratio(rs, b4), ratio(rs, ce), ratio(rs, fl),
                ratio(rs, jmh("redis-c%d-retrysafe" % c)), ratio(b4, jmh("redis-c%d-bucket4j" % c))))
    drift = ["%d callers %s before, %s after" % (c, ops(bench_csv("ceiling-c%d-trivial" % c)),
                                                 ops(bench_csv("ceiling-c%d-trivial-after" % c))) for c in callers]
    print("\nThe ceiling, measured before and after the rows of each caller count: " + "; ".join(drift) + ".")
    print("\nRedis CPU per call (INFO commandstats, over each row including warm-up):\n")
    for i in ids:
        if i.startswith("redis-") or i.startswith("ceiling-"):
            print("- %s: %s" % (i, server_us(i)))
    print()

print("## Rows\n")
print("| row | exit | elapsed s | our CPU s | Redis CPU s | other work | attempts | loadavg after |")
print("|---|---|---:|---:|---:|---:|---:|---|")
for i, r in rows.items():
    print("| %s | %s | %s | %s | %s | %s%%%s | %s | %s |" % (
        i, r["exit"], r["elapsed_s"], r["ours_cpu_s"], r["redis_cpu_s"], r["other_pct"],
        " NOISY" if float(r["other_pct"]) > LIMIT else "", r["attempts"], r["loadavg"]))
