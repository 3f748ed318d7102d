# shellcheck shell=bash
# Shared by up.sh and down.sh (sourced, not run).
# shellcheck source=../lib/scratch.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/scratch.sh"

# Name of the file that marks a directory as one of ours, so down.sh never deletes anything else.
# shellcheck disable=SC2034 # used by the scripts that source this file
MARKER=.gateway-ceph-rgw

# resolve_rgw_dir [DIR]: sets RGW_DIR to an absolute path (argument, else $GATEWAY_RGW_DIR, else
# /tmp/gateway-rgw) and refuses obviously dangerous values.
resolve_rgw_dir() { resolve_scratch_dir RGW_DIR "${1:-${GATEWAY_RGW_DIR:-/tmp/gateway-rgw}}"; }

# recorded_pid NAME: the pid up.sh recorded for daemon NAME, if any.
recorded_pid() { cat "$RGW_DIR/pids/$1" 2>/dev/null || true; }

# pid_is_ours PID: the process exists and its command line names our ceph.conf.  Guards against a
# recycled pid; zombies (empty command line) count as gone.
pid_is_ours() { pid_runs_with "$1" "-c $RGW_DIR/ceph.conf "; }

recorded_pid_alive() { pid_is_ours "$(recorded_pid "$1")"; }

all_recorded_alive() {
  local name
  for name in "$@"; do recorded_pid_alive "$name" || return 1; done
}
