# shellcheck shell=bash
# Shared by up.sh and down.sh (sourced, not run).

# Name of the file that marks a directory as one of ours, so down.sh never deletes anything else.
# shellcheck disable=SC2034 # used by the scripts that source this file
MARKER=.gateway-postgres

# resolve_pg_dir [DIR]: sets PG_DIR to an absolute path (argument, else $GATEWAY_PG_DIR, else
# /tmp/gateway-postgres) and refuses obviously dangerous values.
resolve_pg_dir() {
  PG_DIR=${1:-${GATEWAY_PG_DIR:-/tmp/gateway-postgres}}
  case "$PG_DIR" in /*) ;; *) PG_DIR="$PWD/$PG_DIR" ;; esac
  while [ "${PG_DIR%/}" != "$PG_DIR" ]; do PG_DIR=${PG_DIR%/}; done
  case "$PG_DIR" in
    "" | /tmp | /root | /home | /home/* | /usr | /usr/* | /etc | /etc/* | /var | /var/lib | /var/lib/postgresql | /var/lib/postgresql/* | /var/tmp | "$HOME")
      echo "refusing scratch directory '${PG_DIR:-/}'" >&2
      exit 2
      ;;
  esac
  [ "$(printf '%s' "$PG_DIR" | tr -cd / | wc -c)" -ge 2 ] || case "$PG_DIR" in
    /tmp/* | /dev/shm/*) ;;
    *)
      echo "refusing top-level scratch directory '$PG_DIR'" >&2
      exit 2
      ;;
  esac
}

# recorded_pid: the pid up.sh recorded for the server, if any.
recorded_pid() { cat "$PG_DIR/pid" 2>/dev/null || true; }

# pid_is_ours PID: the process exists and its command line names our data directory.  Guards
# against a recycled pid; zombies (empty command line) count as gone.
pid_is_ours() {
  local pid=$1
  case "$pid" in '' | *[!0-9]*) return 1 ;; esac
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-D $PG_DIR/data "
}

recorded_pid_alive() { pid_is_ours "$(recorded_pid)"; }
