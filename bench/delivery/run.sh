#!/usr/bin/env bash
# bench/delivery/run.sh: sustained webhook deliveries per second and commit-to-first-attempt
# latency over a PostgreSQL outbox with two dispatcher instances, against the ceiling of a load
# tool posting the same payload to the same receiver (issue 5, "Benchmark").
#
# What runs (all on this machine, loopback only):
#   receiver   one JVM: a Jetty server on 127.0.0.1:PORT answering 204 to every POST /hooks/...
#              and remembering when each event id first arrived (bench/.../delivery/Receiver.java).
#   ceiling    wrk -t WRK_THREADS -c CONNECTIONS POSTing the dispatchers' payload (same shape,
#              size and header names, ceiling.lua) to that receiver: the rate a load tool reaches.
#              Measured before and after the dispatcher runs; the higher of the two is the ceiling.
#   floor      (reference) Jetty's HttpClient alone (ClientFloor.java), CONNECTIONS virtual threads
#              POSTing the same request to the same receiver, no database: how much of the gap to
#              wrk the JVM client's own cost explains (the dispatchers use fewer connections, so a
#              rough bound only). Its JVM's CPU is in the instances column.
#   instances  two JVM processes ("2 JVM processes on one PostgreSQL database"), each the
#              delivery side of one server instance without its HTTP API (Instance.java): the
#              delivery module's Dispatcher configured as the server configures it
#              (HttpAttemptSender behind the SSRF guard, 127.0.0.0/8 allowlisted, plain http
#              allowed, 5 s timeout, 30 s lease, 10 in flight per endpoint, 100 ms poll, a pool of
#              POOL connections shared with the producers), plus PRODUCERS producer threads that
#              commit payment.succeeded events into the outbox, one event per transaction as a
#              payment does, and wake their own dispatcher after each commit as the server does.
#              ENDPOINTS accounts with one endpoint each, all at the receiver.
#   saturate   producers keep about BACKLOG unfinished deliveries in the database, so the
#              dispatchers always have work: deliveries per second = events first arriving at
#              the receiver within the measured window / its length. This is the sustained rate.
#   drain      no producers; DRAIN_WARMUP + DRAIN deliveries are put in the database by SQL first
#              (the DRAIN_WARMUP ones due first), and the two dispatchers send them: the
#              dispatchers' own rate, without the cost of committing the events, over the last
#              DRAIN (first to last arrival), once the JVMs are warm (as the client floor is after
#              its warm-up). Also "cold": the rate of the first DRAIN from the JVMs' start, which is
#              what this phase measured before 2026-12-07 (then with DRAIN deliveries alone).
#   backlog    a receiver that was down and recovers: BIG_BACKLOG (1,000,000) due deliveries put in
#              the database by SQL (one INSERT ... SELECT generate_series), no producers; the two
#              dispatchers drain it for WARMUP + DURATION seconds, then stop. Its warm rate (over
#              the last DURATION s) against the drain's: the cost of a delivery must not grow with
#              the table (issue 35: >= 0.8x). Also its cold rate over its first DRAIN deliveries,
#              against the drain's cold rate (same JVM start, same work, a table 50x larger).
#   produce    for reference: the producers alone, no dispatcher, as fast as they commit (no
#              backlog bound): every delivery needs its event committed first, so this rate
#              bounds the sustained rate from above whatever the dispatchers do (PRODUCE=0 skips).
#   half       a fresh database, producers on an open-loop schedule at half the sustained rate
#              (HALF_RATE to override): time from each event's commit (when COMMIT returned to
#              the producer) to its first arrival at the receiver, p50 and p99, over the events
#              committed in the measured window.
# Each phase: WARMUP seconds, then DURATION measured seconds; every phase of the dispatchers
# starts from an empty database (fresh PostgreSQL database per phase), ANALYZEd halfway through
# the warm-up as autovacuum would have done in a database that has been running.
#
# Usage:
#   bench/delivery/run.sh            full run: 40 s warm-up + 30 s measured per phase (~8 min)
#   bench/delivery/run.sh --quick    smoke test: 5 s warm-up + 10 s measured
#   bench/delivery/run.sh --profile  also: JFR of instance a during the saturate and half phases (and
#                                    20-40 s into the drain), summarised in
#                                    results/<stamp>/<phase>-a.profile.txt; perturbs the figures
#   bench/delivery/run.sh --only drain|saturate|backlog  one phase alone (no ceiling, no ratio): for working on
#                                    the dispatcher; with --profile, give the drain DRAIN=80000 or more so
#                                    it outlasts the JFR window
#   bench/delivery/run.sh --help
# Run it under `flock /tmp/retrysafe-bench.lock` on a shared machine, so benchmarks do not overlap.
#
# Environment (defaults in brackets):
#   WARMUP [40] DURATION [30]  ENDPOINTS [16] PRODUCERS [16] POOL [10] BACKLOG [2000] DRAIN [20000, 0: skip]
#   DRAIN_WARMUP [150000]  deliveries the drain sends before the DRAIN it measures (due first), so
#                     that it measures warm JVMs, as every other phase does; 0: cold, as before 2026-12-07
#   BIG_BACKLOG [1000000, 0: skip]  the backlog phase's due deliveries
#   CONNECTIONS [64] WRK_THREADS [2] PORT [18090] HALF_RATE [sustained/2, events/s, all instances]
#   PRODUCE [1, 0: skip]  the reference phase "produce": producers alone, no dispatcher
#   PG_HOST [127.0.0.1] PG_PORT [5432] PG_USER [postgres]   SKIP_BUILD [0]   JAVA_OPTS [-Xmx1g]
#   BENCH_JAR [bench/target/benchmarks.jar]  the jar to run (with SKIP_BUILD=1: an older build, to
#                     measure before and after a change back to back with this script)
#   PG_SETUP_SQL [none]  SQL run on each phase's fresh database after the schema (for experiments,
#                        e.g. per-table autovacuum settings); it is in the summary's command line
#   QUIET_WAIT [120] QUIET_BELOW [15]  before each phase, wait up to QUIET_WAIT s for the machine to
#                     be less than QUIET_BELOW % busy (other people's work), then measure anyway;
#                     the "other work" column says how much of the CPU went elsewhere meanwhile
#
# Needs: wrk (installed with apt-get when missing and root), psql, a JDK >= 21 (scripts/jdk.sh),
# PostgreSQL at PG_HOST:PG_PORT with trust auth. On exit every process it started is stopped and
# every database it made is dropped. Output: a markdown summary on stdout (and
# results/<stamp>/summary.md), raw outputs in results/<stamp>/.
set -euo pipefail
{ # one compound command: editing this file during a run cannot change the running one

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
COMMAND_LINE="bench/delivery/run.sh${*:+ $*}"
for v in WARMUP DURATION ENDPOINTS PRODUCERS POOL BACKLOG DRAIN DRAIN_WARMUP BIG_BACKLOG PRODUCE CONNECTIONS WRK_THREADS HALF_RATE SKIP_BUILD JAVA_OPTS PG_SETUP_SQL BENCH_JAR; do
  [ -n "${!v+x}" ] && COMMAND_LINE="$v=${!v@Q} $COMMAND_LINE"
done
die() { echo "bench: $*" >&2; exit 1; }
say() { echo "bench: $*" >&2; }

QUICK=0 PROFILE=0 ONLY=
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --profile) PROFILE=1 ;;
    --only) shift; ONLY=${1:-}; case "$ONLY" in drain|saturate|backlog) ;; *) die "--only takes drain, saturate or backlog" ;; esac ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
