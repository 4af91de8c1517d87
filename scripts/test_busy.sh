#!/usr/bin/env bash
# The whole suite on a busy machine: a fresh clone of this checkout's HEAD, N CPU burners
# (`python3 -c 'while True: pass'`, default 6) beside it, then `make test` twice in a row in
# that clone (the first run does all the set-up). Prints each run's exit status and wall time;
# exits non-zero when either run failed. The tests wait on events and are bounded by counts,
# so they must pass however slow the machine is (issue 26).
#   scripts/test_busy.sh [burners]      # logs: <clone>/busy-run1.log, busy-run2.log
set -uo pipefail
burners=${1:-6}
clone=$(mktemp -d "${TMPDIR:-/tmp}/tienlen-busy.XXXX")
git clone -q "$(git -C "$(dirname "${BASH_SOURCE[0]}")/.." rev-parse --show-toplevel)" "$clone"
cd "$clone" || exit 2
echo "clone $clone at $(git rev-parse --short HEAD), $burners burners"
pids=()
for _ in $(seq "$burners"); do python3 -c 'while True: pass' & pids+=($!); done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
failed=0
for run in 1 2; do
  start=$(date +%s)
  make test > "busy-run$run.log" 2>&1
  rc=$?
  echo "run $run: exit $rc, wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
  [ "$rc" -eq 0 ] || failed=1
done
exit "$failed"
