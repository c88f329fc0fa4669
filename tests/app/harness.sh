# Shared helpers of the whole-program test scripts (sourced, not run). The caller sets BIN (the
# meniscus executable), MPIEXEC (may be empty), LIMIT (seconds per command) and tmp (a scratch folder).
# The caller prints "$passed passed, $failed failed" at the end.
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
# Indented copy of a captured stream (its last 40 lines), for the log of a failed check.
show() { [ -s "$1" ] && sed -e 's/^/        | /' "$1" | tail -n 40; }
have_mpi() { [ -n "$MPIEXEC" ] && command -v "$MPIEXEC" >/dev/null 2>&1; }

# run_cmd NAME NP ARGS...: runs meniscus (NP = 1: directly; otherwise under mpirun -n NP) with
# stdout/stderr captured in $tmp/NAME.out/.err; sets rc (124 after a timeout).
run_cmd() {
  local name=$1 np=$2
  shift 2
  if [ "$np" = 1 ]; then
    timeout -k 10 "$LIMIT" "$BIN" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  else
    timeout -k 10 "$LIMIT" "$MPIEXEC" -n "$np" --oversubscribe "$BIN" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  fi
  rc=$?
}
