#!/usr/bin/env bash
# bench/payments/run.sh: throughput and latency of POST /v1/payments with and without idempotency.
#
# What it measures (issue 2, "Benchmark"):
#   {H2 embedded, PostgreSQL} x {idempotency keys, idempotency filter off}, bank latency 0,
#   CONNECTIONS (64) concurrent connections from wrk in its own process, each request with a
#   fresh unique Idempotency-Key in "keys" mode (every request is a first use) and no key in
#   "nokeys" mode (server started with a --config file that turns the idempotency filter off).
#   Plus, in the same run, pgbench -M prepared with 64 clients / 2 threads on a two-insert
#   transaction (pgbench-two-inserts.sql) in its own throw-away database: the yardstick for the
#   PostgreSQL mode, measured right before and right after the PostgreSQL rows when both are run
#   (the ratio is against the mean of the two: the VM's speed drifts within the hour). Every cell
#   gets a warm-up run (the JVM needs it) before the measured run.
#   Each server run starts from an empty database (fresh H2 data dir / fresh PostgreSQL database).
#   With --app example or both (issue 33, "Benchmark"), the same rows also run against the Spring
#   Boot example app (examples/spring-boot-payments, on the Spring Boot starter): same route,
#   contract, env (PORT, RETRYSAFE_DATA_DIR, RETRYSAFE_DATABASE_URL/USER, RETRYSAFE_BANK_LATENCY_MS
#   0, RETRYSAFE_BOOTSTRAP_API_KEYS), same wrk script, warm-up, quiet-wait and interference check;
#   its "nokeys" mode is the Spring property retrysafe.idempotency.enabled=false, and its rate
#   limits are off (retrysafe.rate-limits.enabled=false) in both modes, as the server's are. The
#   table gains the example's rows (app column) and the ratios keys / no keys per app and
#   database, and example / server per database and mode (same run, reference, no target).
#
# Usage:
#   bench/payments/run.sh              full run: 30 s warm-up + 30 s measured per row (~11 min)
#   bench/payments/run.sh --quick      smoke test: 2 s warm-up + 5 s measured
#   bench/payments/run.sh --only h2|pg|pgbench   one part of the matrix (repeatable)
#   bench/payments/run.sh --app server|example|both   which app serves the h2 and pg rows
#                                      [server]: the Retrysafe server, the Spring Boot example
#                                      app (its jar must be built: the run stops at once with a
#                                      message when it is missing), or both, in that order per
#                                      database (server no keys, keys; example no keys, keys)
#   bench/payments/run.sh --profile    also: JFR of the server during each measured run
#                                      (summarised), and a PostgreSQL statement probe (SQL
#                                      statements per request, via log_statement in a separate
#                                      short server run). Perturbs figures: not for the table.
#   bench/payments/run.sh --help
#
# Environment (defaults in brackets):
#   WARMUP [30] / DURATION [30]   seconds of warm-up / measured load per cell
#   CONNECTIONS [64]  WRK_THREADS [2]  PGBENCH_JOBS [2]  PORT [18080]
#   PG_HOST [127.0.0.1]  PG_PORT [5432]  PG_USER [postgres]  (trust auth on loopback)
#   SKIP_BUILD [0]        1: do not run ./mvnw -B -q -DskipTests install first
#   SERVER_JAR            the server jar [auto: server/target/retrysafe-server.jar, else ./run]
#   SERVER_CMD            an executable that starts the server instead (gets the same env and
#                         --config argument; build is still run unless SKIP_BUILD=1)
#   SERVER_JAVA_OPTS      extra JVM options for the server (only when started from the jar)
#   EXAMPLE_JAR           the example app's Spring Boot jar [auto: the one jar in
#                         examples/spring-boot-payments/target/, *.jar.original and -plain,
#                         -sources, -javadoc, -tests jars aside]
#   EXAMPLE_CMD           an executable that starts the example app instead (gets the same env
#                         and the Spring arguments; started in the run's fresh data folder)
#   EXAMPLE_JAVA_OPTS     extra JVM options for the example app (only when started from the jar)
#   EXAMPLE_BASE_ARGS     Spring properties given to the example app in both modes, as command-line
#                         arguments, space separated [--retrysafe.rate-limits.enabled=false: the
#                         same reason as BASE_CONFIG_YAML's]; --server.address=127.0.0.1 is always
#                         added (loopback only, as RETRYSAFE_HOST does for the server)
#   EXAMPLE_NOKEYS_ARGS   added in "nokeys" mode [--retrysafe.idempotency.enabled=false]
#   BASE_CONFIG_YAML      YAML given to the server in both modes [rate_limits: {enabled: false}
#                         and limits: {max_in_flight_per_key/_per_address: 100000}: this
#                         benchmark measures idempotency; the default 100 requests per 10 s per
#                         key would refuse almost every request, and the 64 requests in flight
#                         per key any CONNECTIONS above 64 (the in-flight count still runs)]
#   NOKEYS_CONFIG_YAML    YAML added in "nokeys" mode [idempotency: {enabled: false}]
#   PGBENCH_EXTRA_CLIENTS [10]  extra reference pgbench rows at these client counts (10 = the
#                         server's default connection pool size; "" for none). Not used in ratios.
#   QUIET_WAIT [180] QUIET_BELOW [20]  before each row, wait up to QUIET_WAIT s for the machine
#                         to be less than QUIET_BELOW % busy (3 s samples), then measure anyway
#   INTERFERENCE_LIMIT [8] RETRY_DISTURBED [2]  a row during which other processes used more than
#                         INTERFERENCE_LIMIT % of the CPU is measured again (up to RETRY_DISTURBED
#                         times), then reported flagged as disturbed
#   BENCH_STATUS_DETAIL   1: wrk counts every status code (costs load-tool CPU)
#   API_KEY               bearer key of the benchmark account [random]
#
# Needs: wrk (apt-get install -y wrk; installed automatically when root), pgbench and psql
# (postgresql-client), curl, a JDK >= 21 (found by scripts/jdk.sh), PostgreSQL reachable at
# PG_HOST:PG_PORT. Loopback traffic only. On exit (also on Ctrl-C or failure) the server is
# stopped and every throw-away database and temp directory is removed.
#
# Output: a markdown table on stdout (also results/<stamp>/summary.md) with req/s, p50, p99,
# errors, CPU per request and the ratios; raw wrk/pgbench/server outputs in results/<stamp>/.
# The median of several runs: bench/payments/median.sh --last N (or the results folders).
set -euo pipefail
{ # the whole script is one compound command: bash reads all of it before running, so editing
  # this file during a run cannot change the running one

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
COMMAND_LINE="bench/payments/run.sh${*:+ $*}"
for v in WARMUP DURATION CONNECTIONS WRK_THREADS PGBENCH_JOBS SKIP_BUILD SERVER_JAR SERVER_CMD SERVER_JAVA_OPTS \
         BASE_CONFIG_YAML NOKEYS_CONFIG_YAML PGBENCH_EXTRA_CLIENTS EXAMPLE_JAR EXAMPLE_CMD EXAMPLE_JAVA_OPTS \
         EXAMPLE_BASE_ARGS EXAMPLE_NOKEYS_ARGS; do
  [ -n "${!v+x}" ] && COMMAND_LINE="$v=${!v@Q} $COMMAND_LINE"
done

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "bench: $*" >&2; }

