#!/usr/bin/env bash
# scripts/e2e/install-clients.sh [GROUP...]
#
# Installs, from Debian 12's own packages, what the end-to-end suite needs, and only what is missing:
#   ceph     ceph-mon ceph-osd radosgw ceph-common curl   (a real Ceph RGW, see scripts/ceph-rgw/up.sh)
#   clients  awscli python3-boto3 s3cmd rclone curl        (real S3 clients driven by the tests)
#   browser  chromium                                      (the browser upload test, via playwright-core)
#   postgres postgresql                                    (a throw-away server, see scripts/postgres/up.sh)
#   bench    wrk                                           (the load generator of `npm run bench`)
# GROUPs default to the first four (the suites' needs; `bench` only when named).  Safe to run repeatedly: when everything is installed it only prints
# versions.  Needs root (or sudo) and apt; prints how long each step took.
#
# Note: a pyenv/pip `aws` (v1) and a pyenv `python3` (with its own boto3) may come first on PATH.
# The tests call /usr/bin/aws (Debian's v2, always with --endpoint-url: it ignores
# AWS_ENDPOINT_URL) and /usr/bin/python3 (Debian's boto3).  apt's output goes to a log file that is
# shown only if the install fails.
set -euo pipefail

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(ceph clients browser postgres)

packages_of() {
  case "$1" in
    ceph) echo ceph-mon ceph-osd radosgw ceph-common curl ;;
    clients) echo awscli python3-boto3 s3cmd rclone curl ;;
    browser) echo chromium ;;
    postgres) echo postgresql ;;
    bench) echo wrk ;;
    *) echo "unknown group '$1' (expected ceph, clients, browser, postgres or bench)" >&2; return 2 ;;
  esac
}

SUDO=
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "install-clients: needs root or sudo" >&2; exit 2; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
T_START=$(now_ms)
timings=()
step() { # LABEL START_MS
  local ms=$(( $(now_ms) - $2 ))
  timings+=("$(printf '%-28s %6d.%01d s' "$1" $((ms / 1000)) $((ms % 1000 / 100)))")
}

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]; }

LOG=$(mktemp /tmp/install-clients.XXXXXX.log)
updated=0
for group in "${groups[@]}"; do
  # shellcheck disable=SC2207
  wanted=($(packages_of "$group"))
  missing=()
  for p in "${wanted[@]}"; do installed "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "install-clients: $group: already installed" >&2
    continue
  fi
  if [ "$updated" = 0 ]; then
    t=$(now_ms)
    $SUDO apt-get update -qq >"$LOG" 2>&1 || { cat "$LOG" >&2; exit 1; }
    step "apt-get update" "$t"
    updated=1
  fi
  echo "install-clients: $group: installing ${missing[*]}" >&2
  t=$(now_ms)
  if ! $SUDO apt-get install -y -qq --no-install-recommends -o=Dpkg::Use-Pty=0 "${missing[@]}" \
    >"$LOG" 2>&1; then
    tail -n 40 "$LOG" >&2
    echo "install-clients: apt-get install failed (full log: $LOG)" >&2
    exit 1
  fi
  step "install $group" "$t"
done

echo "versions:"
for group in "${groups[@]}"; do
  case "$group" in
    ceph) echo "  ceph      $(ceph --version 2>/dev/null | awk '{print $3, $5}')" ;;
    clients)
      echo "  aws       $(/usr/bin/aws --version 2>&1 | awk '{print $1}') (/usr/bin/aws)"
      echo "  boto3     $(/usr/bin/python3 -c 'import boto3; print(boto3.__version__)' 2>&1) (/usr/bin/python3)"
      echo "  s3cmd     $(/usr/bin/s3cmd --version 2>&1 | awk '{print $3}')"
      echo "  rclone    $(/usr/bin/rclone version 2>/dev/null | awk 'NR==1{print $2}')"
      ;;
    browser) echo "  chromium  $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}')" ;;
    bench) echo "  wrk       $(wrk -v 2>&1 | awk 'NR==1{print $2}')" ;;
    postgres)
      server=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/postgres' 2>/dev/null | sort -V | tail -n 1)
      echo "  postgres  $("${server:-false}" --version 2>/dev/null | awk '{print $3}') (${server:-not found})"
      ;;
  esac
done
step "total" "$T_START"
rm -f "$LOG"
echo "timings:"
printf '  %s\n' "${timings[@]}"
