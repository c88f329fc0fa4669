#!/usr/bin/env bash
# Slurm end to end on a local one-node cluster (scripts/slurm-local.sh): a 2-rank job whose time limit
# ends it early gets USR1, writes a final checkpoint and stops; a resubmission resumes from that
# checkpoint and completes. Skips (exit 77) where Slurm cannot run (no root, no cgroup fs).
# Usage: slurm_restart.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=$1
build=$2
source "$src/tests/slurm/local_cluster.sh"
# A run much longer than the 1-minute limit; the final checkpoint is the only one.
sed -e 's/end_time: 0.6 /end_time: 50 /' "$src/inputs/dam-break-2d.yaml" > "$work/inputs/long.yaml"
cd "$work"
source "$src/scripts/mpi-env.sh"

# 1. Stopped by its time limit: USR1 (here 30 s ahead), final checkpoint, exit 0, no requeue.
timeout 300 sbatch --wait --time=1 --signal=B:USR1@30 --ntasks=2 \
  --export=ALL,DECK=inputs/long.yaml,MENISCUS_REQUEUE=0 jobs/meniscus.sbatch -- --quiet > submit1.txt 2>&1
rc=$?
job=$(grep -o 'Submitted batch job [0-9]*' submit1.txt | grep -o '[0-9]*$')
[ -n "$job" ] || { cat submit1.txt; echo "FAIL  no job id"; exit 1; }
log="runs/$job.log"
if [ "$rc" = 0 ] && grep -q "USR1" "$log"; then pass "first job got USR1 and exited 0"; else
  fail "first job: sbatch exit $rc"; tail -n 20 "$log"; fi
chk=$(ls runs/"$job"/checkpoints/chk_*.h5 2>/dev/null | tail -n 1)
if [ -n "$chk" ]; then pass "final checkpoint $(basename "$chk")"; else fail "no checkpoint in runs/$job/checkpoints"; fi
step=$(basename "${chk:-chk_0.h5}" .h5 | sed 's/chk_0*//')
step=${step:-0}

# 2. Resubmission continues that run in place and completes 20 more steps.
target=$((step + 20))
timeout 300 sbatch --wait --time=5 --ntasks=2 \
  --export=ALL,DECK=inputs/long.yaml,RESTART_DIR=$work/runs/$job jobs/meniscus.sbatch --steps "$target" --quiet \
  > submit2.txt 2>&1
rc=$?
job2=$(grep -o 'Submitted batch job [0-9]*' submit2.txt | grep -o '[0-9]*$')
if [ "$rc" = 0 ] && grep -q "resuming from its latest checkpoint" "runs/$job2.log"; then pass "resubmission resumed from the checkpoint"; else
  fail "resubmission: sbatch exit $rc"; tail -n 20 "runs/$job2.log" 2>/dev/null; fi
last=$(tail -n 1 "runs/$job/diagnostics.csv" | cut -d, -f1)
if [ "$last" = "$target" ]; then pass "the run completed to step $target"; else fail "last diagnostics step $last, expected $target"; fi
first_after=$(awk -F, -v s="$step" 'NR > 1 && $1 > s {print $1; exit}' "runs/$job/diagnostics.csv")
rows_before=$(awk -F, -v s="$step" 'NR > 1 && $1 <= s' "runs/$job/diagnostics.csv" | wc -l)
if [ -n "$first_after" ] && [ "$rows_before" -gt 0 ]; then pass "diagnostics continue across the restart"; else
  fail "diagnostics do not continue across the restart"; fi

cd /
rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
