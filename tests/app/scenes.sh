#!/usr/bin/env bash
# Every shipped deck is valid: `meniscus check` passes on inputs/*.yaml and inputs/bench/*.yaml
# (mode check), and every CI-sized variant (inputs/*-ci.yaml: a few steps at a coarse resolution)
# runs to its end on one rank (mode run). Usage: scenes.sh MENISCUS SOURCE_DIR check|run
# Prints one line per deck and finally "N passed, M failed"; exits non-zero if any deck failed.
BIN=$1
SRC=$2
MODE=${3:-check}
MPIEXEC=""
LIMIT=180
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

if [ "$MODE" = check ]; then
  for deck in "$SRC"/inputs/*.yaml "$SRC"/inputs/bench/*.yaml; do
    name=$(basename "$deck" .yaml)
    run_cmd "check-$name" 1 check "$deck"
    if [ "$rc" = 0 ] && grep -q valid "$tmp/check-$name.out"; then pass "check $name"; else fail "check $name (rc $rc)"; show "$tmp/check-$name.err"; fi
  done
else
  for deck in "$SRC"/inputs/*-ci.yaml; do
    name=$(basename "$deck" .yaml)
    run_cmd "run-$name" 1 run "$deck" --set "output.directory=$tmp/$name"
    if [ "$rc" = 0 ] && [ -s "$tmp/$name/diagnostics.csv" ]; then pass "run $name"; else fail "run $name (rc $rc)"; show "$tmp/run-$name.err"; fi
  done
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
