#!/usr/bin/env bash
# scripts/postgres/up.sh [SCRATCH_DIR]
#
# Starts a throw-away PostgreSQL for the tests from Debian's own binaries
# (/usr/lib/postgresql/<version>/bin: initdb, postgres; the `postgresql` package, see
# scripts/e2e/install-clients.sh postgres): a fresh cluster in SCRATCH_DIR, listening only on
# 127.0.0.1 on a free port, trust authentication for the `postgres` role, its unix socket inside
# SCRATCH_DIR, fsync off (the data is thrown away).  No systemd, nothing under /etc or /var.
#
# initdb and postgres refuse to run as root, so when started by root both run as PG_OS_USER through
# setpriv, which execs: the pid recorded in SCRATCH_DIR/pid is the server's own.  The server runs in
# its own session (setsid).  Stop it with down.sh SCRATCH_DIR, which signals only that pid.
#
# If the server recorded in SCRATCH_DIR is still running and answers, it is reused; a stopped or
# dead one is started again on its data and port; only a cluster that cannot start is rebuilt.
#
# Environment (all optional):
#   GATEWAY_PG_DIR   scratch directory when no argument is given         (/tmp/gateway-postgres)
#   PG_PORT          port on 127.0.0.1; empty: the first free one from 55432
#   PG_BIN           directory of initdb/postgres   (the newest /usr/lib/postgresql/*/bin)
#   PG_OS_USER       system user the server runs as when started by root (postgres)
#   PG_UP_TIMEOUT    seconds allowed for the server to accept connections (30)
#
# stdout: `export DATABASE_URL=postgres://postgres@127.0.0.1:<port>/postgres` (also saved as
# SCRATCH_DIR/env), e.g.  eval "$(scripts/postgres/up.sh)"
# stderr: progress with timestamps; on failure the tail of the server log (SCRATCH_DIR/log).
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$SCRIPT_DIR/common.sh"

OS_USER=${PG_OS_USER:-postgres}
TIMEOUT=${PG_UP_TIMEOUT:-30}
STARTED_AT=$(date +%s%N)

say() {
  local ms=$((($(date +%s%N) - STARTED_AT) / 1000000))
  printf 'pg-up [%d.%03ds] %s\n' $((ms / 1000)) $((ms % 1000)) "$*" >&2
}

fail() {
  say "FAILED: $*"
  if [ -s "$PG_DIR/log/postgres.log" ]; then
    printf -- '--- last lines of %s\n' "$PG_DIR/log/postgres.log" >&2
    tail -n 20 "$PG_DIR/log/postgres.log" >&2
  fi
  GATEWAY_PG_KEEP_DIR=1 "$SCRIPT_DIR/down.sh" "$PG_DIR" >&2 || true
  exit 1
}

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

answers() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$1" -U postgres -d postgres -t 2; }

print_exports() {
  echo "export DATABASE_URL=postgres://postgres@127.0.0.1:$1/postgres" >"$PG_DIR/env"
  cat "$PG_DIR/env"
}

# ------------------------------------------------------------------------------------------ checks
# start_server PORT: starts the cluster in $PG_DIR/data and waits until it answers on PORT;
# returns 1 (the server stopped again) instead of failing, so a restart can fall back to a rebuild.
start_server() {
  # The wrapper shell records its own pid, then execs (setpriv execs too): the pid is the server's.
  # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
  setsid sh -c 'echo $$ >"$0" && exec "$@"' "$PG_DIR/pid" \
    ${AS_OWNER[@]+"${AS_OWNER[@]}"} "$PG_BIN/postgres" -D "$PG_DIR/data" \
    </dev/null >>"$PG_DIR/log/postgres.log" 2>&1 &
  local deadline=$(($(date +%s) + TIMEOUT))
  until [ -s "$PG_DIR/pid" ] && answers "$1"; do
    if [ -s "$PG_DIR/pid" ] && ! recorded_pid_alive; then return 1; fi
    [ "$(date +%s)" -lt "$deadline" ] || fail "no answer on 127.0.0.1:$1 after ${TIMEOUT}s"
    sleep 0.1
  done
}

resolve_pg_dir "${1:-}"

if [ -z "${PG_BIN:-}" ]; then
  PG_BIN=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1 || true)
