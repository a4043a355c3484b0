# shellcheck shell=bash
# Sourced by ./run and ./test: sets JAVA_HOME to a JDK >= 21 or explains which JDK to install.
# Order: JAVA_HOME, `java` on PATH, then the newest JDK under /usr/lib/jvm (and /opt/java).

java_major() { # prints the feature version of the java binary given, or 0
  local v
  v=$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -1)
  case "$v" in 1.*) echo "${v#1.}" ;; '') echo 0 ;; *) echo "$v" ;; esac
}

has_javac() { [ -x "$1/bin/javac" ]; }

find_jdk() {
  local min=21 candidate best="" best_v=0 v
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && has_javac "$JAVA_HOME" \
     && [ "$(java_major "$JAVA_HOME/bin/java")" -ge $min ]; then
    return 0
  fi
  if command -v java >/dev/null 2>&1; then
    candidate=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    if has_javac "$candidate" && [ "$(java_major "$candidate/bin/java")" -ge $min ]; then
      export JAVA_HOME="$candidate"; return 0
    fi
  fi
  for candidate in /usr/lib/jvm/* /opt/java/* /opt/jdk*; do
    [ -x "$candidate/bin/java" ] && has_javac "$candidate" || continue
    v=$(java_major "$candidate/bin/java")
    if [ "$v" -ge $min ] && [ "$v" -gt "$best_v" ]; then best="$candidate"; best_v=$v; fi
  done
  if [ -n "$best" ]; then export JAVA_HOME="$best"; return 0; fi
  cat >&2 <<MSG
run: Retrysafe needs a JDK 21 or newer and found none (looked at JAVA_HOME, java on PATH, /usr/lib/jvm).
Install one, for example:
  Debian/Ubuntu:  sudo apt-get install openjdk-21-jdk   (or Temurin 21/25 from https://adoptium.net)
  macOS:          brew install openjdk@21
then run this command again (or set JAVA_HOME to it).
MSG
  return 1
}
