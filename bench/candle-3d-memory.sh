#!/usr/bin/env bash
# Peak memory of the 3D candle step by step (not a test): inputs/candle-3d.yaml at dx = 1/N with the wick one
# cell wide (bench/candle-3d-wick.py), flame lit from t = 0, STEPS steps on one rank x THREADS threads, under
# `nice -n 19`. Samples the process's VmRSS every half second beside the number of log lines (one progress
# line per step, with MONITOR=1 one per Newton iteration), so that the peak can be placed in a step and
# phase; prints the peak per step, the overall peak (GNU time's maximum RSS) and `meniscus check`'s estimate.
# Extra arguments go to `meniscus run` (e.g. --restart FILE, --set mpm.heat.enabled=false).
# Usage: bash bench/candle-3d-memory.sh N STEPS [THREADS] [run args...]   (docs/performance.md, "Memory of
# the 3D candle")
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
n=${1:-63}
steps=${2:-3}
threads=${3:-2}
shift $(($# < 3 ? $# : 3))
bin=${MENISCUS:-$root/build/bin/meniscus}
mapfile -t wick < <(python3 "$root/bench/candle-3d-wick.py" "$n")
dx=$(python3 -c "print(repr(1.0 / $n))")
out=$(mktemp -d)
echo "output: $out"
common=(--set domain.cell_size="$dx" --set mpm.heat.heating_start_time=0 "${wick[@]}")
"$bin" check "$root/inputs/candle-3d.yaml" "${common[@]}" 2>&1 | grep '^estimate' || true
monitor=()
[ "${MONITOR:-0}" = 1 ] && monitor=(-- -mpm_newton_monitor)
OMP_NUM_THREADS=$threads OMP_PROC_BIND=false nice -n 19 /usr/bin/time -f "%U %S %M %e" -o "$out/time" \
  "$bin" run "$root/inputs/candle-3d.yaml" --output "$out/run" --steps "$steps" "${common[@]}" \
  --set diagnostics.every=1 --set progress.interval=0 --set output.every_time=0 --set checkpoint.every_minutes=0 \
  "$@" "${monitor[@]}" \
  >"$out/log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  child=$(pgrep -P "$pid" | head -n 1)
  if [ -n "$child" ]; then
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$child/status" 2>/dev/null)
    [ -n "$rss" ] && echo "$(wc -l <"$out/log") $rss" >>"$out/rss"
  fi
  sleep 0.5
done
wait "$pid"
rc=$?
[ "$rc" = 0 ] || { tail -n 20 "$out/log"; exit "$rc"; }
python3 - "$out" <<'PY'
import sys
d = sys.argv[1]
log = open(d + "/log").read().splitlines()
starts = [i + 1 for i, line in enumerate(log) if line.startswith("step ")]  # line count after each step's line
peak = {}
for row in open(d + "/rss"):
    lines, kib = map(int, row.split())
    step = 1 + sum(1 for s in starts if lines >= s)  # the step in progress
    peak[step] = max(peak.get(step, 0), kib)
for s in sorted(peak):
    if s <= len(starts):
        print(f"step {s}: peak RSS {peak[s] / 2**20:.3f} GiB ({peak[s] / 1024:.0f} MiB)")
u, sy, m, e = open(d + "/time").read().split()[:4]
print(f"whole run: peak RSS {int(m) / 2**20:.3f} GiB ({int(m) / 1024:.0f} MiB; GNU time), {float(u) + float(sy):.1f} CPU s, {e} s elapsed")
PY
