#!/usr/bin/env bash
# The sbatch resource request for a deck on NODES nodes with RANKS_PER_NODE ranks each, from `meniscus
# check`'s estimate for that many ranks: the largest rank's bytes times the ranks per node, plus the 10 %
# headroom docs/user-guide.md asks for, as Slurm's memory per node (--mem, MiB). Prints one line of sbatch
# options; nothing is submitted:
#
#   bash jobs/request.sh 2 16 inputs/candle-3d.yaml
#   sbatch $(bash jobs/request.sh 2 16 inputs/candle-3d.yaml) jobs/candle.sbatch
#
# Arguments after the deck go to `meniscus check` (--set key=value ...). MENISCUS_EXE names the binary
# (default build/bin/meniscus). Exit 2 on bad arguments or when check refuses the deck.
# Usage: request.sh NODES RANKS_PER_NODE DECK [check args]
set -euo pipefail
if [[ $# -lt 3 || ! "$1" =~ ^[1-9][0-9]*$ || ! "$2" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: request.sh NODES RANKS_PER_NODE DECK [--set key=value ...]" >&2
  exit 2
fi
nodes=$1 per_node=$2 deck=$3
shift 3
exe=${MENISCUS_EXE:-build/bin/meniscus}
ranks=$((nodes * per_node))
rc=0
out=$("$exe" check "$deck" --ranks "$ranks" "$@" 2>&1) || rc=$?
line=$(sed -n 's/.*, \([0-9.e+]*\) \([KMG]i\)B per rank.*/\1 \2/p' <<<"$out" | head -n 1)
if [[ $rc != 0 || -z "$line" ]]; then
  echo "request.sh: meniscus check $deck --ranks $ranks gave no estimate per rank (exit $rc):" >&2
  echo "$out" | tail -n 5 >&2
  exit 2
fi
mem=$(python3 -c "
import math
v, unit = '$line'.split()
print(math.ceil(float(v) * {'Ki': 1 / 1024.0, 'Mi': 1.0, 'Gi': 1024.0}[unit] * $per_node * 1.10))")
echo "--nodes=$nodes --ntasks-per-node=$per_node --ntasks=$ranks --mem=${mem}M"
