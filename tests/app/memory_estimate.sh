#!/usr/bin/env bash
# `meniscus check`'s memory estimate against a measured peak. The 3D candle (inputs/candle-3d.yaml at
# dx = 1/31 with the wick one cell wide, bench/candle-3d-wick.py; 19K particles, 10K surface samples,
# the implicit integrator with the assembled Hessian, the heat solve and surface tension) runs three
# steps on one rank; its peak resident set (getrusage's ru_maxrss of the child) must lie within the
# estimate per rank: measured <= estimate <= 1.5 x measured. The same terms put the 1/47, 1/63 and
# 1/127 candles 1-3 % above their measured peaks (docs/performance.md, "Memory of the 3D candle");
# before they followed what the code allocates, the estimate was 1.7x the measured peak at 1/127
# (10.7 GiB against 6.17 from the second step on).
# Usage: memory_estimate.sh MENISCUS SOURCE_DIR. Prints "N passed, M failed".
BIN=$1
SRC=$2
MPIEXEC=""
LIMIT=300
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meniscus-memory.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export OMP_NUM_THREADS=1

deck=$SRC/inputs/candle-3d.yaml
mapfile -t wick < <(python3 "$SRC/bench/candle-3d-wick.py" 31)
args=(--set domain.cell_size=0.03225806451612903 --set mpm.heat.heating_start_time=0 "${wick[@]}")
run_cmd check 1 check "$deck" "${args[@]}"
estimate=$(sed -n 's/.*, \([0-9.e+]*\) \([KMG]i\)B per rank.*/\1 \2/p' "$tmp/check.out" | head -n 1)
if [ "$rc" != 0 ] || [ -z "$estimate" ]; then
  fail "check: no estimate per rank (rc $rc)"
  show "$tmp/check.out"
  show "$tmp/check.err"
else
  peak_kib=$(python3 - "$BIN" "$tmp" "$deck" "${args[@]}" <<'EOF'
import resource, subprocess, sys
binary, tmp, deck, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with open(tmp + "/run.out", "w") as out, open(tmp + "/run.err", "w") as err:
    rc = subprocess.run([binary, "run", deck, "--steps", "3", "--quiet", "--output", tmp + "/run", "--set",
                         "output.every_time=0", "--set", "checkpoint.every_minutes=0"] + args,
                        stdout=out, stderr=err, timeout=300).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -rc)
EOF
)
  read -r value unit <<<"$estimate"
  verdict=$(python3 -c "
import sys
v, unit, peak = float('$value'), '$unit', int('$peak_kib') / 1024.0
est = v * {'Ki': 1 / 1024.0, 'Mi': 1.0, 'Gi': 1024.0}[unit]
ok = peak > 0 and peak <= est <= 1.5 * peak
print(('ok' if ok else 'bad') + ' estimate %.0f MiB, measured peak %.0f MiB, ratio %.2f' % (est, peak, est / peak if peak > 0 else 0))
" 2>&1)
  if [ "${peak_kib:-0}" -le 0 ] 2>/dev/null; then
    fail "run of the 1/31 candle failed (rc ${peak_kib#-})"
    show "$tmp/run.err"
  elif [[ "$verdict" == ok* ]]; then
    pass "3D candle 1/31, 3 steps: ${verdict#ok } (measured <= estimate <= 1.5 x measured)"
  else
    fail "3D candle 1/31, 3 steps: ${verdict#bad } (want measured <= estimate <= 1.5 x measured)"
  fi
fi

# The larger candles' estimates against their measured peaks (`meniscus check` only; the runs take
# minutes: bench/candle-3d-memory.sh, docs/performance.md, "Memory of the 3D candle"), within 15 %:
# peak resident set over three steps at 1 x 2 threads, in KiB.
for case in "47 491336" "63 918500"; do
  read -r n measured <<<"$case"
  mapfile -t wick < <(python3 "$SRC/bench/candle-3d-wick.py" "$n")
  run_cmd "check$n" 1 check "$deck" --set domain.cell_size="$(python3 -c "print(repr(1 / $n))")" "${wick[@]}"
  line=$(sed -n 's/.*, \([0-9.e+]*\) \([KMG]i\)B per rank.*/\1 \2/p' "$tmp/check$n.out" | head -n 1)
  verdict=$(python3 -c "
v, unit = '$line'.split()
est = float(v) * {'Mi': 1.0, 'Gi': 1024.0}[unit]
peak = $measured / 1024.0
print(('ok' if abs(est / peak - 1) <= 0.15 else 'bad') + ' estimate %.0f MiB, measured %.0f MiB, ratio %.2f' % (est, peak, est / peak))
" 2>&1)
  if [[ "$verdict" == ok* ]]; then
    pass "3D candle 1/$n: ${verdict#ok } (within 15 %)"
  else
    fail "3D candle 1/$n: ${verdict#bad } (want within 15 %)"
    show "$tmp/check$n.err"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
