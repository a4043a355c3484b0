#!/usr/bin/env bash
# Runs N Retrysafe instances on this machine behind nginx, on PostgreSQL and Redis:
#   scripts/cluster.sh start [--instances N] [--port P] [--instance-ports P1,P2,...] [--listen ADDR]
#                            [--config FILE] [--dir DIR]
#   scripts/cluster.sh status [--dir DIR]
#   scripts/cluster.sh stop [--dir DIR]
#   scripts/cluster.sh --help (creates nothing)
# (also as ./run cluster ...). Defaults: 3 instances on ports P+1..P+N, nginx on 127.0.0.1:8080,
# state (pids, logs, nginx.conf) under ./cluster. The database is RETRYSAFE_DATABASE_URL (default
# postgresql://postgres@127.0.0.1:5432/retrysafe, created when missing), the rate-limit store
# RETRYSAFE_REDIS_URL (default redis://127.0.0.1:6379; set it empty for none). Every other
# RETRYSAFE_* variable and --config FILE reach every instance. nginx comes from the Debian package
# (installed with apt-get when missing and allowed). Instances listen on 127.0.0.1 only.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/services.sh
. "$root/scripts/services.sh"
SERVICES_CALLER=cluster

# usage [CODE]: the header above; on stdout for --help (exit 0), on stderr for a mistake (exit 2)
usage() {
  local code=${1:-2}
  if [ "$code" = 0 ]; then sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  else sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; fi
  exit "$code"
}
fail() { echo "cluster: $*" >&2; exit 1; }

command=${1:-}; [ $# -gt 0 ] && shift
case "$command" in
  -h|--help|help) usage 0 ;;
  start|status|stop) ;;
  "") usage 2 ;;
  *) echo "cluster: unknown command $command (start, status or stop)" >&2; usage 2 ;;
esac
instances=3 port=8080 instance_ports="" listen_addr=127.0.0.1 config="" dir="$PWD/cluster"
while [ $# -gt 0 ]; do
  case "$1" in
    --instances) instances=${2:?}; shift 2 ;;
    --port) port=${2:?}; shift 2 ;;
    --instance-ports) instance_ports=${2:?}; shift 2 ;;
    --listen) listen_addr=${2:?}; shift 2 ;;
    --config) config=$(realpath "${2:?}"); shift 2 ;;
    --dir) dir=${2:?}; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "cluster: unknown option $1" >&2; usage 2 ;;
  esac