if [ "$QUICK" = 1 ]; then WARMUP=${WARMUP:-5} DURATION=${DURATION:-10}; fi
# 40 s: at half rate, two cold instances fell behind in their first seconds and needed until 24 s
# to work the backlog off (2026-12-05, bench/delivery/HISTORY.md); a 20 s warm-up measured that catch-up
WARMUP=${WARMUP:-40} DURATION=${DURATION:-30}
ENDPOINTS=${ENDPOINTS:-16} PRODUCERS=${PRODUCERS:-16} POOL=${POOL:-10} BACKLOG=${BACKLOG:-2000} DRAIN=${DRAIN:-20000}
BIG_BACKLOG=${BIG_BACKLOG:-1000000} DRAIN_WARMUP=${DRAIN_WARMUP:-150000}
CONNECTIONS=${CONNECTIONS:-64} WRK_THREADS=${WRK_THREADS:-2} PORT=${PORT:-18090} HALF_RATE=${HALF_RATE:-}
PG_HOST=${PG_HOST:-127.0.0.1} PG_PORT=${PG_PORT:-5432} PG_USER=${PG_USER:-postgres}
PRODUCE=${PRODUCE:-1} SKIP_BUILD=${SKIP_BUILD:-0} JAVA_OPTS=${JAVA_OPTS:--Xmx1g} PG_SETUP_SQL=${PG_SETUP_SQL:-}

need_tool() { # need_tool <command> <debian package>
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing $2 (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >&2 \
      || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >&2; } \
      || die "apt-get could not install $2"
  else
    die "'$1' is missing: install the Debian package '$2'"
  fi
}
need_tool wrk wrk
need_tool psql postgresql-client
need_tool curl curl
. "$ROOT/scripts/jdk.sh"
find_jdk || exit 1
JAVA="$JAVA_HOME/bin/java"
PSQL=(psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -X -v ON_ERROR_STOP=1 -q)
"${PSQL[@]}" -d postgres -tAc 'select 1' >/dev/null 2>&1 || die "PostgreSQL does not answer at $PG_HOST:$PG_PORT as $PG_USER"

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RUN_ID="$(date -u +%H%M%S)_$$"
OUT="$HERE/results/$STAMP"
mkdir -p "$OUT"
JAR=${BENCH_JAR:-"$ROOT/bench/target/benchmarks.jar"}
PIDS=() DATABASES=()

cleanup() {
  local rc=$? p db
  for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]+"${PIDS[@]}"}"; do wait "$p" 2>/dev/null || true; done
  for db in "${DATABASES[@]+"${DATABASES[@]}"}"; do
    "${PSQL[@]}" -d postgres -c "drop database if exists $db with (force)" >/dev/null 2>&1 || say "could not drop $db"
  done
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$SKIP_BUILD" != 1 ]; then
  say "building: ./mvnw -B -q -DskipTests -pl bench -am package"
  (cd "$ROOT" && ./mvnw -B -q -DskipTests -pl bench -am package) > "$OUT/build.log" 2>&1 \
    || { tail -40 "$OUT/build.log" >&2; die "build failed (log: $OUT/build.log)"; }
