#!/usr/bin/env bash
# Whole-program checks of what a careless or hostile user can do to a run (issue 18):
#   input       duplicate keys, empty values, a folder or missing deck, --threads/OMP_NUM_THREADS out of
#               bounds, decks too large for memory or for 32-bit indices, a grid that cannot be split
#               among the ranks `check` is asked about, --steps before a restart's step: exit 2, one line,
#               and no output folder left behind;
#   folder      a second run into a folder holding another run is refused; --overwrite clears it;
#               --restart appends and drops the later particle files;
#   checkpoint  a checkpoint with flipped bytes or a changed density is refused on restart (exit 2
#               naming the dataset or the key), also under mpirun -n 2; a full disk during a
#               checkpoint ends with exit 1 and no .tmp, no crash (np 1 and 2);
#   unstable    SPH with a far too large dt, or losing mass through the open box, stops with exit 1
#               naming the step and the key, after a diagnostics row and a checkpoint of the failing
#               state; the MPM non-finite-velocity guard does the same; an SPH run whose particles all
#               leave writes valid empty files, and a restart reads them;
#   signals     SIGINT, SIGHUP and SIGTERM stop with a checkpoint (exit 130, 129, 143); under mpirun -n 2
#               the same for SIGTERM to the ranks (as Slurm's scancel sends it); jobs/mpirun.sh gives
#               143 (130) for SIGTERM (SIGINT) to mpirun, to itself or to the whole job, 0 for SIGUSR1;
#               SIGTERM and SIGUSR1 during setup stop at once;
#   hostile     more of the same kinds: NaN/inf in every family of numeric keys, empty list entries,
#               memory bombs through a huge box, tiny SPH particles or the 3D implicit integrator,
#               KOKKOS_NUM_THREADS, --steps 0, a folder or FIFO where a file belongs, restarts into
#               another method or dimension or before the checkpoint's time, a flipped byte in every
#               checkpoint dataset (the stored deck included), an SPH restart from an empty set, and
#               an allocation that fails after the estimate passed (one line, exit 1).
#
# usage: reliability.sh MENISCUS SOURCE_DIR [MPIEXEC] [GROUP]
# Prints one line per check and finally "N passed, M failed"; exits non-zero if any check failed.
set -u

BIN=${1:?usage: reliability.sh MENISCUS SOURCE_DIR [MPIEXEC] [GROUP]}
SRC=${2:?usage: reliability.sh MENISCUS SOURCE_DIR [MPIEXEC] [GROUP]}
MPIEXEC=${3:-}
GROUP=${4:-all}
LIMIT=120

[ -f "$SRC/scripts/mpi-env.sh" ] && . "$SRC/scripts/mpi-env.sh"
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

DECK=$SRC/inputs/dam-break-2d.yaml
SPH=$SRC/inputs/sph-plateau-rayleigh-ci.yaml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meniscus-reliability.XXXXXX")
mounted=""
trap '[ -n "$mounted" ] && umount "$mounted" 2>/dev/null; rm -rf "$tmp"' EXIT

# np_cmd NP: the launcher prefix for NP ranks (empty for one).
np_run() {
  local name=$1 np=$2
  shift 2
  if [ "$np" != 1 ] && ! have_mpi; then
    rc=skip
    return
  fi
  run_cmd "$name" "$np" "$@"
}
crashed() { grep -q -E 'Segmentation fault|Aborted|terminate called|Process received signal|HDF5-DIAG|addr overflow' "$1"; }

# expect LABEL NP CODE WORDS ARGS...: meniscus ARGS exits with CODE, its first "error:" line (if
# CODE != 0) contains every |-separated WORD, exactly one error line, and nothing crashed.
expect() {
  local label=$1 np=$2 code=$3 words=$4
  shift 4
  np_run "$label" "$np" "$@"
  if [ "$rc" = skip ]; then
    echo "skip  $label (np=$np): no mpiexec"
    return 1
  fi
  local err=$tmp/$label.err problems="" line count
  [ "$rc" = "$code" ] || problems+="exit code $rc, expected $code; "
  line=$(grep -m1 '^error: ' "$err")
  count=$(grep -c '^error: ' "$err")
  if [ "$code" != 0 ]; then
    [ "$count" = 1 ] || problems+="$count error lines, expected 1; "
    local IFS='|' w
    for w in $words; do [[ "$line" == *"$w"* ]] || problems+="error line lacks '$w'; "; done
  fi
  ! crashed "$err" || problems+="crash output on stderr; "
  if [ -z "$problems" ]; then
    pass "$label (np=$np): exit $rc${line:+: $(echo "$line" | cut -c1-150)}"
    return 0
  fi
  fail "$label (np=$np): $problems"
  show "$err"
  return 1
}

