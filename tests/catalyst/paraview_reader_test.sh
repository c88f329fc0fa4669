#!/usr/bin/env bash
# The run's output opened with ParaView's own XDMF reader (pvpython) for 1 and 4 writer ranks, and
# compared with the HDF5 files read through h5py. Usage: paraview_reader_test.sh MENISCUS SRC WORK MPIEXEC SHIM
set -uo pipefail
meniscus=$1 src=$2 work=$3 mpiexec=$4 shim=${5:-}
command -v pvpython >/dev/null || { echo "skip: pvpython not installed"; exit 77; }
/usr/bin/python3 -c "import h5py" 2>/dev/null || { echo "skip: python3-h5py not installed"; exit 77; }
source "$src/scripts/mpi-env.sh"
rm -rf "$work"
status=0
for np in 1 4; do
  out=$work/np$np
  timeout 300 "$mpiexec" -n "$np" --oversubscribe "$meniscus" run "$src/inputs/dam-break-2d.yaml" --steps 20 --quiet \
    --output "$out" --set output.every=10 --set output.every_time=0 --set output.grid=true || { echo "FAIL  run np=$np"; exit 1; }
  echo "-- $np writer rank(s)"
  # ParaView 5.11's XML readers need the expat shim with current bookworm libexpat (docs/insitu.md);
  # the XDMF reader is XML too.
  env ${shim:+LD_PRELOAD=$shim} timeout 300 pvpython "$src/tests/catalyst/check_output.py" "$out" 3 || status=1
done
# The in-situ pipeline through the command line and the deck's insitu section (2 ranks).
out=$work/insitu
timeout 300 "$mpiexec" -n 2 --oversubscribe "$meniscus" run "$src/inputs/dam-break-2d.yaml" --steps 20 --quiet \
  --output "$out" --set insitu.script=catalyst/extract_particles.py --set insitu.every=10 >/dev/null 2>&1
n=$(ls "$out"/insitu/particles_*.pvtp 2>/dev/null | wc -l)
if [ "$n" = 3 ]; then echo "ok    meniscus run with insitu.script wrote 3 extracts"; else
  echo "FAIL  meniscus run with insitu.script wrote $n extracts, expected 3"; status=1; fi
# The grid channel: extract_grid.py gets each rank's block of the MPM grid; ParaView assembles the
# pieces into the whole grid, whose nodal mass sums to the particles' mass.
out=$work/insitu_grid
timeout 300 "$mpiexec" -n 2 --oversubscribe "$meniscus" run "$src/inputs/dam-break-2d.yaml" --steps 10 --quiet \
  --output "$out" --set insitu.script=catalyst/extract_grid.py --set insitu.every=10 >/dev/null 2>&1
mass=$(awk -F, 'NR == 2 {print $6}' "$out/diagnostics.csv")
env ${shim:+LD_PRELOAD=$shim} timeout 300 pvpython "$src/tests/catalyst/check_grid_extract.py" "$out/insitu" "$mass" || status=1
# The membrane channel: extract_membrane.py gets the membrane of membrane-ruan2021 (gathered to rank
# 0); each extract must equal the run's own membrane file of that step (2D segments, 3D triangles).
for case in "2 membrane-drop-2d-ci.yaml 4 2" "3 membrane-drop-3d-ci.yaml 2 1"; do
  read -r dim deck steps every <<<"$case"
  out=$work/insitu_membrane${dim}d
  timeout 300 "$mpiexec" -n 2 --oversubscribe "$meniscus" run "$src/inputs/$deck" --steps "$steps" --quiet \
    --output "$out" --set insitu.script=catalyst/extract_membrane.py --set insitu.every="$every" \
    --set output.every="$every" --set output.every_time=0 >/dev/null 2>&1 || { echo "FAIL  run $deck with extract_membrane.py"; status=1; }
  env ${shim:+LD_PRELOAD=$shim} timeout 300 pvpython "$src/tests/catalyst/check_membrane_extract.py" "$out" "$dim" 3 || status=1
done
exit $status
