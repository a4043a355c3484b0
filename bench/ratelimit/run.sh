#!/usr/bin/env bash
# bench/ratelimit/run.sh: the rate-limit benchmarks of issue 3, with a summary table.
#
# What it measures (all in one run, one row at a time):
#   inmemory  JMH (bench/target/benchmarks.jar, InMemoryBenchmark), decisions per second and
#             allocation per decision (-prof gc, gc.alloc.rate.norm) of Retrysafe's
#             LocalRateLimiter.tryAcquire, the same without the clock read and store.decide
#             (both for reference), Bucket4j local
#             buckets in a ConcurrentHashMap (default lock-free, and SYNCHRONIZED) and Resilience4j
#             RateLimiters in a ConcurrentHashMap; at 1 and 2 threads, one hot key and 100,000 keys.
#             Plus ClockBenchmark (the cost of reading the clock, once).
#   filterpath JMH (FilterPathBenchmark): the HTTP filter's rate-limit step per request once it has
#             the charges, store.decide(partition, charges, buffer) plus every figure the headers
#             are rendered from, for 1, 2 and 3 policies and for a previous policy set with a
#             shadow policy; the same through decide(partition, charges) (a new Decision, the
#             path before the buffer); 1 policy with the header strings rendered; and Bucket4j's
#             single bucket per key, the peer. Decisions per second and B/op (-prof gc).
#   memory    bytes of limiter state per tracked key (MemoryPerKey: used heap after System.gc()
#             before and after tracking N keys, SerialGC), for every library.
#   redis     JMH (RedisBenchmark) at 1, 16 and 64 caller threads: RedisRateLimitStore.decide vs
#             Bucket4j's Lettuce proxy manager (tryConsume(1)), one shared connection each; and, for
#             reference, Lettuce alone running the ceiling's trivial script the way the store calls
#             Redis (the floor of any store on Lettuce). Then the same for Retrysafe, Bucket4j and
#             the floor with the callers on virtual threads (JMH's -Djmh.executor=VIRTUAL: N virtual
#             threads on as many carriers as processors), which is how the server calls the store
#             (Jetty with virtual threads); rows redis-c<N>-<benchmark>-virtual.
#   ceiling   redis-benchmark at the same concurrency running EVALSHA of a trivial script
#             ("return 1", one key, one argument), measured before and after the redis rows of
#             that concurrency: the ceiling is the mean of the two. And, for reference (not in
#             the ratios), redis-benchmark running Retrysafe's own decide.lua with the arguments
#             the store sends: what the script costs without any JVM.
#   Every allowed-path row (no decision is refused; see Limits.java for the limit).
# And, not in a full run (only with --only), the concurrency limits of issue 34:
#   concurrency        JMH, acquire + release per key under a limit of 100 (never reached), at 1 and
#             2 threads, one hot key and 100,000 keys, with -prof gc: InMemoryConcurrencyStore
#             (ConcurrencyBenchmark.retrysafe) vs Resilience4j's Bulkhead per key in a
#             ConcurrentHashMap (BulkheadPeerBenchmark) and, for reference, a Semaphore per key.
#   redis-concurrency  JMH (RedisConcurrencyBenchmark) at 1, 16 and 64 caller threads on 10,000
#             keys: RedisConcurrencyStore acquire + release vs Redisson's RPermitExpirableSemaphore
#             (tryAcquire with the same 10 s lease, then release), and, for reference, the store
#             with directConnection(false); Redis command counts per row (INFO commandstats).
#
# Usage:
#   bench/ratelimit/run.sh              full run: JMH fork 1, warm-up 3 x 2 s, measured 5 x 2 s (~14 min)
#   bench/ratelimit/run.sh --quick      smoke test: warm-up 1 x 1 s, measured 2 x 1 s (~4 min)
#   bench/ratelimit/run.sh --only inmemory|filterpath|memory|redis|ceiling|concurrency|redis-concurrency
#                                       one part (repeatable)
#   bench/ratelimit/run.sh --help
#
# Environment (defaults in brackets):
#   WARMUP_ITERATIONS [3] WARMUP_TIME [2] ITERATIONS [5] ITERATION_TIME [2] FORKS [1]  JMH settings (s)
#   INMEMORY_THREADS ["1 2"]  INMEMORY_KEYS ["1 100000"]  REDIS_CALLERS ["1 16 64"]
#   FILTERPATH_THREADS ["1"]  FILTERPATH_KEYS ["1 100000"]
#   CONCURRENCY_THREADS ["1 2"]  CONCURRENCY_KEYS ["1 100000"]  REDIS_CONCURRENCY_KEYS [10000]
#   REDIS_VIRTUAL [1]     0: no rows with callers on virtual threads
#   ORDER_TURN [random: 0, 1 or 2]  which order of the Redis library rows the first caller count
#                         takes (each next caller count takes the next order); recorded in the summary
#   MEMORY_KEYS [1000000]  MEMORY_KEYS_RESILIENCE4J [100000] (a RateLimiter per key is heavy)
#   REDIS_HOST [127.0.0.1] REDIS_PORT [6379]  (keys under bench:rl:<stamp>:, deleted at the end)
#   CEILING_REQUESTS [300000 per 10 s of JMH measurement]  requests per redis-benchmark row
#                         (6-17 s per row at the rates seen here; 30,000 made ~1 s rows at 16-64 callers)
#   SKIP_BUILD [0]        1: do not build (./mvnw -B -q -o -pl bench -am install -DskipTests)
#   QUIET_WAIT [120] QUIET_BELOW [20]  before each row, wait up to QUIET_WAIT s for the machine to
#                         be less than QUIET_BELOW % busy (3 s samples), then measure anyway
#   INTERFERENCE_LIMIT [10] RETRY_DISTURBED [1]  a row during which other processes used more
#                         than INTERFERENCE_LIMIT % of the machine is measured again (up to
#                         RETRY_DISTURBED times) and, if still disturbed, flagged in the summary
#
# Needs: a JDK >= 21 (scripts/jdk.sh), python3, redis-cli and redis-benchmark, Redis at
# REDIS_HOST:REDIS_PORT. Loopback only.
#
# Output: results/<stamp>/summary.md (also on stdout): tables with ops/s, ratios, B/op, bytes per
# key and the CPU taken by other work per row; raw JMH JSON/text, redis-benchmark CSV, Redis
# command statistics and per-row CPU figures beside it.
set -euo pipefail
{ # one compound command: editing this file during a run cannot change the running one

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
COMMAND_LINE="bench/ratelimit/run.sh${*:+ $*}"

die() { echo "bench: $*" >&2; exit 1; }
say() { echo "bench: $*" >&2; }

QUICK=0 ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --only) [ $# -ge 2 ] || die "--only needs inmemory, filterpath, memory, redis, ceiling, concurrency or redis-concurrency"; ONLY+=("$2"); shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
if [ "$QUICK" = 1 ]; then
  WARMUP_ITERATIONS=${WARMUP_ITERATIONS:-1} WARMUP_TIME=${WARMUP_TIME:-1}
  ITERATIONS=${ITERATIONS:-2} ITERATION_TIME=${ITERATION_TIME:-1}
  MEMORY_KEYS=${MEMORY_KEYS:-200000} MEMORY_KEYS_RESILIENCE4J=${MEMORY_KEYS_RESILIENCE4J:-20000}
  QUIET_WAIT=${QUIET_WAIT:-10} RETRY_DISTURBED=${RETRY_DISTURBED:-0}
fi
WARMUP_ITERATIONS=${WARMUP_ITERATIONS:-3} WARMUP_TIME=${WARMUP_TIME:-2}
ITERATIONS=${ITERATIONS:-5} ITERATION_TIME=${ITERATION_TIME:-2} FORKS=${FORKS:-1}
INMEMORY_THREADS=${INMEMORY_THREADS:-1 2} INMEMORY_KEYS=${INMEMORY_KEYS:-1 100000}
FILTERPATH_THREADS=${FILTERPATH_THREADS:-1} FILTERPATH_KEYS=${FILTERPATH_KEYS:-1 100000}
CONCURRENCY_THREADS=${CONCURRENCY_THREADS:-1 2} CONCURRENCY_KEYS=${CONCURRENCY_KEYS:-1 100000}
REDIS_CONCURRENCY_KEYS=${REDIS_CONCURRENCY_KEYS:-10000}
REDIS_CALLERS=${REDIS_CALLERS:-1 16 64}
ORDER_TURN=${ORDER_TURN:-$((RANDOM % 3))}
REDIS_VIRTUAL=${REDIS_VIRTUAL:-1}
[[ $REDIS_VIRTUAL =~ ^[01]$ ]] || die "REDIS_VIRTUAL must be 0 or 1: $REDIS_VIRTUAL"
[[ $ORDER_TURN =~ ^[0-9]+$ ]] || die "ORDER_TURN must be a whole number: $ORDER_TURN"
MEMORY_KEYS=${MEMORY_KEYS:-1000000} MEMORY_KEYS_RESILIENCE4J=${MEMORY_KEYS_RESILIENCE4J:-100000}
REDIS_HOST=${REDIS_HOST:-127.0.0.1} REDIS_PORT=${REDIS_PORT:-6379}
CEILING_REQUESTS=${CEILING_REQUESTS:-$(( 30000 * ITERATIONS * ITERATION_TIME ))}
SKIP_BUILD=${SKIP_BUILD:-0}
QUIET_WAIT=${QUIET_WAIT:-120} QUIET_BELOW=${QUIET_BELOW:-20}
INTERFERENCE_LIMIT=${INTERFERENCE_LIMIT:-10} RETRY_DISTURBED=${RETRY_DISTURBED:-1}

# a full run (no --only) has the parts of issue 3; the concurrency parts (issue 34) only when named
part() {
  local p
  if [ ${#ONLY[@]} -eq 0 ]; then case "$1" in concurrency|redis-concurrency) return 1 ;; *) return 0 ;; esac; fi
  for p in "${ONLY[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1
}
# whether a part that talks to Redis runs
uses_redis() { part redis || part ceiling || part redis-concurrency; }
for p in "${ONLY[@]+"${ONLY[@]}"}"; do
  case "$p" in inmemory|filterpath|memory|redis|ceiling|concurrency|redis-concurrency) ;; *) die "--only: unknown part '$p'" ;; esac
done

# shellcheck source=../../scripts/jdk.sh
. "$ROOT/scripts/jdk.sh"
find_jdk || die "no JDK >= 21 found"
JAVA="$JAVA_HOME/bin/java"
command -v python3 >/dev/null || die "python3 is needed for the summary"
if uses_redis; then
  command -v redis-cli >/dev/null && command -v redis-benchmark >/dev/null \
    || die "redis-cli and redis-benchmark are needed (apt-get install -y redis-tools)"
  redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping >/dev/null 2>&1 || die "no Redis at $REDIS_HOST:$REDIS_PORT"
fi

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT="$HERE/results/$STAMP"
mkdir -p "$OUT"
KEY_PREFIX="bench:rl:$STAMP:"
JAR="$ROOT/bench/target/benchmarks.jar"
say "results in $OUT"

rcli() { redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" "$@"; }
cleanup_redis() {
  if uses_redis; then
    local n
    n=$(rcli --scan --pattern "${KEY_PREFIX}*" 2>/dev/null | xargs -r -n 500 redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" unlink 2>/dev/null \
        | awk '{s+=$1} END{print s+0}') || n="?"
    say "deleted $n leftover Redis keys under $KEY_PREFIX"
  fi
}
trap cleanup_redis EXIT

if [ "$SKIP_BUILD" != 1 ]; then
  say "building (./mvnw -B -q -o -pl bench -am install -DskipTests)"
  (cd "$ROOT" && ./mvnw -B -q -o -pl bench -am install -DskipTests) >"$OUT/build.log" 2>&1 \
    || { tail -30 "$OUT/build.log" >&2; die "build failed (see $OUT/build.log)"; }
fi
[ -f "$JAR" ] || die "$JAR is missing: build first (or SKIP_BUILD=0)"

# --- the machine, and the CPU other work takes ---------------------------------------------------
CPUS=$(nproc)
TICK=$(getconf CLK_TCK)
cpu_ticks() { awk '/^cpu /{print $2+$3+$4+$5+$6+$7+$8+$9, $5+$6; exit}' /proc/stat; } # total idle
REDIS_PID=""
if uses_redis; then
  REDIS_PID=$(rcli info server | tr -d '\r' | sed -n 's/^process_id://p')
fi
redis_ticks() {
  if [ -n "$REDIS_PID" ] && [ -r "/proc/$REDIS_PID/stat" ]; then
    awk '{print $14+$15}' "/proc/$REDIS_PID/stat"
  else echo 0; fi
}
busy_sample() { # prints % of the machine busy over 3 s
  local a b
  read -r a b < <(cpu_ticks); sleep 3
  read -r c d < <(cpu_ticks)
  awk -v t="$((c - a))" -v i="$((d - b))" 'BEGIN{printf "%.0f", (t>0?(t-i)*100/t:0)}'
}
wait_quiet() {
  local deadline=$(( $(date +%s) + QUIET_WAIT )) busy
  while true; do
    busy=$(busy_sample)
    [ "$busy" -lt "$QUIET_BELOW" ] && return 0
    [ "$(date +%s)" -lt "$deadline" ] || { say "machine still ${busy}% busy after ${QUIET_WAIT}s: measuring anyway"; return 0; }
  done
}

{
  echo "command: $COMMAND_LINE"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null)$(cd "$ROOT" && git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "cpus: $CPUS ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1))"
  echo "memory: $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
  echo "kernel: $(uname -r); clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
  echo "java: $("$JAVA" -version 2>&1 | sed -n 2p)"
  if uses_redis; then echo "redis: $(rcli info server | tr -d '\r' | sed -n 's/^redis_version://p'); redis-benchmark: $(redis-benchmark --version 2>/dev/null | head -1)"; fi
  if part redis || part redis-concurrency; then echo "redis row orders start at turn $ORDER_TURN (ORDER_TURN=$ORDER_TURN repeats them)"; fi
  echo "jmh: forks $FORKS, warm-up ${WARMUP_ITERATIONS} x ${WARMUP_TIME} s, measured ${ITERATIONS} x ${ITERATION_TIME} s"
  echo "loadavg at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "busy before the run (3 s, nothing of ours running): $(busy_sample)%"
} > "$OUT/environment.txt"
cat "$OUT/environment.txt" >&2

# rows.tsv: row id, part, command outcome, elapsed s, our CPU s, redis CPU s, other work %, attempts, loadavg
printf 'row\tpart\texit\telapsed_s\tours_cpu_s\tredis_cpu_s\tother_pct\tattempts\tloadavg\n' > "$OUT/rows.tsv"

# Runs one row (the command after the id and the part), measuring the CPU used by it (through
# /usr/bin/time-like accounting of the shell's children), by Redis and by everything else, and
# measures it again when other work took more than INTERFERENCE_LIMIT % of the machine.
run_row() {
  local id=$1 kind=$2; shift 2
  local attempt=0 rc other t0 i0 t1 i1 r0 r1 e0 e1 c0 c1 elapsed ours redis busy
  while true; do
    attempt=$((attempt + 1))
    wait_quiet
    say "row $id (attempt $attempt): $*"
    read -r t0 i0 < <(cpu_ticks); r0=$(redis_ticks); e0=$(date +%s.%N)
    record_times; c0=$(children_cpu_now)
    rc=0; "$@" >"$OUT/$id.out" 2>"$OUT/$id.err" || rc=$?
    record_times; c1=$(children_cpu_now)
    e1=$(date +%s.%N); r1=$(redis_ticks); read -r t1 i1 < <(cpu_ticks)
    elapsed=$(awk -v a="$e0" -v b="$e1" 'BEGIN{printf "%.1f", b-a}')
    ours=$(awk -v a="$c0" -v b="$c1" 'BEGIN{printf "%.1f", b-a}')
    redis=$(awk -v a="$r0" -v b="$r1" -v hz="$TICK" 'BEGIN{printf "%.1f", (b-a)/hz}')
    busy=$(awk -v t="$((t1 - t0))" -v i="$((i1 - i0))" -v hz="$TICK" 'BEGIN{printf "%.1f", (t-i)/hz}')
    # other work: busy CPU-seconds not ours nor Redis's, as % of the machine over the row
    other=$(awk -v b="$busy" -v o="$ours" -v r="$redis" -v e="$elapsed" -v n="$CPUS" \
      'BEGIN{x=(b-o-r)*100/(e*n); if (x<0) x=0; printf "%.1f", x}')
    [ "$rc" = 0 ] || { say "row $id failed (exit $rc): $(tail -5 "$OUT/$id.err" | tr '\n' ' ')"; }
    if awk -v x="$other" -v l="$INTERFERENCE_LIMIT" 'BEGIN{exit !(x>l)}' && [ "$attempt" -le "$RETRY_DISTURBED" ]; then
      say "row $id: other work took ${other}% of the machine: measuring again"
      mv "$OUT/$id.out" "$OUT/$id.disturbed$attempt.out"
      [ -f "$OUT/$id.json" ] && mv "$OUT/$id.json" "$OUT/$id.disturbed$attempt.json"
      continue
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$kind" "$rc" "$elapsed" "$ours" "$redis" "$other" "$attempt" \
      "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/rows.tsv"
    return 0
  done
}
# User+system CPU seconds of every finished child of this shell (and their waited-for
# descendants: JMH's forked JVMs). `times` must run in this shell, not in a $(...) subshell.
children_cpu_now() { cat "$OUT/.times"; }
record_times() { times > "$OUT/.times.raw"; awk 'NR==2{ split($1,u,/[ms]/); split($2,s,/[ms]/); printf "%.2f", u[1]*60+u[2]+s[1]*60+s[2] }' "$OUT/.times.raw" > "$OUT/.times"; }

JMH_COMMON=(-f "$FORKS" -wi "$WARMUP_ITERATIONS" -w "$WARMUP_TIME" -i "$ITERATIONS" -r "$ITERATION_TIME" -rf json)

# --- in-memory ------------------------------------------------------------------------------------
if part inmemory; then
  run_row clock inmemory "$JAVA" -jar "$JAR" 'ClockBenchmark' -t 1 "${JMH_COMMON[@]}" -rff "$OUT/clock.json"
  for t in $INMEMORY_THREADS; do
    for k in $INMEMORY_KEYS; do
      for b in retrysafe retrysafeNoClock retrysafeDecide bucket4j bucket4jSynchronized resilience4j; do
        id="inmemory-t$t-k$k-$b"
        run_row "$id" inmemory "$JAVA" -jar "$JAR" "InMemoryBenchmark.$b\$" -t "$t" -p keys="$k" -prof gc \
          "${JMH_COMMON[@]}" -rff "$OUT/$id.json"
      done
    done
  done
fi

# --- the filter's path -----------------------------------------------------------------------------
if part filterpath; then
  for t in $FILTERPATH_THREADS; do
    for k in $FILTERPATH_KEYS; do
      for b in bucket4j decide1 decide2 decide3 versionsShadow decide1List decide2List decide3List \
               versionsShadowList decide1Rendered; do
        id="filterpath-t$t-k$k-$b"
        run_row "$id" inmemory "$JAVA" -jar "$JAR" "FilterPathBenchmark.$b\$" -t "$t" -p keys="$k" -prof gc \
          "${JMH_COMMON[@]}" -rff "$OUT/$id.json"
      done
    done
  done
fi

# --- bytes per key --------------------------------------------------------------------------------
if part memory; then
  for lib in retrysafe bucket4j bucket4j-synchronized resilience4j; do
    n=$MEMORY_KEYS; [ "$lib" = resilience4j ] && n=$MEMORY_KEYS_RESILIENCE4J
    run_row "memory-$lib" memory "$JAVA" -XX:+UseSerialGC -Xms4g -Xmx4g -cp "$JAR" \
      dev.retrysafe.bench.ratelimit.MemoryPerKey "$lib" "$n"
  done
fi

# --- Redis ----------------------------------------------------------------------------------------
commandstats() { rcli info commandstats | tr -d '\r' | grep -E '^cmdstat_(evalsha|eval|get|set|time):' || true; }
ceiling_row() { # id, concurrency, SHA, key pattern, then the script's arguments
  local id=$1 callers=$2 sha=$3 key=$4; shift 4
  commandstats > "$OUT/$id.stats-before"
  run_row "$id" ceiling redis-benchmark -h "$REDIS_HOST" -p "$REDIS_PORT" -c "$callers" -n "$CEILING_REQUESTS" -r 10000 --csv \
    EVALSHA "$sha" 1 "$key" "$@"
  commandstats > "$OUT/$id.stats-after"
}
if part ceiling; then
  TRIVIAL_SHA=$(rcli script load "return 1")
  DECIDE_SHA=$(rcli -x script load < "$ROOT/ratelimit-redis/src/main/resources/dev/retrysafe/ratelimit/redis/internal/decide.lua")
  # the arguments RedisRateLimitStore sends for Limits.policy() when a decision goes alone: Redis
  # time, no minimum TTL, one kind of charge (gcra, window 100000 us, quota 1, burst 1e10, cost
  # 1), then the request: charge one key of kind 1
  DECIDE_ARGS=('' 0 1 gcra 100000 1 10000000000 1 1)
  # the reference row must time decisions, not a script that fails on arguments it no longer reads
  # (once it did: its arguments were left in an older format): one call, allowed, before any row
  check=$(rcli evalsha "$DECIDE_SHA" 1 "${KEY_PREFIX}check" "${DECIDE_ARGS[@]}" | tr -d '\r' | tr '\n' ' ')
  rcli del "${KEY_PREFIX}check" > /dev/null
  if ! [[ $check =~ ^[0-9]+\ [0-9]+\ [0-9]+\ 0\ $ ]]; then
    echo "bench: decide.lua did not decide the reference row's arguments (reply: $check)" >&2
    exit 1
  fi
fi
# Per caller count: the ceiling, the libraries, the reference decide.lua, and the ceiling again.
# The ceiling of a caller count is the mean of the two: it drifts by up to a third between runs
# minutes apart on these machines (20,031-28,238/s at 1 caller on 2026-12-04), so measuring it
# on both sides of the rows it is compared with takes the drift over those minutes into account.
# The order of the library rows turns with each caller count, so no library always runs first or last,
# and starts at a random turn (ORDER_TURN), so that a caller count does not get the same order in
# every run and an effect of the order shows up as spread between runs instead of as a difference
# (retrysafeLettuce: the store with directConnection(false), every decision through Lettuce; reference)
ORDERS=("retrysafe bucket4j lettuceFloor retrysafeLettuce" "lettuceFloor retrysafeLettuce retrysafe bucket4j"
        "bucket4j retrysafe retrysafeLettuce lettuceFloor")
# The rows with callers on virtual threads come after those on platform threads, before the
# ceiling is measured again, in an order of their own that turns the same way.
VIRTUAL_ORDERS=("retrysafe bucket4j lettuceFloor" "lettuceFloor retrysafe bucket4j" "bucket4j lettuceFloor retrysafe")
redis_row() { # id, benchmark, callers, then more JMH arguments
  local id=$1 b=$2 c=$3; shift 3
  commandstats > "$OUT/$id.stats-before"
  run_row "$id" redis "$JAVA" -jar "$JAR" "RedisBenchmark.$b\$" -t "$c" \
    -p redisUri="redis://$REDIS_HOST:$REDIS_PORT" -p keyPrefix="$KEY_PREFIX" \
    "${JMH_COMMON[@]}" -rff "$OUT/$id.json" "$@"
  commandstats > "$OUT/$id.stats-after"
}
turn=$ORDER_TURN
for c in $REDIS_CALLERS; do
  if part ceiling; then
    ceiling_row "ceiling-c$c-trivial" "$c" "$TRIVIAL_SHA" "${KEY_PREFIX}ceiling:{key___rand_int__}" 1
  fi
  if part redis; then
    # shellcheck disable=SC2086 # the order is a list of words
    for b in ${ORDERS[$((turn % 3))]}; do
      redis_row "redis-c$c-$b" "$b" "$c"
    done
    if [ "$REDIS_VIRTUAL" = 1 ]; then
      # shellcheck disable=SC2086
      for b in ${VIRTUAL_ORDERS[$((turn % 3))]}; do
        redis_row "redis-c$c-$b-virtual" "$b" "$c" -jvmArgsAppend -Djmh.executor=VIRTUAL
      done
    fi
    turn=$((turn + 1))
  fi
  if part ceiling; then
    # the key and arguments the store sends for Limits.policy() when a decision goes alone
    ceiling_row "ceiling-c$c-decide.lua" "$c" "$DECIDE_SHA" "${KEY_PREFIX}rs:{key___rand_int__}:bench:gcra:key___rand_int__" \
      "${DECIDE_ARGS[@]}"
    ceiling_row "ceiling-c$c-trivial-after" "$c" "$TRIVIAL_SHA" "${KEY_PREFIX}ceiling:{key___rand_int__}" 1
  fi
done

# --- concurrency limits (issue 34) -----------------------------------------------------------------
# In memory: each library at each thread and key count; every row with -prof gc (B/op).
if part concurrency; then
  for t in $CONCURRENCY_THREADS; do
    for k in $CONCURRENCY_KEYS; do
      for b in ConcurrencyBenchmark.retrysafe BulkheadPeerBenchmark.resilience4jBulkhead ConcurrencyBenchmark.semaphorePerKey; do
        id="cc-mem-t$t-k$k-${b#*.}"
        run_row "$id" concurrency "$JAVA" -jar "$JAR" "^dev\.retrysafe\.bench\.ratelimit\.$b\$" -t "$t" -p keys="$k" -prof gc \
          "${JMH_COMMON[@]}" -rff "$OUT/$id.json"
      done
    done
  done
fi
# On Redis: per caller count, the rows in an order that turns as the decision rows' does; every
# command Redis ran in the row is recorded before and after it (the summary counts them per operation).
CC_ORDERS=("retrysafe redisson retrysafeLettuce" "redisson retrysafeLettuce retrysafe" "retrysafeLettuce retrysafe redisson")
if part redis-concurrency; then
  cc_turn=$ORDER_TURN
  for c in $REDIS_CALLERS; do
    # shellcheck disable=SC2086 # the order is a list of words
    for b in ${CC_ORDERS[$((cc_turn % 3))]}; do
      id="cc-redis-c$c-$b"
      rcli info commandstats | tr -d '\r' | grep '^cmdstat_' > "$OUT/$id.stats-before" || true
      run_row "$id" redis-concurrency "$JAVA" -jar "$JAR" "RedisConcurrencyBenchmark\.$b\$" -t "$c" \
        -p redisUri="redis://$REDIS_HOST:$REDIS_PORT" -p keyPrefix="${KEY_PREFIX}cc:" -p keys="$REDIS_CONCURRENCY_KEYS" \
        "${JMH_COMMON[@]}" -rff "$OUT/$id.json"
      rcli info commandstats | tr -d '\r' | grep '^cmdstat_' > "$OUT/$id.stats-after" || true
    done
    cc_turn=$((cc_turn + 1))
  done
fi

cleanup_redis
trap - EXIT
rm -f "$OUT/.times" "$OUT/.times.raw"

# --- summary --------------------------------------------------------------------------------------
python3 "$HERE/summary.py" "$OUT" "$INTERFERENCE_LIMIT" > "$OUT/summary.md"
# each JMH row's seconds of warm-up and measurement: the summary's commands per operation
python3 "$HERE/concurrency_summary.py" "$OUT" "$INTERFERENCE_LIMIT" "$((WARMUP_ITERATIONS * WARMUP_TIME + ITERATIONS * ITERATION_TIME))" \
  >> "$OUT/summary.md"
cat "$OUT/summary.md"
}
