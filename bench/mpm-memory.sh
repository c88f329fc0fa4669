#!/usr/bin/env bash
# Peak memory of explicit MPM per particle, summed over ranks (not a test): the matched dam-break block
# of bench/mpm-vs-exampm.sh (0.4375 x 0.625 x 0.4375 against 2-cell slip walls, 8 particles per cell)
# at CELLS^3, in the two layouts of a 2-core machine, 1 rank x 2 threads and 2 ranks x 1 thread; and
# the fixed part, the resident set of `meniscus check` on each rank (libraries, MPI, PETSc and Kokkos
# start-up), which every extra rank pays again; and the peak of the physical pages resident in any rank,
# each counted once (bench/distinct-pages.py: the shared libraries' pages, which the sum of resident
# sets counts once per rank, are in the node's memory once).
#   bash bench/mpm-memory.sh [CELLS] [STEPS]        e.g. 64 (250,880 particles) or 96 (846,720)
#   MENISCUS_EXE=/path/to/meniscus bash bench/mpm-memory.sh 64   (the same for another build)
# Memory is independent of the machine's load, unlike the timings of the other bench scripts.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
cells=${1:-64}
steps=${2:-25}
exe=${MENISCUS_EXE:-"$root/build/bin/meniscus"}  # MENISCUS_EXE: another build (a before row)
deck="$root/inputs/bench/mpm-dam-break-3d.yaml"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
read -r dx wall upper < <(python3 -c "c=$cells; w=2/c; print(1/c, w, f'[{w+0.4375},{w+0.625},{w+0.4375}]')")
args=(run "$deck" --steps "$steps" --quiet --set domain.cell_size="$dx" --set domain.wall_cells=2
  --set "sources[0].lower=[$wall,$wall,$wall]" --set "sources[0].upper=$upper"
  --set materials[0].bulk_modulus=1e5 --set mpm.dt_max=1e-4 --set diagnostics.every="$steps")

measure() {  # ranks threads label
  local ranks=$1 threads=$2 dir="$out/$1x$2"
  mkdir -p "$dir"
  python3 "$root/bench/distinct-pages.py" "$dir/run" "$exe" "$dir/distinct" &
  local sampler=$!
  OMP_NUM_THREADS=$threads mpirun --bind-to none -n "$ranks" "$root/bench/per-rank-time.sh" "%M" "$dir/rss" \
    "$exe" "${args[@]}" --threads "$threads" --output "$dir/run" > "$dir/log" 2>&1 || { tail -20 "$dir/log"; exit 1; }
  wait "$sampler"
  OMP_NUM_THREADS=$threads mpirun --bind-to none -n "$ranks" "$root/bench/per-rank-time.sh" "%M" "$dir/fixed" \
    "$exe" check "$deck" > /dev/null 2>&1
  python3 - "$dir" "$ranks" "$threads" <<'PY'
import csv, glob, sys
d, ranks, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
kb = lambda pat: sum(int(open(f).read().split()[-1]) for f in glob.glob(d + "/" + pat + ".*"))
rows = list(csv.DictReader(open(d + "/run/diagnostics.csv")))
n = int(rows[-1]["particles"])
total, fixed = kb("rss"), kb("fixed")
distinct = open(d + "/distinct").read().strip()
once = "-" if distinct == "-" else f"{int(distinct) / 1024:.1f} MB, {int(distinct) * 1024 / n:.0f} B"
print(f"| {ranks} rank(s) x {threads} thread(s) | {n:,} | {total / 1024:.1f} MB | {total * 1024 / n:.0f} B | "
      f"{fixed / 1024:.1f} MB | {(total - fixed) * 1024 / n:.0f} B | {once} |")
PY
}

echo "| layout | particles | peak RSS, all ranks | per particle | fixed part (check), all ranks | per particle without it | peak, each physical page once (root only) |"
echo "|---|---|---|---|---|---|---|"
measure 1 2
measure 2 1
