#!/usr/bin/env bash
# Side-by-side benchmark (not a test): Meniscus's explicit MPM against ExaMPM's dam break on the same
# block and particle count, back to back, in two layouts of a 2-core machine (1 rank x 2 OpenMP threads
# and 2 ranks x 1 thread). ExaMPM is built outside this repository (it is not a dependency):
#   EXAMPM=/path/to/ExaMPM/build/examples/DamBreak bash bench/mpm-vs-exampm.sh [CELLS] [STEPS]
# The ExaMPM example must read MATCHED=1 from the environment to fill the matched block
# x, y in [0, 0.4375], z in [0, 0.625] (its gravity is along z) instead of its own 0.4 x 1.0 x 0.6; see
# docs/performance.md for the two-line change. Meniscus fills the same 0.4375 x 0.625 x 0.4375 block
# (gravity along y) against its slip walls, 8 particles per cell, bulk modulus 1e5 Pa, dt = 1e-4 s.
# Time per step = (wall(STEPS + 20) - wall(20)) / STEPS of the whole process, so set-up and start-up are
# excluded the same way for both codes (CPU time, user + sys of all ranks, likewise); memory = peak resident set summed over ranks
# (bench/per-rank-time.sh), divided by the particle count. Meniscus builds with -march=native unless
# configured with -DMENISCUS_CPU_ARCH=generic: build ExaMPM with the same flags (-march=native
# -ffp-contract=off) for a like-with-like comparison.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
cells=${1:-64}
steps=${2:-100}
exe="$root/build/bin/meniscus"
deck="$root/inputs/bench/mpm-dam-break-3d.yaml"
exampm=${EXAMPM:?set EXAMPM to ExaMPM\'s DamBreak executable}
out=$(mktemp -d)
dx=$(python3 -c "print(1.0/$cells)")
wall=$(python3 -c "print(2.0/$cells)")  # Meniscus's slip walls are 2 cells thick: the block starts there
upper=$(python3 -c "w=$wall; print(f'[{w+0.4375},{w+0.625},{w+0.4375}]')")

launch() {  # ranks threads dir command...
  local ranks=$1 threads=$2 dir=$3
  shift 3
  local bind=(--bind-to core) omp=()
  if [ "$threads" -gt 1 ]; then bind=(--bind-to none); omp=(-x OMP_PROC_BIND=spread -x OMP_PLACES=threads); fi
  mkdir -p "$dir"
  local t0 t1
  t0=$(date +%s.%N)
  OMP_NUM_THREADS=$threads MATCHED=1 mpirun -x MATCHED "${bind[@]}" "${omp[@]}" -n "$ranks" \
    "$root/bench/per-rank-time.sh" "%M %U %S" "$dir/rss" "$@" > "$dir/log" 2>&1 || { tail -20 "$dir/log"; exit 1; }
  t1=$(date +%s.%N)
  python3 -c "print($t1 - $t0)" > "$dir/wall"
}

ours() {  # ranks threads nsteps dir
  launch "$1" "$2" "$4" "$exe" run "$deck" --steps "$3" --threads "$2" --quiet --output "$4/run" \
    --set domain.cell_size="$dx" --set "domain.wall_cells=2" --set "sources[0].lower=[$wall,$wall,$wall]" \
    --set "sources[0].upper=$upper" --set materials[0].bulk_modulus=1e5 --set mpm.dt_max=1e-4 \
    --set diagnostics.every=1000000
}
theirs() {  # ranks threads nsteps dir
  local tend
  tend=$(python3 -c "print(1e-4 * ($3 - 0.5))")  # ExaMPM steps while time < t_end
  launch "$1" "$2" "$4" "$exampm" "$dx" 2 0 1e-4 "$tend" 100000000 openmp
}

report() {  # label code ranks threads
  local label=$1 code=$2 ranks=$3 threads=$4
  local short="$out/$code-$ranks-$threads-short" long="$out/$code-$ranks-$threads-long"
  "$code" "$ranks" "$threads" 20 "$short"
  "$code" "$ranks" "$threads" $((steps + 20)) "$long"
  python3 - "$label" "$short" "$long" "$steps" "$cells" "$code" <<'PY'
import glob, sys, csv
label, short, long_, steps, cells, code = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
ws, wl = float(open(short + "/wall").read()), float(open(long_ + "/wall").read())
per_step = (wl - ws) / steps
if code == "ours":
    rows = list(csv.DictReader(open(long_ + "/run/diagnostics.csv")))
    n = int(float(rows[0]["particles"]))
else:
    # ExaMPM fills the cells of [0, 0.4375]^2 x [0, 0.625] with 2 x 2 x 2 particles each.
    n = round(0.4375 * cells) * round(0.4375 * cells) * round(0.625 * cells) * 8
def cpu(d):  # user + sys of every rank
    return sum(float(open(f).read().split()[1]) + float(open(f).read().split()[2]) for f in glob.glob(d + "/rss.*"))
files = glob.glob(long_ + "/rss.*")
rss = sum(int(open(f).read().split()[0]) for f in files) * 1024
cpu_step = (cpu(long_) - cpu(short)) / steps
print(f"| {label} | {n:,} | {per_step * 1e3:.1f} ms | {n / per_step / 1e6:.2f} M | {cpu_step * 1e3:.0f} ms | "
      f"{cpu_step / n * 1e9:.0f} ns | {rss / n:.0f} B |")
PY
}

echo "meniscus $("$exe" --version | cut -d' ' -f2-), ExaMPM $exampm, ${cells}^3 cells, $steps steps, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| code, layout | particles | wall / step | particle-steps/s (wall) | CPU / step (all ranks) | CPU / particle-step | memory / particle (all ranks) |"
echo "|---|---|---|---|---|---|---|"
report "Meniscus, 1 rank x 2 threads" ours 1 2
report "ExaMPM, 1 rank x 2 threads" theirs 1 2
report "Meniscus, 2 ranks x 1 thread" ours 2 1
report "ExaMPM, 2 ranks x 1 thread" theirs 2 1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$out"