QUICK=0 PROFILE=0 ONLY=() APP=server
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --profile) PROFILE=1 ;;
    --only) [ $# -ge 2 ] || die "--only needs h2, pg or pgbench"; ONLY+=("$2"); shift ;;
    --app) [ $# -ge 2 ] || die "--app needs server, example or both"; APP=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
if [ "$QUICK" = 1 ]; then WARMUP=${WARMUP:-2} DURATION=${DURATION:-5}; fi
WARMUP=${WARMUP:-30} DURATION=${DURATION:-30}
CONNECTIONS=${CONNECTIONS:-64} WRK_THREADS=${WRK_THREADS:-2} PGBENCH_JOBS=${PGBENCH_JOBS:-2}
PORT=${PORT:-18080}
PG_HOST=${PG_HOST:-127.0.0.1} PG_PORT=${PG_PORT:-5432} PG_USER=${PG_USER:-postgres}
SKIP_BUILD=${SKIP_BUILD:-0}
BASE_CONFIG_YAML=${BASE_CONFIG_YAML-$'rate_limits:\n  enabled: false\nlimits:\n  max_in_flight_per_key: 100000\n  max_in_flight_per_address: 100000\n'}
NOKEYS_CONFIG_YAML=${NOKEYS_CONFIG_YAML:-$'idempotency:\n  enabled: false\n'}
SERVER_JAVA_OPTS=${SERVER_JAVA_OPTS:-}
EXAMPLE_JAVA_OPTS=${EXAMPLE_JAVA_OPTS:-}
EXAMPLE_BASE_ARGS=${EXAMPLE_BASE_ARGS-"--retrysafe.rate-limits.enabled=false"}
EXAMPLE_NOKEYS_ARGS=${EXAMPLE_NOKEYS_ARGS:-"--retrysafe.idempotency.enabled=false"}
EXAMPLE_DIR="$ROOT/examples/spring-boot-payments"
READY_TIMEOUT=${READY_TIMEOUT:-120}
PGBENCH_EXTRA_CLIENTS=${PGBENCH_EXTRA_CLIENTS-10}
QUIET_WAIT=${QUIET_WAIT:-180} QUIET_BELOW=${QUIET_BELOW:-20} RETRY_DISTURBED=${RETRY_DISTURBED:-2}
want() { [ ${#ONLY[@]} -eq 0 ] && return 0; local o; for o in "${ONLY[@]}"; do [ "$o" = "$1" ] && return 0; done; return 1; }
for o in "${ONLY[@]+"${ONLY[@]}"}"; do case "$o" in h2|pg|pgbench) ;; *) die "--only $o: use h2, pg or pgbench" ;; esac; done
case "$APP" in server) APPS=(server) ;; example) APPS=(example) ;; both) APPS=(server example) ;; *) die "--app $APP: use server, example or both" ;; esac
has_app() { local a; for a in "${APPS[@]}"; do [ "$a" = "$1" ] && return 0; done; return 1; }

# ---------------------------------------------------------------- tools
need_tool() { # need_tool <command> <debian package>
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing $2 (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >&2 \
      || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >&2; } \
      || die "apt-get could not install $2"
  else
    die "'$1' is missing: install the Debian package '$2' (sudo apt-get install -y $2)"
  fi
}
need_tool curl curl
need_tool wrk wrk
if want pg || want pgbench; then need_tool psql postgresql-client; need_tool pgbench postgresql-client; fi
. "$ROOT/scripts/jdk.sh"
find_jdk || exit 1
JAVA="$JAVA_HOME/bin/java"

PSQL=(psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -X -v ON_ERROR_STOP=1 -q)
if want pg || want pgbench; then
  "${PSQL[@]}" -d postgres -tAc 'select 1' >/dev/null 2>&1 \
    || die "PostgreSQL does not answer at $PG_HOST:$PG_PORT as $PG_USER (start it, e.g. pg_ctlcluster 15 main start; trust auth on loopback)"
fi

