#!/usr/bin/env bash
# The Slurm side of a multi-node run, as far as one machine can test it (no multi-node run is made):
# jobs/request.sh turns `meniscus check --ranks NODES x RANKS_PER_NODE`'s largest rank into the request
# --nodes, --ntasks-per-node and --mem (per node: the rank's bytes x ranks per node + 10 %), for the 3D
# candle at dx = 1/31 on 2 nodes x 1 and 2 x 2 ranks; bad arguments give exit 2; and jobs/meniscus.sbatch
# with DRY_RUN=1 (and the variables Slurm sets on 2 nodes) prints the srun line with the ranks bound to
# their cores, without running it.
# Usage: job_request.sh MENISCUS SOURCE_DIR. Prints "N passed, M failed".
BIN=$1
SRC=$2
MPIEXEC=
LIMIT=120
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meniscus-request.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export MENISCUS_EXE=$BIN
deck=$SRC/inputs/candle-3d.yaml
mapfile -t wick < <(python3 "$SRC/bench/candle-3d-wick.py" 31)
args=(--set domain.cell_size=0.03225806451612903 "${wick[@]}")

for case in "2 1" "2 2"; do
  read -r nodes per_node <<<"$case"
  ranks=$((nodes * per_node))
  run_cmd "check$ranks" 1 check "$deck" --ranks "$ranks" "${args[@]}"
  est=$(sed -n 's/.*, \([0-9.e+]*\) \([KMG]i\)B per rank.*/\1 \2/p' "$tmp/check$ranks.out" | head -n 1)
  want=$(python3 -c "
import math
v, unit = '$est'.split()
print(math.ceil(float(v) * {'Ki': 1 / 1024.0, 'Mi': 1.0, 'Gi': 1024.0}[unit] * $per_node * 1.10))" 2>/dev/null)
  got=$(timeout "$LIMIT" bash "$SRC/jobs/request.sh" "$nodes" "$per_node" "$deck" "${args[@]}" 2>"$tmp/req$ranks.err")
  expect="--nodes=$nodes --ntasks-per-node=$per_node --ntasks=$ranks --mem=${want}M"
  if [ -n "$want" ] && [ "$got" = "$expect" ]; then
    pass "request for $nodes nodes x $per_node ranks: $got (check: $est per rank)"
  else
    fail "request for $nodes nodes x $per_node ranks: got '$got', want '$expect' (check: '$est' per rank)"
    show "$tmp/req$ranks.err"
  fi
done

rc=0
timeout "$LIMIT" bash "$SRC/jobs/request.sh" 0 4 "$deck" >/dev/null 2>"$tmp/bad.err" || rc=$?
if [ "$rc" = 2 ] && grep -q "usage: request.sh" "$tmp/bad.err"; then pass "0 nodes: exit 2 with the usage line"
else fail "0 nodes: exit $rc"; show "$tmp/bad.err"; fi

rc=0
(cd "$SRC" && env -u OMP_NUM_THREADS DRY_RUN=1 SLURM_JOB_ID=77 SLURM_SUBMIT_DIR="$SRC" RESTART_DIR="$tmp/run" SLURM_JOB_NUM_NODES=2 \
  SLURM_NTASKS=4 SLURM_NTASKS_PER_NODE=2 SLURM_CPUS_PER_TASK=3 SLURM_MEM_PER_NODE=400 DECK=inputs/candle-3d.yaml \
  bash jobs/meniscus.sbatch --steps 2) >"$tmp/dry.out" 2>&1 || rc=$?
line=$(grep "dry run:" "$tmp/dry.out")
if [ "$rc" = 0 ] && [[ "$line" == *"srun --cpu-bind=cores --distribution=block $BIN run inputs/candle-3d.yaml --output $tmp/run --steps 2" ]] &&
   grep -q "2 node(s) .*4 ranks (2 per node) x 3 threads, memory per node 400 MiB" "$tmp/dry.out" && [ ! -e "$tmp/run" ]; then
  pass "meniscus.sbatch DRY_RUN=1 on 2 nodes: ${line#*dry run: }"
else
  fail "meniscus.sbatch DRY_RUN=1: exit $rc"
  show "$tmp/dry.out"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
