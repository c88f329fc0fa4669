#!/usr/bin/env bash
# Whole-program checks of checkpoints and restarts:
#   errors  a truncated, foreign, non-HDF5 or missing restart file (and `latest` in an empty
#           folder) exits with code 2 and one "error: FILE: ..." line, also under mpirun -n 2;
#   kill    a run killed with SIGKILL while it writes a checkpoint (every step, a larger scene)
#           leaves the previous checkpoint loadable: `--restart latest` continues from it and the
#           half-written .tmp is ignored (and cleared);
#   signal  SIGUSR1 makes a running job (mpirun -n 2) write a checkpoint and exit 0, and a restart
#           from it completes the run with continuous diagnostics; SIGTERM does the same with 143.
#
# usage: restart.sh MENISCUS SOURCE_DIR [MPIEXEC] [GROUP]   (GROUP: errors, kill, signal, all)
# Prints one line per check and finally "N passed, M failed"; exits non-zero if any check failed.
set -u

BIN=${1:?usage: restart.sh MENISCUS SOURCE_DIR [MPIEXEC] [GROUP]}
SRC=${2:?usage: restart.sh MENISCUS SOURCE_DIR [MPIEXEC] [GROUP]}
MPIEXEC=${3:-}
GROUP=${4:-all}
LIMIT=120  # seconds per command: a hang fails the check instead of blocking the suite

[ -f "$SRC/scripts/mpi-env.sh" ] && . "$SRC/scripts/mpi-env.sh"
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

DECK=$SRC/inputs/dam-break-2d.yaml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meniscus-restart.XXXXXX")
watchdog=""
# Stops the watchdog of the last background run (its sleep first, then the subshell itself).
disarm() {
  [ -n "$watchdog" ] || return 0
  pkill -P "$watchdog" 2>/dev/null
  kill "$watchdog" 2>/dev/null
  watchdog=""
}
cleanup() {
  disarm
  rm -rf "$tmp"
}
trap cleanup EXIT


# launch NP ARGS...: starts meniscus in the background (NP = 1: directly, else under mpirun) with
# output in $tmp/bg.out/.err; sets pid (the process to signal) and arms a watchdog that kills it
# after LIMIT seconds.
launch() {
  local np=$1
  shift
  if [ "$np" = 1 ]; then
    "$BIN" "$@" >"$tmp/bg.out" 2>"$tmp/bg.err" &
  else
    "$MPIEXEC" -n "$np" --oversubscribe "$BIN" "$@" >"$tmp/bg.out" 2>"$tmp/bg.err" &
  fi
  pid=$!
  # Detached from stdout, so that a leftover sleep never holds ctest's pipe open.
  (sleep "$LIMIT" && kill -9 "$pid") >/dev/null 2>&1 &
  watchdog=$!
}

# finish: waits for the background run (quietly: bash would report a killed job); sets rc.
finish() {
  { wait "$pid"; } 2>/dev/null
  rc=$?
  disarm
}


# wait_for SECONDS COMMAND...: polls COMMAND every 0.05 s until it succeeds; false after SECONDS.
wait_for() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.05
  done
}