fi
for b in initdb postgres pg_isready; do
  [ -n "$PG_BIN" ] && [ -x "$PG_BIN/$b" ] || {
    echo "pg-up: no PostgreSQL server binaries (${PG_BIN:-/usr/lib/postgresql/*/bin}/$b); install with:" >&2
    echo "  scripts/e2e/install-clients.sh postgres" >&2
    exit 2
  }
done

# As root, run initdb and the server as OS_USER (setpriv execs, keeping the pid); otherwise as is.
AS_OWNER=()
OWNER=$(id -un)
if [ "$(id -u)" = 0 ]; then
  id -u "$OS_USER" >/dev/null 2>&1 || {
    echo "pg-up: running as root, but there is no user '$OS_USER' to run PostgreSQL as (PG_OS_USER)" >&2
    exit 2
  }
  AS_OWNER=(setpriv "--reuid=$OS_USER" "--regid=$OS_USER" --init-groups --)
  OWNER=$OS_USER
fi

# ------------------------------------------------------------------------------------------ reuse
if recorded_pid_alive && [ -s "$PG_DIR/port" ] && answers "$(cat "$PG_DIR/port")"; then
  say "reusing the server already running in $PG_DIR (pid $(recorded_pid))"
  print_exports "$(cat "$PG_DIR/port")"
  exit 0
fi
# A cluster that was stopped (down.sh with GATEWAY_PG_KEEP_DIR=1) or whose server died keeps its
# data: start it again on its port. Only a cluster that cannot start is rebuilt, and that is said.
if [ -e "$PG_DIR/$MARKER" ] && [ -s "$PG_DIR/data/PG_VERSION" ] && [ -s "$PG_DIR/port" ] &&
  ! recorded_pid_alive && ! port_taken "$(cat "$PG_DIR/port")"; then
  PORT=$(cat "$PG_DIR/port")
  say "restarting the stopped server in $PG_DIR on its data (port $PORT)"
  rm -f "$PG_DIR/pid"
  if start_server "$PORT"; then
    say "accepting connections on 127.0.0.1:$PORT (pid $(recorded_pid), user $OWNER), data kept"
    print_exports "$PORT"
    exit 0
  fi
  say "the cluster in $PG_DIR does not start (see $PG_DIR/log/postgres.log): rebuilding it, its data is lost"
fi
if [ -e "$PG_DIR/pid" ]; then
  say "stale server in $PG_DIR: stopping it and starting afresh"
  GATEWAY_PG_KEEP_DIR=1 "$SCRIPT_DIR/down.sh" "$PG_DIR" >&2
fi

PORT=${PG_PORT:-}
if [ -z "$PORT" ]; then
  PORT=55432
  while port_taken "$PORT"; do
    PORT=$((PORT + 1))
    [ "$PORT" -lt 55532 ] || {
      say "no free port in 55432-55531 (set PG_PORT)"
      exit 1
    }
  done
elif port_taken "$PORT"; then
  say "another process listens on 127.0.0.1:$PORT (choose PG_PORT)"
  exit 1
fi

fresh_scratch_dir "$PG_DIR" "$MARKER" scripts/postgres/up.sh
mkdir -p "$PG_DIR"/{run,log}
chown -R "$OWNER" "$PG_DIR"
${AS_OWNER[@]+"${AS_OWNER[@]}"} test -w "$PG_DIR" -a -x "$PG_DIR" || {
  say "user $OWNER cannot use $PG_DIR (is a parent directory closed to it?)"
  exit 1
}

# ------------------------------------------------------------------------------------------ start
${AS_OWNER[@]+"${AS_OWNER[@]}"} "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust \
  --encoding=UTF8 --locale=C --no-sync >"$PG_DIR/log/initdb.log" 2>&1 ||
  { tail -n 20 "$PG_DIR/log/initdb.log" >&2; fail "initdb"; }
cat >>"$PG_DIR/data/postgresql.conf" <<EOF

# Added by scripts/postgres/up.sh: loopback only, throw-away data.
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$PG_DIR/run'
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
echo "$PORT" >"$PG_DIR/port"
say "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') cluster initialised in $PG_DIR"

start_server "$PORT" || fail "the server exited"
say "accepting connections on 127.0.0.1:$PORT (pid $(recorded_pid), user $OWNER)"
print_exports "$PORT"