fi
[ -f "$JAR" ] || die "$JAR is missing (build without SKIP_BUILD=1)"
JVM=("$JAVA" $JAVA_OPTS -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR")

# ---------------------------------------------------------------- CPU accounting
HZ=$(getconf CLK_TCK)
cpu_total() { awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8+$9; exit}' /proc/stat; }
cpu_idle()  { awk '/^cpu /{print $5+$6; exit}' /proc/stat; }
proc_ticks() { local t=0 p; for p in "$@"; do [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{sub(/^.*\) /,""); print $12+$13}' "/proc/$p/stat"))); done; echo $t; }
pg_ticks() { cat /proc/[0-9]*/stat 2>/dev/null | awk '$2=="(postgres)"{sub(/^.*\) /,""); t+=$12+$13+$14+$15} END{print t+0}'; }
snapshot() { # snapshot <pids...>: total and idle ticks of the machine, each pid's ticks, PostgreSQL's ticks
  local p out; out="$(cpu_total) $(cpu_idle)"
  for p in "$@"; do out="$out $(proc_ticks "$p")"; done
  echo "$out $(pg_ticks)"
}
kv() { tr ' ' '\n' < "$1" | sed -n "s/^$2=//p" | tail -1; } # kv <file> <key>: last key=value
pg_stats() { "${PSQL[@]}" -d postgres -tA -F ' ' -c "select xact_commit, tup_returned, tup_fetched, tup_inserted, tup_updated from pg_stat_database where datname = '$1'"; }
pg_indexes() { # pg_indexes <db>: index entries read and heap rows fetched through each index, so far
  "${PSQL[@]}" -d "$1" -tA -F ' ' -c "select indexrelname, idx_scan, idx_tup_read, idx_tup_fetch from pg_stat_user_indexes order by 1"
}
index_per() { # index_per <before> <after> <n>: per delivery, each index's scans, entries read, rows fetched
  awk -v n="$3" 'NR==FNR{s[$1]=$2; r[$1]=$3; f[$1]=$4; next} {n=(n>0?n:1); if ($3-r[$1]>0 || $2-s[$1]>0) printf "  %s: scans=%.3f read=%.2f fetched=%.2f\n", $1, ($2-s[$1])/n, ($3-r[$1])/n, ($4-f[$1])/n}' \
    <(echo "$1") <(echo "$2")
}
pg_per() { # pg_per <before> <after> <n>: PostgreSQL work per delivery (the statistics lag up to ~1 s behind)
  awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN{split(a,x," "); split(b,y," "); split("commits rows_returned rows_fetched rows_inserted rows_updated",k," ");
    n=(n>0?n:1); for(j=1;j<=5;j++) printf "%s=%.2f ", k[j], (y[j]-x[j])/n; print "" }'
}

# ---------------------------------------------------------------- receiver
curl -s "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && die "something already listens on 127.0.0.1:$PORT (set PORT)"
say "starting the receiver on 127.0.0.1:$PORT"
"${JVM[@]}" dev.retrysafe.bench.delivery.Receiver "$PORT" > "$OUT/receiver.log" 2>&1 &
RECEIVER=$!; PIDS+=("$RECEIVER")
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/stats" >/dev/null 2>&1 && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$PORT/stats" >/dev/null && kill -0 "$RECEIVER" 2>/dev/null || die "the receiver did not start (log: $OUT/receiver.log)"

# ---------------------------------------------------------------- shared machine
QUIET_WAIT=${QUIET_WAIT:-120} QUIET_BELOW=${QUIET_BELOW:-15}
wait_quiet() { # up to QUIET_WAIT s until a 3 s sample shows the machine less than QUIET_BELOW % busy
  local deadline=$(( $(date +%s) + QUIET_WAIT )) t0 i0 busy
  while :; do
    t0=$(cpu_total) i0=$(cpu_idle); sleep 3
    busy=$(awk -v t="$(( $(cpu_total) - t0 ))" -v i="$(( $(cpu_idle) - i0 ))" 'BEGIN{printf "%.0f", (t>0?(t-i)*100/t:0)}')
    [ "$busy" -lt "$QUIET_BELOW" ] && return 0
    [ "$(date +%s)" -lt "$deadline" ] || { say "machine still ${busy}% busy after ${QUIET_WAIT}s: measuring anyway"; return 0; }
  done
}

# ---------------------------------------------------------------- ceiling
declare -A R
ceiling() { # ceiling <label>
  local label=$1 f="$OUT/ceiling-$1.txt"
  wait_quiet
  say "ceiling ($label): wrk -t$WRK_THREADS -c$CONNECTIONS, ${WARMUP}s warm-up + ${DURATION}s"
  wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "$HERE/ceiling.lua" "http://127.0.0.1:$PORT/hooks/0" > "$OUT/ceiling-$label.warmup.txt" 2>&1
  local s0; s0=$(snapshot "$RECEIVER")
  TIMEFORMAT='wrk_cpu_user_s=%U wrk_cpu_sys_s=%S'
  { time wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$HERE/ceiling.lua" \
      "http://127.0.0.1:$PORT/hooks/0" > "$f" 2>&1 ; } 2>> "$f"
  local s1; s1=$(snapshot "$RECEIVER")
  local rps; rps=$(kv "$f" rps)
  R[ceiling.$label]=$rps R[ceiling.$label.p99]=$(kv "$f" p99_ms) R[ceiling.$label.err]=$(kv "$f" errors_total)
  R[ceiling.$label.cpu]=$(cpu_line "$(kv "$f" requests)" "$s0" "$s1" "$(awk -v u="$(kv "$f" wrk_cpu_user_s)" -v s="$(kv "$f" wrk_cpu_sys_s)" 'BEGIN{print u+s}')")
  curl -sf -X POST "http://127.0.0.1:$PORT/reset" >/dev/null
  say "ceiling ($label): $rps req/s, p99 ${R[ceiling.$label.p99]} ms, errors ${R[ceiling.$label.err]}"
}
client_floor() { # the Jetty client alone at the ceiling's concurrency (ClientFloor.java): what any JVM dispatcher on it can reach
  local f="$OUT/client-floor.txt"
  wait_quiet
  say "client floor: Jetty HttpClient, $CONNECTIONS virtual threads, ${WARMUP}s warm-up + ${DURATION}s"
  "${JVM[@]}" dev.retrysafe.bench.delivery.ClientFloor "$PORT" "$CONNECTIONS" "$WARMUP" "$DURATION" > "$f" 2>&1 &
  local floor=$! waited=0
  PIDS+=("$floor")
  # CPU over the floor's own measured window: from its MEASURING line to its BENCH line
  until grep -q '^MEASURING' "$f" 2>/dev/null; do
    kill -0 "$floor" 2>/dev/null || { tail -5 "$f" >&2; die "the client floor stopped early (see $f)"; }
    sleep 0.1; waited=$((waited + 1)); [ "$waited" -lt $(( (WARMUP + 60) * 10 )) ] || die "the client floor never started measuring"
  done
  local s0; s0=$(snapshot "$RECEIVER")
  until grep -q '^BENCH' "$f" 2>/dev/null; do
    kill -0 "$floor" 2>/dev/null || break
    sleep 0.1
  done
  local s1; s1=$(snapshot "$RECEIVER")
  wait "$floor" || { tail -5 "$f" >&2; die "the client floor failed or had errors (see $f)"; }
  R[floor]=$(kv "$f" rps) R[floor.err]=$(kv "$f" errors)
  # the client's JVM measures its own CPU (it exits as it reports, too soon to read /proc); it
  # goes in the instances column, and out of "other work"
  local client_us; client_us=$(kv "$f" cpu_us_per_request)
  R[floor.cpu]=$(cpu_line "$(kv "$f" requests)" "$s0" "$s1" | awk -F' [|] ' -v c="$client_us" -v n="$(kv "$f" rps)" -v cpus="$(nproc)" \
    '{ o=$6; sub(/%$/,"",o); o=o - c*n/1e6*100/cpus; if (o<0) o=0; printf "%s | %s | %s | %s | %s | %.0f%%", $1, $2, c, $4, $5, o }')
  curl -sf -X POST "http://127.0.0.1:$PORT/reset" >/dev/null
  say "client floor: ${R[floor]} req/s, errors ${R[floor.err]}"
}
cpu_line() { # cpu_line <n> <snapshot before> <snapshot after> [load tool seconds]: "busy% | receiver µs | instances µs | PostgreSQL µs | load tool µs | other%"
  awk -v n="$1" -v a="$2" -v b="$3" -v w="${4:-0}" -v hz="$HZ" 'BEGIN{
    split(a,x," "); split(b,y," "); k=length(x); n=(n>0?n:1)
    t=y[1]-x[1]; i=y[2]-x[2]; t=(t>0?t:1)
    procs=0; for(j=3;j<k;j++){d[j]=y[j]-x[j]; procs+=d[j]}
    pg=y[k]-x[k]; other=(t-i)-procs-pg-w*hz; if(other<0)other=0
    inst=0; for(j=4;j<k;j++) inst+=d[j]
    printf "%.0f%% | %.0f | %s | %.0f | %s | %.0f%%", (t-i)*100/t, d[3]/hz/n*1e6, (k>4?sprintf("%.0f",inst/hz/n*1e6):"-"), pg/hz/n*1e6, (w>0?sprintf("%.0f",w/n*1e6):"-"), other*100/t }'
}

# ---------------------------------------------------------------- dispatcher phases
phase() { # phase <label> <mode> <rate per instance (rate mode)>
  local label=$1 mode=$2 rate=${3:-0} db="rs_bench_${RUN_ID}_$1"
  wait_quiet
  DATABASES+=("$db")
  "${PSQL[@]}" -d postgres -c "create database $db" >/dev/null
  local url="jdbc:postgresql://$PG_HOST:$PG_PORT/$db"
  "${JVM[@]}" dev.retrysafe.bench.delivery.Setup --db "$url" --user "$PG_USER" --port "$PORT" --endpoints "$ENDPOINTS" \
    > "$OUT/$label.setup.txt" 2>&1 || { cat "$OUT/$label.setup.txt" >&2; die "setup failed"; }
  [ -z "$PG_SETUP_SQL" ] || "${PSQL[@]}" -d "$db" -c "$PG_SETUP_SQL" >> "$OUT/$label.setup.txt" 2>&1 || die "PG_SETUP_SQL failed"
  local seeded=$((DRAIN_WARMUP + DRAIN)); [ "$label" = backlog ] && seeded=$BIG_BACKLOG
  if [ "$mode" = none ]; then # drain, backlog: the deliveries an outbox would have made, put there by SQL
    "${PSQL[@]}" -d "$db" >> "$OUT/$label.setup.txt" 2>&1 <<SQL
insert into deliveries (id, endpoint_id, account_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
select 'msg_drain_' || lpad(g::text, 10, '0'), e.id, e.account_id, 'evt_drain_' || g, 'payment.succeeded',
  convert_to('{"id":"evt_drain_' || g || '","type":"payment.succeeded","data":{"amount":500' || repeat(' ', 280) || '}}', 'UTF8'),
  'pending', 0, 1000 + g, 1000 + g
from generate_series(1, $seeded) g
join (select id, account_id, row_number() over (order by id) - 1 as n from webhook_endpoints) e on e.n = g % $ENDPOINTS;
analyze;
SQL
  fi
  local now start stop; now=$(date +%s%3N); start=$((now + 5000)); stop=$((start + (WARMUP + DURATION) * 1000))
  [ "$mode" = none ] && stop=$start
  local pids=() id jfr=() backlog=$BACKLOG extra=() count=arrived
  # produce: the producers alone (no dispatcher, no backlog bound); what they commit per second
  # bounds the sustained rate from above, since a delivery needs its event committed first
  [ "$label" = produce ] && backlog=1000000000 extra=(--dispatch false) count=committed
  for id in a b; do
    jfr=()
    # saturate and half: the measured window; drain: from 15 s in (past most of the JIT warm-up) for
    # 20 s, so give it DRAIN large enough to last ~40 s (e.g. 80000)
    [ "$PROFILE" = 1 ] && [ "$id" = a ] && if [ "$mode" != none ]; then
      jfr=("-XX:StartFlightRecording=filename=$OUT/$label-$id.jfr,settings=profile,delay=$((WARMUP + 5))s,duration=${DURATION}s")
    else
      jfr=("-XX:StartFlightRecording=filename=$OUT/$label-$id.jfr,settings=profile,delay=20s,duration=20s")
    fi
    "$JAVA" $JAVA_OPTS "${jfr[@]+"${jfr[@]}"}" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$JAR" \
      dev.retrysafe.bench.delivery.Instance --db "$url" --user "$PG_USER" --id "$id" --mode "$mode" \
      --rate "$rate" --backlog "$backlog" "${extra[@]+"${extra[@]}"}" --start-at "$start" --stop-at "$stop" --endpoints "$ENDPOINTS" \
      --producers "$PRODUCERS" --pool "$POOL" --drain-ms "$( [ "$label" = backlog ] && echo $(( (WARMUP + DURATION) * 1000 )) || { [ "$mode" = none ] && echo 600000; } || { [ "$label" = produce ] && echo 0; } || echo 20000)" \
      --out "$OUT/$label-commits-$id.txt" > "$OUT/$label-$id.log" 2>&1 &
    pids+=($!); PIDS+=($!)
  done
  local from=$((start + WARMUP * 1000)) to=$stop
  if [ "$mode" = none ]; then drain_phase "$label" "$db" "$start" "$seeded" "${pids[@]}"; return; fi
  say "$label: instances started ($mode$( [ "$mode" = rate ] && echo ", $rate events/s each")); measuring $(date -u -d @$((from / 1000)) +%T) to $(date -u -d @$((to / 1000)) +%T) UTC"
  # halfway through the warm-up, ANALYZE the tables, as autovacuum does in a database that has
  # been running: with the statistics of the empty tables, PostgreSQL plans the due scan as a loop
  # over endpoints reading every delivery each has ever had (a cold-start effect, see "Cold
  # statistics" in bench/delivery/HISTORY.md)
  sleep "$(awk -v t="$((start + WARMUP * 500))" -v n="$(date +%s%3N)" 'BEGIN{d=(t-n)/1000; print (d>0?d:0)}')"
  "${PSQL[@]}" -d "$db" -c "analyze deliveries, webhook_endpoints, webhook_endpoint_event_types, delivery_attempts" >/dev/null
  sleep "$(awk -v t="$from" -v n="$(date +%s%3N)" 'BEGIN{d=(t-n)/1000; print (d>0?d:0)}')"
  local load s0 s1 st0 st1; load=$(cut -d' ' -f1-3 /proc/loadavg); s0=$(snapshot "$RECEIVER" "${pids[@]}"); st0=$(pg_stats "$db")
  sleep "$(awk -v t="$to" -v n="$(date +%s%3N)" 'BEGIN{d=(t-n)/1000; print (d>0?d:0)}')"
  s1=$(snapshot "$RECEIVER" "${pids[@]}"); st1=$(pg_stats "$db")
  for id in "${pids[@]}"; do wait "$id" || say "$label: an instance exited with an error (see $OUT/$label-*.log)"; done
  curl -sf -X POST "http://127.0.0.1:$PORT/dump?file=$OUT/$label-arrivals.txt" >/dev/null
  curl -sf -X POST "http://127.0.0.1:$PORT/reset" >/dev/null
  "${JVM[@]}" dev.retrysafe.bench.delivery.Analyze --arrivals "$OUT/$label-arrivals.txt" \
    --commits "$OUT/$label-commits-a.txt,$OUT/$label-commits-b.txt" --from "$from" --to "$to" > "$OUT/$label.txt"
  grep -h '^INSTANCE' "$OUT/$label-a.log" "$OUT/$label-b.log" >> "$OUT/$label.txt" || true
  echo "load average before the measured window: $load" >> "$OUT/$label.txt"
  echo "PostgreSQL per delivery: $(pg_per "$st0" "$st1" "$(kv "$OUT/$label.txt" $count)")" >> "$OUT/$label.txt"
  "${PSQL[@]}" -d "$db" -tA -F ' ' -c "select status, count(*) from deliveries group by status order by 1" >> "$OUT/$label.txt" 2>/dev/null || true
  "${PSQL[@]}" -d postgres -c "drop database if exists $db with (force)" >/dev/null 2>&1 || true
  local f="$OUT/$label.txt"
  R[$label.rate]=$(kv "$f" deliveries_per_s) R[$label.committed]=$(kv "$f" committed_per_s)
  R[$label.p50]=$(kv "$f" p50_ms) R[$label.p99]=$(kv "$f" p99_ms) R[$label.max]=$(kv "$f" max_ms)
  R[$label.missing]=$(kv "$f" missing) R[$label.load]=$load R[$label.fifths]=$(kv "$f" p99_by_fifth_ms)
  R[$label.cpu]=$(cpu_line "$(kv "$f" $count)" "$s0" "$s1")
  summarise_profile "$label"
  say "$label: ${R[$label.rate]} deliveries/s (${R[$label.committed]} events committed/s), p50 ${R[$label.p50]} ms, p99 ${R[$label.p99]} ms, missing ${R[$label.missing]}"
}

summarise_profile() { # summarise_profile <label>: instance a's JFR recording, if --profile made one
  if [ "$PROFILE" = 1 ] && [ -f "$OUT/$1-a.jfr" ]; then
    { "$JAVA_HOME/bin/jfr" view --width 160 thread-cpu-load "$OUT/$1-a.jfr" 2>/dev/null | head -16
      "$JAVA_HOME/bin/jfr" print --json --stack-depth 64 --events jdk.ExecutionSample "$OUT/$1-a.jfr" > "$OUT/$1-a.samples.json" \
        && python3 "$HERE/profile.py" "$OUT/$1-a.samples.json" && rm -f "$OUT/$1-a.samples.json"
      "$JAVA_HOME/bin/jfr" view gc "$OUT/$1-a.jfr" 2>/dev/null | tail -4
    } > "$OUT/$1-a.profile.txt" 2>&1 || true
  fi
}

drain_phase() { # drain_phase <label> <db> <start epoch ms> <seeded> <pids...>: time to send the prefilled deliveries
  local label=$1 db=$2 start=$3 seeded=$4; shift 4
  say "$label: two dispatchers sending $seeded prefilled deliveries (no producers$( [ "$label" = backlog ] && echo ", for $((WARMUP + DURATION)) s"))"
  sleep "$(awk -v t="$start" -v n="$(date +%s%3N)" 'BEGIN{d=(t-n)/1000; print (d>0?d:0)}')"
  local s0 s1 st0 st1 ix0 ix1 t0 t1 p; s0=$(snapshot "$RECEIVER" "$@"); st0=$(pg_stats "$db"); ix0=$(pg_indexes "$db"); t0=$(date +%s%3N)
  for p in "$@"; do wait "$p" || say "$label: an instance exited with an error"; done
  t1=$(date +%s%3N); s1=$(snapshot "$RECEIVER" "$@"); st1=$(pg_stats "$db"); sleep 1; ix1=$(pg_indexes "$db")
  local sent; sent=$("${PSQL[@]}" -d "$db" -tAc "select count(*) from deliveries where status = 'succeeded'")
  curl -sf -X POST "http://127.0.0.1:$PORT/dump?file=$OUT/$label-arrivals.txt" >/dev/null
  : > "$OUT/$label-commits.txt"
  "${JVM[@]}" dev.retrysafe.bench.delivery.Analyze --arrivals "$OUT/$label-arrivals.txt" --commits "$OUT/$label-commits.txt" \
    --from "$start" --to "$t1" > "$OUT/$label.txt"
  # the rate from the first to the last arrival (the instances notice the end only at their next
  # 0.5 s check, so the CPU window is a little longer than the sending: CPU per delivery is a little high)
  R[$label.span]=$(kv "$OUT/$label.txt" arrivals_span_per_s)
  # cold: the rate over the first DRAIN arrivals (from the JVMs' start: what the drain phase measured
  # before DRAIN_WARMUP existed); warm: drain, over the DRAIN deliveries after the DRAIN_WARMUP ones
  # (first to last arrival); backlog, over the last DURATION s of the phase
  R[$label.first]=$(cut -d' ' -f2 "$OUT/$label-arrivals.txt" | sort -n | awk -v k="$DRAIN" \
    'NR==1{t1=$1} NR==k{r=sprintf("%.1f", (k-1)/(($1-t1)/1e6))} END{print (r==""?"-":r)}')
  if [ "$label" = backlog ]; then
    R[$label.warm]=$(cut -d' ' -f2 "$OUT/$label-arrivals.txt" | awk -v f="$(( (start + WARMUP * 1000) * 1000 ))" \
      -v t="$(( (start + (WARMUP + DURATION) * 1000) * 1000 ))" -v d="$DURATION" '$1>=f && $1<t{n++} END{printf "%.1f", n/d}')
  else
    R[$label.warm]=$(sed 's/^evt_drain_//' "$OUT/$label-arrivals.txt" | awk -v w="$DRAIN_WARMUP" \
      '$1>w{n++; if(!a||$2<a)a=$2; if($2>b)b=$2} END{if(n>1&&b>a) printf "%.1f", (n-1)/((b-a)/1e6); else print "-"}')
  fi
  R[$label.rate]=${R[$label.warm]}
  # the instances have exited: their CPU time is what they report (from the start to their exit)
  local ticks; ticks=$(grep -h '^INSTANCE' "$OUT/$label-a.log" "$OUT/$label-b.log" | tr ' ' '\n' \
    | sed -n 's/^cpu_ms_since_start=//p' | awk -v hz="$HZ" '{printf "%d ", $1 * hz / 1000}')
  local a0 a1; read -r -a a0 <<< "$s0"; read -r -a a1 <<< "$s1"
  R[$label.cpu]=$(cpu_line "$sent" "${a0[0]} ${a0[1]} ${a0[2]} 0 0 ${a0[5]}" "${a1[0]} ${a1[1]} ${a1[2]} $ticks${a1[5]}")
  { echo "drained $sent of $seeded; instances ran $((t1 - t0)) ms; all: ${R[$label.span]}/s; cold (first $DRAIN): ${R[$label.first]}/s; warm: ${R[$label.warm]}/s"; grep -h '^INSTANCE' "$OUT/$label-a.log" "$OUT/$label-b.log"
    echo "PostgreSQL per delivery: $(pg_per "$st0" "$st1" "$sent")"
    echo "PostgreSQL per delivery and index (pg_stat_user_indexes; the bench's own end-of-work polling included):"
    index_per "$ix0" "$ix1" "$sent"; } >> "$OUT/$label.txt"
  "${PSQL[@]}" -d postgres -c "drop database if exists $db with (force)" >/dev/null 2>&1 || true
  curl -sf -X POST "http://127.0.0.1:$PORT/reset" >/dev/null
  summarise_profile "$label"
  say "$label: ${R[$label.rate]} deliveries/s"
}

MACHINE="$(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $(uname -sr)"
JDK_V=$("$JAVA" -version 2>&1 | head -1)
PG_V=$("${PSQL[@]}" -d postgres -tAc 'show server_version')
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "command: $COMMAND_LINE"; echo "machine: $MACHINE"
  echo "jdk: $JDK_V"; echo "postgresql: $PG_V"; echo "wrk: $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
  echo "git: $(cd "$ROOT" && git rev-parse --short HEAD) $( [ -n "$(cd "$ROOT" && git status --porcelain --untracked-files=no | head -1)" ] && echo '(working tree has changes)')"
} > "$OUT/environment.txt"
T0=$(cpu_total) I0=$(cpu_idle); sleep 3
BACKGROUND=$(awk -v t="$(( $(cpu_total) - T0 ))" -v i="$(( $(cpu_idle) - I0 ))" 'BEGIN{printf "%.0f", (t>0?(t-i)*100/t:0)}')
echo "cpu busy before the run (3 s, nothing of ours but the idle receiver): $BACKGROUND%" >> "$OUT/environment.txt"
say "results in $OUT (machine ${BACKGROUND}% busy before the run)"

if [ -n "$ONLY" ]; then # one phase, for working on the dispatcher; no ratio
  case "$ONLY" in drain) phase drain none ;; backlog) phase backlog none ;; *) phase saturate saturate ;; esac
  echo "$ONLY: ${R[$ONLY.rate]} deliveries/s; CPU busy, receiver µs/req, instances µs/delivery, PostgreSQL µs/delivery, -, other work: ${R[$ONLY.cpu]}" | tee "$OUT/summary.md"
  exit
