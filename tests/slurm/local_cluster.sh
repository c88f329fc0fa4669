# Sourced by the Slurm tests (needs $src, the source tree, and $build, the build tree): pass/fail
# counters, the machine-wide lock, the local cluster (scripts/slurm-local.sh: one node, or two when the
# test sets slurm_nodes=2; stopped on exit)
# and a work folder $work laid out as a repository root (build/bin/meniscus, scripts/mpi-env.sh,
# jobs/meniscus.sbatch, runs/, inputs/). Exits 77 (skip) where Slurm cannot run (no root, no cgroup fs).
passed=0
failed=0
pass() { echo "ok    $*"; passed=$((passed + 1)); }
fail() { echo "FAIL  $*"; failed=$((failed + 1)); }

# The local cluster is one per machine and `start` restarts its daemons, so two checkouts testing at
# once would stop each other's jobs: hold a machine-wide lock for the whole test.
exec 9> /run/lock/meniscus-slurm-local.lock
flock -w 600 9 || { echo "FAIL  another Slurm test held /run/lock/meniscus-slurm-local.lock for 600 s"; exit 1; }

bash "$src/scripts/slurm-local.sh" start "${slurm_nodes:-1}"
rc=$?
if [ "$rc" = 3 ]; then echo "skip: Slurm cannot run on this machine"; exit 77; fi
[ "$rc" = 0 ] || { echo "FAIL  slurm-local start (exit $rc)"; exit 1; }
trap 'bash "$src/scripts/slurm-local.sh" stop >/dev/null 2>&1 || true' EXIT

work=$(mktemp -d)
mkdir -p "$work/runs" "$work/build/bin" "$work/scripts" "$work/jobs" "$work/inputs"
ln -s "$build/bin/meniscus" "$work/build/bin/meniscus"
cp "$src/scripts/mpi-env.sh" "$work/scripts/"
cp "$src/jobs/meniscus.sbatch" "$work/jobs/"

# wait_job JOB LIMIT_S: waits until the job has ended (cancels it after LIMIT_S seconds); sets $state to its
# final JobState, prints it with the seconds waited, and checks that it COMPLETED (the log's job lines shown).
wait_job() {
  local job=$1 limit=$2 start
  start=$(date +%s)
  state=
  while :; do
    state=$(scontrol show job "$job" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
    case "$state" in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;; esac
    (($(date +%s) - start > limit)) && { echo "job $job still $state after $limit s"; scancel "$job"; break; }
    sleep 2
  done
  echo "job $job: $state after $(($(date +%s) - start)) s; $(scontrol show job "$job" -o | grep -oE ' (Restarts|NumNodes|NodeList)=[^ ]*' | tr '\n' ' ')"
  grep '^\[meniscus.sbatch\]' "runs/$job.log"
  if [ "$state" = COMPLETED ]; then pass "candle job completed"; else fail "candle job ended $state"; tail -n 20 "runs/$job.log"; fi
}

# same_as_mpirun JOB STEPS WHAT: the job's run made again with mpirun on 2 ranks x 1 thread (the deck and
# arguments in $args) into ref/, and every diagnostics column of the job's run against it, to REL_TOL.
same_as_mpirun() {
  local job=$1 steps=$2 what=$3
  OMP_NUM_THREADS=1 mpirun -n 2 build/bin/meniscus run inputs/candle-3d.yaml --output ref "${args[@]}" > ref.log 2>&1 ||
    { tail -n 20 ref.log; fail "mpirun run"; }
  python3 "$src/tests/slurm/compare_diagnostics.py" "runs/$job/diagnostics.csv" ref/diagnostics.csv "$steps" \
    "${REL_TOL:-1e-12}" && pass "$what" || fail "not $what"
}
