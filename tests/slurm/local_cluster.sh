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
