# shellcheck shell=bash
# Shared by up.sh and down.sh (sourced, not run).
# shellcheck source=../lib/scratch.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/scratch.sh"

# Name of the file that marks a directory as one of ours, so down.sh never deletes anything else.
# shellcheck disable=SC2034 # used by the scripts that source this file
MARKER=.gateway-postgres

# resolve_pg_dir [DIR]: sets PG_DIR to an absolute path (argument, else $GATEWAY_PG_DIR, else
# /tmp/gateway-postgres) and refuses obviously dangerous values.
resolve_pg_dir() { resolve_scratch_dir PG_DIR "${1:-${GATEWAY_PG_DIR:-/tmp/gateway-postgres}}"; }

# recorded_pid: the pid up.sh recorded for the server, if any.
recorded_pid() { cat "$PG_DIR/pid" 2>/dev/null || true; }

# pid_is_ours PID: the process exists and its command line names our data directory.  Guards
# against a recycled pid; zombies (empty command line) count as gone.
pid_is_ours() { pid_runs_with "$1" "-D $PG_DIR/data "; }

recorded_pid_alive() { pid_is_ours "$(recorded_pid)"; }
