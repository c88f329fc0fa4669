#!/usr/bin/env bash
# `meniscus check`'s memory estimate against a measured peak. The 3D candle (inputs/candle-3d.yaml at
# dx = 1/31 with the wick one cell wide, bench/candle-3d-wick.py; 19K particles, 10K surface samples,
# the implicit integrator with the assembled Hessian, the heat solve and surface tension) runs three
# steps on one rank; its peak resident set (getrusage's ru_maxrss of the child) must lie within the
# estimate per rank: measured <= estimate <= 1.15 x measured (138.6-142 MiB measured, 158 estimated; 162 and 174
# before the assembled blocks were freed after use). The larger decks'
# estimates are compared below with their measured peaks (docs/performance.md, "Memory of the 3D candle",
# "The estimate refitted", "Counted as the run seeds; the term on several ranks named").
# On 2 ranks (when mpirun is there) the same run, each rank's peak measured by a wrapper around it
# (getrusage of its own child): the largest rank's peak must lie within the estimate per rank (the largest
# rank's) as above, and the ranks' peaks summed within the estimate summed over the ranks.
# Usage: memory_estimate.sh MENISCUS SOURCE_DIR [MPIEXEC]. Prints "N passed, M failed".
BIN=$1
SRC=$2
MPIEXEC=${3:-}
LIMIT=300
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meniscus-memory.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export OMP_NUM_THREADS=1

deck=$SRC/inputs/candle-3d.yaml
mapfile -t wick < <(python3 "$SRC/bench/candle-3d-wick.py" 31)
args=(--set domain.cell_size=0.03225806451612903 --set mpm.heat.heating_start_time=0 "${wick[@]}")
# peak.py FILE COMMAND...: runs the command and writes its peak resident set in KiB (negative: its failed
# exit code) to FILE; under mpirun every rank writes its own (FILE.RANK).
cat >"$tmp/peak.py" <<'EOF'
import os, resource, subprocess, sys
path, cmd = sys.argv[1], sys.argv[2:]
rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK"))
name = path + ("." + rank if rank is not None else "")
with open(name + ".out", "w") as out, open(name + ".err", "w") as err:
    rc = subprocess.run(cmd, stdout=out, stderr=err, timeout=280).returncode
with open(name, "w") as f:
    print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -abs(rc), file=f)
EOF
run_args=(run "$deck" --steps 3 --quiet --set output.every_time=0 --set checkpoint.every_minutes=0 "${args[@]}")

# to_mib VALUE UNIT: an estimate's figure in MiB.
to_mib() { python3 -c "print(float('$1') * {'Ki': 1 / 1024.0, 'Mi': 1.0, 'Gi': 1024.0}['$2'])"; }