input_checks() {
  printf 'simulation:\n  dimension: 2\n  method: mpm-explicit\n  dimension: 3\n' >"$tmp/dup.yaml"
  expect duplicate_key 1 2 "dup.yaml|simulation.dimension|duplicate key|line 2|line 4" check "$tmp/dup.yaml"
  sed -e 's/^  cfl: 0.4/  cfl:/' "$DECK" >"$tmp/empty.yaml"
  expect empty_value 1 2 "empty.yaml|mpm.cfl|empty value" check "$tmp/empty.yaml"
  expect empty_set 1 2 "mpm.cfl|empty value" check "$DECK" --set mpm.cfl=
  mkdir -p "$tmp/folder.yaml"
  expect deck_is_folder 1 2 "folder.yaml|is a directory" check "$tmp/folder.yaml"
  local out=$tmp/never
  expect threads_zero 1 2 "--threads" run "$DECK" --threads 0 --output "$out" --steps 1
  expect threads_negative 1 2 "--threads" run "$DECK" --threads -3 --output "$out" --steps 1
  expect threads_too_many 1 2 "--threads 1000 exceeds" run "$DECK" --threads 1000 --output "$out" --steps 1
  OMP_NUM_THREADS=1000 expect omp_threads_too_many 1 2 "OMP_NUM_THREADS|exceeds" run "$DECK" --output "$out" --steps 1
  OMP_NUM_THREADS=0 expect omp_threads_zero 1 2 "OMP_NUM_THREADS" run "$DECK" --output "$out" --steps 1
  # 1e-5 m cells: 2.6e8 particles, hundreds of GiB. check prints the estimate, run refuses at once.
  if expect memory_bomb_check 1 0 "" check "$DECK" --set domain.cell_size=1e-5; then
    grep -q 'estimate for 1 rank: 2.6.e+08 particles' "$tmp/memory_bomb_check.out" && pass "memory_bomb_check prints the estimate" ||
      fail "memory_bomb_check: no estimate line with 2.6e+08 particles"
  fi
  expect memory_bomb_run 1 2 "domain.cell_size|needs about|per rank" run "$DECK" --set domain.cell_size=1e-5 --output "$out"
  expect memory_bomb_ppc 1 2 "domain.cell_size|particles per rank" run "$DECK" --set "sources[0].particles_per_cell=1000000" --output "$out"
  expect max_memory 1 2 "run.max_memory" run "$DECK" --set run.max_memory=10MiB --output "$out" --steps 1
  expect index_overflow_check 1 2 "domain.cell_size|32-bit" check "$DECK" --set domain.cell_size=1e-6
  expect index_overflow_run 1 2 "domain.cell_size|32-bit" run "$DECK" --set domain.cell_size=1e-6 --output "$out"
  # 10 x 4 cells cannot be split among 4 ranks: check --ranks 4 says so, as run -n 4 would.
  expect check_ranks 1 2 "domain.cell_size" check "$DECK" --set domain.cell_size=0.04 --ranks 4
  [ ! -e "$out" ] && pass "no output folder was created by the refused runs" || fail "refused runs created $out"
  # Two overlapping sources: check warns (the mass adds up where they meet); the plain deck does not.
  sed -e 's/^diagnostics:/  - {type: box, material: water, lower: [0.03, 0.03], upper: [0.1, 0.1]}\ndiagnostics:/' "$DECK" >"$tmp/overlap.yaml"
  if expect overlap_check 1 0 "" check "$tmp/overlap.yaml"; then
    grep -q 'warning: .*sources\[0\] and sources\[1\] overlap' "$tmp/overlap_check.err" && pass "overlap_check: warning printed" ||
      fail "overlap_check: no overlap warning"
    run_cmd no_overlap 1 check "$DECK"
    ! grep -q overlap "$tmp/no_overlap.err" && pass "no overlap warning for a single source" || fail "overlap warning without overlap"
  fi
  # mpm-multiphase removes the air seeded inside the smoke ball (`displaces: true`): no warning there,
  # but the same scene without `displaces` overlays the two and is warned about.
  SMOKE="$SRC/inputs/mpm-multiphase-smoke-3d-ci.yaml"
  run_cmd overlap_displaces 1 check "$SMOKE"
  ! grep -q overlap "$tmp/overlap_displaces.err" && pass "no overlap warning where a material displaces the other" ||
    fail "overlap warning although mpm-multiphase removes the overlap"
  run_cmd overlap_no_displaces 1 check "$SMOKE" --set materials[1].displaces=false
  grep -q 'warning: .*sources\[0\] and sources\[1\] overlap' "$tmp/overlap_no_displaces.err" &&
    pass "overlap warning where neither material displaces the other" || fail "no overlap warning for overlaid fluids"
  # --steps before the checkpoint's step.
  run_cmd steps_setup 1 run "$DECK" --output "$tmp/steps" --steps 4 --quiet --set checkpoint.every=4 --set output.every_time=0
  expect restart_steps_below 1 2 "--steps 2|step 4" run "$DECK" --output "$tmp/steps" --steps 2 --restart latest "$tmp/steps"
}

