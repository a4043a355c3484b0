#!/usr/bin/env bash
# bench/ab.sh: the same benchmarks on two builds (BEFORE and AFTER), alternated on one machine,
# so that a change that must not cost speed can show it did not.
#
# Why alternated: these shared 2-vCPU machines drift by up to a third within the hour, more than
# the differences a refactoring may cause. Each round runs every benchmark on both builds back to
# back, in the order BEFORE, AFTER in odd rounds and AFTER, BEFORE in even ones (ABBA), so a
# drift over the run falls on both builds alike; the table gives every run, the medians and
# AFTER/BEFORE of the medians. Read a ratio against the spread of the runs of its row: a
# difference smaller than the spread within one build is noise.
#
# What runs, per round and per build (each benchmark's own script or jar, from the build's folder):
#   payments   bench/payments/run.sh --only h2 --only pg: POST /v1/payments with and without
#              idempotency keys, on H2 and on PostgreSQL, CONNECTIONS wrk connections
#              (no pgbench rows: the A/B compares the builds with each other, not with pgbench)
#   inmemory   JMH InMemoryBenchmark.retrysafe at INMEMORY_THREADS threads x INMEMORY_KEYS keys
#   redis      JMH RedisBenchmark.retrysafe at REDIS_CALLERS callers, platform and virtual threads
#   drain      bench/delivery/run.sh --only drain: two dispatchers sending DRAIN prefilled deliveries
#
# Usage:
#   bench/ab.sh --stage DIR [--from TREE]   copy what the benchmarks need from TREE (a built
#                                           checkout; default: this one) into DIR (see below)
#   bench/ab.sh [options] BEFORE_DIR AFTER_DIR
#     --rounds N     rounds [ROUNDS, 3]
#     --only PART    payments, inmemory, redis or drain (repeatable; default: all)
#     --quick        smoke test of the harness: tiny durations, figures mean nothing
#   bench/ab.sh --help
#
# A build's folder (made by --stage after `./mvnw -o -q -DskipTests package` in TREE) mirrors the
# tree: server/target/retrysafe-server.jar, bench/target/benchmarks.jar, bench/payments/ and
# bench/delivery/ (their run.sh and resources), scripts/jdk.sh, and STAGED.txt (commit, date).
# Each build runs its own jar with its own scripts, so a benchmark whose code moved with the
# change still measures what it measured.
#
# Environment (defaults in brackets):
#   ROUNDS [3]  PAY_WARMUP [10] PAY_DURATION [15] CONNECTIONS [64]   (payments, seconds per row)
#   PAY_DBS ["h2 pg"]   the databases of the payments rows (e.g. "h2" alone, with a longer warm-up)
#   JMH_WI [2] JMH_W [1] JMH_I [3] JMH_R [1]   JMH warm-up / measured iterations and seconds, 1 fork
#   INMEMORY_THREADS ["1 16"] INMEMORY_KEYS ["1 100000"] REDIS_CALLERS ["1 16"] REDIS_VIRTUAL [1]
#   DRAIN [20000]  deliveries put in the outbox for the drain
#   PG_HOST [127.0.0.1] PG_PORT [5432] PG_USER [postgres] REDIS_HOST [127.0.0.1] REDIS_PORT [6379]
#   OUT [bench/ab-results/<stamp>]
#
# Needs what the benchmarks need (wrk, psql, redis-cli, python3, a JDK >= 21, PostgreSQL and
# Redis on loopback). Loopback only; every server gets a free port. On exit, also on Ctrl-C, the
# benchmark running is stopped (its own script stops its servers and drops its databases) and
# Redis keys under this run's prefix are deleted. Run it alone: `flock /tmp/retrysafe-bench.lock`.
#
# Output: OUT/table.md (also on stdout), OUT/runs.tsv (every figure), OUT/logs/ (every step's
# output; the raw results of payments and drain are under each build's folder, named in the logs).
set -euo pipefail
{ # one compound command: editing this file during a run cannot change the running one

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
die() { echo "ab: $*" >&2; exit 1; }
say() { echo "ab: $(date -u +%H:%M:%S) $*" >&2; }

# ---------------------------------------------------------------- --stage
stage() { # stage <dir> <tree>
  local dir=$1 tree
  tree=$(cd "$2" && pwd) || die "no tree at $2"
  local f
  for f in server/target/retrysafe-server.jar bench/target/benchmarks.jar; do
    [ -f "$tree/$f" ] || die "$tree/$f is missing: build first (cd $tree && ./mvnw -o -q -DskipTests package)"
  done
  mkdir -p "$dir/server/target" "$dir/bench/target" "$dir/bench/payments/results" "$dir/bench/delivery/results" "$dir/scripts"
  cp "$tree/server/target/retrysafe-server.jar" "$dir/server/target/"
  cp "$tree/bench/target/benchmarks.jar" "$dir/bench/target/"
  cp "$tree/scripts/jdk.sh" "$dir/scripts/"
  local b
  for b in payments delivery; do # the scripts and their resources, not their results
    find "$tree/bench/$b" -maxdepth 1 -type f -exec cp {} "$dir/bench/$b/" \;
    [ -d "$tree/bench/$b/sequences" ] && cp -r "$tree/bench/$b/sequences" "$dir/bench/$b/"
  done
  {
    echo "tree: $tree"
    echo "commit: $(git -C "$tree" rev-parse HEAD 2>/dev/null)$( [ -n "$(git -C "$tree" status --porcelain --untracked-files=no 2>/dev/null | head -1)" ] && echo ' (working tree has changes)')"
    echo "subject: $(git -C "$tree" log -1 --format=%s 2>/dev/null | cut -c1-100)"
    echo "server jar built: $(date -u -r "$tree/server/target/retrysafe-server.jar" +%Y-%m-%dT%H:%M:%SZ)"
    echo "benchmarks jar built: $(date -u -r "$tree/bench/target/benchmarks.jar" +%Y-%m-%dT%H:%M:%SZ)"
    echo "staged: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } > "$dir/STAGED.txt"
  # a jar older than the last commit was probably not rebuilt after it
  local jar_t commit_t
  jar_t=$(stat -c %Y "$tree/server/target/retrysafe-server.jar"); commit_t=$(git -C "$tree" log -1 --format=%ct 2>/dev/null || echo 0)
  [ "$jar_t" -ge "$commit_t" ] || say "WARNING: the server jar is older than $tree's last commit: was it rebuilt?"
  cat "$dir/STAGED.txt" >&2
  say "staged in $dir"
}

# ---------------------------------------------------------------- arguments
COMMAND_LINE="bench/ab.sh${*:+ $*}"
for v in ROUNDS PAY_DBS PAY_WARMUP PAY_DURATION CONNECTIONS JMH_WI JMH_W JMH_I JMH_R INMEMORY_THREADS INMEMORY_KEYS REDIS_CALLERS REDIS_VIRTUAL DRAIN; do
  [ -n "${!v+x}" ] && COMMAND_LINE="$v=${!v@Q} $COMMAND_LINE"
done
ROUNDS=${ROUNDS:-3} QUICK=0 ONLY=() SIDES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --stage)
      [ $# -ge 2 ] || die "--stage needs a folder"
      dir=$2 from=$ROOT; shift 2
      if [ "${1:-}" = --from ]; then [ $# -ge 2 ] || die "--from needs a tree"; from=$2; shift 2; fi
      [ $# -eq 0 ] || die "--stage takes only --from"
      stage "$dir" "$from"; exit 0 ;;
    --rounds) [ $# -ge 2 ] || die "--rounds needs a number"; ROUNDS=$2; shift ;;
    --only) [ $# -ge 2 ] || die "--only needs payments, inmemory, redis or drain"; ONLY+=("$2"); shift ;;
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) SIDES+=("$1") ;;
  esac
  shift
done
[ ${#SIDES[@]} -eq 2 ] || die "give two folders, BEFORE and AFTER (see --help)"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a whole number >= 1: $ROUNDS"
for o in "${ONLY[@]+"${ONLY[@]}"}"; do case "$o" in payments|inmemory|redis|drain) ;; *) die "--only $o: use payments, inmemory, redis or drain" ;; esac; done
want() { [ ${#ONLY[@]} -eq 0 ] && return 0; local o; for o in "${ONLY[@]}"; do [ "$o" = "$1" ] && return 0; done; return 1; }
BEFORE=$(cd "${SIDES[0]}" && pwd) || die "no folder ${SIDES[0]}"
AFTER=$(cd "${SIDES[1]}" && pwd) || die "no folder ${SIDES[1]}"
for d in "$BEFORE" "$AFTER"; do
  for f in server/target/retrysafe-server.jar bench/target/benchmarks.jar bench/payments/run.sh bench/delivery/run.sh scripts/jdk.sh; do
    [ -e "$d/$f" ] || die "$d/$f is missing: make the folder with bench/ab.sh --stage $d --from <built tree>"
  done
done

if [ "$QUICK" = 1 ]; then
  PAY_WARMUP=${PAY_WARMUP:-2} PAY_DURATION=${PAY_DURATION:-3}
  JMH_WI=${JMH_WI:-1} JMH_W=${JMH_W:-1} JMH_I=${JMH_I:-1} JMH_R=${JMH_R:-1} DRAIN=${DRAIN:-2000}
fi
PAY_WARMUP=${PAY_WARMUP:-10} PAY_DURATION=${PAY_DURATION:-15} CONNECTIONS=${CONNECTIONS:-64}
PAY_DBS=${PAY_DBS:-h2 pg}
pay_only=(); for db in $PAY_DBS; do pay_only+=(--only "$db"); done
JMH_WI=${JMH_WI:-2} JMH_W=${JMH_W:-1} JMH_I=${JMH_I:-3} JMH_R=${JMH_R:-1}
INMEMORY_THREADS=${INMEMORY_THREADS:-1 16} INMEMORY_KEYS=${INMEMORY_KEYS:-1 100000}
REDIS_CALLERS=${REDIS_CALLERS:-1 16} REDIS_VIRTUAL=${REDIS_VIRTUAL:-1}
DRAIN=${DRAIN:-20000}
PG_HOST=${PG_HOST:-127.0.0.1} PG_PORT=${PG_PORT:-5432} PG_USER=${PG_USER:-postgres}
REDIS_HOST=${REDIS_HOST:-127.0.0.1} REDIS_PORT=${REDIS_PORT:-6379}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$HERE/ab-results/$STAMP}
KEY_PREFIX="bench:ab:$STAMP:$$:"

. "$ROOT/scripts/jdk.sh"
find_jdk || exit 1
JAVA="$JAVA_HOME/bin/java"
export JAVA_HOME
command -v python3 >/dev/null || die "python3 is needed for the table"
if want payments || want drain; then
  command -v wrk >/dev/null || die "wrk is missing (apt-get install -y wrk)"
  psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -X -d postgres -tAc 'select 1' >/dev/null 2>&1 || die "no PostgreSQL at $PG_HOST:$PG_PORT"
fi
if want redis; then
  redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping >/dev/null 2>&1 || die "no Redis at $REDIS_HOST:$REDIS_PORT"
fi

# ---------------------------------------------------------------- time estimate
# Per build and round on a quiet machine: a payments row costs its warm-up and measured time plus
# ~10 s (server start, probe, a 3 s quiet-machine sample, stop), its script ~3 s more; a JMH row
# its iterations plus ~4 s (two JVMs, set-up); the drain ~20 s plus DRAIN at ~2,500/s. On a busy
# machine everything takes longer (the smoke test, beside four parallel builds: about 2x the estimate).
n_words() { set -- $1; echo $#; }
JMH_ROW=$(( JMH_WI * JMH_W + JMH_I * JMH_R + 4 ))
PER_SIDE=0
want payments && PER_SIDE=$(( PER_SIDE + 3 + 2 * $(n_words "$PAY_DBS") * (PAY_WARMUP + PAY_DURATION + 10) ))
want inmemory && PER_SIDE=$(( PER_SIDE + $(n_words "$INMEMORY_THREADS") * $(n_words "$INMEMORY_KEYS") * JMH_ROW ))
want redis && PER_SIDE=$(( PER_SIDE + $(n_words "$REDIS_CALLERS") * (1 + REDIS_VIRTUAL) * JMH_ROW ))
want drain && PER_SIDE=$(( PER_SIDE + 20 + DRAIN / 2500 ))
ESTIMATE=$(( PER_SIDE * 2 * ROUNDS ))

mkdir -p "$OUT/logs"
printf 'round\tside\trow\tvalue\n' > "$OUT/runs.tsv"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "command: $COMMAND_LINE"
  echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $(uname -sr), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
  echo "java: $("$JAVA" -version 2>&1 | head -1)"
  echo "settings: payments ${PAY_WARMUP}+${PAY_DURATION} s per row, $CONNECTIONS connections; JMH 1 fork, ${JMH_WI}x${JMH_W} s + ${JMH_I}x${JMH_R} s; in memory threads [$INMEMORY_THREADS] keys [$INMEMORY_KEYS]; Redis callers [$REDIS_CALLERS] virtual $REDIS_VIRTUAL; drain $DRAIN"
  echo "loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "BEFORE: $BEFORE"; sed 's/^/  /' "$BEFORE/STAGED.txt" 2>/dev/null || true
  echo "AFTER: $AFTER"; sed 's/^/  /' "$AFTER/STAGED.txt" 2>/dev/null || true
} > "$OUT/environment.txt"
cat "$OUT/environment.txt" >&2
say "estimated duration: ~$(( (ESTIMATE + 59) / 60 )) min on a quiet machine ($ROUNDS rounds x 2 builds x ~${PER_SIDE} s); results in $OUT"

# ---------------------------------------------------------------- cleanup
CHILD=""
cleanup_redis() {
  want redis || return 0
  redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" --scan --pattern "${KEY_PREFIX}*" 2>/dev/null \
    | xargs -r -n 500 redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" unlink >/dev/null 2>&1 || true
}
stop_child() { # the step runs in its own session: TERM its group, its script's trap stops its servers
  [ -n "$CHILD" ] || return 0
  if kill -0 "$CHILD" 2>/dev/null; then
    kill -TERM -- "-$CHILD" 2>/dev/null || kill -TERM "$CHILD" 2>/dev/null || true
    local i
    for i in $(seq 1 60); do kill -0 "$CHILD" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$CHILD" 2>/dev/null && { say "step $CHILD did not stop within 30 s: SIGKILL"; kill -KILL -- "-$CHILD" 2>/dev/null || true; }
  fi
  wait "$CHILD" 2>/dev/null || true
  CHILD=""
}
on_exit() { local rc=$?; stop_child; cleanup_redis; exit $rc; }
trap on_exit EXIT
trap 'say "interrupted: the table so far"; table || true; exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# step <log> <command...>: runs the command in a session of its own (so all of it can be stopped),
# in the background (so a signal reaches this script at once), output to the log
step() {
  local log=$1; shift
  setsid "$@" > "$log" 2>&1 &
  CHILD=$!
  local rc=0; wait "$CHILD" || rc=$?
  CHILD=""
  return $rc
}
record() { # record <round> <side> <row> <value>: anything but a number is a failed run
  local v=${4:-}; [[ $v =~ ^[0-9]+([.][0-9]+)?$ ]] || v=fail
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$v" >> "$OUT/runs.tsv"
}

# ---------------------------------------------------------------- benchmarks
payments() { # payments <round> <side name> <dir>
  local r=$1 name=$2 dir=$3 log="$OUT/logs/r$1-$2-payments.log" rc=0
  say "round $r, $name: payments ($PAY_DBS, keys and no keys)"
  step "$log" env PORT="$(free_port)" WARMUP="$PAY_WARMUP" DURATION="$PAY_DURATION" CONNECTIONS="$CONNECTIONS" \
    SKIP_BUILD=1 QUIET_WAIT=0 RETRY_DISTURBED=0 PGBENCH_EXTRA_CLIENTS= SERVER_JAR="$dir/server/target/retrysafe-server.jar" \
    PG_HOST="$PG_HOST" PG_PORT="$PG_PORT" PG_USER="$PG_USER" \
    "$dir/bench/payments/run.sh" "${pay_only[@]}" || rc=$?
  [ "$rc" = 0 ] || say "payments on $name failed (exit $rc, log $log)"
  local label row v db
  for row in "payments H2 no keys|H2, idempotency off" "payments H2 keys|H2, idempotency keys" \
             "payments PostgreSQL no keys|PostgreSQL, idempotency off" "payments PostgreSQL keys|PostgreSQL, idempotency keys"; do
    label=${row#*|}
    case "$label" in H2*) db=h2 ;; *) db=pg ;; esac
    [[ " $PAY_DBS " == *" $db "* ]] || continue
    # the summary row: | label | [app |] req/s | p50 | p99 | errors [note] | ... (columns found by
    # the header's names: run.sh gained an app column with issue 33, a build before it has none);
    # the server's row; a row with errors does not count (one flagged "disturbed" by other work
    # does: on a busy machine every row may be)
    v=$(awk -F' *[|] *' -v l="$label" '
      $2 == "run" { delete c; for (i = 2; i < NF; i++) c[$i] = i; next }
      ("req/s (TPS)" in c) && $2 == l && (!("app" in c) || $c["app"] == "server") && $c["errors"] ~ /^0( |$)/ {print $c["req/s (TPS)"]; exit}' "$log")
    record "$r" "$name" "${row%%|*} (req/s)" "$v"
  done
}
jmh_value() { python3 -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))[0]["primaryMetric"]["score"])' "$1" 2>/dev/null || true; }
inmemory() {
  local r=$1 name=$2 dir=$3 t k id
  for t in $INMEMORY_THREADS; do
    for k in $INMEMORY_KEYS; do
      id="r$r-$name-inmemory-t$t-k$k"
      say "round $r, $name: in memory, $t threads, $k keys"
      step "$OUT/logs/$id.log" "$JAVA" -jar "$dir/bench/target/benchmarks.jar" 'InMemoryBenchmark.retrysafe$' -t "$t" -p keys="$k" \
        -f 1 -wi "$JMH_WI" -w "$JMH_W" -i "$JMH_I" -r "$JMH_R" -rf json -rff "$OUT/logs/$id.json" || say "$id failed (log $OUT/logs/$id.log)"
      record "$r" "$name" "in memory tryAcquire, $t threads, $k keys (ops/s)" "$(jmh_value "$OUT/logs/$id.json")"
    done
  done
}
redis() {
  local r=$1 name=$2 dir=$3 c kind id extra
  for c in $REDIS_CALLERS; do
    for kind in platform virtual; do
      [ "$kind" = virtual ] && [ "$REDIS_VIRTUAL" != 1 ] && continue
      extra=(); [ "$kind" = virtual ] && extra=(-jvmArgsAppend -Djmh.executor=VIRTUAL)
      id="r$r-$name-redis-c$c-$kind"
      say "round $r, $name: Redis, $c $kind-thread callers"
      step "$OUT/logs/$id.log" "$JAVA" -jar "$dir/bench/target/benchmarks.jar" 'RedisBenchmark.retrysafe$' -t "$c" \
        -p redisUri="redis://$REDIS_HOST:$REDIS_PORT" -p keyPrefix="$KEY_PREFIX" \
        -f 1 -wi "$JMH_WI" -w "$JMH_W" -i "$JMH_I" -r "$JMH_R" -rf json -rff "$OUT/logs/$id.json" "${extra[@]+"${extra[@]}"}" \
        || say "$id failed (log $OUT/logs/$id.log)"
      record "$r" "$name" "Redis decide, $c callers, $kind threads (ops/s)" "$(jmh_value "$OUT/logs/$id.json")"
    done
  done
}
drain() {
  local r=$1 name=$2 dir=$3 log="$OUT/logs/r$1-$2-drain.log" rc=0
  say "round $r, $name: delivery drain of $DRAIN"
  step "$log" env PORT="$(free_port)" DRAIN="$DRAIN" SKIP_BUILD=1 QUIET_WAIT=0 \
    PG_HOST="$PG_HOST" PG_PORT="$PG_PORT" PG_USER="$PG_USER" \
    "$dir/bench/delivery/run.sh" --only drain || rc=$?
  [ "$rc" = 0 ] || say "drain on $name failed (exit $rc, log $log)"
  # a drain that did not send every delivery does not count
  local v=""
  grep -q "^drained $DRAIN of $DRAIN" "$(sed -n 's/^bench: results in \(.*\) (machine.*/\1/p' "$log" | head -1)/drain.txt" 2>/dev/null \
    && v=$(sed -n 's/^drain: \([0-9.]*\) deliveries\/s.*/\1/p' "$log" | tail -1)
  record "$r" "$name" "delivery drain, $DRAIN deliveries, 2 dispatchers (deliveries/s)" "$v"
}

# ---------------------------------------------------------------- the table
table() {
  python3 - "$OUT/runs.tsv" "$OUT/environment.txt" > "$OUT/table.md" <<'PY'
import csv, statistics, sys
rows, order = {}, []
with open(sys.argv[1]) as f:
    for rec in csv.DictReader(f, delimiter="\t"):
        key = rec["row"]
        if key not in rows:
            rows[key] = {"BEFORE": [], "AFTER": []}
            order.append(key)
        rows[key][rec["side"]].append(rec["value"])

def nums(values):
    out = []
    for v in values:
        try:
            out.append(float(v))
        except ValueError:
            pass
    return out

def derived(name, num, den):
    # keys / no keys per run (the ratio the payments targets are about), paired within a run
    if num in rows and den in rows:
        rows[name] = {}
        for side in ("BEFORE", "AFTER"):
            ratios = []
            for a, b in zip(rows[num][side], rows[den][side]):
                try:
                    ratios.append("%.3f" % (float(a) / float(b)))
                except (ValueError, ZeroDivisionError):
                    ratios.append("fail")
            rows[name][side] = ratios
        order.append(name)

derived("payments H2 keys / no keys", "payments H2 keys (req/s)", "payments H2 no keys (req/s)")
derived("payments PostgreSQL keys / no keys", "payments PostgreSQL keys (req/s)", "payments PostgreSQL no keys (req/s)")

def fmt(x):
    return "%.3g" % x if x < 100 else "{:,.0f}".format(x)

env = open(sys.argv[2]).read().rstrip()
print("### A/B: BEFORE vs AFTER, alternated (ABBA) on one machine\n")
print("```\n" + env + "\n```\n")
print("| row | BEFORE runs | AFTER runs | BEFORE median | AFTER median | AFTER / BEFORE |")
print("|---|---|---|---:|---:|---:|")
for key in order:
    b, a = rows[key]["BEFORE"], rows[key]["AFTER"]
    nb, na = nums(b), nums(a)
    mb = statistics.median(nb) if nb else None
    ma = statistics.median(na) if na else None
    runs = lambda vs: ", ".join(fmt(float(v)) if v != "fail" else "fail" for v in vs) or "-"
    ratio = "%.3f" % (ma / mb) if mb and ma is not None else "n/a"
    print("| %s | %s | %s | %s | %s | **%s** |" % (key, runs(b), runs(a),
          fmt(mb) if mb is not None else "n/a", fmt(ma) if ma is not None else "n/a", ratio))
print("\nRuns by round (odd rounds ran BEFORE first, even rounds AFTER first); \"fail\": the run failed or was invalid (errors, an incomplete drain), see logs/.")
PY
  cat "$OUT/table.md"
}

# ---------------------------------------------------------------- the run
START=$(date +%s)
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then pairs=("BEFORE:$BEFORE" "AFTER:$AFTER"); else pairs=("AFTER:$AFTER" "BEFORE:$BEFORE"); fi
  for bench in payments inmemory redis drain; do
    want "$bench" || continue
    for p in "${pairs[@]}"; do "$bench" "$r" "${p%%:*}" "${p#*:}"; done
  done
  say "round $r of $ROUNDS done after $(( ($(date +%s) - START) / 60 )) min"
done
echo "elapsed: $(( $(date +%s) - START )) s (estimated $ESTIMATE s)" >> "$OUT/environment.txt"
table
exit
}
