#!/usr/bin/env bash
# scripts/postgres/down.sh [SCRATCH_DIR]
#
# Stops the PostgreSQL server that up.sh started in SCRATCH_DIR (argument, else $GATEWAY_PG_DIR,
# else /tmp/gateway-postgres) and removes the directory.  Only the pid recorded in SCRATCH_DIR/pid
# is signalled, and only while it still runs a command naming SCRATCH_DIR/data; nothing is ever
# killed by name.  SIGINT (fast shutdown: open sessions are ended), SIGQUIT after 10 s, SIGKILL
# after 5 more.  The directory is removed only if up.sh created it (it holds up.sh's marker file).
#
#   GATEWAY_PG_KEEP_DIR=1   stop the server but keep the directory (data, log)
set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$SCRIPT_DIR/common.sh"
resolve_pg_dir "${1:-}"

say() { echo "pg-down: $*" >&2; }

# wait_gone PID TENTHS: true once PID is no longer ours, false if it still is after TENTHS * 0.1 s.
wait_gone() {
  local n
  for ((n = 0; n < $2; n++)); do
    pid_is_ours "$1" || return 0
    sleep 0.1
  done
  ! pid_is_ours "$1"
}

pid=$(recorded_pid)
if pid_is_ours "$pid"; then
  say "stopping PostgreSQL (pid $pid)"
  kill -INT "$pid" 2>/dev/null
  if ! wait_gone "$pid" 100; then
    say "pid $pid still running after 10 s: SIGQUIT"
    kill -QUIT "$pid" 2>/dev/null
    if ! wait_gone "$pid" 50; then
      say "pid $pid ignored SIGQUIT: SIGKILL"
      kill -KILL "$pid" 2>/dev/null
      sleep 0.2
    fi
  fi
elif [ -n "$pid" ]; then
  say "recorded pid $pid is not (or no longer) our server"
else
  say "no server recorded in $PG_DIR"
fi
rm -f "$PG_DIR/pid"

if [ "${GATEWAY_PG_KEEP_DIR:-0}" != 1 ] && [ -d "$PG_DIR" ]; then
  if [ -e "$PG_DIR/$MARKER" ]; then
    rm -rf "$PG_DIR"
    say "removed $PG_DIR"
  else
    say "$PG_DIR was not made by up.sh: left in place"
  fi
fi
exit 0
