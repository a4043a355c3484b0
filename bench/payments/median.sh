#!/usr/bin/env bash
# bench/payments/median.sh: the median of several runs of bench/payments/run.sh.
#
# Usage:
#   bench/payments/median.sh RESULTS_DIR...    (each a bench/payments/results/<stamp>/ folder)
#   bench/payments/median.sh --last N          the N newest folders under bench/payments/results/
#
# Reads each run's summary.md and prints a markdown table: per row of the runs' tables (run, app),
# the req/s of every run, their median, and the medians of p50 and p99; then per ratio line
# (keys / no keys, example / server, ... as run.sh prints them) the ratio of every run and their
# median. A ratio is paired within its run (both rows measured minutes apart), which is why the
# median of the ratios is given, not a ratio of the medians. A row with errors, or a ratio marked
# INVALID, is left out of its median and shown in brackets; a run flagged "disturbed" counts
# (on a busy machine every run may be) and is marked with *. Tables without the app column
# (before issue 33) read as app "server".
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
die() { echo "median: $*" >&2; exit 1; }
case "${1:-}" in
  -h|--help|"") sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; [ -n "${1:-}" ]; exit ;;
  --last)
    [[ ${2:-} =~ ^[0-9]+$ ]] || die "--last needs a number"
    mapfile -t dirs < <(ls -d "$HERE"/results/*/ 2>/dev/null | while read -r d; do [ -f "$d/summary.md" ] && echo "${d%/}"; done | sort | tail -n "$2")
    [ "${#dirs[@]}" -eq "$2" ] || die "found ${#dirs[@]} finished runs under $HERE/results, not $2"
    set -- "${dirs[@]}" ;;
esac
for d in "$@"; do [ -f "$d/summary.md" ] || die "$d/summary.md does not exist (an unfinished run?)"; done

python3 - "$@" <<'PY'
import re, statistics, sys

def cells(line):
    return [c.strip() for c in line.strip().strip('|').split('|')]

runs = []  # per run: (name, rows {(run, app): dict}, ratios {label: (value, flags)})
for d in sys.argv[1:]:
    rows, ratios, header = {}, {}, None
    with open(f"{d}/summary.md", encoding="utf-8") as f:
        for line in f:
            if line.startswith('| run |'):
                header = cells(line)
            elif line.startswith('|') and header and not line.startswith('|---'):
                c = dict(zip(header, cells(line)))
                rows[(c['run'], c.get('app', 'server'))] = c
            else:
                m = re.match(r'^- (.*?) = \**([0-9.]+)x\**(.*)$', line.rstrip('\n'))
                if m:
                    ratios[m.group(1)] = (float(m.group(2)), m.group(3))
    runs.append((d.rstrip('/').split('/')[-1], rows, ratios))

def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None

def med(values):
    return f"{statistics.median(values):.2f}" if values else "n/a"

names = [r[0] for r in runs]
print(f"### Median of {len(runs)} runs of bench/payments/run.sh: {', '.join(names)}\n")
print("| run | app | " + " | ".join(f"req/s {n}" for n in names) + " | median req/s | median p50 ms | median p99 ms |")
print("|---|---|" + "---:|" * (len(names) + 3))
order = []
for _, rows, _ in runs:
    for k in rows:
        if k not in order:
            order.append(k)
for k in order:
    shown, rps, p50, p99 = [], [], [], []
    for _, rows, _ in runs:
        c = rows.get(k)
        if c is None:
            shown.append("-")
            continue
        errors = c.get('errors', '0')
        ok = re.match(r'^0( |$)', errors) is not None
        mark = "*" if "disturbed" in errors else ""
        v = num(c.get('req/s (TPS)'))
        shown.append(f"{c.get('req/s (TPS)')}{mark}" if ok else f"({c.get('req/s (TPS)')}: errors)")
        if ok and v is not None:
            rps.append(v)
            for lst, col in ((p50, 'p50 ms'), (p99, 'p99 ms')):
                x = num(c.get(col))
                if x is not None:
                    lst.append(x)
    print(f"| {k[0]} | {k[1]} | " + " | ".join(shown) + f" | {med(rps)} | {med(p50)} | {med(p99)} |")

print()
labels = []
for _, _, ratios in runs:
    for k in ratios:
        if k not in labels:
            labels.append(k)
for label in labels:
    shown, values = [], []
    target = None
    for _, _, ratios in runs:
        if label not in ratios:
            shown.append("-")
            continue
        v, flags = ratios[label]
        t = re.search(r'target >= ([0-9.]+)x', flags)
        if t:
            target = float(t.group(1))
        if "INVALID" in flags:
            shown.append(f"({v:.2f}x invalid)")
            continue
        shown.append(f"{v:.2f}x" + ("*" if "disturbed" in flags else ""))
        values.append(v)
    m = statistics.median(values) if values else None
    verdict = ""
    if m is not None and target is not None:
        verdict = f" (target >= {target}x: {'met' if m >= target else 'NOT met'})"
    print(f"- {label}: {', '.join(shown)}; median **{m:.2f}x**{verdict}" if m is not None
          else f"- {label}: {', '.join(shown)}; median n/a")
print("\n\\* a run flagged as disturbed by other work (counted); rows with errors and invalid ratios are left out.")
PY