folder_checks() {
  local out=$tmp/folder args=(--quiet --set checkpoint.every=4 --set output.every=4)
  expect first_run 1 0 "" run "$DECK" --output "$out" --steps 8 "${args[@]}" || return
  expect second_run_refused 1 2 "$out|holds another run|--overwrite" run "$DECK" --output "$out" --steps 4 "${args[@]}"
  [ -f "$out/checkpoints/chk_000008.h5" ] && pass "the refused run left the first run intact" || fail "the refused run changed the first run"
  expect restart_appends 1 0 "" run "$DECK" --output "$out" --steps 6 --restart "$out/checkpoints/chk_000004.h5" "${args[@]}"
  local problems=""
  [ -e "$out/particles_000008.h5" ] && problems+="particles_000008.h5 of the abandoned future is still there; "
  [ "$(tail -n 1 "$out/diagnostics.csv" | cut -d, -f1)" = 6 ] || problems+="diagnostics.csv does not end at step 6; "
  grep -q 'particles_000008' "$out/particles.xdmf" && problems+="particles.xdmf still lists step 8; "
  [ -z "$problems" ] && pass "restart truncated diagnostics and the particle series after step 4" || fail "restart: $problems"
  expect overwrite 1 0 "" run "$DECK" --output "$out" --steps 2 --overwrite --quiet
  [ ! -e "$out/checkpoints" ] && [ ! -e "$out/particles_000004.h5" ] && pass "--overwrite removed the earlier run's files" ||
    fail "--overwrite left the earlier run's files"
}

checkpoint_checks() {
  local out=$tmp/chk
  run_cmd chk_setup 1 run "$DECK" --output "$out" --steps 2 --quiet --set checkpoint.every=2 --set output.every_time=0
  local good=$out/checkpoints/chk_000002.h5
  if [ ! -f "$good" ]; then
    fail "checkpoint setup: no $good"
    return
  fi
  # Flip 64 bytes inside /particles/velocity (its offset from h5dump, else a fixed spot in the data).
  local off
  off=$(h5dump -p -H -d /particles/velocity "$good" 2>/dev/null | awk '/OFFSET/ {print $2; exit}')
  off=${off:-200000}
  cp "$good" "$tmp/flipped.h5"
  python3 - "$tmp/flipped.h5" $((off + 800)) <<'EOF'
import sys
path, at = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(at); b = bytearray(f.read(64)); f.seek(at); f.write(bytes(x ^ 0x5A for x in b))
EOF
  for np in 1 2; do
    expect "flipped_np$np" "$np" 2 "flipped.h5|particles/velocity|checksum" run "$DECK" --output "$tmp/r$np" --steps 4 --restart "$tmp/flipped.h5"
    expect "density_changed_np$np" "$np" 2 "chk_000002.h5|materials[0].density|1000|1200" run "$DECK" --output "$tmp/d$np" \
      --steps 4 --restart "$good" --set "materials[0].density=1200"
  done
  [ ! -e "$tmp/r1" ] && [ ! -e "$tmp/d1" ] && pass "refused restarts created no output folder" || fail "a refused restart created its output folder"
  # Disk full in the middle of a write: the checkpoint's .tmp is /dev/full (writes fail with ENOSPC).
  for np in 1 2; do
    ln -sf /dev/full "$out/checkpoints/chk_000004.h5.tmp"
    if expect "disk_full_np$np" "$np" 1 "chk_000004.h5.tmp|file system full" run "$DECK" --output "$out" --steps 4 --quiet \
      --set checkpoint.every=2 --set output.every_time=0 --restart latest "$out"; then
      compgen -G "$out/checkpoints/*.tmp" >/dev/null && fail "disk_full_np$np: the .tmp is still there" ||
        pass "disk_full_np$np: partial file removed, chk_000002 kept"
    fi
  done
  # Disk full before the write: a 2 MB tmpfs holds one 1.4 MB checkpoint, not two.
  mkdir -p "$tmp/small"
  if mount -t tmpfs -o size=2m tmpfs "$tmp/small" 2>/dev/null; then
    mounted=$tmp/small
    expect disk_full_tmpfs 1 1 "no room for checkpoint|chk_000004.h5" run "$DECK" --output "$tmp/small/o" --steps 6 --quiet \
      --set checkpoint.every=2 --set output.every_time=0 --set checkpoint.keep=3
    umount "$tmp/small" && mounted=""
  else
    echo "skip  disk_full_tmpfs: cannot mount a tmpfs here"
  fi
}

