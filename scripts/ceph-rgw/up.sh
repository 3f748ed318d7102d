#!/usr/bin/env bash
# scripts/ceph-rgw/up.sh [SCRATCH_DIR]
#
# Starts a throw-away, single-host Ceph cluster with an S3 endpoint, for development and the e2e
# suite: one monitor, one bluestore OSD on a sparse file, one radosgw (beast) on loopback.  No
# systemd, no Docker, no cephx; every file lives in SCRATCH_DIR and every daemon runs in its own
# session (setsid) with its pid recorded in SCRATCH_DIR/pids.  Stop it with down.sh SCRATCH_DIR.
#
# Uses Debian 12's Ceph 16.2 ("pacific") packages and installs them when missing (as root):
#   apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl
#
# If the cluster recorded in SCRATCH_DIR is already running and answers, it is reused (the S3 user
# is re-ensured).  If its daemons died (kill -9, OOM, reboot) or only some of them run, what is left
# is stopped and the monitor, OSD and radosgw are started again on its data: buckets and objects
# survive (~3 s).  Only when that data is unusable (a part missing, or a daemon that dies on it) does
# it say so on stderr ("the cluster in DIR is unusable: <why>", the daemons' last log lines, then
# "REBUILDING: ... its buckets and objects are lost") and make a new, empty cluster there.  Refuses to
# start when another process already listens on the RGW or monitor port.  Checked by
# test/e2e/ceph-rgw-restart.test.ts (kill -9, then a corrupted monitor store); by hand:
#   eval "$(up.sh /tmp/x)"; aws --endpoint-url "$GATEWAY_BACKEND_URL" s3 mb s3://b (keys below)
#   kill -9 $(cat /tmp/x/pids/*); up.sh /tmp/x   # "restarting cluster ... on its data"; s3://b is there
#
# Environment (all optional):
#   GATEWAY_RGW_DIR      scratch directory when no argument is given   (/tmp/gateway-rgw)
#   RGW_HOST, RGW_PORT   S3 listen address                             (127.0.0.1, 7480)
#   CEPH_MON_PORT        monitor (msgr2) port                          (3300)
#   RGW_ACCESS_KEY       S3 access key of the backend user             (gateway-backend)
#   RGW_SECRET_KEY       its secret key                                (gateway-backend-secret)
#   RGW_UID              its RGW user id                               (gateway-backend)
#   RGW_REGION           region printed for GATEWAY_BACKEND_REGION     (us-east-1)
#   CEPH_OSD_SIZE        size of the sparse bluestore file             (32G)
#   CEPH_OSD_MEMORY      osd_memory_target                             (1G)
#   RGW_THREADS          rgw_thread_pool_size                          (16)
#   RGW_DEBUG            debug_rgw: 0 silent, 1 a line per request     (1)
#   CEPH_UP_TIMEOUT      seconds allowed for each wait                 (60)
#   CEPH_NO_INSTALL      1 = never run apt-get, fail instead           (0)
#
# stdout: the GATEWAY_BACKEND_* exports (also saved as SCRATCH_DIR/env), e.g.
#   eval "$(scripts/ceph-rgw/up.sh)"
# stderr: progress with timestamps; on failure the tails of the daemon logs (SCRATCH_DIR/log).
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$SCRIPT_DIR/common.sh"

RGW_HOST=${RGW_HOST:-127.0.0.1}
RGW_PORT=${RGW_PORT:-7480}
MON_PORT=${CEPH_MON_PORT:-3300}
ACCESS_KEY=${RGW_ACCESS_KEY:-gateway-backend}
SECRET_KEY=${RGW_SECRET_KEY:-gateway-backend-secret}
USER_ID=${RGW_UID:-gateway-backend}
REGION=${RGW_REGION:-us-east-1}
OSD_SIZE=${CEPH_OSD_SIZE:-32G}
OSD_MEMORY=${CEPH_OSD_MEMORY:-1G}
THREADS=${RGW_THREADS:-16}
DEBUG_RGW=${RGW_DEBUG:-1}
TIMEOUT=${CEPH_UP_TIMEOUT:-60}
ENDPOINT="http://$RGW_HOST:$RGW_PORT"
STARTED_AT=$(date +%s%N)

