#!/usr/bin/env bash
# One in-situ ctest entry: runs insitu_driver on 2 ranks with a pipeline of inputs/catalyst/, then
# check_insitu.py on what it wrote.
#   run_insitu_test.sh extract|render|broken DRIVER SOURCE_DIR OUT_DIR MPIEXEC EXPAT_SHIM
#   extract: extract_particles.py, observer built from an `insitu:` deck section, no display needed;
#            the files are read back with ParaView's reader under the expat shim.
#   render:  render_velocity.py under xvfb-run (exit 77 = skipped when xvfb-run is missing).
#   broken:  a script that raises: the run must stop at the first call with a clear error.
set -euo pipefail
mode=$1 driver=$2 src=$3 out=$4 mpiexec=$5 shim=${6:-}
ranks=2
python=/usr/bin/python3   # Debian's python3 has python3-paraview's modules
rm -rf "$out"
mkdir -p "$out"

preload=()
if [ -n "$shim" ] && [ -f "$shim" ]; then
  preload=(env "LD_PRELOAD=$shim")
else
  echo "note: no expat shim ($shim); reading back may fail with libexpat1 >= 2.5.0-1+deb12u2"
fi

case "$mode" in
  extract)
    # Writing needs no shim: the run itself goes without it, as a user's run would.
    "$mpiexec" -n "$ranks" "$driver" --script "$src/inputs/catalyst/extract_particles.py" \
      --out "$out" --steps 5 --every 2 --deck
    "${preload[@]}" "$python" "$src/tests/catalyst/check_insitu.py" extract "$out"
    ;;
  render)
    if ! command -v xvfb-run >/dev/null 2>&1; then
      echo "SKIPPED: xvfb-run not found; rendering with Debian's ParaView needs an X server (apt-get install xvfb xauth)"
      exit 77
    fi
    mpi_preload=()
    if [ ${#preload[@]} -gt 0 ]; then mpi_preload=(-x "LD_PRELOAD=$shim"); fi
    xvfb-run -a -s '-screen 0 1280x1024x24' \
      "$mpiexec" -n "$ranks" "${mpi_preload[@]}" "$driver" \
      --script "$src/inputs/catalyst/render_velocity.py" --out "$out" --steps 4 --every 2
    "$python" "$src/tests/catalyst/check_insitu.py" render "$out"
    ;;
  broken)
    # A pipeline script with an error stops the run at its first call, on every rank, with a message
    # naming the script (exit 3 from insitu_driver), instead of running on without in-situ output.
    printf '# script-version: 2\nfrom paraview.simple import *\nraise RuntimeError("deliberately broken pipeline")\n' \
      > "$out/broken_pipeline.py"
    set +e
    "$mpiexec" -n "$ranks" "$driver" --script "$out/broken_pipeline.py" --out "$out" --steps 2 --every 1 \
      > "$out/log.txt" 2>&1
    rc=$?
    set -e
    cat "$out/log.txt"
    if [ "$rc" -ne 3 ]; then
      echo "FAIL: expected exit code 3 (the adaptor's error), got $rc"
      exit 1
    fi
    grep -q "insitu_driver: error: insitu: the Catalyst pipeline failed at its first execution.*broken_pipeline.py" \
      "$out/log.txt" || { echo "FAIL: no error naming the script"; exit 1; }
    grep -q "deliberately broken pipeline" "$out/log.txt" || { echo "FAIL: Python's error is not shown"; exit 1; }
    echo "PASS: a broken pipeline stops the run with a clear error"
    ;;
  *)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
