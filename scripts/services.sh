# shellcheck shell=bash
# Sourced by ./test: PostgreSQL and Redis on loopback, node and npm, chromium and chromedriver,
# or a loud failure.
PG_HOST=127.0.0.1 PG_PORT=5432 REDIS_HOST=127.0.0.1 REDIS_PORT=6379

die() { echo "${SERVICES_CALLER:-test}: $*" >&2; exit 1; }

can_install() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

apt_install() { # apt_install <what, for messages> <package...>: refreshes the package lists once if needed
  local what=$1; shift
  echo "test: installing $what (apt-get)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2 \
    || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2; } \
    || die "apt-get could not install $what"
}

wait_until() { # wait_until <seconds> <command...>: bounded, never forever
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

pg_up() { psql -h $PG_HOST -p $PG_PORT -U postgres -d postgres -tAc 'select 1' ; }

ensure_postgres() {
  pg_up >/dev/null 2>&1 && return 0
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    can_install || die "PostgreSQL is not running on $PG_HOST:$PG_PORT and cannot be installed here (need root and apt-get). Install PostgreSQL 15+ with trust auth for user postgres on 127.0.0.1."
    apt_install PostgreSQL postgresql postgresql-client
  fi
  local version
  version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -1)
  [ -n "$version" ] || die "PostgreSQL is installed but has no cluster under /etc/postgresql"
  # The tests connect over TCP as postgres without a password: trust loopback only.
  local hba="/etc/postgresql/$version/main/pg_hba.conf"
  if [ -w "$hba" ] && ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
    sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  fi
  echo "test: starting PostgreSQL $version" >&2
  pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 || true
  wait_until 60 pg_up || die "PostgreSQL did not answer on $PG_HOST:$PG_PORT within 60 s"
}

redis_up() { [ "$(redis-cli -h $REDIS_HOST -p $REDIS_PORT ping 2>/dev/null)" = PONG ]; }

ensure_redis() {
  redis_up && return 0
  if ! command -v redis-server >/dev/null 2>&1; then
    can_install || die "Redis is not running on $REDIS_HOST:$REDIS_PORT and cannot be installed here (need root and apt-get). Install Redis 7."
    apt_install Redis redis-server
  fi
  echo "test: starting Redis" >&2
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port $REDIS_PORT --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log >&2 || true
  wait_until 30 redis_up || die "Redis did not answer on $REDIS_HOST:$REDIS_PORT within 30 s"
}

# The webhooks module's interoperability tests run the reference Standard Webhooks library
# (npm standardwebhooks) with node; the tests install the library themselves, once, into
# webhooks/target/js.
ensure_node() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && return 0
  can_install || die "node and npm are needed by the webhooks interoperability tests and cannot be installed here (need root and apt-get). Install Node.js 20 and npm."
  apt_install "node and npm" nodejs npm
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || die "node or npm still missing after apt-get"
}

# The dashboard's browser tests (acceptance module) drive Debian's chromium through its
# chromedriver; Selenium is pointed at both paths and never downloads a browser or a driver.
CHROMIUM=/usr/bin/chromium CHROMEDRIVER=/usr/bin/chromedriver
ensure_chromium() {
  if [ ! -x $CHROMIUM ] || [ ! -x $CHROMEDRIVER ]; then
    can_install || die "$CHROMIUM and $CHROMEDRIVER are needed by the dashboard's browser tests and cannot be installed here (need root and apt-get). Install Debian's chromium and chromium-driver."
    apt_install "chromium and chromedriver" chromium chromium-driver
  fi
  [ -x $CHROMIUM ] && [ -x $CHROMEDRIVER ] || die "$CHROMIUM or $CHROMEDRIVER is still missing after apt-get"
  $CHROMEDRIVER --version >/dev/null 2>&1 || die "$CHROMEDRIVER does not run"
}

# nginx, in front of several instances (scripts/cluster.sh, the fault-injection suite). The
# Debian package's own service is not used: each user starts nginx with a configuration of its own.
nginx_bin() { command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true; }

ensure_nginx() {
  [ -n "$(nginx_bin)" ] && return 0
  can_install || die "nginx is missing and cannot be installed here (need root and apt-get). Install the Debian package nginx."
  apt_install nginx nginx
  [ -n "$(nginx_bin)" ] || die "nginx still missing after apt-get"
}

# Private PostgreSQL clusters (testkit PostgresServerProcess) and nginx servers of killed earlier
# runs, and the Redis servers of test Redis Clusters: their folders are named rs-pg-<pid>-*,
# rs-faults-<pid>-* and rs-redis-cluster-<pid>-* after the test JVM.
sweep_test_servers() {
  local dir pid bin
  for dir in "${TMPDIR:-/tmp}"/rs-pg-* "${TMPDIR:-/tmp}"/rs-faults-* "${TMPDIR:-/tmp}"/rs-redis-cluster-*; do
    [ -d "$dir" ] || continue
    pid=$(sed -n 's/^rs-[a-z-]*-\([0-9][0-9]*\)-.*/\1/p' <<<"${dir##*/}")
    [[ -n "$pid" ]] || continue
    kill -0 "$pid" 2>/dev/null && continue
    if [ -f "$dir/data/postmaster.pid" ]; then
      bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
      if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
      else "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; fi
    fi
    local f p
    for f in "$dir"/*.pid; do   # nginx and the server instances of a fault-injection run
      [ -f "$f" ] || continue
      p=$(cat "$f")
      # only a process started from this folder (its command line names it): pids get reused
      tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qF "$dir" || continue
      if [ "${f##*/}" = nginx.pid ]; then kill -QUIT "$p" 2>/dev/null || true
      else kill -KILL "$p" 2>/dev/null || true; fi
    done
    # Redis servers started in this folder (--dir): Redis rewrites its command line, so they are
    # known by their working directory
    for p in $(pgrep -x redis-server 2>/dev/null); do
      case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in
        "$dir"|"$dir"/*) kill -KILL "$p" 2>/dev/null || true ;;
      esac
    done
    rm -rf "$dir"
  done
}

# Databases of killed earlier runs (the tests drop their own when they finish).
sweep_test_databases() {
  # names are rs_test_<pid>_<random>: drop those whose process is gone (a killed run); a run
  # going on beside this one keeps its databases. Older names without a pid are dropped only
  # when nobody is connected.
  local db pid
  for db in $(psql -h $PG_HOST -p $PG_PORT -U postgres -d postgres -tAc \
      "select datname from pg_database where datname like 'rs\_test\_%'"); do
    pid=$(sed -n 's/^rs_test_\([0-9][0-9]*\)_.*/\1/p' <<<"$db")
    if [[ -n "$pid" ]]; then
      kill -0 "$pid" 2>/dev/null && continue
      psql -h $PG_HOST -p $PG_PORT -U postgres -d postgres -qc "drop database if exists $db with (force)" >/dev/null 2>&1 || true
    else
      psql -h $PG_HOST -p $PG_PORT -U postgres -d postgres -qc "drop database if exists $db" >/dev/null 2>&1 || true
    fi
  done
}