# check_run NP: `check --ranks NP`'s estimates against the measured peaks of a run on NP ranks.
check_run() {
  local np=$1 est_rank est_sum peaks verdict
  run_cmd "check_np$np" 1 check "$deck" --ranks "$np" "${args[@]}"
  est_rank=$(sed -n 's/.*, \([0-9.e+]*\) \([KMG]i\)B per rank.*/\1 \2/p' "$tmp/check_np$np.out" | head -n 1)
  est_sum=$(sed -n 's/.*about \([0-9.e+]*\) \([KMG]i\)B \(in all\|summed over the ranks\).*/\1 \2/p' "$tmp/check_np$np.out" | head -n 1)
  if [ "$rc" != 0 ] || [ -z "$est_rank" ] || [ -z "$est_sum" ]; then
    fail "check --ranks $np: no estimate per rank and summed (rc $rc)"
    show "$tmp/check_np$np.out"
    show "$tmp/check_np$np.err"
    return
  fi
  if [ "$np" = 1 ]; then
    timeout -k 10 "$LIMIT" python3 "$tmp/peak.py" "$tmp/peak$np" "$BIN" "${run_args[@]}" --output "$tmp/run$np"
  else
    timeout -k 10 "$LIMIT" "$MPIEXEC" -n "$np" --oversubscribe python3 "$tmp/peak.py" "$tmp/peak$np" "$BIN" \
      "${run_args[@]}" --output "$tmp/run$np" >"$tmp/mpirun$np.out" 2>&1
  fi
  peaks=$(for f in "$tmp"/peak"$np" "$tmp"/peak"$np".[0-9]*; do [[ "$f" != *.out && "$f" != *.err && -f "$f" ]] && cat "$f"; done | tr '\n' ' ')
  verdict=$(python3 -c "
peaks = [int(v) / 1024.0 for v in '$peaks'.split()]
rank, total = $(to_mib $est_rank), $(to_mib $est_sum)
if len(peaks) != $np or min(peaks) <= 0:
    print('bad run failed or not measured (%s)' % '$peaks')
else:
    big, all_ = max(peaks), sum(peaks)
    ok = big <= rank <= 1.15 * big and all_ <= total <= 1.15 * all_
    print(('ok' if ok else 'bad') + ' per rank: estimate %.0f MiB, largest peak %.0f MiB (%.2f); summed: estimate %.0f MiB, peaks %.0f MiB (%.2f)'
          % (rank, big, rank / big, total, all_, total / all_))
")
  if [[ "$verdict" == ok* ]]; then
    pass "3D candle 1/31, 3 steps, $np rank(s): ${verdict#ok } (measured <= estimate <= 1.15 x measured)"
  else
    fail "3D candle 1/31, 3 steps, $np rank(s): ${verdict#bad } (want measured <= estimate <= 1.15 x measured)"
    for f in "$tmp"/peak"$np"*.err "$tmp/mpirun$np.out"; do show "$f"; done
  fi
}
check_run 1
if have_mpi; then
  check_run 2
else
  echo "skip  2 ranks: no mpirun"
fi

# The larger decks' estimates against their measured peaks (`meniscus check` only; the runs take
# minutes to an hour: bench/candle-3d-memory.sh, bench/candle-3d.sh, bench/mpm-implicit-solver.sh), in KiB:
# the largest rank's peak over the run. Within 10 %, and on several ranks never below the peak (the docs'
# 10 % headroom is for what is not measured here). Before the refits: the impact deck 970 MiB against 654
# (1.48), the 1/127 candle on 2 ranks 3.72 GiB against 3.96 (0.94), 1/63 on 2 ranks 652 MiB against 660;
# with the old counts and 12 kB per reached node the 1/47 candle 0.89 (424 MiB against 478).
# The 1/127 candle on 2 ranks peaked at 3.96 GiB on older code, 3.71 GiB measured again (2 steps).
# Measured again after the Newton solve moved to the active nodes and the assembled blocks and the fused
# solver's matrix halves were freed after use (docs/performance.md, "One matrix at a time"): 3 steps, the
# 1/127 decks 2 (the second step's peak is the run's), 1 thread a rank (1/127 at one rank: 2 threads). The
# peaks before: 489,840 / 918,500 / 6,469,713 / 669,672 / 677,004 / 3,887,916 KiB in the order below.
# case: name, N (candle: dx = 1/N; impact: 0), ranks, measured KiB, lowest ratio allowed
while read -r name n np measured low; do
  if [ "$n" = 0 ]; then
    cargs=(inputs/mpm-droplet-impact-3d.yaml --set domain.cell_size=0.015873015873015872 --set mpm.integrator=implicit
      --set mpm.dt_max=1e-3)
  else
    mapfile -t wick < <(python3 "$SRC/bench/candle-3d-wick.py" "$n")
    cargs=("$deck" --set domain.cell_size="$(python3 -c "print(repr(1 / $n))")" "${wick[@]}")
  fi
  [ "$n" = 0 ] && cargs[0]=$SRC/${cargs[0]}
  run_cmd "check_$name" 1 check "${cargs[@]}" --ranks "$np"
  line=$(sed -n 's/.*, \([0-9.e+]*\) \([KMG]i\)B per rank.*/\1 \2/p' "$tmp/check_$name.out" | head -n 1)
  verdict=$(python3 -c "
v, unit = '$line'.split()
est = float(v) * {'Mi': 1.0, 'Gi': 1024.0}[unit]
peak = $measured / 1024.0
print(('ok' if $low <= est / peak <= 1.10 else 'bad') + ' estimate %.0f MiB, measured %.0f MiB, ratio %.3f' % (est, peak, est / peak))
" 2>&1)
  if [[ "$verdict" == ok* ]]; then
    pass "$name, $np rank(s): ${verdict#ok } (within $low .. 1.10)"
  else
    fail "$name, $np rank(s): ${verdict#bad } (want within $low .. 1.10)"
    show "$tmp/check_$name.err"
  fi
done <<'CASES'
candle-47 47 1 431872 0.90
candle-63 63 1 884616 0.90
candle-127 127 1 6081804 0.90
impact-3d-63 0 1 396708 0.90
candle-63-2ranks 63 2 632916 1.0
candle-127-2ranks 127 2 3675328 1.0
CASES
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
