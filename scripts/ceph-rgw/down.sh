#!/usr/bin/env bash
# scripts/ceph-rgw/down.sh [SCRATCH_DIR]
#
# Stops the daemons that up.sh started in SCRATCH_DIR (argument, else $GATEWAY_RGW_DIR, else
# /tmp/gateway-rgw) and removes the directory.  Only the pids recorded in SCRATCH_DIR/pids are
# signalled, and only while that pid still runs a command naming SCRATCH_DIR/ceph.conf; nothing is
# ever killed by name.  Order: radosgw, then the OSD, then the monitor; SIGTERM, SIGKILL after 15 s.
# The directory is removed only if up.sh created it (it holds up.sh's marker file).
#
#   GATEWAY_RGW_KEEP_DIR=1   stop the daemons but keep the directory (logs, data)
set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$SCRIPT_DIR/common.sh"
resolve_rgw_dir "${1:-}"

say() { echo "rgw-down: $*" >&2; }

# stop NAME...: SIGTERM each recorded daemon that is still ours, wait for all of them to exit.
stop() {
  local name pid waiting=() left
  for name in "$@"; do
    pid=$(recorded_pid "$name")
    if pid_is_ours "$pid" && kill -TERM "$pid" 2>/dev/null; then
      say "stopping $name (pid $pid)"
      waiting+=("$pid")
    fi
    rm -f "$RGW_DIR/pids/$name"
  done
  for _ in $(seq 150); do
    left=()
    for pid in ${waiting[@]+"${waiting[@]}"}; do pid_is_ours "$pid" && left+=("$pid"); done
    [ ${#left[@]} -eq 0 ] && return 0
    waiting=("${left[@]}")
    sleep 0.1
  done
  for pid in "${waiting[@]}"; do
    pid_is_ours "$pid" && say "pid $pid ignored SIGTERM: SIGKILL" && kill -KILL "$pid" 2>/dev/null
  done
  sleep 0.2
}

if [ -d "$RGW_DIR/pids" ]; then
  stop rgw
  stop osd.0
  stop mon.a
  for f in "$RGW_DIR"/pids/*; do # anything else recorded by a future up.sh
    [ -e "$f" ] && stop "$(basename "$f")"
  done
else
  say "no daemons recorded in $RGW_DIR"
fi

if [ "${GATEWAY_RGW_KEEP_DIR:-0}" != 1 ] && [ -d "$RGW_DIR" ]; then
  if [ -e "$RGW_DIR/$MARKER" ]; then
    rm -rf "$RGW_DIR"
    say "removed $RGW_DIR"
  else
    say "$RGW_DIR was not made by up.sh: left in place"
  fi
fi
exit 0