say() {
  local ms=$((($(date +%s%N) - STARTED_AT) / 1000000))
  printf 'rgw-up [%d.%03ds] %s\n' $((ms / 1000)) $((ms % 1000)) "$*" >&2
}

show_logs() {
  local f
  for f in "$RGW_DIR"/log/*; do
    [ -f "$f" ] || continue # log/previous: the run before a restart
    [ -s "$f" ] || continue
    printf -- '--- last lines of %s\n' "$f" >&2
    tail -n 12 "$f" >&2
  done
}

fail() {
  say "FAILED: $*"
  show_logs
  if [ "${CEPH_KEEP_ON_FAIL:-0}" != 1 ]; then
    GATEWAY_RGW_KEEP_DIR=1 "$SCRIPT_DIR/down.sh" "$RGW_DIR" >&2 || true
  fi
  exit 1
}

# ------------------------------------------------------------------------------------------ checks
ensure_packages() {
  local missing=() b
  for b in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool curl; do
    command -v "$b" >/dev/null || missing+=("$b")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "${CEPH_NO_INSTALL:-0}" = 1 ] || [ "$(id -u)" != 0 ]; then
    echo "rgw-up: missing ${missing[*]}; install with:" >&2
    echo "  apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl" >&2
    exit 2
  fi
  say "installing Ceph packages (missing: ${missing[*]})"
  export DEBIAN_FRONTEND=noninteractive
  local log
  log=$(mktemp /tmp/rgw-up-apt.XXXXXX.log)
  local install=(apt-get install -y -qq --no-install-recommends ceph-mon ceph-osd radosgw ceph-common curl)
  if ! "${install[@]}" >"$log" 2>&1; then
    # the package lists may simply be absent (fresh container): update once and retry
    if ! { apt-get update -qq && "${install[@]}"; } >>"$log" 2>&1; then
      tail -n 30 "$log" >&2
      exit 2
    fi
  fi
  rm -f "$log"
  say "Ceph $(ceph --version | awk '{print $3}') installed"
}

# ------------------------------------------------------------------------------------------ helpers
ceph_cli() { timeout "$TIMEOUT" ceph -c "$CONF" --connect-timeout 10 "$@"; }
rgw_admin() { timeout "$TIMEOUT" radosgw-admin -c "$CONF" -n client.admin "$@"; }

# spawn NAME COMMAND...: run COMMAND detached in a new session, its pid (the daemon's own, the
# wrapper execs it) written to pids/NAME before it starts.
spawn() {
  local name=$1
  shift
  # A restart finds the killed daemon's pid here: it must not pass for the new one.
  rm -f "$RGW_DIR/pids/$name"
  # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
  setsid sh -c 'echo $$ >"$0" && exec "$@"' "$RGW_DIR/pids/$name" "$@" \
    </dev/null >>"$RGW_DIR/log/$name.stdout" 2>&1 &
  local n=0
  until [ -s "$RGW_DIR/pids/$name" ]; do
    n=$((n + 1))
    [ $n -lt 250 ] || fail "$name did not start"
    sleep 0.02
  done
}

# wait_for DESCRIPTION DAEMON COMMAND...: retry COMMAND every 0.1 s; give up after TIMEOUT seconds or
# as soon as DAEMON has died, with the reason in PROBLEM.
wait_for() {
  local what=$1 daemon=$2
  shift 2
  local deadline=$(($(date +%s) + TIMEOUT))
  while ! "$@" >/dev/null 2>&1; do
    if ! recorded_pid_alive "$daemon"; then
      PROBLEM="$daemon died while waiting for $what$(last_words "$daemon")"
      return 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      PROBLEM="no $what after ${TIMEOUT}s"
      return 1
    fi
    sleep 0.1
  done
}

wait_until() { wait_for "$@" || fail "$PROBLEM"; }

# last_words DAEMON: ": <its last error line>", from what it wrote on stderr, if anything.
last_words() {
  local line
  line=$(grep -v '^[[:space:]]*$' "$RGW_DIR/log/$1.stdout" 2>/dev/null | tail -n 1 | cut -c1-300)
  [ -z "$line" ] || printf ': %s' "$line"
}

http_status() { curl -s -o /dev/null -m 2 -w '%{http_code}' "$@" 2>/dev/null || true; }

# RGW serves anonymous GET / (an empty bucket list) once it is up.
rgw_serves() {
  local code
  code=$(http_status "$ENDPOINT/")
  [ "$code" = 200 ] || [ "$code" = 403 ]
}

# A SigV4-signed ListBuckets as the backend user lists that user as the owner.
rgw_accepts_user() {
  curl -s -m 5 --aws-sigv4 "aws:amz:$REGION:s3" --user "$ACCESS_KEY:$SECRET_KEY" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$ENDPOINT/" 2>/dev/null |
    grep -qF "<ID>$USER_ID</ID>"
}

port_taken() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

osd_is_up() { ceph_cli osd dump --format=json 2>/dev/null | grep -q '"up":1'; }

# After a restart the map may still show the killed OSD as up: ask the new process itself, through
# its admin socket, whether it has booted into the cluster.
osd_is_active() {
  timeout 5 ceph -c "$CONF" daemon osd.0 status 2>/dev/null | grep -q '"state": "active"' && osd_is_up
}

ensure_user() {
  local info
  if info=$(rgw_admin user info --uid="$USER_ID" 2>/dev/null); then
    # Changing the user notifies every radosgw watching it, and the watch of a killed one holds
    # such a change for 30 s: leave a user that already has the key pair alone.
    printf '%s\n' "$info" | grep -A1 -F "\"access_key\": \"$ACCESS_KEY\"" |
      grep -F "\"secret_key\": \"$SECRET_KEY\"" >/dev/null && return 0
    rgw_admin key create --uid="$USER_ID" --key-type=s3 \
      --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null
  else
    rgw_admin user create --uid="$USER_ID" --display-name="gateway backend user" \
      --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" --max-buckets=100000 >/dev/null
  fi
}

print_exports() {
  cat >"$RGW_DIR/env" <<EOF
export GATEWAY_BACKEND_URL=$ENDPOINT
export GATEWAY_BACKEND_ACCESS_KEY_ID=$ACCESS_KEY
export GATEWAY_BACKEND_SECRET_ACCESS_KEY=$SECRET_KEY
export GATEWAY_BACKEND_REGION=$REGION
EOF
  cat "$RGW_DIR/env"
}

# ------------------------------------------------------------------------------------------ config
write_config() {
  local fsid=$1 osd_bytes=$2 osd_memory=$3
  cat >"$CONF" <<EOF
# Generated by scripts/ceph-rgw/up.sh: a loopback-only, single-OSD, throw-away cluster.
[global]
fsid = $fsid
mon_host = v2:127.0.0.1:$MON_PORT
public_addr = 127.0.0.1
public_network = 127.0.0.0/8
ms_bind_ipv4 = true
ms_bind_ipv6 = false
ms_bind_msgr1 = false
# No cephx.  Then every messenger mode must allow crc, or daemons insist on "secure" towards the
# monitor and radosgw fails with "get_initial_auth_request returned -13".
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
ms_mon_client_mode = crc
ms_mon_cluster_mode = crc
ms_mon_service_mode = crc
ms_client_mode = crc
ms_cluster_mode = crc
ms_service_mode = crc
mon_warn_on_insecure_global_id_reclaim_allowed = false
# Commit map changes every 50 ms instead of every second: radosgw-admin creates its pools in under
# a second instead of 10-25 s.
paxos_propose_interval = 0.05
paxos_min_wait = 0.01
# Everything inside the scratch directory.
keyring = $RGW_DIR/keyring
run_dir = $RGW_DIR/run
admin_socket = $RGW_DIR/run/\$name.asok
pid_file = $RGW_DIR/run/\$name.pid
crash_dir = $RGW_DIR/crash
log_file = $RGW_DIR/log/\$name.log
log_to_stderr = false
err_to_stderr = true
mon_cluster_log_to_file = false
mon_data = $RGW_DIR/\$name
osd_data = $RGW_DIR/\$name
rgw_data = $RGW_DIR/rgw
# One OSD: no replication, few placement groups, no warnings about either.
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
osd_crush_chooseleaf_type = 0
mon_allow_pool_size_one = true
mon_allow_pool_delete = true
mon_max_pg_per_osd = 1000
mon_warn_on_pool_no_redundancy = false
# Keep the monitor running on a fairly full disk (it stops at 5 % free by default).
mon_data_avail_warn = 2
mon_data_avail_crit = 1

[mon]
mon_initial_members = a

[osd]
osd_objectstore = bluestore
bluestore_block_path = $RGW_DIR/osd.0/block.sparse
bluestore_block_size = $osd_bytes
bluestore_block_create = true
bluestore_block_db_create = false
bluestore_block_wal_create = false
bluestore_fsck_on_mkfs = false
# (The path must not be osd_data/block: bluestore puts a symlink of that name to it.)
# Each device close waits for the aio poller (250 ms by default): several seconds of start-up.
bdev_aio_poll_ms = 20
# Bounded memory: the OSD's caches shrink to stay near this RSS.
osd_memory_target = $osd_memory

[client]
rgw_frontends = beast endpoint=$RGW_HOST:$RGW_PORT tcp_nodelay=1
rgw_thread_pool_size = $THREADS
rgw_dns_name = localhost
rgw_enable_usage_log = false
rgw_enable_ops_log = false
rgw_crypt_require_ssl = false
# Reclaim overwritten and deleted data within a minute instead of two hours.
rgw_gc_obj_min_wait = 30
rgw_gc_processor_period = 30
rgw_gc_processor_max_time = 30
debug_rgw = $DEBUG_RGW
EOF
}

# ------------------------------------------------------------------------------------------ phases
# run_monitor, run_osd, run_rgw: start a daemon on data that exists, wait until it serves; on
# failure return 1 with the reason in PROBLEM.
run_monitor() {
  spawn mon.a ceph-mon -c "$CONF" -i a -f
  wait_for "monitor quorum" mon.a ceph_cli mon stat || return 1
  say "monitor up on v2:127.0.0.1:$MON_PORT"
}

run_osd() {
  spawn osd.0 ceph-osd -c "$CONF" -i 0 -f
  wait_for "OSD up" osd.0 osd_is_active || return 1
  say "OSD up (bluestore, sparse $(numfmt --to=iec "$(stat -c %s "$RGW_DIR/osd.0/block.sparse")") file)"
}

run_rgw() {
  # radosgw-admin creates the realm/zone pools and the user before radosgw runs: no race between them.
  ensure_user || {
    PROBLEM="radosgw-admin could not create the S3 user '$USER_ID'"
    return 1
  }
  say "S3 user '$USER_ID' ready"
  spawn rgw radosgw -c "$CONF" -n client.rgw -f
  wait_for "answer from $ENDPOINT" rgw rgw_serves || return 1
  wait_for "signed request accepted as $ACCESS_KEY" rgw rgw_accepts_user || return 1
  say "radosgw answers on $ENDPOINT"
}

start_monitor() {
  local fsid=$1
  ceph-authtool --create-keyring "$RGW_DIR/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$RGW_DIR/keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$MON_PORT]" "$RGW_DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" -i a --mkfs --monmap "$RGW_DIR/monmap" --keyring "$RGW_DIR/keyring" \
    >"$RGW_DIR/log/mon-mkfs.stdout" 2>&1 || fail "ceph-mon --mkfs"
  run_monitor || fail "$PROBLEM"
}

start_osd() {
  local uuid id
  uuid=$(cat /proc/sys/kernel/random/uuid)
  id=$(ceph_cli osd new "$uuid") || fail "ceph osd new"
  [ "$id" = 0 ] || fail "expected OSD id 0, got '$id'"
  ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$uuid" >"$RGW_DIR/log/osd-mkfs.stdout" 2>&1 ||
    fail "ceph-osd --mkfs"
  run_osd || fail "$PROBLEM"
}

# ------------------------------------------------------------------------------------------ restart
# data_problem: prints why the cluster recorded in RGW_DIR cannot be restarted as it is (a part
# that its first start never wrote, or that was removed since); prints nothing when it looks whole.
data_problem() {
  local f
  [ -s "$CONF" ] || { echo "it has no ceph.conf (its first start stopped before writing one)" && return; }
  grep -q '^fsid = ' "$CONF" || { echo "its ceph.conf names no fsid" && return; }
  grep -q '^mon_host = v2:127\.0\.0\.1:[0-9]*$' "$CONF" || { echo "its ceph.conf names no monitor" && return; }
  [ -s "$RGW_DIR/keyring" ] || { echo "its keyring is missing" && return; }
  [ -d "$RGW_DIR/mon.a/store.db" ] || { echo "the monitor has no store (mon.a/store.db)" && return; }
  for f in mkfs_done ready whoami fsid block.sparse; do
    [ -s "$RGW_DIR/osd.0/$f" ] || { echo "the OSD is incomplete (no osd.0/$f)" && return; }
  done
}

# restart_cluster: the recorded cluster's daemons started again on its data, with the current
# settings (ports, threads, debug) but its own fsid and monitor address; 1 with PROBLEM on failure.
restart_cluster() {
  local fsid
  fsid=$(sed -n 's/^fsid = //p' "$CONF")
  # This attempt's logs apart from the last run's, so a daemon's last words are its own.
  rm -rf "$RGW_DIR/log/previous"
  mkdir -p "$RGW_DIR/log/previous" "$RGW_DIR/pids"
  find "$RGW_DIR/log" -maxdepth 1 -type f -exec mv -t "$RGW_DIR/log/previous" {} +
  write_config "$fsid" "$(stat -c %s "$RGW_DIR/osd.0/block.sparse")" "$(numfmt --from=iec "$OSD_MEMORY")"
  say "restarting cluster $fsid in $RGW_DIR on its data"
  run_monitor && run_osd && run_rgw
}

# ------------------------------------------------------------------------------------------ main
resolve_rgw_dir "${1:-}"
CONF="$RGW_DIR/ceph.conf"
ensure_packages

if all_recorded_alive mon.a osd.0 rgw && rgw_serves; then
  say "reusing the cluster already running in $RGW_DIR"
  ensure_user
  rgw_accepts_user || fail "RGW is up but rejects a request signed as $ACCESS_KEY"
  print_exports
  exit 0
fi

EXISTING=0
PROBLEM=
if [ -e "$RGW_DIR/$MARKER" ]; then
  EXISTING=1
  for name in mon.a osd.0 rgw; do
    if recorded_pid_alive "$name"; then
      say "the cluster in $RGW_DIR is only partly running: stopping what is left of it"
      GATEWAY_RGW_KEEP_DIR=1 "$SCRIPT_DIR/down.sh" "$RGW_DIR" >&2
      break
    fi
  done
  PROBLEM=$(data_problem)
  if [ -z "$PROBLEM" ]; then
    # The monitor's address is part of its data (the monitor map): a restart keeps it.
    recorded_mon_port=$(sed -n 's/^mon_host = v2:127\.0\.0\.1://p' "$CONF")
    if [ "$recorded_mon_port" != "$MON_PORT" ]; then
      say "keeping the monitor port $recorded_mon_port of the cluster in $RGW_DIR (CEPH_MON_PORT=$MON_PORT applies to a new cluster)"
      MON_PORT=$recorded_mon_port
    fi
  fi
fi
port_taken "$RGW_HOST" "$RGW_PORT" && {
  say "another process listens on $RGW_HOST:$RGW_PORT (choose RGW_PORT)"
  exit 1
}
port_taken 127.0.0.1 "$MON_PORT" && {
  say "another process listens on 127.0.0.1:$MON_PORT (choose CEPH_MON_PORT)"
  exit 1
}

if [ "$EXISTING" = 1 ]; then
  if [ -n "$PROBLEM" ]; then
    say "the cluster in $RGW_DIR is unusable: $PROBLEM"
  elif restart_cluster; then
    print_exports
    exit 0
  else
    say "the cluster in $RGW_DIR is unusable: $PROBLEM"
    show_logs
    GATEWAY_RGW_KEEP_DIR=1 "$SCRIPT_DIR/down.sh" "$RGW_DIR" >&2
  fi
  say "REBUILDING: a new, empty cluster replaces it in $RGW_DIR; its buckets and objects are lost"
fi

fresh_scratch_dir "$RGW_DIR" "$MARKER" scripts/ceph-rgw/up.sh
mkdir -p "$RGW_DIR"/{pids,run,log,crash,mon.a,osd.0,rgw}

FSID=$(cat /proc/sys/kernel/random/uuid)
write_config "$FSID" "$(numfmt --from=iec "$OSD_SIZE")" "$(numfmt --from=iec "$OSD_MEMORY")"
say "new cluster $FSID in $RGW_DIR"
start_monitor "$FSID"
start_osd
run_rgw || fail "$PROBLEM"
print_exports
