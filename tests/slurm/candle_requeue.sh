#!/usr/bin/env bash
# jobs/candle.sbatch end to end on the local one-node cluster (scripts/slurm-local.sh), on a reduced
# candle (inputs/candle-3d.yaml at dx = 1/N, default 1/31, wick one cell wide, flame lit from t = 0):
# once the job has written step 2, the test sends the batch shell the USR1 that Slurm's time-limit
# warning (--signal=B:USR1@...) would send; meniscus writes a final checkpoint, the job requeues itself
# under the same id, resumes from that checkpoint and finishes STEPS steps. Then the same run without
# interruption (mpirun, same ranks and threads) must give the same diagnostics at every step, to
# REL_TOL (default 1e-12 relative; measured: bit for bit). Labelled long (4-8 minutes, most of it
# Slurm's wait before a requeued job may start again).
# Why the test sends the signal itself: a 1-minute limit with the warning 30 s ahead only works while
# the job lasts longer than 30 s; on a quiet 2-core machine the 10 steps finished in 15 s (job done in
# 21 s, no signal), so the test failed by being fast. Sending it after step 2 exercises the same path
# (the batch shell's trap, the ranks' final checkpoint, the requeue, the resume) at any speed.
# Skips (exit 77) where Slurm cannot run (no root, no cgroup fs).
# Usage: candle_requeue.sh SOURCE_DIR BUILD_DIR [N] [STEPS]
set -uo pipefail
src=$1
build=$2
n=${3:-31}
steps=${4:-10}
source "$src/tests/slurm/local_cluster.sh"
cp "$src/jobs/candle.sbatch" "$work/jobs/"
cp "$src/inputs/candle-3d.yaml" "$work/inputs/"
cd "$work"
source "$src/scripts/mpi-env.sh"
mapfile -t wick < <(python3 "$src/bench/candle-3d-wick.py" "$n")
dx=$(python3 -c "print(repr(1.0 / $n))")
args=(--steps "$steps" --quiet --set domain.cell_size="$dx" --set mpm.heat.heating_start_time=0
      --set diagnostics.every=1 --set output.every_time=0 "${wick[@]}")

# 1. The candle job. The script's 2 nodes x 16 ranks and its memory per node (11 GB, the 1/127
#    candle's) are overridden for the local node (4 CPUs, 4000 MB); the time limit is far away.
sbatch --time=20 --nodes=1 --ntasks=2 --ntasks-per-node=2 --mem=2000M --cpus-per-task=1 \
  --export=ALL,CHECKPOINT_MINUTES=0,OMP_NUM_THREADS=1 jobs/candle.sbatch "${args[@]}" > submit.txt 2>&1
job=$(grep -o 'Submitted batch job [0-9]*' submit.txt | grep -o '[0-9]*$')
[ -n "$job" ] || { cat submit.txt; echo "FAIL  no job id"; exit 1; }
# Step 2 written (header, steps 0, 1, 2): send the time-limit warning's signal to the batch shell.
signalled=0
start=$(date +%s)
while (($(date +%s) - start < 600)); do
  rows=$(wc -l < "runs/$job/diagnostics.csv" 2>/dev/null || echo 0)
  if [ "$rows" -ge 4 ]; then scancel --batch --signal=USR1 "$job" && signalled=1; break; fi
  state=$(scontrol show job "$job" -o 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
  case "$state" in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;; esac
  sleep 0.2
done
[ "$signalled" = 1 ] || fail "job $job: no USR1 sent (diagnostics rows: ${rows:-0}, state ${state:-?}; raise STEPS if it finished first)"
wait_job "$job" 1500
log="runs/$job.log"
if grep -q "USR1" "$log" && grep -q "requeueing job" "$log"; then pass "USR1 forwarded, job requeued itself"; else
  fail "no USR1 and requeue in $log"; fi
if grep -q "resuming from its latest checkpoint" "$log"; then pass "the requeued job resumed from the checkpoint"; else
  fail "the requeued job did not resume"; fi
chk=$(ls runs/"$job"/checkpoints/chk_*.h5 2>/dev/null | head -n 1)
echo "checkpoints: $(ls runs/"$job"/checkpoints 2>/dev/null | tr '\n' ' ')"

# 2. The same run uninterrupted, and every diagnostics column at every step against it.
same_as_mpirun "$job" "$steps" "restart reproduces the uninterrupted run"

cd /
if [ "$failed" = 0 ]; then rm -rf "$work"; else echo "kept $work"; fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