# ---------------------------------------------------------------- run state and cleanup
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
RUN_ID="$(date -u +%H%M%S)_$$"
OUT="$HERE/results/$STAMP"
mkdir -p "$OUT"
API_KEY=${API_KEY:-sk_bench_$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')}
TMP=$(mktemp -d /tmp/retrysafe-bench.XXXXXX)
DATABASES=()
SERVER_PID=""

stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || kill -TERM "$SERVER_PID" 2>/dev/null || true
    local i
    for i in $(seq 1 60); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      say "server $SERVER_PID did not stop within 30 s: SIGKILL"
      kill -KILL -- "-$SERVER_PID" 2>/dev/null || kill -KILL "$SERVER_PID" 2>/dev/null || true
    fi
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}
drop_db() { "${PSQL[@]}" -d postgres -c "drop database if exists $1 with (force)" >/dev/null 2>&1 || say "could not drop database $1"; }
cleanup() {
  local rc=$?
  stop_server
  local db
  for db in "${DATABASES[@]+"${DATABASES[@]}"}"; do drop_db "$db"; done
  rm -rf "$TMP"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

create_db() { # create_db <name>
  DATABASES+=("$1")
  "${PSQL[@]}" -d postgres -c "create database $1" >/dev/null
}

# ---------------------------------------------------------------- measurements
cpu_ticks_total() { awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8+$9; exit}' /proc/stat; }
cpu_ticks_idle()  { awk '/^cpu /{print $5+$6; exit}' /proc/stat; }
proc_ticks() { [ -r "/proc/$1/stat" ] && awk '{sub(/^.*\) /,""); print $12+$13}' "/proc/$1/stat" || echo 0; } # utime+stime of a pid
jit_ticks() { # utime+stime of a JVM's JIT compiler threads (C1, C2): says whether the warm-up was long enough.
  # Only threads alive at the reading count: with 2 CPUs HotSpot runs one C1 and one C2 thread and
  # keeps both; on larger machines extra ones that exit take their time with them (a lower bound)
  local d c t=0
  for d in /proc/"$1"/task/*; do
    read -r c < "$d/comm" 2>/dev/null || continue
    case "$c" in "C1 CompilerThre"*|"C2 CompilerThre"*) t=$((t + $(proc_ticks "${d#/proc/}"))) ;; esac
  done
  echo "$t"
}
# CPU of every PostgreSQL process, including backends that already exited (their time is
# added to the postmaster's cutime/cstime when it reaps them).
# (cat fails when a process exits while it reads: that must not end the run under pipefail)
pg_ticks() { { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk '$2=="(postgres)"{sub(/^.*\) /,""); t+=$12+$13+$14+$15} END{print t+0}'; }
pid_on_port() { ss -ltnpH "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2; }
HZ=$(getconf CLK_TCK)
kv() { awk -v k="$2=" '{for(i=1;i<=NF;i++) if(index($i,k)==1) v=substr($i,length(k)+1)} END{print v}' "$1"; } # kv <file> <key>: last key=value in the file

pg_db_stats() { # xact_commit tup_inserted tup_updated tup_deleted tup_fetched tup_returned blks_hit
  "${PSQL[@]}" -d postgres -tA -F ' ' -c "select xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, tup_fetched, tup_returned from pg_stat_database where datname = '$1'"
}

# ---------------------------------------------------------------- server
BUILT=0
build() {
  [ "$BUILT" = 1 ] || [ "$SKIP_BUILD" = 1 ] && return 0
  say "building: ./mvnw -B -q -DskipTests install"
  (cd "$ROOT" && ./mvnw -B -q -DskipTests install) > "$OUT/build.log" 2>&1 \
    || { tail -40 "$OUT/build.log" >&2; die "build failed (log: $OUT/build.log)"; }
  BUILT=1
}
server_launcher() { # prints how the server is started
  if [ -n "${SERVER_CMD:-}" ]; then echo "run:$SERVER_CMD"; return; fi
  local jar=${SERVER_JAR:-}
  if [ -z "$jar" ] && [ -f "$ROOT/server/target/retrysafe-server.jar" ]; then jar="$ROOT/server/target/retrysafe-server.jar"; fi
  if [ -n "$jar" ]; then echo "jar:$jar"
  elif [ -x "$ROOT/run" ]; then echo "run:$ROOT/run"
  else die "no server to start: neither server/target/retrysafe-server.jar nor ./run exists (set SERVER_JAR)"; fi
}

example_launcher() { # prints how the example app is started; dies with what to do when it cannot be
  if [ -n "${EXAMPLE_CMD:-}" ]; then
    [ -x "$EXAMPLE_CMD" ] || die "EXAMPLE_CMD=$EXAMPLE_CMD is not an executable file"
    echo "run:$EXAMPLE_CMD"; return
  fi
  if [ -n "${EXAMPLE_JAR:-}" ]; then
    [ -f "$EXAMPLE_JAR" ] || die "EXAMPLE_JAR=$EXAMPLE_JAR does not exist"
    echo "jar:$EXAMPLE_JAR"; return
  fi
  local how="build it (./mvnw -B -q -DskipTests install, which this script runs unless SKIP_BUILD=1, or cd examples/spring-boot-payments && ../../mvnw -B -q -DskipTests package), or set EXAMPLE_JAR or EXAMPLE_CMD"
  [ -d "$EXAMPLE_DIR" ] || die "--app $APP: there is no example app in this tree ($EXAMPLE_DIR does not exist; issue 33's examples/spring-boot-payments); set EXAMPLE_JAR or EXAMPLE_CMD, or use --app server"
  if [ -f "$EXAMPLE_DIR/target/spring-boot-payments.jar" ]; then echo "jar:$EXAMPLE_DIR/target/spring-boot-payments.jar"; return; fi
  local jars=() j
  for j in "$EXAMPLE_DIR"/target/*.jar; do
    [ -f "$j" ] || continue
    case "$j" in *-plain.jar|*-sources.jar|*-javadoc.jar|*-tests.jar) continue ;; esac
    jars+=("$j")
  done
  [ ${#jars[@]} -gt 0 ] || die "--app $APP: the example app's jar is missing (no jar in $EXAMPLE_DIR/target/$( [ "$SKIP_BUILD" = 1 ] && echo '; SKIP_BUILD=1 skipped the build')): $how"
  [ ${#jars[@]} -eq 1 ] || die "--app $APP: several jars in $EXAMPLE_DIR/target/ (${jars[*]##*/}): set EXAMPLE_JAR"
  echo "jar:${jars[0]}"
}

start_server() { # start_server <label> <database url or ""> <app: server|example> [argument...]
  # the arguments go to the app as they are: --config <file> for the server, Spring properties
  # (--name=value) for the example
  local label=$1 url=$2 app=$3 data="$TMP/data-$1"; shift 3
  mkdir -p "$data"
  local args=("$@") launcher java_opts dir=$PWD
  if [ "$app" = example ]; then
    launcher=$(example_launcher); java_opts=$EXAMPLE_JAVA_OPTS
    args=(--server.address=127.0.0.1 "${args[@]+"${args[@]}"}")
    dir=$data # whatever the app writes relative to its working folder goes to the fresh folder too
  else
    launcher=$(server_launcher); java_opts=$SERVER_JAVA_OPTS
  fi
  local envs=(PORT="$PORT" RETRYSAFE_HOST=127.0.0.1 RETRYSAFE_DATA_DIR="$data" RETRYSAFE_BANK_LATENCY_MS=0
              RETRYSAFE_BOOTSTRAP_API_KEYS="$API_KEY")
  [ -n "$url" ] && envs+=(RETRYSAFE_DATABASE_URL="$url" RETRYSAFE_DATABASE_USER="$PG_USER")
  [ -z "$(pid_on_port "$PORT")" ] || die "port $PORT is already in use (set PORT)"
  case "$launcher" in
    jar:*) # shellcheck disable=SC2086
      echo "$app: (cd $dir) ${envs[*]} $JAVA $java_opts -jar ${launcher#jar:} ${args[*]-}" > "$OUT/$label.server.log"
      (cd "$dir" && exec setsid env "${envs[@]}" "$JAVA" $java_opts -jar "${launcher#jar:}" "${args[@]+"${args[@]}"}") >> "$OUT/$label.server.log" 2>&1 &
      ;;
    run:*)
      echo "$app: (cd $dir) ${envs[*]} ${launcher#run:} ${args[*]-}" > "$OUT/$label.server.log"
      (cd "$dir" && exec setsid env "${envs[@]}" "${launcher#run:}" "${args[@]+"${args[@]}"}") >> "$OUT/$label.server.log" 2>&1 &
      ;;
  esac
  SERVER_PID=$!
  local deadline=$(( $(date +%s) + READY_TIMEOUT ))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/ready" 2>/dev/null)" = 200 ]; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      tail -30 "$OUT/$label.server.log" >&2; SERVER_PID=""; die "server ($label) exited before /ready (log: $OUT/$label.server.log)"
    fi
    [ "$(date +%s)" -lt "$deadline" ] || { tail -30 "$OUT/$label.server.log" >&2; die "server ($label) not ready within ${READY_TIMEOUT}s"; }
    sleep 0.5
  done
  JVM_PID=$(pid_on_port "$PORT"); JVM_PID=${JVM_PID:-$SERVER_PID}
}

post_payment() { # post_payment <headers file> [idempotency key]: prints the status code
  local h=(-H "Authorization: Bearer $API_KEY" -H 'Content-Type: application/json')
  [ -n "${2:-}" ] && h+=(-H "Idempotency-Key: $2")
  curl -s -o "$1.body" -D "$1" -w '%{http_code}' "${h[@]}" \
    -d '{"amount":500,"currency":"eur","description":"bench"}' "http://127.0.0.1:$PORT/v1/payments"
}

