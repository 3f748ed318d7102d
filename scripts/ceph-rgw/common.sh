# shellcheck shell=bash
# Shared by up.sh and down.sh (sourced, not run).

# Name of the file that marks a directory as one of ours, so down.sh never deletes anything else.
# shellcheck disable=SC2034 # used by the scripts that source this file
MARKER=.gateway-ceph-rgw

# resolve_rgw_dir [DIR]: sets RGW_DIR to an absolute path (argument, else $GATEWAY_RGW_DIR, else
# /tmp/gateway-rgw) and refuses obviously dangerous values.
resolve_rgw_dir() {
  RGW_DIR=${1:-${GATEWAY_RGW_DIR:-/tmp/gateway-rgw}}
  case "$RGW_DIR" in /*) ;; *) RGW_DIR="$PWD/$RGW_DIR" ;; esac
  while [ "${RGW_DIR%/}" != "$RGW_DIR" ]; do RGW_DIR=${RGW_DIR%/}; done
  case "$RGW_DIR" in
    "" | /tmp | /root | /home | /home/* | /usr | /usr/* | /etc | /etc/* | /var | /var/lib | /var/tmp | "$HOME")
      echo "refusing scratch directory '${RGW_DIR:-/}'" >&2
      exit 2
      ;;
  esac
  [ "$(printf '%s' "$RGW_DIR" | tr -cd / | wc -c)" -ge 2 ] || case "$RGW_DIR" in
    /tmp/* | /dev/shm/*) ;;
    *)
      echo "refusing top-level scratch directory '$RGW_DIR'" >&2
      exit 2
      ;;
  esac
}

# recorded_pid NAME: the pid up.sh recorded for daemon NAME, if any.
recorded_pid() { cat "$RGW_DIR/pids/$1" 2>/dev/null || true; }

# pid_is_ours PID: the process exists and its command line names our ceph.conf.  Guards against a
# recycled pid; zombies (empty command line) count as gone.
pid_is_ours() {
  local pid=$1
  case "$pid" in '' | *[!0-9]*) return 1 ;; esac
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-c $RGW_DIR/ceph.conf "
}

recorded_pid_alive() { pid_is_ours "$(recorded_pid "$1")"; }

all_recorded_alive() {
  local name
  for name in "$@"; do recorded_pid_alive "$name" || return 1; done
}
