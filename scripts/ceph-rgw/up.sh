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
# is re-ensured); a half-dead one is stopped and rebuilt.  Refuses to start when another process
# already listens on the RGW or monitor port.
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

fail() {
  say "FAILED: $*"
  local f
  for f in "$RGW_DIR"/log/*; do
    [ -s "$f" ] || continue
    printf -- '--- last lines of %s\n' "$f" >&2
    tail -n 12 "$f" >&2
  done
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

# until DESCRIPTION DAEMON COMMAND...: retry COMMAND every 0.1 s; give up after TIMEOUT seconds or
# as soon as DAEMON has died.
wait_until() {
  local what=$1 daemon=$2
  shift 2
  local deadline=$(($(date +%s) + TIMEOUT))
  while ! "$@" >/dev/null 2>&1; do
    recorded_pid_alive "$daemon" || fail "$daemon died while waiting for $what"
    [ "$(date +%s)" -lt "$deadline" ] || fail "no $what after ${TIMEOUT}s"
    sleep 0.1
  done
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

ensure_user() {
  if rgw_admin user info --uid="$USER_ID" >/dev/null 2>&1; then
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
start_monitor() {
  local fsid=$1
  ceph-authtool --create-keyring "$RGW_DIR/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$RGW_DIR/keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$MON_PORT]" "$RGW_DIR/monmap" >/dev/null
  ceph-mon -c "$CONF" -i a --mkfs --monmap "$RGW_DIR/monmap" --keyring "$RGW_DIR/keyring" \
    >"$RGW_DIR/log/mon-mkfs.stdout" 2>&1 || fail "ceph-mon --mkfs"
  spawn mon.a ceph-mon -c "$CONF" -i a -f
  wait_until "monitor quorum" mon.a ceph_cli mon stat
  say "monitor up on v2:127.0.0.1:$MON_PORT"
}

start_osd() {
  local uuid id
  uuid=$(cat /proc/sys/kernel/random/uuid)
  id=$(ceph_cli osd new "$uuid") || fail "ceph osd new"
  [ "$id" = 0 ] || fail "expected OSD id 0, got '$id'"
  ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$uuid" >"$RGW_DIR/log/osd-mkfs.stdout" 2>&1 ||
    fail "ceph-osd --mkfs"
  spawn osd.0 ceph-osd -c "$CONF" -i 0 -f
  wait_until "OSD up" osd.0 osd_is_up
  say "OSD up (bluestore, sparse $(numfmt --to=iec "$(stat -c %s "$RGW_DIR/osd.0/block.sparse")") file)"
}

start_rgw() {
  # radosgw-admin creates the realm/zone pools and the user before radosgw runs: no race between them.
  ensure_user || fail "radosgw-admin user create"
  say "S3 user '$USER_ID' ready"
  spawn rgw radosgw -c "$CONF" -n client.rgw -f
  wait_until "answer from $ENDPOINT" rgw rgw_serves
  wait_until "signed request accepted as $ACCESS_KEY" rgw rgw_accepts_user
  say "radosgw answers on $ENDPOINT"
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
if [ -d "$RGW_DIR/pids" ]; then
  say "partial cluster in $RGW_DIR: stopping it and starting afresh"
  GATEWAY_RGW_KEEP_DIR=1 "$SCRIPT_DIR/down.sh" "$RGW_DIR" >&2
fi
port_taken "$RGW_HOST" "$RGW_PORT" && {
  say "another process listens on $RGW_HOST:$RGW_PORT (choose RGW_PORT)"
  exit 1
}
port_taken 127.0.0.1 "$MON_PORT" && {
  say "another process listens on 127.0.0.1:$MON_PORT (choose CEPH_MON_PORT)"
  exit 1
}

fresh_scratch_dir "$RGW_DIR" "$MARKER" scripts/ceph-rgw/up.sh
mkdir -p "$RGW_DIR"/{pids,run,log,crash,mon.a,osd.0,rgw}

FSID=$(cat /proc/sys/kernel/random/uuid)
write_config "$FSID" "$(numfmt --from=iec "$OSD_SIZE")" "$(numfmt --from=iec "$OSD_MEMORY")"
say "new cluster $FSID in $RGW_DIR"
start_monitor "$FSID"
start_osd
start_rgw
print_exports