done
[[ "$instances" =~ ^[1-9][0-9]?$ ]] || fail "--instances must be 1..99, was $instances"
[[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || fail "--port must be 1..65535, was $port"
# only start makes the state folder: help, status and stop of a cluster never started create nothing
if [ "$command" = start ]; then
  dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
elif [ -d "$dir" ]; then
  dir=$(cd "$dir" && pwd)
fi

ready() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$1/ready"; }

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

start() {
  for f in "$dir"/instance-*.pid "$dir/nginx.pid"; do
    alive "$f" && fail "a cluster is already running from $dir (scripts/cluster.sh stop --dir $dir)"
  done
  rm -f "$dir"/instance-*.pid "$dir"/instance-*.port
  local ports=()
  if [ -n "$instance_ports" ]; then
    IFS=, read -r -a ports <<<"$instance_ports"
    [ "${#ports[@]}" = "$instances" ] || fail "--instance-ports lists ${#ports[@]} ports for $instances instances"
  else
    for ((i = 1; i <= instances; i++)); do ports+=($((port + i))); done
  fi

  local db_url=${RETRYSAFE_DATABASE_URL-postgresql://postgres@127.0.0.1:5432/retrysafe}
  if [ -z "${RETRYSAFE_DATABASE_URL:-}" ]; then
    # the default database on the local server: made when missing
    command -v psql >/dev/null || fail "psql is missing: set RETRYSAFE_DATABASE_URL to a database that exists"
    if [ "$(psql -h 127.0.0.1 -U postgres -d postgres -tAc "select 1 from pg_database where datname = 'retrysafe'")" != 1 ]; then
      createdb -h 127.0.0.1 -U postgres retrysafe || fail "cannot create database retrysafe on 127.0.0.1:5432"
    fi
  fi
  local redis_url=${RETRYSAFE_REDIS_URL-redis://127.0.0.1:6379}
  ensure_nginx

  # builds the jar once, if needed, before the instances start side by side
  "$root/run" --help >/dev/null

  local servers="" i
  for i in "${!ports[@]}"; do
    local n=$((i + 1)) p=${ports[$i]}
    local args=()
    [ -n "$config" ] && args+=(--config "$config")
    mkdir -p "$dir/instance-$n"
    RETRYSAFE_DATABASE_URL="$db_url" RETRYSAFE_REDIS_URL="$redis_url" PORT="$p" RETRYSAFE_HOST=127.0.0.1 \
      RETRYSAFE_DATA_DIR="$dir/instance-$n" RETRYSAFE_TRUSTED_PROXIES="${RETRYSAFE_TRUSTED_PROXIES-127.0.0.1/32}" \
      setsid nohup "$root/run" "${args[@]}" serve >"$dir/instance-$n.log" 2>&1 </dev/null &
    echo $! >"$dir/instance-$n.pid"
    echo "$p" >"$dir/instance-$n.port"
    servers+="server 127.0.0.1:$p max_fails=1 fail_timeout=2s;\\n        "
  done

  mkdir -p "$dir/nginx-tmp"
  chmod 755 "$dir"
  sed -e "s|@DIR@|$dir|g" -e "s|@LISTEN@|$listen_addr:$port|g" "$root/scripts/cluster/nginx.conf.template" \
    | awk -v servers="$servers" '{ sub(/@SERVERS@/, servers); print }' >"$dir/nginx.conf"

  for i in "${!ports[@]}"; do
    local n=$((i + 1))
    if ! wait_until 120 ready "${ports[$i]}"; then
      tail -20 "$dir/instance-$n.log" >&2 || true
      stop
      fail "instance $n did not become ready on port ${ports[$i]} within 120 s (log: $dir/instance-$n.log)"
    fi
  done
  "$(nginx_bin)" -p "$dir" -c "$dir/nginx.conf" || { stop; fail "nginx did not start (log: $dir/nginx-error.log)"; }
  wait_until 30 ready "$port" || { stop; fail "nginx does not answer on $listen_addr:$port"; }
  echo "cluster: $instances instances (ports ${ports[*]}) behind nginx on http://$listen_addr:$port; state in $dir" >&2
}

status() {
  local f running=0
  for f in "$dir"/instance-*.pid; do
    [ -f "$f" ] || continue
    local n=${f##*/instance-}; n=${n%.pid}
    local p; p=$(cat "$dir/instance-$n.port" 2>/dev/null || echo "?")
    if alive "$f"; then
      running=$((running + 1))
      if ready "$p" 2>/dev/null; then echo "instance $n: pid $(cat "$f"), port $p, ready"
      else echo "instance $n: pid $(cat "$f"), port $p, not ready"; fi
    else
      echo "instance $n: stopped"
    fi
  done
  if alive "$dir/nginx.pid"; then echo "nginx: pid $(cat "$dir/nginx.pid")"; else echo "nginx: stopped"; fi
  [ "$running" -gt 0 ]
}

stop() {
  # nginx first, so no new request reaches an instance that is shutting down
  if alive "$dir/nginx.pid"; then
    local master; master=$(cat "$dir/nginx.pid")
    kill -QUIT "$master"
    wait_until 10 bash -c "! kill -0 $master 2>/dev/null" || kill -KILL "$master" 2>/dev/null || true
  fi
  local f pids=()
  for f in "$dir"/instance-*.pid; do
    alive "$f" && pids+=("$(cat "$f")")
  done
  # SIGTERM: each instance finishes its requests (shutdown.timeout) and hands back its leases
  [ "${#pids[@]}" -gt 0 ] && kill -TERM "${pids[@]}" 2>/dev/null || true
  local pid
  for pid in "${pids[@]}"; do
    wait_until 45 bash -c "! kill -0 $pid 2>/dev/null" || { echo "cluster: pid $pid ignored SIGTERM; killing it" >&2; kill -KILL "$pid" 2>/dev/null || true; }
  done
  rm -f "$dir"/instance-*.pid "$dir/nginx.pid"
  echo "cluster: stopped ($dir)" >&2
}

case "$command" in
  start) start ;;
  stop) stop ;;
  status) status ;;
esac
