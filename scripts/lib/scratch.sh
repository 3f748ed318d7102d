# shellcheck shell=bash
# Shared by scripts/ceph-rgw and scripts/postgres (sourced, not run): a scratch directory that is
# safe to fill and delete, and a pid check that survives pid reuse.

# resolve_scratch_dir VAR DIR: sets the variable named VAR to DIR made absolute, without trailing
# slashes; exits 2 for anything that cannot be a throw-away directory (/, system and home folders,
# a top-level folder outside /tmp and /dev/shm).
resolve_scratch_dir() {
  local dir=$2
  case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
  while [ "${dir%/}" != "$dir" ]; do dir=${dir%/}; done
  case "$dir" in
    "" | /tmp | /root | /home | /home/* | /usr | /usr/* | /etc | /etc/* | /var | /var/lib | /var/lib/* | /var/tmp | "$HOME")
      echo "refusing scratch directory '${dir:-/}'" >&2
      exit 2
      ;;
  esac
  [ "$(printf '%s' "$dir" | tr -cd / | wc -c)" -ge 2 ] || case "$dir" in
    /tmp/* | /dev/shm/*) ;;
    *)
      echo "refusing top-level scratch directory '$dir'" >&2
      exit 2
      ;;
  esac
  printf -v "$1" '%s' "$dir"
}

# pid_runs_with PID TEXT: the process exists and its command line holds TEXT. Guards against a
# recycled pid; zombies (empty command line) count as gone.
pid_runs_with() {
  local pid=$1
  case "$pid" in '' | *[!0-9]*) return 1 ;; esac
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$2"
}

# fresh_scratch_dir DIR MARKER WHO: empties DIR for a new run when it is one of ours (holds MARKER)
# or empty, creates it, and marks it as made by WHO; exits 1 for a directory someone else made.
fresh_scratch_dir() {
  local dir=$1 marker=$2 who=$3
  if [ -e "$dir" ]; then
    [ -e "$dir/$marker" ] || [ -z "$(ls -A "$dir")" ] || {
      echo "$dir exists and was not made by $who: refusing to use it" >&2
      exit 1
    }
    rm -rf "$dir"
  fi
  mkdir -p "$dir"
  echo "scratch directory of $who; remove with down.sh" >"$dir/$marker"
}
