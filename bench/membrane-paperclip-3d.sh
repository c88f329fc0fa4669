#!/usr/bin/env bash
# Per-stage timings of the 3D paperclip scene of Ruan et al. 2021 (Fig. 4; not a test):
# inputs/membrane-paperclips-3d-ci.yaml (three clips, densities 2.0 / 5.0 / 7.9, wire radius 0.08 cm)
# at cell size DX (default 0.125 cm: 40 x 40 x 12 cells) with remeshing on and rtol 1e-6, STEPS steps
# of 2e-3 s, RANKS ranks (environment, default 1; more go through mpirun) x THREADS OpenMP threads,
# under `nice -n NICE` (environment, default 19; on a machine where other jobs keep the cores busy,
# 19 gets almost no time). Prints the stage table of the run (seconds and share of the wall time; with
# ranks the method's timers, max over ranks), the mean and largest MINRES iterations of both solves,
# each rank's user + system CPU seconds and peak resident memory, and the peak memory summed over
# the ranks. Extra arguments go to `meniscus run`.
# Usage: [RANKS=2] bash bench/membrane-paperclip-3d.sh [DX] [STEPS] [THREADS] [run args...]
#   (docs/performance.md, "3D paperclips")
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dx=${1:-0.125}
steps=${2:-5}
threads=${3:-1}
shift $(($# < 3 ? $# : 3))
bin=${MENISCUS:-$root/build/bin/meniscus}
out=$(mktemp -d)
top=$(python3 -c "import math; print(math.floor(1.6 / $dx + 1e-9) * $dx)")
ranks=${RANKS:-1}
launch=()
if [ "$ranks" -gt 1 ]; then
  source "$root/scripts/mpi-env.sh"
  launch=(mpirun --bind-to none --oversubscribe -n "$ranks" -x OMP_NUM_THREADS -x OMP_PROC_BIND)
fi
OMP_NUM_THREADS=$threads OMP_PROC_BIND=false nice -n "${NICE:-19}" "${launch[@]}" "$root/bench/per-rank-time.sh" "%U %S %M" \
  "$out/time" "$bin" run "$root/inputs/membrane-paperclips-3d-ci.yaml" --output "$out/run" \
  --set domain.cell_size="$dx" --set "domain.upper=[5, 5, $top]" --set membrane.remesh=true \
  --set simulation.end_time="$(python3 -c "print($steps * 2e-3)")" --set diagnostics.every=1 \
  --set output.every_time=1 "$@" >"$out/log" 2>&1
rc=$?
sed -n '/^stage/,$p' "$out/log"
python3 - "$out/run/diagnostics.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r["step"]) > 0]
for k in ("solve1_iterations", "solve2_iterations"):
    v = [int(r[k]) for r in rows]
    print(f"{k}: mean {sum(v) / len(v):.1f}, max {max(v)} over {len(v)} steps")
print(f"membrane vertices {rows[-1]['membrane_vertices']}, contact vertices {rows[-1]['contact_vertices']}, "
      f"fluid-rigid faces {rows[-1]['fluid_rigid_faces']}")
PY
rss=0
for f in $(ls "$out"/time.* | sort -t. -k2 -n); do
  read -r user sys peak < <(tail -1 "$f")
  echo "rank ${f##*.}: cpu user $user s, system $sys s, peak RSS $((peak / 1024)) MiB"
  rss=$((rss + peak))
done
echo "peak RSS summed over ranks: $((rss / 1024)) MiB"
exit $rc
