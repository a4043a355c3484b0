#!/usr/bin/env bash
# ./run example: starts examples/spring-boot-payments, the payments API on Spring Boot built on
# retrysafe-spring-boot-starter. Builds it first when needed, like ./run builds the server.
# Settings are the server's environment variables (examples/spring-boot-payments/README.md):
# PORT, RETRYSAFE_DATABASE_URL (+ _USER, _PASSWORD), RETRYSAFE_BOOTSTRAP_API_KEYS,
# RETRYSAFE_BANK_LATENCY_MS, RETRYSAFE_DATA_DIR. Stops gracefully on SIGTERM and Ctrl-C.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
example="$root/examples/spring-boot-payments"
jar="$example/target/spring-boot-payments.jar"
# shellcheck source=scripts/jdk.sh
. "$root/scripts/jdk.sh"
find_jdk || exit 1
java="$JAVA_HOME/bin/java"

if [[ "${1:-}" == --help || "${1:-}" == -h ]]; then
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi

# Build when the jar is missing or any source or POM of the example or the Retrysafe modules in
# it is newer (the libraries come from this repository's reactor, not from a download).
needs_build() {
  [[ ! -f "$jar" ]] && return 0
  [[ -n "$(find "$root/pom.xml" "$root"/{bom,common,leased-work,idempotency,ratelimit,ratelimit-redis,client,webhooks,delivery,jobs,servlet,spring-boot-starter,examples/spring-boot-payments}/pom.xml \
              "$root"/{common,leased-work,idempotency,ratelimit,ratelimit-redis,client,webhooks,delivery,jobs,servlet,spring-boot-starter,examples/spring-boot-payments}/src/main -newer "$jar" -print -quit 2>/dev/null)" ]]
}

if needs_build; then
  echo "run: building the example (the first build takes a minute)..." >&2
  log="$(mktemp)"
  if ! "$root/mvnw" -B -q -f "$root/pom.xml" -DskipTests -Dspotless.check.skip=true \
        -pl examples/spring-boot-payments -am package >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "run: the build failed (output above)." >&2
    exit 1
  fi
  rm -f "$log"
fi

# No key given: one demo key, made once and kept in the data folder (mode 600), as the server does.
if [[ -z "${RETRYSAFE_BOOTSTRAP_API_KEYS:-}" ]]; then
  data="${RETRYSAFE_DATA_DIR:-./data}"
  key_file="$data/example-demo-api-key"
  if [[ ! -s "$key_file" ]]; then
    mkdir -p "$data"
    (umask 077 && head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n' | sed 's/^/rs_/' >"$key_file")
  fi
  RETRYSAFE_BOOTSTRAP_API_KEYS="$(cat "$key_file")"
  export RETRYSAFE_BOOTSTRAP_API_KEYS
  echo "run: demo API key in $key_file: curl -H \"Authorization: Bearer \$(cat $key_file)\" http://localhost:${PORT:-8080}/v1/payments" >&2
fi

# exec: the JVM receives SIGTERM/SIGINT itself and shuts down gracefully (server.shutdown: graceful).
exec "$java" ${RETRYSAFE_JAVA_OPTS:-} -jar "$jar" "$@"