probe() { # probe <label> <keys|nokeys>: the server must be in the mode we think it is in
  local label=$1 mode=$2 f="$TMP/probe-$1" key="probe-$RUN_ID-$1" s1 s2
  s1=$(post_payment "$f.1" "$key"); s2=$(post_payment "$f.2" "$key")
  {
    echo "# first POST with key $key: $s1"; cat "$f.1" "$f.1.body"; echo
    echo "# same key again: $s2"; cat "$f.2" "$f.2.body"; echo
  } > "$OUT/$label.probe.txt"
  [ "$s1" = 201 ] || die "$label: POST /v1/payments answered $s1, not 201 (see $OUT/$label.probe.txt)"
  local replayed=0
  grep -qi '^idempotent-replayed: *true' "$f.2" && replayed=1
  if [ "$mode" = keys ]; then
    [ "$replayed" = 1 ] || die "$label: a repeated key was not replayed: is idempotency on? (see $OUT/$label.probe.txt)"
  else
    [ "$replayed" = 0 ] || die "$label: a repeated key was replayed although the filter should be off: check NOKEYS_CONFIG_YAML, or EXAMPLE_NOKEYS_ARGS for the example app (see $OUT/$label.probe.txt)"
    local s3; s3=$(post_payment "$f.3")
    [ "$s3" = 201 ] || die "$label: POST without a key answered $s3 with the filter off (see $f.3.body)"
  fi
}

run_wrk() { # run_wrk <label> <mode> <seconds> <output file>
  local nonce="$RUN_ID-$1-$(basename "$4")"
  TIMEFORMAT='wrk_cpu_user_s=%U wrk_cpu_sys_s=%S'
  { time wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$3"s --timeout 10s --latency \
      -s "$HERE/payments.lua" "http://127.0.0.1:$PORT" -- "$API_KEY" "$2" "$nonce" > "$4" 2>&1 ; } 2>> "$4"
}

# Results, keyed by "<db>.<mode>"
declare -A RPS P50 P99 ERR NON2XX SRV_CPU WRK_CPU PG_CPU OTHER BUSY NOTE JIT
cpu_split() { # cpu_split <requests> <total ticks> <idle ticks> <server ticks> <load tool seconds> <postgres ticks>
  # prints: server, load tool, PostgreSQL µs per request; other CPU as % of the machine; busy %
  awk -v n="$1" -v t="$2" -v i="$3" -v s="$4" -v w="$5" -v p="$6" -v hz="$HZ" 'BEGIN{
    n=(n>0?n:1); t=(t>0?t:1); other=(t-i)-(s>0?s:0)-p-w*hz; if (other<0) other=0;
    printf "%s %.0f %s %.0f %.0f\n", (s<0?"-":sprintf("%.0f", s/hz/n*1e6)), w/n*1e6, sprintf("%.0f", p/hz/n*1e6), other*100/t, (t-i)*100/t }'
}

INTERFERENCE_LIMIT=${INTERFERENCE_LIMIT:-8}
interference() { # flags a cell during which other work took more than INTERFERENCE_LIMIT % of the machine
  if [ "${OTHER[$1]:-0}" -gt "$INTERFERENCE_LIMIT" ]; then
    NOTE[$1]="${NOTE[$1]:+${NOTE[$1]}; }**disturbed: ${OTHER[$1]}% of the CPU went to other work**"
    say "WARNING: $2: ${OTHER[$1]}% of the machine's CPU went to processes other than server, load tool and PostgreSQL"
  fi
}

APP_ARGS=()
app_args() { # app_args <app> <mode> <label>: sets APP_ARGS, what the app gets to run in that mode
  local app=$1 mode=$2 label=$3
  APP_ARGS=()
  if [ "$app" = example ]; then
    # shellcheck disable=SC2206 # space-separated Spring properties, by design
    APP_ARGS=($EXAMPLE_BASE_ARGS)
    # shellcheck disable=SC2206
    [ "$mode" = nokeys ] && APP_ARGS+=($EXAMPLE_NOKEYS_ARGS)
    return 0
  fi
  if [ "$mode" = nokeys ] || [ -n "$BASE_CONFIG_YAML" ]; then
    local config="$OUT/$label.config.yaml"
    { printf '%s\n' "$BASE_CONFIG_YAML"; [ "$mode" = nokeys ] && printf '%s\n' "$NOKEYS_CONFIG_YAML"; } > "$config"
    APP_ARGS=(--config "$config")
  fi
}
result_key() { # result_key <app> <db> <mode>: the server's rows keep their keys of old ("h2.keys")
  if [ "$1" = server ]; then echo "$2.$3"; else echo "$1.$2.$3"; fi
}