unstable_checks() {
  local out=$tmp/sph_dt
  # dt = 0.1 s, a hundred times the deck's: the second step flings particles five cells at once.
  if expect sph_dt_unstable 1 1 "step 2|unstable|sph.dt|unstable/chk_000002.h5" run "$SPH" --output "$out" --quiet --set sph.dt=0.1 \
    --end-time 0.2; then
    [ -f "$out/unstable/chk_000002.h5" ] && [ "$(tail -n 1 "$out/diagnostics.csv" | cut -d, -f1)" = 2 ] &&
      pass "sph_dt_unstable: checkpoint of the failing state and its diagnostics row" || fail "sph_dt_unstable: no last checkpoint or row"
  fi
  # The column moves out of the (open) box at 4 m/s: mass leaves, slowly enough for every CFL check.
  expect sph_mass_removed 1 1 "run.max_removed_mass|% of the particle mass|unstable/chk_" run "$SPH" --output "$tmp/sph_mass" --quiet \
    --set "sources[0].velocity=[4,0,0]"
  # With the limit lifted every particle leaves: the files of an empty set are valid and restart.
  out=$tmp/sph_empty
  if expect sph_all_gone 1 0 "" run "$SPH" --output "$out" --quiet --set "sources[0].velocity=[15,0,0]" --set run.max_removed_mass=1 \
    --set simulation.end_time=0.04 --set checkpoint.every=30; then
    local shape
    shape=$(h5dump -H -d /position "$out/particles_000040.h5" 2>&1 | grep -o 'DATASPACE  SIMPLE { ( 0, 3 )')
    [ -n "$shape" ] && pass "sph_all_gone: particles_000040.h5 holds a valid 0 x 3 position dataset" ||
      fail "sph_all_gone: particles_000040.h5 is not a valid empty file"
    expect sph_empty_restart 1 0 "" run "$SPH" --output "$out" --quiet --set "sources[0].velocity=[15,0,0]" \
      --set run.max_removed_mass=1 --set simulation.end_time=0.04 --steps 30 --restart latest "$out"
  fi
  out=$tmp/mpm_nan
  if expect mpm_nonfinite 1 1 "non-finite velocity|mpm.cfl|unstable/chk_" run "$DECK" --output "$out" --quiet --steps 5 \
    --set "sources[0].velocity=[1e307,0]"; then
    compgen -G "$out/unstable/chk_*.h5" >/dev/null && pass "mpm_nonfinite: checkpoint of the failing state written" ||
      fail "mpm_nonfinite: no checkpoint of the failing state"
  fi
}

