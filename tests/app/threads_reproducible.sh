#!/usr/bin/env bash
# Two runs of one binary at two Kokkos threads give the same particles bit for bit. The heated
# Marangoni droplet (inputs/mpm-marangoni-droplet-2d-ci.yaml: explicit MPM, surface samples, the
# conservative heat transfer, a temperature-dependent surface tension) sums over each parent's
# surface samples; where those sums were atomic adds, two runs of the same binary differed in
# temperature by step 71 of this run (0.03 s) and in position after. Runs to 0.06 s (143 steps, about
# 4 s each) and compares the temperature, position and velocity of the last particle file exactly
# (h5diff).
# Usage: threads_reproducible.sh MENISCUS SOURCE_DIR [RUNS]. Prints "N passed, M failed".
BIN=$1
SRC=$2
RUNS=${3:-2}
MPIEXEC=""
LIMIT=300
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meniscus-threads.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

deck=$SRC/inputs/mpm-marangoni-droplet-2d-ci.yaml
if ! command -v h5diff >/dev/null 2>&1; then
  fail "h5diff not found (hdf5-tools)"
else
  for k in $(seq 1 "$RUNS"); do
    run_cmd "run$k" 1 run "$deck" --threads 2 --end-time 0.06 --quiet --set "output.directory=$tmp/run$k" \
      --set output.every_time=0.03
    if [ "$rc" != 0 ]; then fail "run $k at 2 threads (rc $rc)"; show "$tmp/run$k.err"; fi
  done
  last=$(ls "$tmp/run1"/particles_*.h5 2>/dev/null | tail -n 1)
  if [ -z "$last" ]; then
    fail "no particle file written"
  else
    file=$(basename "$last")
    for k in $(seq 2 "$RUNS"); do
      for ds in temperature position velocity; do
        if h5diff "$tmp/run1/$file" "$tmp/run$k/$file" "/$ds" "/$ds" >"$tmp/diff.out" 2>&1; then
          pass "run $k: /$ds of $file identical to run 1"
        else
          fail "run $k: /$ds of $file differs from run 1"; show "$tmp/diff.out"
        fi
      done
    done
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