measure_server() { # measure_server <db: h2|pg> <mode: keys|nokeys> [app: server|example]
  local db=$1 mode=$2 app=${3:-server} label="$1-$2" url="" pgdb=""
  [ "$app" = server ] || label="$app-$label"
  build
  if [ "$db" = pg ]; then
    pgdb="rs_bench_${RUN_ID}_${mode}"
    [ "$app" = server ] || pgdb="rs_bench_${RUN_ID}_${app}_${mode}"
    create_db "$pgdb"
    url="jdbc:postgresql://$PG_HOST:$PG_PORT/$pgdb?user=$PG_USER"
  fi
  app_args "$app" "$mode" "$label"
  say "$label: starting $app"
  start_server "$label" "$url" "$app" "${APP_ARGS[@]+"${APP_ARGS[@]}"}"
  probe "$label" "$mode"
  say "$label: warm-up ${WARMUP}s"
  run_wrk "$label" "$mode" "$WARMUP" "$OUT/$label.warmup.txt"
  if [ "$PROFILE" = 1 ]; then
    "$JAVA_HOME/bin/jcmd" "$JVM_PID" JFR.start name=bench settings=profile filename="$OUT/$label.jfr" > /dev/null
  fi
  local load; load=$(cut -d' ' -f1-3 /proc/loadavg)
  local t0 i0 s0 p0 st0=""; t0=$(cpu_ticks_total); i0=$(cpu_ticks_idle); s0=$(proc_ticks "$JVM_PID"); p0=$(pg_ticks); local j0; j0=$(jit_ticks "$JVM_PID")
  [ -n "$pgdb" ] && st0=$(pg_db_stats "$pgdb")
  say "$label: measuring ${DURATION}s (load average before: $load)"
  run_wrk "$label" "$mode" "$DURATION" "$OUT/$label.txt"
  local t1 i1 s1 p1 st1=""; t1=$(cpu_ticks_total); i1=$(cpu_ticks_idle); s1=$(proc_ticks "$JVM_PID"); p1=$(pg_ticks); local j1; j1=$(jit_ticks "$JVM_PID")
  [ -n "$pgdb" ] && st1=$(pg_db_stats "$pgdb")
  if [ "$PROFILE" = 1 ]; then
    "$JAVA_HOME/bin/jcmd" "$JVM_PID" JFR.stop name=bench > /dev/null
    summarise_jfr "$OUT/$label.jfr" > "$OUT/$label.profile.txt" 2>&1 || true
  fi
  stop_server

  local f="$OUT/$label.txt" key; key=$(result_key "$app" "$db" "$mode")
  local reqs; reqs=$(kv "$f" requests)
  if [ -z "$reqs" ]; then NOTE[$key]="wrk failed (see $f)"; cat "$f" >&2; return 0; fi
  RPS[$key]=$(kv "$f" rps); P50[$key]=$(kv "$f" p50_ms); P99[$key]=$(kv "$f" p99_ms)
  NON2XX[$key]=$(kv "$f" non2xx); ERR[$key]=$(kv "$f" errors_total)
  local wrk_s; wrk_s=$(awk -v u="$(kv "$f" wrk_cpu_user_s)" -v s="$(kv "$f" wrk_cpu_sys_s)" 'BEGIN{print u+s}')
  # CPU per request in microseconds: server JVM, wrk, PostgreSQL, and everything else on the
  # machine (kernel work not charged to a process, and other people's processes: interference)
  [ "$db" = pg ] || p1=$p0 # on H2, PostgreSQL work is someone else's: it counts as other work
  JIT[$key]=$(awk -v j="$((j1 - j0))" -v s="$((s1 - s0))" 'BEGIN{printf "%.0f%%", (s>0 ? j*100/s : 0)}')
  read -r SRV_CPU[$key] WRK_CPU[$key] PG_CPU[$key] OTHER[$key] BUSY[$key] < <(cpu_split "$reqs" \
    "$((t1 - t0))" "$((i1 - i0))" "$((s1 - s0))" "$wrk_s" "$((p1 - p0))")
  if [ -n "$pgdb" ]; then
    local payments; payments=$("${PSQL[@]}" -d "$pgdb" -tAc "select count(*) from payments" 2>/dev/null || echo "?")
    echo "pg_stat_database before: $st0" >> "$f"; echo "pg_stat_database after:  $st1" >> "$f"
    echo "payments rows at the end: $payments" >> "$f"
    awk -v a="$st0" -v b="$st1" -v n="$reqs" 'BEGIN{split(a,x," "); split(b,y," ");
      split("commits rollbacks inserted updated deleted fetched returned",k," ");
      printf "pg_stat_database per measured request: "; for(j=1;j<=7;j++) printf "%s=%.2f ", k[j], (y[j]-x[j])/n; print ""}' >> "$f"
    tail -1 "$f" | sed "s/^/bench: $label: /" >&2
    { echo "tables (whole run incl. warm-up): relname n_tup_ins n_tup_upd n_tup_hot_upd size"
      "${PSQL[@]}" -d "$pgdb" -tA -F ' ' -c "select relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, pg_size_pretty(pg_total_relation_size(relid)) from pg_stat_user_tables where n_tup_ins > 0 order by n_tup_ins desc" 2>/dev/null
    } >> "$f" || true
    drop_db "$pgdb"
  fi
  if [ "${ERR[$key]}" != 0 ]; then NOTE[$key]="**${ERR[$key]} errors** (${NON2XX[$key]} non-2xx)"; fi
  interference "$key" "$label"
  say "$label: ${RPS[$key]} req/s, p50 ${P50[$key]} ms, p99 ${P99[$key]} ms, errors ${ERR[$key]}"
}

# ---------------------------------------------------------------- pgbench
pgbench_schema() {
  "${PSQL[@]}" -d "$1" <<'SQL'
-- The server's accounts, payments and events tables (server V1 migration), one account as in
-- the server runs (one API key).
create table accounts (
  id varchar(40) not null primary key, name varchar(200) not null, plan varchar(20) not null,
  created_at timestamp with time zone not null);
insert into accounts values ('acct_bench', 'bench', 'free', now());
create table payments (
  id varchar(40) not null primary key, account_id varchar(40) not null references accounts (id),
  amount bigint not null, amount_refunded bigint not null default 0, currency varchar(3) not null,
  status varchar(20) not null, description varchar(1000), idempotency_key varchar(255),
  created_at timestamp with time zone not null,
  constraint payments_amount check (amount > 0),
  constraint payments_refunded check (amount_refunded >= 0 and amount_refunded <= amount));
create index payments_account_id on payments (account_id, id);
create index payments_idempotency_key on payments (account_id, idempotency_key);
create table events (
  id varchar(40) not null primary key, account_id varchar(40) not null references accounts (id),
  type varchar(60) not null, created_at timestamp with time zone not null, data varchar not null);
create index events_account_id on events (account_id, id);
SQL
}

measure_pgbench() { # measure_pgbench <clients> <key>
  local clients=$1 key=$2 db="rs_bench_${RUN_ID}_${2//./_}" f="$OUT/$2.txt"
  create_db "$db"
  pgbench_schema "$db"
  local common=(-h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -n -M prepared -c "$clients" -j "$PGBENCH_JOBS" -f "$HERE/pgbench-two-inserts.sql")
  say "pgbench -c $clients: warm-up ${WARMUP}s"
  pgbench "${common[@]}" -T "$WARMUP" "$db" > "$OUT/$key.warmup.txt" 2>&1 || { cat "$OUT/$key.warmup.txt" >&2; die "pgbench failed"; }
  rm -rf "$TMP/pgbench-log"; mkdir -p "$TMP/pgbench-log"
  local load; load=$(cut -d' ' -f1-3 /proc/loadavg)
  local t0 i0 p0; t0=$(cpu_ticks_total); i0=$(cpu_ticks_idle); p0=$(pg_ticks)
  say "pgbench -c $clients: measuring ${DURATION}s (load average before: $load)"
  echo "command: pgbench ${common[*]} -T $DURATION -l $db" > "$f"
  TIMEFORMAT='pgbench_cpu_user_s=%U pgbench_cpu_sys_s=%S'
  { time pgbench "${common[@]}" -T "$DURATION" -l --log-prefix="$TMP/pgbench-log/tx" "$db" >> "$f" 2>&1 ; } 2>> "$f" \
    || { cat "$f" >&2; die "pgbench failed"; }
  local t1 i1 p1; t1=$(cpu_ticks_total); i1=$(cpu_ticks_idle); p1=$(pg_ticks)
  drop_db "$db"
  local tps xacts failed
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$f" | tail -1)
  xacts=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$f")
  failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$f"); failed=${failed:-0}
  # per-transaction log lines: client_id transaction_no latency_us script_no epoch_s epoch_us
  cat "$TMP"/pgbench-log/tx* | awk '{print $3}' | sort -n > "$TMP/pgbench-lat"
  local n; n=$(wc -l < "$TMP/pgbench-lat")
  P50[$key]=$(awk -v n="$n" 'NR==int(n*0.50+0.5){printf "%.3f", $1/1000; exit}' "$TMP/pgbench-lat")
  P99[$key]=$(awk -v n="$n" 'NR==int(n*0.99+0.5){printf "%.3f", $1/1000; exit}' "$TMP/pgbench-lat")
  echo "BENCH requests=$xacts rps=$tps p50_ms=${P50[$key]} p99_ms=${P99[$key]} failed=$failed" >> "$f"
  RPS[$key]=$(printf '%.1f' "$tps"); ERR[$key]=$failed; NON2XX[$key]="-"
  local pgb_s; pgb_s=$(awk -v u="$(kv "$f" pgbench_cpu_user_s)" -v s="$(kv "$f" pgbench_cpu_sys_s)" 'BEGIN{print u+s}')
  read -r SRV_CPU[$key] WRK_CPU[$key] PG_CPU[$key] OTHER[$key] BUSY[$key] < <(cpu_split "${xacts:-1}" \
    "$((t1 - t0))" "$((i1 - i0))" -1 "$pgb_s" "$((p1 - p0))")
  [ "$failed" = 0 ] || NOTE[$key]="**$failed failed transactions**"
  interference "$key" "pgbench -c $clients"
  say "pgbench -c $clients: ${RPS[$key]} TPS, p50 ${P50[$key]} ms, p99 ${P99[$key]} ms, failed $failed"
}

