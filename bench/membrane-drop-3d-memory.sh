#!/usr/bin/env bash
# Peak resident memory per rank of the 3D membrane drop (not a test): inputs/membrane-drop-3d.yaml
# (32^3 cells, 10,242 membrane vertices, rtol 1e-8) for STEPS steps at each of RANKS (one thread per
# rank), and the fixed part, the resident set of `meniscus check` (libraries, MPI, PETSc and Kokkos
# start-up) that every rank pays. Prints one table row per rank count: the peak of each rank, in MB.
#   bash bench/membrane-drop-3d-memory.sh [STEPS] [RANKS...]     e.g. 2 1 2 4
#   MENISCUS_EXE=/path/to/meniscus bash bench/membrane-drop-3d-memory.sh 2 1 2 4  (another build)
# Memory does not depend on the machine's load, unlike the timings of the other bench scripts.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
steps=${1:-2}
shift $(($# > 0 ? 1 : 0))
ranks_list=("${@:-1 2 4}")
exe=${MENISCUS_EXE:-"$root/build/bin/meniscus"}
deck="$root/inputs/membrane-drop-3d.yaml"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mb() { for f in $(ls "$1".* | sort -t. -k2 -n); do awk '{printf "%.0f ", $NF / 1024}' "$f"; done; }
echo "| ranks | peak RSS per rank (MB, rank 0 first) | fixed part per rank (MB) |"
echo "|---|---|---|"
for ranks in ${ranks_list[*]}; do
  dir="$out/$ranks"
  mkdir -p "$dir"
  OMP_NUM_THREADS=1 nice -n 19 mpirun --bind-to none --oversubscribe -n "$ranks" "$root/bench/per-rank-time.sh" "%M" \
    "$dir/rss" "$exe" run "$deck" --steps "$steps" --quiet --threads 1 --set diagnostics.every="$steps" \
    --output "$dir/run" > "$dir/log" 2>&1 || { tail -20 "$dir/log"; exit 1; }
  OMP_NUM_THREADS=1 nice -n 19 mpirun --bind-to none --oversubscribe -n "$ranks" "$root/bench/per-rank-time.sh" "%M" \
    "$dir/fixed" "$exe" check "$deck" > /dev/null 2>&1
  echo "| $ranks | $(mb "$dir/rss")| $(mb "$dir/fixed")|"
done
