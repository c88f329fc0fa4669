#!/usr/bin/env bash
# jobs/candle.sbatch on two nodes: the local cluster with two slurmd's (scripts/slurm-local.sh start 2,
# nodes n1 and n2 on this machine), the request made by jobs/request.sh 2 1 (2 nodes x 1 rank, memory per
# node from `meniscus check --ranks 2`), the reduced candle (inputs/candle-3d.yaml at dx = 1/N, default
# 1/31, wick one cell wide, flame lit from t = 0) for STEPS steps. The job must run one rank on each node
# and give the diagnostics of the same run made with mpirun on 2 ranks, at every step, to REL_TOL
# (default 1e-12 relative; measured: bit for bit). What two slurmd's on one machine test is Slurm's side
# and the job scripts' (--nodes, --ntasks-per-node, --mem per node, srun's placement, PMIx across nodes),
# not an interconnect. Labelled long (about a minute, most of it Slurm's start-up).
# Skips (exit 77) where Slurm cannot run (no root, no cgroup fs).
# Usage: candle_two_nodes.sh SOURCE_DIR BUILD_DIR [N] [STEPS]
set -uo pipefail
src=$1
build=$2
n=${3:-31}
steps=${4:-4}
slurm_nodes=2
source "$src/tests/slurm/local_cluster.sh"
cp "$src/jobs/candle.sbatch" "$src/jobs/request.sh" "$work/jobs/"
cp "$src/inputs/candle-3d.yaml" "$work/inputs/"
cd "$work"
source "$src/scripts/mpi-env.sh"
mapfile -t wick < <(python3 "$src/bench/candle-3d-wick.py" "$n")
dx=$(python3 -c "print(repr(1.0 / $n))")
deck_args=(--set domain.cell_size="$dx" --set mpm.heat.heating_start_time=0 "${wick[@]}")
args=(--steps "$steps" --quiet --set diagnostics.every=1 --set output.every_time=0 "${deck_args[@]}")

# 1. The request and the job.
request=$(bash jobs/request.sh 2 1 inputs/candle-3d.yaml "${deck_args[@]}") || { fail "request.sh"; exit 1; }
echo "request.sh 2 1: $request"
[[ "$request" == "--nodes=2 --ntasks-per-node=1 --ntasks=2 --mem="*M ]] && pass "request for 2 nodes x 1 rank" ||
  fail "request '$request'"
# shellcheck disable=SC2086  # the request is a list of options
sbatch --time=10 $request --export=ALL,CHECKPOINT_MINUTES=0,OMP_NUM_THREADS=1 jobs/candle.sbatch "${args[@]}" \
  > submit.txt 2>&1
job=$(grep -o 'Submitted batch job [0-9]*' submit.txt | grep -o '[0-9]*$')
[ -n "$job" ] || { cat submit.txt; echo "FAIL  no job id"; exit 1; }
wait_job "$job" 900
log="runs/$job.log"
grep -q "on 2 node(s) (n\[1-2\]): 2 ranks (1 per node)" "$log" && pass "one rank on each of the nodes n1, n2" ||
  fail "the job did not run one rank on each node"
mem=${request##*--mem=}
grep -q "memory per node ${mem%M} MiB" "$log" && pass "memory per node ${mem} as requested" ||
  fail "memory per node is not the requested $mem"

# 2. The same run with mpirun on 2 ranks, and every diagnostics column at every step against it.
same_as_mpirun "$job" "$steps" "the two-node job reproduces the mpirun run"

cd /
if [ "$failed" = 0 ]; then rm -rf "$work"; else echo "kept $work"; fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