# signal_stop LABEL NP SIGNAL CODE TARGET [LAUNCHER]: signal a running job and expect CODE and a
# checkpoint. TARGET: main = the launched process; ranks = every rank (as Slurm's scancel does);
# child = the launcher's child (mpirun under jobs/mpirun.sh); group = every process of the job (Slurm
# at its time limit, or Ctrl-C). LAUNCHER: mpirun (default) or wrapper (jobs/mpirun.sh).
signal_stop() {
  local label=$1 np=$2 sig=$3 code=$4 target=$5 launcher=${6:-mpirun} out=$tmp/$1
  if [ "$np" != 1 ] && ! have_mpi; then
    echo "skip  $label: no mpiexec"
    return
  fi
  local args=(run "$DECK" --output "$out" --quiet --set diagnostics.every=20)
  # A background job of a script starts with SIGINT ignored, which a shell (jobs/mpirun.sh) cannot
  # undo; from a terminal it is not: give it back its default.
  local setsid="env --default-signal=INT setsid"
  if [ "$np" = 1 ]; then
    $setsid "$BIN" "${args[@]}" >"$tmp/$label.out" 2>"$tmp/$label.err" &
  elif [ "$launcher" = wrapper ]; then
    # mpirun's pause between its SIGTERM and SIGKILL to the ranks, shortened for the test.
    OMPI_MCA_odls_base_sigkill_timeout=3 MPIRUN=$MPIEXEC $setsid bash "$SRC/jobs/mpirun.sh" -n "$np" --oversubscribe \
      "$BIN" "${args[@]}" >"$tmp/$label.out" 2>"$tmp/$label.err" &
  else
    $setsid "$MPIEXEC" -n "$np" --oversubscribe "$BIN" "${args[@]}" >"$tmp/$label.out" 2>"$tmp/$label.err" &
  fi
  local pid=$! waited=0
  until [ -f "$out/diagnostics.csv" ] && [ "$(wc -l <"$out/diagnostics.csv")" -ge 3 ]; do
    sleep 0.1
    waited=$((waited + 1))
    if [ "$waited" -gt 600 ]; then
      kill -9 -- "-$pid" 2>/dev/null
      fail "$label: the run did not start stepping"
      return
    fi
  done
  case $target in
    ranks) pkill "-$sig" -P "$pid" ;;
    child) kill "-$sig" "$(pgrep -P "$pid" | head -n 1)" ;;
    group) kill "-$sig" -- "-$pid" ;;
    *) kill "-$sig" "$pid" ;;
  esac
  { wait "$pid"; } 2>/dev/null
  rc=$?
  local problems=""
  [ "$code" = any ] || [ "$rc" = "$code" ] || problems+="exit code $rc, expected $code; "
  compgen -G "$out/checkpoints/chk_*.h5" >/dev/null || problems+="no checkpoint; "
  grep -q "SIG$sig received: stopped after step" "$tmp/$label.err" || problems+="no stop message; "
  [ -z "$problems" ] && pass "$label: SIG$sig -> checkpoint, exit $rc" || { fail "$label: $problems"; show "$tmp/$label.err"; }
}