# Step of the newest complete checkpoint in a folder (empty if none).
newest_step() {
  ls "$1"/checkpoints/chk_*.h5 2>/dev/null | sed -e 's/.*chk_0*\([0-9][0-9]*\)\.h5$/\1/' | sort -n | tail -n 1
}
rows_at_least() { [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; }
has_tmp() { compgen -G "$1/checkpoints/*.tmp" >/dev/null; }
has_checkpoint() { compgen -G "$1/checkpoints/chk_*.h5" >/dev/null; }

# Steps of diagnostics.csv rows increase strictly (no repeated or missing restart rows).
steps_increase() { awk -F, 'NR > 2 && $1 + 0 <= prev + 0 { exit 1 } NR > 1 { prev = $1 }' "$1"; }

# --------------------------------------------------------------------------------------------------
# expect_error LABEL NP FILE WORD ARGS...: exit 2 and exactly one error line naming FILE with WORD.
expect_error() {
  local label=$1 np=$2 file=$3 word=$4
  shift 4
  local what="$label (np=$np)"
  if [ "$np" != 1 ] && ! have_mpi; then
    echo "skip  $what: no mpiexec"
    return
  fi
  run_cmd "$label-$np" "$np" "$@"
  local err=$tmp/$label-$np.err problems=""
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    problems="timed out after ${LIMIT}s"
  else
    [ "$rc" = 2 ] || problems="exit code $rc, expected 2; "
    local count line
    count=$(grep -c '^error: ' "$err")
    line=$(grep -m1 '^error: ' "$err")
    [ "$count" = 1 ] || problems+="$count error lines, expected 1; "
    [[ "$line" == *"$file"* ]] || problems+="error line lacks '$file'; "
    [[ "$line" == *"$word"* ]] || problems+="error line lacks '$word'; "
    ! grep -q -E 'Segmentation fault|Aborted|terminate called|HDF5-DIAG' "$err" || problems+="crash or HDF5 trace on stderr; "
  fi
  if [ -z "$problems" ]; then
    pass "$what: $(grep -m1 '^error: ' "$err" | cut -c1-140)"
  else
    fail "$what: $problems"
    show "$err"
  fi
}

error_checks() {
  local out=$tmp/errors
  run_cmd setup 1 run "$DECK" --output "$out" --steps 2 --quiet --set checkpoint.every=2 --set output.every=2
  local good=$out/checkpoints/chk_000002.h5
  if [ "$rc" != 0 ] || [ ! -f "$good" ]; then
    fail "setup: a 2-step run did not write $good (exit $rc)"
    show "$tmp/setup.err"
    return
  fi
  head -c "$(($(stat -c %s "$good") / 2))" "$good" >"$tmp/truncated.h5"
  cp "$DECK" "$tmp/text.h5"
  # Someone else's HDF5 file: one dataset copied out of ours, none of our attributes.
  local foreign=$tmp/foreign.h5
  if command -v h5copy >/dev/null 2>&1; then
    h5copy -i "$out/particles_000002.h5" -o "$foreign" -s /position -d /points >/dev/null 2>&1 || foreign=""
  else
    foreign=""
  fi
  local common=(--output "$tmp/errors-run" --quiet --steps 4)
  for np in 1 2; do
    expect_error truncated "$np" "$tmp/truncated.h5" "truncated file" run "$DECK" "${common[@]}" --restart "$tmp/truncated.h5"
    expect_error not_hdf5 "$np" "$tmp/text.h5" "not an HDF5 file" run "$DECK" "${common[@]}" --restart "$tmp/text.h5"
    expect_error missing "$np" "$tmp/missing.h5" "file not found" run "$DECK" "${common[@]}" --restart "$tmp/missing.h5"
    expect_error particle_file "$np" "particles_000002.h5" "not a checkpoint" run "$DECK" "${common[@]}" \
      --restart "$out/particles_000002.h5"
    if [ -n "$foreign" ]; then
      expect_error foreign "$np" "$foreign" "not a Meniscus checkpoint" run "$DECK" "${common[@]}" --restart "$foreign"
    else
      echo "skip  foreign (np=$np): h5copy (hdf5-tools) not available"
    fi
    expect_error other_domain "$np" "$good" "domain section" run "$DECK" "${common[@]}" --restart "$good" \
      --set domain.cell_size=0.002
    mkdir -p "$tmp/empty"
    expect_error latest_none "$np" "$tmp/empty" "no complete checkpoint" run "$DECK" "${common[@]}" --restart latest "$tmp/empty"
  done
}

# --------------------------------------------------------------------------------------------------
kill_checks() {
  local out=$tmp/killed attempt tmp_left=0 step=""
  # 0.5 mm cells: ~100k particles, so that writing a checkpoint (every step) takes most of the time.
  local args=(run "$DECK" --output "$out" --set domain.cell_size=0.0005 --set checkpoint.every=1
    --set checkpoint.keep=3 --set progress.interval=100)
  for attempt in 1 2 3; do
    if [ "$attempt" = 1 ]; then
      launch 1 "${args[@]}" --steps 100000
    else
      launch 1 "${args[@]}" --steps 100000 --restart latest "$out"
    fi
    # Kill as soon as a checkpoint is being written and an earlier one is complete.
    if ! wait_for 90 has_checkpoint "$out" || ! wait_for 30 has_tmp "$out"; then
      kill -9 "$pid" 2>/dev/null
      finish
      fail "kill: no checkpoint was being written within the time limit (exit $rc)"
      show "$tmp/bg.err"
      return
    fi
    kill -9 "$pid"
    finish
    if has_tmp "$out"; then
      tmp_left=1
      break
    fi
  done
  step=$(newest_step "$out")
  if [ "$tmp_left" = 1 ]; then
    pass "kill: SIGKILL mid-write left $(basename "$(compgen -G "$out/checkpoints/*.tmp" | head -n 1)") next to chk step $step"
  else
    echo "note  kill: three kills all fell between checkpoint writes (no .tmp left); checking the restart anyway"
  fi
  if [ -z "$step" ]; then
    fail "kill: no complete checkpoint survived"
    return
  fi
  local target=$((step + 2))
  run_cmd kill_restart 1 "${args[@]}" --steps "$target" --restart latest "$out"
  local problems=""
  [ "$rc" = 0 ] || problems+="exit code $rc; "
  grep -q "restarting from .*chk_0*${step}\.h5: step $step" "$tmp/kill_restart.out" ||
    problems+="did not restart from the newest complete checkpoint (step $step); "
  [ "$(tail -n 1 "$out/diagnostics.csv" | cut -d, -f1)" = "$target" ] || problems+="diagnostics.csv does not end at step $target; "
  steps_increase "$out/diagnostics.csv" || problems+="diagnostics.csv steps repeat or go back; "
  ! has_tmp "$out" || problems+="the stale .tmp was not cleared by the next checkpoint; "
  if [ -z "$problems" ]; then
    pass "kill: --restart latest resumed from step $step and reached step $target"
  else
    fail "kill: $problems"
    show "$tmp/kill_restart.out"
    show "$tmp/kill_restart.err"
  fi
}

# --------------------------------------------------------------------------------------------------
# signal_check LABEL NP SIGNAL EXPECTED_RC: stop a running job with SIGNAL, then finish it by restarting.
signal_check() {
  local label=$1 np=$2 sig=$3 want=$4
  if [ "$np" != 1 ] && ! have_mpi; then
    echo "skip  $label (np=$np): no mpiexec"
    return
  fi
  local out=$tmp/$label
  launch "$np" run "$DECK" --output "$out" --quiet --set diagnostics.every=20
  # The time loop is running once the row of step 20 is there (header, step 0, step 20).
  if ! wait_for 60 rows_at_least "$out/diagnostics.csv" 3; then
    kill -9 "$pid" 2>/dev/null
    finish
    fail "$label (np=$np): the run did not start stepping (exit $rc)"
    show "$tmp/bg.err"
    return
  fi
  kill "-$sig" "$pid"
  finish
  cp "$tmp/bg.err" "$tmp/$label.err"
  local step problems=""
  step=$(newest_step "$out")
  [ "$rc" = "$want" ] || problems+="exit code $rc, expected $want; "
  grep -q "SIG$sig received: stopped after step" "$tmp/$label.err" || problems+="no stop message; "
  [ -n "$step" ] || problems+="no checkpoint written; "
  grep -q "\"stopped_by\": \"SIG$sig\"" "$out/run.json" 2>/dev/null || problems+="run.json lacks stopped_by; "
  if [ -n "$problems" ]; then
    fail "$label (np=$np): $problems"
    show "$tmp/$label.err"
    return
  fi
  pass "$label (np=$np): SIG$sig -> checkpoint at step $step, exit $rc"
  local target=$((step + 40))
  run_cmd "$label-restart" "$np" run "$DECK" --output "$out" --quiet --set diagnostics.every=20 --steps "$target" \
    --restart latest "$out"
  problems=""
  [ "$rc" = 0 ] || problems+="exit code $rc; "
  [ "$(tail -n 1 "$out/diagnostics.csv" | cut -d, -f1)" = "$target" ] || problems+="diagnostics.csv does not end at step $target; "
  steps_increase "$out/diagnostics.csv" || problems+="diagnostics.csv steps repeat or go back; "
  grep -q "\"restarted_from\": \".*chk_0*${step}\.h5\"" "$out/run.json" || problems+="run.json lacks restarted_from; "
  if [ -z "$problems" ]; then
    pass "$label (np=$np): restart from step $step completed the run to step $target"
  else
    fail "$label (np=$np): restart: $problems"
    show "$tmp/$label-restart.err"
  fi
}

signal_checks() {
  signal_check usr1 2 USR1 0
  signal_check usr1_serial 1 USR1 0
  signal_check term 1 TERM 143
}

case "$GROUP" in
  errors) error_checks ;;
  kill) kill_checks ;;
  signal) signal_checks ;;
  all) error_checks; kill_checks; signal_checks ;;
  *) echo "unknown group '$GROUP' (errors, kill, signal, all)"; exit 2 ;;
esac

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