# ---------------------------------------------------------------- profiling helpers (--profile)
summarise_jfr() { # summarise_jfr <file.jfr>: where the server's CPU and waits went
  local jfr="$JAVA_HOME/bin/jfr" file=$1
  echo "== hot methods (top frames of CPU samples)"; "$jfr" view --width 180 hot-methods "$file" | head -45
  echo; echo "== inclusive share of CPU samples by frame (dev.retrysafe, JDBC, pool, H2, Jetty, Jackson)"
  "$jfr" print --stack-depth 96 --events jdk.ExecutionSample "$file" | awk '
    /^jdk.ExecutionSample/ { if (in_s) flush(); in_s=1; delete seen; next }
    /^[ \t]+[a-zA-Z_$][a-zA-Z0-9_$.]*\.[a-zA-Z_$<>][a-zA-Z0-9_$<>]*\(/ {
      sub(/^[ \t]+/, ""); sub(/\(.*$/, ""); m=$0
      if (m ~ /^(dev\.retrysafe|org\.postgresql\.jdbc\.PgPreparedStatement\.execute|org\.postgresql\.jdbc\.PgConnection\.(commit|rollback|setAutoCommit|prepareStatement)|com\.zaxxer\.hikari\.pool\.HikariPool\.getConnection|org\.h2\.(command\.Command\.execute|engine\.SessionLocal\.commit|mvstore\.MVStore\.commit|store\.FileStore)|com\.fasterxml\.jackson\.databind\.ObjectMapper\.(readTree|readValue|writeValueAs)|io\.javalin\.http\.servlet\.JavalinServlet\.service|org\.eclipse\.jetty\.server\.Server\.handle|java\.security\.MessageDigest\.digest|javax\.crypto)/) seen[m]=1
      next }
    END { if (in_s) flush(); for (m in incl) printf "%6d  %5.1f%%  %s\n", incl[m], incl[m]*100/total, m | "sort -rn | head -60" }
    function flush() { total++; for (m in seen) incl[m]++ }
  '
  echo; echo "== where threads waited (park, monitor enter, sleep, socket read; >= 10 ms; by first non-JDK frame): total ms, count"
  "$jfr" print --stack-depth 40 --events jdk.ThreadPark,jdk.JavaMonitorEnter,jdk.ThreadSleep,jdk.SocketRead "$file" | awk '
    function flush() { if (ev != "") { if (app != "" && app != site0) site = site " <- " app; n[site]++; d[site] += dur } ev=""; site="(JDK threads only)"; site0=""; app=""; found=0 }
    /^jdk\.(ThreadPark|JavaMonitorEnter|ThreadSleep|SocketRead) / { flush(); ev=$1; next }
    /^  duration = / { v=$3; u=$4; dur = (u=="s" ? v*1000 : (u=="us" ? v/1000 : (u=="ns" ? v/1e6 : v))); next }
    /^[ \t]+[a-zA-Z_$][a-zA-Z0-9_$.]*\.[a-zA-Z_$<>][a-zA-Z0-9_$<>]*\(/ {
      f=$0; sub(/^[ \t]+/, "", f); sub(/\(.*$/, "", f)
      if (!found && f !~ /^(java|jdk|sun|kotlin)\./) { site=ev ": " f; site0=f; found=1 }
      if (app == "" && f ~ /^dev\.retrysafe\./) app=f
      next }
    END { flush(); for (k in n) printf "%8.0f ms %7d  %s\n", d[k], n[k], k | "sort -rn | head -25" }'
  echo; echo "== lock contention (Java monitors) by site"; "$jfr" view --width 180 contention-by-site "$file" 2>/dev/null | head -30
  echo; echo "== virtual threads pinned"; "$jfr" view --width 180 pinned-threads "$file" 2>/dev/null | head -20
  echo; echo "== GC"; "$jfr" view gc "$file" 2>/dev/null | tail -5; "$jfr" view --width 160 gc-pauses "$file" 2>/dev/null | head -20
  echo; echo "== thread CPU load"; "$jfr" view --width 160 thread-cpu-load "$file" 2>/dev/null | head -25
}

pg_statement_probe() { # pg_statement_probe <mode> [app]: SQL statements the server (or the example) sends per payment
  local mode=$1 app=${2:-server} label="pg-$1-sqlprobe" pgdb="rs_bench_${RUN_ID}_probe_$1" n=20
  [ "$app" = server ] || { label="$app-$label"; pgdb="rs_bench_${RUN_ID}_probe_${app}_$1"; }
  local logfile; logfile=$(pg_lsclusters -h 2>/dev/null | awk -v p="$PG_PORT" '$3==p{print $7}' | head -1)
  [ -n "$logfile" ] && [ -r "$logfile" ] || { say "statement probe: PostgreSQL log file not readable here, skipped"; return 0; }
  create_db "$pgdb"
  "${PSQL[@]}" -d postgres -c "alter database $pgdb set log_statement = 'all'" >/dev/null
  app_args "$app" "$mode" "$label"
  start_server "$label" "jdbc:postgresql://$PG_HOST:$PG_PORT/$pgdb?user=$PG_USER" "$app" "${APP_ARGS[@]+"${APP_ARGS[@]}"}"
  local i k=""
  for i in $(seq 1 10); do [ "$mode" = keys ] && k="sqlprobe-warm-$RUN_ID-$i"; post_payment "$TMP/sp" "$k" >/dev/null; done
  sleep 1
  local offset; offset=$(stat -c %s "$logfile")
  for i in $(seq 1 $n); do [ "$mode" = keys ] && k="sqlprobe-$RUN_ID-$i"; post_payment "$TMP/sp" "$k" >/dev/null; done
  sleep 1
  stop_server
  tail -c +"$((offset + 1))" "$logfile" | grep -F "@$pgdb " | grep -E 'LOG: +(execute|statement)' \
    | sed -E 's/^.*LOG: +(execute [^:]*|statement): //' > "$OUT/$label.statements.txt" || true
  {
    echo "== $app, $mode: $(wc -l < "$OUT/$label.statements.txt") statements logged for $n sequential payments"
    echo "   ($(awk -v n=$n 'END{printf "%.1f", NR/n}' "$OUT/$label.statements.txt") statements per request; BEGIN is sent with the next statement, COMMIT/ROLLBACK are round trips)"
    sed -E 's/\$[0-9]+/?/g; s/[0-9]{3,}/N/g; s/^$/(empty query: the pool checking a connection that sat idle, pgjdbc isValid)/' \
      "$OUT/$label.statements.txt" | sort | uniq -c | sort -rn
  } > "$OUT/$label.summary.txt"
  cat "$OUT/$label.summary.txt" >&2
}

# ---------------------------------------------------------------- the run
MACHINE="$(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo) RAM, $(uname -sr)"
JDK_V=$("$JAVA" -version 2>&1 | head -1)
PG_V=$(want pg || want pgbench && "${PSQL[@]}" -d postgres -tAc 'show server_version' 2>/dev/null || echo "-")
WRK_V=$( { wrk -v 2>&1 || true; } | head -1 | cut -d' ' -f1-2)
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; echo "command: $COMMAND_LINE"
  echo "machine: $MACHINE"; echo "jdk: $JDK_V ($JAVA_HOME)"; echo "postgresql: $PG_V"; echo "wrk: $WRK_V"
  echo "warmup=${WARMUP}s duration=${DURATION}s connections=$CONNECTIONS wrk_threads=$WRK_THREADS pgbench_jobs=$PGBENCH_JOBS"
  echo "git: $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null) $( [ -n "$(cd "$ROOT" && git status --porcelain --untracked-files=no 2>/dev/null | head -1)" ] && echo '(working tree has changes)')"
} > "$OUT/environment.txt"
say "results in $OUT"
# Other work on the machine skews every figure: measure it before starting.
IDLE_T0=$(cpu_ticks_total) IDLE_I0=$(cpu_ticks_idle); sleep 3
BACKGROUND_BUSY=$(awk -v t="$(( $(cpu_ticks_total) - IDLE_T0 ))" -v i="$(( $(cpu_ticks_idle) - IDLE_I0 ))" 'BEGIN{printf "%.0f", (t>0?(t-i)*100/t:0)}')
echo "cpu busy before the run (3 s sample, nothing of ours running): ${BACKGROUND_BUSY}%" >> "$OUT/environment.txt"
[ "$BACKGROUND_BUSY" -lt 15 ] || say "WARNING: the machine is already ${BACKGROUND_BUSY}% busy before the run; figures will be low and noisy"

# One cell of the matrix: wait (bounded) for the machine to be quiet, measure, and measure again
# when other work disturbed it (shared machines).
cell() { # cell <result key> <command...>
  local key=$1 attempt; shift
  for attempt in $(seq 0 "$RETRY_DISTURBED"); do
    wait_quiet
    "$@"
    case "${NOTE[$key]:-}" in
      *disturbed*) if [ "$attempt" -lt "$RETRY_DISTURBED" ]; then say "$key was disturbed: measuring it again"; NOTE[$key]=""; continue; fi ;;
    esac
    break
  done
}
wait_quiet() { # up to QUIET_WAIT seconds until a 3 s sample shows less than QUIET_BELOW % CPU busy
  local deadline=$(( $(date +%s) + QUIET_WAIT )) t0 i0 busy
  while :; do
    t0=$(cpu_ticks_total) i0=$(cpu_ticks_idle); sleep 3
    busy=$(awk -v t="$(( $(cpu_ticks_total) - t0 ))" -v i="$(( $(cpu_ticks_idle) - i0 ))" 'BEGIN{printf "%.0f", (t>0?(t-i)*100/t:0)}')
    [ "$busy" -lt "$QUIET_BELOW" ] && return 0
    [ "$(date +%s)" -lt "$deadline" ] || { say "machine still ${busy}% busy after waiting ${QUIET_WAIT}s: measuring anyway"; return 0; }
  done
}

EXAMPLE_LAUNCHER=""
# The example app's jar is needed: say so now, not after the server's rows ran
if has_app example && { want h2 || want pg; }; then
  build
  EXAMPLE_LAUNCHER=$(example_launcher)
  say "example app: $EXAMPLE_LAUNCHER"
  echo "example app: $EXAMPLE_LAUNCHER" >> "$OUT/environment.txt"
fi
app_rows() { # app_rows <db>: the no keys and keys rows of every app on that database
  local a
  for a in "${APPS[@]}"; do
    cell "$(result_key "$a" "$1" nokeys)" measure_server "$1" nokeys "$a"
    cell "$(result_key "$a" "$1" keys)" measure_server "$1" keys "$a"
  done
}
if want h2; then app_rows h2; fi
# with both, the yardstick brackets the PostgreSQL rows (measured before and after them): this VM's
# speed drifts by up to a third within the hour, and the ratio is taken against the mean of the two
if want pg && want pgbench; then cell pgbench.before measure_pgbench "$CONNECTIONS" pgbench.before; fi
if want pg; then app_rows pg; fi
if want pgbench; then
  cell pgbench.main measure_pgbench "$CONNECTIONS" pgbench.main
  if [ -n "${RPS[pgbench.before]:-}" ] && [ -n "${RPS[pgbench.main]:-}" ]; then
    RPS[pgbench.yardstick]=$(awk -v a="${RPS[pgbench.before]}" -v b="${RPS[pgbench.main]}" 'BEGIN{printf "%.1f", (a+b)/2}')
    ERR[pgbench.yardstick]=$(( ${ERR[pgbench.before]:-0} + ${ERR[pgbench.main]:-0} ))
    NOTE[pgbench.yardstick]="${NOTE[pgbench.before]:-}${NOTE[pgbench.main]:-}"
  else
    RPS[pgbench.yardstick]=${RPS[pgbench.main]:-} ERR[pgbench.yardstick]=${ERR[pgbench.main]:-0} NOTE[pgbench.yardstick]=${NOTE[pgbench.main]:-}
  fi
  for c in $PGBENCH_EXTRA_CLIENTS; do cell "pgbench.c$c" measure_pgbench "$c" "pgbench.c$c"; done
fi
if [ "$PROFILE" = 1 ] && want pg; then for a in "${APPS[@]}"; do pg_statement_probe nokeys "$a"; pg_statement_probe keys "$a"; done; fi

# ---------------------------------------------------------------- report
ratio() { # ratio <num key> <den key> [target]: without a target, a reference figure
  local a=${RPS[$1]:-} b=${RPS[$2]:-}
  [ -n "$a" ] && [ -n "$b" ] || { echo "n/a"; return; }
  local r; r=$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%.2f", (b>0?a/b:0)}')
  local flag=""
  { [ "${ERR[$1]:-0}" != 0 ] || [ "${ERR[$2]:-0}" != 0 ]; } && flag=" (INVALID: a run had errors)"
  case "${NOTE[$1]:-}${NOTE[$2]:-}" in *disturbed*) flag="$flag (a run was disturbed by other work)" ;; esac
  if [ -z "${3:-}" ]; then
    echo "${r}x (reference, no target)$flag"
    return
  fi
  local verdict; verdict=$(awk -v r="$r" -v t="$3" 'BEGIN{print (r>=t ? "met" : "NOT met")}')
  echo "**${r}x** (target >= ${3}x: $verdict)$flag"
}
row() { # row <key> <label> [app]
  local k=$1
  [ -n "${RPS[$k]:-}${NOTE[$k]:-}" ] || return 0
  local pgc=${PG_CPU[$k]:-?}; case "$k" in h2.*|*.h2.*) pgc="-" ;; esac
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s%% | %s%% |\n' "$2" "${3:--}" "${RPS[$k]:-?}" "${P50[$k]:-?}" "${P99[$k]:-?}" \
    "${ERR[$k]:-?}${NOTE[$k]:+ ${NOTE[$k]}}" "${NON2XX[$k]:-?}" "${SRV_CPU[$k]:-?}" "${JIT[$k]:--}" "${WRK_CPU[$k]:-?}" "$pgc" "${BUSY[$k]:-?}" "${OTHER[$k]:-?}"
}
db_name() { case "$1" in h2) echo H2 ;; pg) echo PostgreSQL ;; esac; }
app_tag() { # app_tag <app>: names the app in a ratio's label when the run has more than one app or it is not the server
  [ "${#APPS[@]}" -eq 1 ] && [ "$1" = server ] && return 0
  case "$1" in server) echo ", Retrysafe server" ;; example) echo ", example app" ;; esac
}
{
  echo "### POST /v1/payments, $CONNECTIONS connections, bank latency 0 ($(date -u +%Y-%m-%d))"
  echo
  echo "Command: \`$COMMAND_LINE\` (warm-up ${WARMUP} s + measured ${DURATION} s per row; wrk -t$WRK_THREADS -c$CONNECTIONS; pgbench -M prepared -c $CONNECTIONS -j $PGBENCH_JOBS)"
  echo
  echo "Machine: $MACHINE; $JDK_V; PostgreSQL $PG_V; $WRK_V. Load tool, server and PostgreSQL share the CPUs. CPU busy before the run (other work): ${BACKGROUND_BUSY}%."
  [ -n "$EXAMPLE_LAUNCHER" ] && { echo; echo "Example app: ${EXAMPLE_LAUNCHER#*:}$( [ "${EXAMPLE_LAUNCHER%%:*}" = jar ] && echo " (built $(date -u -r "${EXAMPLE_LAUNCHER#jar:}" +%Y-%m-%dT%H:%M:%SZ))")."; }
  echo
  echo "| run | app | req/s (TPS) | p50 ms | p99 ms | errors | non-2xx | server CPU µs/req | of it JIT | load tool CPU µs/req | PostgreSQL CPU µs/req | CPU busy | other work |"
  echo "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
  for db in h2 pg; do
    for a in "${APPS[@]}"; do
      row "$(result_key "$a" "$db" nokeys)" "$(db_name "$db"), idempotency off" "$a"
      row "$(result_key "$a" "$db" keys)" "$(db_name "$db"), idempotency keys" "$a"
    done
  done
  row pgbench.before "pgbench two-insert transaction, $CONNECTIONS clients, before the PostgreSQL rows"
  row pgbench.main "pgbench two-insert transaction, $CONNECTIONS clients$( [ -n "${RPS[pgbench.before]:-}" ] && echo ", after the PostgreSQL rows")"
  for c in $PGBENCH_EXTRA_CLIENTS; do row "pgbench.c$c" "(reference) pgbench, $c clients"; done
  echo
  if has_app server; then
    echo "- H2$(app_tag server): keys / no keys = $(ratio h2.keys h2.nokeys 0.7)"
    echo "- PostgreSQL$(app_tag server): keys / no keys = $(ratio pg.keys pg.nokeys 0.7)"
    echo "- PostgreSQL with keys$(app_tag server) / pgbench = $(ratio pg.keys pgbench.yardstick 0.5)$( [ -n "${RPS[pgbench.before]:-}" ] && echo " against the mean of the two pgbench rows (${RPS[pgbench.yardstick]} TPS); against each: before $(ratio pg.keys pgbench.before), after $(ratio pg.keys pgbench.main)")"
    echo "- PostgreSQL without keys$(app_tag server) / pgbench = $(ratio pg.nokeys pgbench.yardstick)"
  fi
  if has_app example; then
    # issue 33: keys / no keys on the example app, H2 and PostgreSQL, >= 0.7x as the server reaches
    echo "- H2$(app_tag example): keys / no keys = $(ratio example.h2.keys example.h2.nokeys 0.7)"
    echo "- PostgreSQL$(app_tag example): keys / no keys = $(ratio example.pg.keys example.pg.nokeys 0.7)"
    echo "- PostgreSQL with keys$(app_tag example) / pgbench = $(ratio example.pg.keys pgbench.yardstick)"
  fi
  if has_app server && has_app example; then
    # issue 33: the example app against the Retrysafe server on the same database, same run
    for db in h2 pg; do
      echo "- $(db_name "$db") with keys: example app / Retrysafe server = $(ratio "example.$db.keys" "$db.keys")"
      echo "- $(db_name "$db") without keys: example app / Retrysafe server = $(ratio "example.$db.nokeys" "$db.nokeys")"
    done
  fi
  echo
  echo "app: \"server\" is the Retrysafe server (rate limits off and in-flight caps raised by BASE_CONFIG_YAML; no keys: NOKEYS_CONFIG_YAML)$(has_app example && echo "; \"example\" is the Spring Boot example app (examples/spring-boot-payments) started with: --server.address=127.0.0.1 $EXAMPLE_BASE_ARGS; no keys adds: $EXAMPLE_NOKEYS_ARGS. Each with its own connection pools as shipped")."
  echo
  echo "CPU columns: per request (per transaction for pgbench), from /proc: the server JVM (the example app's JVM in its rows), the load tool (wrk or pgbench), every PostgreSQL process. \"of it JIT\": the share of the server's CPU spent by its JIT compiler threads in the measured run (more than a few % means the warm-up was too short for this machine). \"other work\": share of the machine's CPU used by anything else during the measured run (kernel work not charged to a process, other people's jobs); above ${INTERFERENCE_LIMIT}% a row is flagged as disturbed."
  echo "Raw outputs: bench/payments/results/$STAMP/"
} | tee "$OUT/summary.md"
exit
}