fi
ceiling before
client_floor
phase saturate saturate
SUSTAINED=${R[saturate.rate]:-0}
TOTAL_HALF=${HALF_RATE:-$(awk -v s="$SUSTAINED" 'BEGIN{printf "%.0f", s/2}')}
[ "${TOTAL_HALF:-0}" -gt 0 ] || die "no sustained rate measured"
[ "$DRAIN" -gt 0 ] && phase drain none
[ "$BIG_BACKLOG" -gt 0 ] && [ "$DRAIN" -gt 0 ] && phase backlog none
[ "$PRODUCE" = 1 ] && phase produce saturate
phase half rate "$(awk -v r="$TOTAL_HALF" 'BEGIN{printf "%.1f", r/2}')"
ceiling after

# ---------------------------------------------------------------- report
CEILING=$(awk -v a="${R[ceiling.before]:-0}" -v b="${R[ceiling.after]:-0}" 'BEGIN{printf "%.1f", (a>b?a:b)}')
RATIO=$(awk -v s="$SUSTAINED" -v c="$CEILING" 'BEGIN{printf "%.3f", (c>0?s/c:0)}')
# catch_up <delivered/s> <committed/s> <p99 by fifth>: a warning when the half phase's window began
# with a backlog left by the warm-up (more delivered than committed in it, or a first fifth far
# slower than the last): its p99 then measures a cold start's catch-up, not the steady state
catch_up() {
  local first last; first=${3%%/*} last=${3##*/}
  if awk -v d="$1" -v c="$2" -v f="${first:--}" -v l="${last:--}" \
      'BEGIN{exit !(c > 0 && d > c * 1.05 || (f != "-" && l != "-" && f + 0 > 5 * (l + 0) && f + 0 > 200))}'; then
    echo "- **the half phase's window began with a backlog left by the warm-up** (delivered $1/s against $2/s committed; p99 in the first fifth $first ms, in the last $last ms): its p99 is a cold start's catch-up; measure again with a longer WARMUP"
  fi
}
verdict() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN{ok=(dir=="ge"? v>=t : v<t); print (ok?"met":"NOT met")}'; }
{
  echo "### Webhook delivery: 2 dispatcher JVMs on one PostgreSQL outbox vs wrk, same receiver ($(date -u +%Y-%m-%d))"
  echo
  echo "Command: \`$COMMAND_LINE\` (warm-up ${WARMUP} s + measured ${DURATION} s per phase; $ENDPOINTS endpoints; $PRODUCERS producers and a pool of $POOL connections per instance; backlog $BACKLOG when saturating; wrk -t$WRK_THREADS -c$CONNECTIONS)"
  echo
  echo "Machine: $MACHINE; $JDK_V; PostgreSQL $PG_V. Receiver, instances, PostgreSQL and wrk share the CPUs; CPU busy before the run: ${BACKGROUND}%."
  echo
  echo "| phase | rate | p50 ms | p99 ms | max ms | CPU busy | receiver µs/req | instances µs/delivery | PostgreSQL µs/delivery | wrk µs/req | other work |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  echo "| ceiling before: wrk → receiver | ${R[ceiling.before]} req/s | - | ${R[ceiling.before.p99]} | - | ${R[ceiling.before.cpu]} |"
  echo "| (reference) client floor: Jetty HttpClient → receiver, $CONNECTIONS connections, no database, ${R[floor.err]:-?} errors (instances column: the client's JVM, per request) | ${R[floor]} req/s | - | - | - | ${R[floor.cpu]} |"
  echo "| saturate: deliveries (events committed) | ${R[saturate.rate]}/s (${R[saturate.committed]}/s) | (backlog) | (backlog) | - | ${R[saturate.cpu]} |"
  [ "$DRAIN" -gt 0 ] && echo "| drain: dispatchers alone, $DRAIN prefilled after $DRAIN_WARMUP to warm up (cold: the first $DRAIN from the start) | ${R[drain.rate]}/s (cold ${R[drain.first]}/s) | - | - | - | ${R[drain.cpu]} |"
  [ "$BIG_BACKLOG" -gt 0 ] && [ "$DRAIN" -gt 0 ] && echo "| backlog: dispatchers alone, $BIG_BACKLOG prefilled, $((WARMUP + DURATION)) s: the last $DURATION s (cold: the first $DRAIN) | ${R[backlog.warm]}/s (cold ${R[backlog.first]}/s) | - | - | - | ${R[backlog.cpu]} |"
  [ "$PRODUCE" = 1 ] && echo "| (reference) produce: the producers alone, no dispatcher (events committed; per-event CPU in the per-delivery columns) | ${R[produce.committed]}/s | - | - | - | ${R[produce.cpu]} |"
  echo "| half: open loop at $TOTAL_HALF events/s | ${R[half.rate]}/s (${R[half.committed]}/s) | ${R[half.p50]} | ${R[half.p99]} | ${R[half.max]} | ${R[half.cpu]} |"
  echo "| ceiling after: wrk → receiver | ${R[ceiling.after]} req/s | - | ${R[ceiling.after.p99]} | - | ${R[ceiling.after.cpu]} |"
  echo
  # issue 35's targets: every figure from this run
  ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN{printf "%.3f", (b>0?a/b:0)}'; }
  if [ "$DRAIN" -gt 0 ]; then
    r=$(ratio "${R[drain.rate]}" "${R[floor]}")
    echo "- drain ÷ client floor = **${r}x** (issue 35 target >= 0.3x: $(verdict "$r" 0.3 ge))"
  fi
  if [ "$PRODUCE" = 1 ]; then
    r=$(ratio "$SUSTAINED" "${R[produce.committed]}")
    echo "- sustained ÷ producers alone = **${r}x** (issue 35 target >= 0.7x: $(verdict "$r" 0.7 ge))"
  fi
  if [ "$BIG_BACKLOG" -gt 0 ] && [ "$DRAIN" -gt 0 ]; then
    r=$(ratio "${R[backlog.warm]}" "${R[drain.rate]}")
    echo "- a $BIG_BACKLOG backlog ÷ a $DRAIN drain, both warm = **${r}x** (issue 35 target >= 0.8x: $(verdict "$r" 0.8 ge)); cold, the first $DRAIN of each from the JVMs' start: **$(ratio "${R[backlog.first]}" "${R[drain.first]}")x**"
  fi
  echo "- sustained deliveries/s ÷ ceiling ($CEILING req/s) = **${RATIO}x** (target >= 0.4x: $(verdict "$RATIO" 0.4 ge))"
  [ "$PRODUCE" = 1 ] && echo "- producers alone ÷ ceiling = **$(awk -v f="${R[produce.committed]:-0}" -v c="$CEILING" 'BEGIN{printf "%.3f", (c>0?f/c:0)}')x**: an upper bound on the sustained ratio in this benchmark, whatever the dispatchers do (every delivery needs its event committed, one per transaction)"
  echo "- client floor ÷ ceiling = **$(awk -v f="${R[floor]:-0}" -v c="$CEILING" 'BEGIN{printf "%.3f", (c>0?f/c:0)}')x**: Jetty's HttpClient alone at wrk's concurrency, a rough bound for dispatchers sending with it (they use fewer connections); its JVM's CPU per request is in the instances column"
  echo "- p99 commit → first attempt at $TOTAL_HALF events/s (half the sustained rate) = **${R[half.p99]} ms** (target < 200 ms: $(verdict "${R[half.p99]:-99999}" 200 lt)); missing deliveries: ${R[half.missing]}; p99 of each fifth of the window, in order: ${R[half.fifths]} ms"
  catch_up "${R[half.rate]:-0}" "${R[half.committed]:-0}" "${R[half.fifths]:-}"
  echo
  echo "Latency: from the moment COMMIT returned to the producer to the event's first arrival at the receiver (clocks of one machine). Load average before the measured windows: saturate ${R[saturate.load]}, half ${R[half.load]}."
  echo "Raw outputs: bench/delivery/results/$STAMP/"
} | tee "$OUT/summary.md"
exit
}
