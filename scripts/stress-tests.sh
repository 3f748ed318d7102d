#!/usr/bin/env bash
# scripts/stress-tests.sh [RUNS] [-- VITEST_ARGS...]
#
# The flaky-test check of the suite: runs `vitest run` (the default configuration, every unit and
# integration test; VITEST_ARGS narrow it to some files) RUNS times in a row (default 10), while a
# CPU-heavy job runs beside it on the same cores, as a loaded CI machine or a colleague's build
# would. A test that fails in any run is a defect to fix, not to retry: the suite waits on events
# and bounded polling, never on the wall clock (test/support/eventually.ts).
#
#   STRESS_CPU_JOBS   busy processes beside the suite (default 1; each takes one core)
#   STRESS_LOG_DIR    where each run's whole output goes (default: a new /tmp/stress-tests.* directory)
#
# Prints one line per run (result, duration, the failing tests) and a summary; exits 1 when any run
# failed. The busy processes are this script's own children and are ended with it.
set -euo pipefail

cd "$(dirname "$0")/.."
runs=${1:-10}
shift || true
if [[ "${1:-}" == "--" ]]; then shift; fi
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/stress-tests.sh [RUNS] [-- VITEST_ARGS...]" >&2
  exit 2
fi
cpu_jobs=${STRESS_CPU_JOBS:-1}
log_dir=${STRESS_LOG_DIR:-$(mktemp -d /tmp/stress-tests.XXXXXX)}
mkdir -p "$log_dir"
# The project's pinned Node (the `node` devDependency), never the system's.
export PATH="$PWD/node_modules/.bin:$PATH"
export NO_COLOR=1 FORCE_COLOR=0

load_pids=()
stop_load() {
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_load EXIT
trap 'exit 130' INT TERM
for ((job = 0; job < cpu_jobs; job += 1)); do
  # Hashing an endless stream: one core kept busy, no memory or disk to speak of.
  sha256sum /dev/zero >/dev/null &
  load_pids+=("$!")
done

echo "stress: $runs run(s) of vitest run $* beside $cpu_jobs busy process(es) on $(nproc) core(s); logs in $log_dir"
failed_runs=0
for ((run = 1; run <= runs; run += 1)); do
  log="$log_dir/run-$run.log"
  started=$SECONDS
  if vitest run "$@" >"$log" 2>&1; then result=passed; else result=FAILED; failed_runs=$((failed_runs + 1)); fi
  totals=$(grep -E '^ +Tests +[0-9]' "$log" | tail -n 1 | sed -E 's/^ +Tests +//' || true)
  echo "run $run/$runs: $result in $((SECONDS - started)) s (${totals:-no totals})"
  if [[ $result == FAILED ]]; then
    grep -E '^ *(FAIL|×) ' "$log" | sort -u | sed 's/^/    /' || echo "    (no failing test named; see $log)"
  fi
done
echo "stress: $((runs - failed_runs)) of $runs run(s) passed"
[[ $failed_runs -eq 0 ]]