# setup_stop LABEL SIGNAL CODE: the signal during setup (seeding 650k particles) stops the run at once.
setup_stop() {
  local label=$1 sig=$2 code=$3 out=$tmp/$1
  "$BIN" run "$DECK" --output "$out" --quiet --set domain.cell_size=0.0002 >"$tmp/$label.out" 2>"$tmp/$label.err" &
  local pid=$! n=0 bit
  bit=$(kill -l "$sig")
  # The setup handler is in place once the process catches the signal (its bit of SigCgt in /proc).
  caught() { local m; m=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [ -n "$m" ] && (((16#$m >> (bit - 1)) & 1)); }
  until caught || [ "$n" -gt 500 ]; do
    sleep 0.01
    n=$((n + 1))
  done
  local t0=$SECONDS
  kill "-$sig" "$pid"
  { wait "$pid"; } 2>/dev/null
  rc=$?
  local took=$((SECONDS - t0))
  if [ "$rc" = "$code" ] && [ "$took" -le 3 ] && grep -q 'during setup' "$tmp/$label.err" && [ ! -e "$out/diagnostics.csv" ]; then
    pass "$label: SIG$sig during setup, exit $rc after ${took}s"
  else
    fail "$label: exit $rc after ${took}s"
    show "$tmp/$label.err"
  fi
}

signal_checks() {
  signal_stop sigint 1 INT 130 main
  signal_stop sighup 1 HUP 129 main
  signal_stop sigterm 1 TERM 143 main
  signal_stop sigterm_ranks 2 TERM 143 ranks
  # SIGTERM to mpirun itself: Open MPI's mpirun ends the job (the ranks still checkpoint) and exits 1
  # whatever the ranks report; jobs/mpirun.sh exits with rank 0's 143, whichever process is signalled.
  signal_stop sigterm_plain_mpirun 2 TERM any main
  signal_stop sigterm_mpirun 2 TERM 143 child wrapper
  signal_stop sigterm_launcher 2 TERM 143 main wrapper
  signal_stop sigterm_job 2 TERM 143 group wrapper
  signal_stop sigint_job 2 INT 130 group wrapper
  signal_stop sigusr1_mpirun 2 USR1 0 main wrapper
  setup_stop setup_sigterm TERM 143
  setup_stop setup_sigusr1 USR1 0
}


# hostile: further cases of the same kinds, tried as a hostile user would (issue 18, "other cases of
# the same kind will be tried").
hostile_checks() {
  local out=$tmp/never
  local D3=$SRC/inputs/mpm-oscillating-drop-3d-ci.yaml
  # NaN and infinity in one key of every numeric family (scalars, vectors, list entries, sections).
  local kv
  for kv in "simulation.end_time=.nan" "domain.cell_size=.inf" "domain.lower=[.nan, 0]" "mpm.cfl=.nan" \
    "mpm.gravity=[0, .inf]" "mpm.newton.tolerance=.nan" "mpm.surface_tension.coefficient=.nan" \
    "mpm.heat.ambient_temperature=-.inf" "materials[0].density=.nan" "sources[0].upper=[.nan, 0.1]" \
    "sources[0].velocity=[0, .nan]" "run.max_memory=.nan" "run.max_removed_mass=.nan" "output.every_time=.inf" \
    "checkpoint.every_minutes=.nan" "progress.interval=.nan"; do
    expect "nan_${kv%%=*}" 1 2 "${kv%%=*}|finite" check "$DECK" --set "$kv"
  done
  expect nan_sph 1 2 "sph.surface_tension|finite" check "$SPH" --set sph.surface_tension=.nan
  # Empty entries in nested lists, on the command line and in a deck.
  expect empty_list_entry_set 1 2 "sources[0].lower[0]|got nothing" check "$DECK" --set "sources[0].lower=[, 0.1]"
  sed -e 's/^    lower: \[0.0028, 0.0028\].*/    lower: [0.0028, ]/' "$DECK" >"$tmp/short.yaml"
  grep -q 'lower: \[0.0028, \]' "$tmp/short.yaml" || fail "empty_list_entry_deck: could not edit the deck"
  expect empty_list_entry_deck 1 2 "short.yaml|sources[0].lower|expected 2 components" check "$tmp/short.yaml"
  # Memory bombs through other keys: a huge box, tiny SPH particles, the implicit integrator in 3D
  # (its assembled Hessian needs ~12 kB per grid node the drop reaches, its particles 1.5 kB: 2.1 GiB here,
  # where the explicit integrator's estimate would be 0.2 GB).
  expect huge_domain 1 2 "domain.cell_size|32-bit" run "$DECK" --set "domain.upper=[1000, 1000]" --output "$out"
  # Tiny particles with the lattice to match (cell_size = 2r at one particle per cell); with the radius
  # alone the sources' lattice no longer matches the particles, and that is refused first.
  expect sph_tiny_particles 1 2 "domain.cell_size|32-bit" run "$SPH" --set sph.particle_radius=1e-6 \
    --set domain.cell_size=2e-6 --output "$out"
  expect sph_radius_off_lattice 1 2 "sources|lattice spacing|particle diameter" run "$SPH" --set sph.particle_radius=1e-6 \
    --output "$out"
  expect implicit_3d_memory 1 2 "domain.cell_size|needs about|run.max_memory" run "$D3" --set mpm.integrator=implicit \
    --set domain.cell_size=0.0079365 --set run.max_memory=1GiB --output "$out"
  # Threads through Kokkos' own variable.
  KOKKOS_NUM_THREADS=1000 expect kokkos_threads_too_many 1 2 "KOKKOS_NUM_THREADS|exceeds" run "$DECK" --output "$out" --steps 1
  KOKKOS_NUM_THREADS=abc expect kokkos_threads_bad 1 2 "KOKKOS_NUM_THREADS|whole number" run "$DECK" --output "$out" --steps 1
  KOKKOS_NUM_THREADS=1 expect kokkos_threads_contradict 1 2 "KOKKOS_NUM_THREADS|contradicts --threads 2" run "$DECK" \
    --output "$out" --steps 1 --threads 2
  expect steps_zero 1 2 "--steps" run "$DECK" --output "$out" --steps 0
  # Unreadable files: a folder as restart file or mesh, a FIFO as deck.
  mkdir -p "$tmp/adir"
  expect restart_is_folder 1 2 "adir|is a directory|--restart latest" run "$DECK" --output "$out" --restart "$tmp/adir"
  expect mesh_is_folder 1 2 "sources[1].file|is a directory" check "$SRC/inputs/mesh-torus-drop-3d.yaml" --set "sources[1].file=$tmp/adir"
  mkfifo "$tmp/fifo.yaml" && expect deck_is_fifo 1 2 "fifo.yaml|not a regular file" check "$tmp/fifo.yaml"
  # `check` refuses what `run` would refuse while seeding or loading meshes.
  expect check_ppc_not_square 1 2 "sources[0].particles_per_cell|perfect square" check "$DECK" --set "sources[0].particles_per_cell=8"
  expect check_box_inverted 1 2 "sources[0].upper|exceed lower" check "$DECK" --set "sources[0].upper=[0.001, 0.1]"
  expect check_sph_spacing 1 2 "sources[0].particles_per_cell|2 * sph.particle_radius" check "$SPH" --set sph.particle_radius=0.013
  # An output interval in the wrong unit: a file every step for billions of steps. check and run refuse
  # it; a sane interval gets the file count and size in the estimate line.
  expect output_every_time_tiny_check 1 2 "output.every_time|particle files|output.every" check "$DECK" --set output.every_time=1e-9
  expect output_every_time_tiny_run 1 2 "output.every_time|particle files" run "$DECK" --set output.every_time=1e-9 --output "$out"
  if expect output_estimate 1 0 "" check "$DECK" --set output.every_time=0.01 --set simulation.end_time=1; then
    grep -q 'output: 101 particle files of about' "$tmp/output_estimate.out" && pass "output_estimate: 101 files for 1 s every 0.01 s" ||
      fail "output_estimate: no 'output: 101 particle files' in the estimate line"
  fi
  printf 'v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n' >"$tmp/nan.obj"
  expect check_mesh_nan 1 2 "sources[1].file|non-finite" check "$SRC/inputs/mesh-torus-drop-3d.yaml" --set "sources[1].file=$tmp/nan.obj"
  # A membrane body outside the domain box (issue 17): check refuses it as run does, before any output.
  local MEMB=$SRC/inputs/membrane-float-cylinder-2d-ci.yaml
  expect membrane_body_outside_check 1 2 "membrane-float-cylinder-2d-ci.yaml|membrane.bodies[0].center|inside the box" \
    check "$MEMB" --set "membrane.bodies[0].center=[5, 0.9]"
  expect membrane_body_outside_run 1 2 "membrane-float-cylinder-2d-ci.yaml|membrane.bodies[0].center|inside the box" \
    run "$MEMB" --set "membrane.bodies[0].center=[1.0, -0.5]" --output "$out"
  expect membrane_body_on_wall_check 1 2 "membrane.bodies[0].center|a cell away" \
    check "$MEMB" --set "membrane.bodies[0].center=[1.96, 0.9]"
  expect membrane_held_fixed_check 1 2 "membrane.bodies[0].held|fixed" \
    check "$MEMB" --set "membrane.bodies[0].held=x" --set "membrane.bodies[0].fixed=true"
  expect membrane_held_moving_check 1 2 "membrane.bodies[0].held|velocity" \
    check "$MEMB" --set "membrane.bodies[0].held=y" --set "membrane.bodies[0].velocity=[0, 1]"
  expect membrane_held_bad_check 1 2 "membrane.bodies[0].held" check "$MEMB" --set "membrane.bodies[0].held=z"
  [ ! -e "$out" ] && pass "no output folder was created by the refused runs" || fail "refused runs created $out"

  # Restarts that cannot continue this checkpoint: another method or dimension, a time before it.
  local run=$tmp/h_run
  run_cmd h_setup 1 run "$DECK" --output "$run" --steps 4 --quiet --set checkpoint.every=4 --set output.every_time=0
  local chk=$run/checkpoints/chk_000004.h5
  expect restart_other_method 1 2 "chk_000004.h5|mpm|sph-jeske2023" run "$SPH" --output "$tmp/h1" --restart "$chk"
  expect restart_other_dimension 1 2 "chk_000004.h5|2D|3D" run "$D3" --output "$tmp/h2" --restart "$chk"
  expect restart_end_time_before 1 2 "--end-time|checkpoint's time" run "$DECK" --output "$run" --restart "$chk" --end-time 1e-6
  # Every dataset is verified, the deck (metadata) included: 8 flipped bytes in the middle of each.
  local ds off size
  for ds in deck particles/position particles/velocity particles/affine_velocity particles/mass particles/id \
    particles/material particles/volume_ratio particles/initial_volume particles/rank_counts; do
    off=$(h5dump -p -H -d "/$ds" "$chk" 2>/dev/null | awk '/OFFSET/ {print $2; exit}')
    size=$(h5dump -p -H -d "/$ds" "$chk" 2>/dev/null | awk '/ SIZE / {print $2; exit}')
    if [ -z "$off" ] || [ -z "$size" ]; then
      fail "checksum_${ds##*/}: no offset for /$ds"
      continue
    fi
    cp "$chk" "$tmp/flip.h5"
    python3 - "$tmp/flip.h5" $((off + size / 2 - 4)) <<'PY'
import sys
path, at = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(at); b = bytearray(f.read(8)); f.seek(at); f.write(bytes(x ^ 0xA5 for x in b))
PY
    expect "checksum_${ds##*/}" 1 2 "flip.h5|${ds##*/}" run "$DECK" --output "$tmp/h3" --steps 6 --restart "$tmp/flip.h5"
  done

  # SPH restart from a checkpoint whose particles had all left (its first implicit solve failed on
  # 0 x 0 work arrays).
  local sph=$tmp/h_sph
  run_cmd h_sph_setup 1 run "$SPH" --output "$sph" --quiet --set "sources[0].velocity=[15,0,0]" --set run.max_removed_mass=1 \
    --set simulation.end_time=0.03 --set checkpoint.every=25 --set output.every_time=0
  if [ -f "$sph/checkpoints/chk_000025.h5" ]; then
    expect sph_restart_empty 1 0 "" run "$SPH" --output "$sph" --quiet --set "sources[0].velocity=[15,0,0]" \
      --set run.max_removed_mass=1 --set simulation.end_time=0.03 --set output.every_time=0 \
      --restart "$sph/checkpoints/chk_000025.h5"
    [ "$(tail -n 1 "$sph/diagnostics.csv" | cut -d, -f1)" = 30 ] && pass "sph_restart_empty: stepped on to step 30" ||
      fail "sph_restart_empty: diagnostics.csv does not end at step 30"
  else
    fail "sph_restart_empty: setup wrote no chk_000025.h5"
    show "$tmp/h_sph_setup.err"
  fi

  # Signals while checkpoints and particle files are written (both every step, 5.4e4 particles):
  # a burst of SIGTERM ends the run with 143 and a checkpoint that a restart accepts.
  local sig=$tmp/h_sig
  "$BIN" run "$DECK" --output "$sig" --quiet --set domain.cell_size=0.0007 --set checkpoint.every=1 --set output.every=1 \
    >"$tmp/h_sig.out" 2>"$tmp/h_sig.err" &
  local pid=$! n=0
  until [ -f "$sig/checkpoints/chk_000002.h5" ] || [ "$n" -gt 1200 ]; do
    sleep 0.05
    n=$((n + 1))
  done
  for n in 1 2 3 4 5 6 7 8; do
    kill -TERM "$pid" 2>/dev/null
    sleep 0.03
  done
  { wait "$pid"; } 2>/dev/null
  rc=$?
  if [ "$rc" = 143 ] && ! crashed "$tmp/h_sig.err" && ! compgen -G "$sig/checkpoints/*.tmp" >/dev/null; then
    pass "signals_during_writes: exit 143, no partial file"
    local last
    last=$(ls "$sig/checkpoints" | sed -n 's/^chk_0*\([0-9][0-9]*\)\.h5$/\1/p' | sort -n | tail -n 1)
    expect signals_during_writes_restart 1 0 "" run "$DECK" --output "$sig" --quiet --set domain.cell_size=0.0007 \
      --set checkpoint.every=1 --set output.every=1 --steps $((last + 1)) --restart latest "$sig"
  else
    fail "signals_during_writes: exit $rc"
    show "$tmp/h_sig.err"
  fi

  # An allocation that fails after the estimate passed: MENISCUS_MEMORY_CHECK=warn lets a deck of
  # 6.5e7 particles (about 10 GiB) through, and the address space is limited to 3 GiB, above what
  # the libraries take at start: one line, exit 1, no abort.
  printf '#!/usr/bin/env bash\nulimit -v %s\nexec "%s" "$@"\n' "${MENISCUS_TEST_ULIMIT_KB:-3145728}" "$BIN" >"$tmp/limited.sh"
  chmod +x "$tmp/limited.sh"
  MENISCUS_MEMORY_CHECK=warn BIN=$tmp/limited.sh expect out_of_memory 1 1 "out of memory" run "$DECK" --output "$tmp/oom" \
    --steps 2 --quiet --set domain.cell_size=2e-5
}

case "$GROUP" in
  input) input_checks ;;
  folder) folder_checks ;;
  checkpoint) checkpoint_checks ;;
  unstable) unstable_checks ;;
  signals) signal_checks ;;
  hostile) hostile_checks ;;
  all) input_checks; folder_checks; checkpoint_checks; unstable_checks; signal_checks; hostile_checks ;;
  *) echo "unknown group '$GROUP' (input, folder, checkpoint, unstable, signals, hostile, all)"; exit 2 ;;
esac

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
