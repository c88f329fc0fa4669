#!/usr/bin/env bash
# Whole-program checks of the meniscus executable: every class of bad input exits with code 2 and
# prints one "error: FILE: KEY: REASON" line (once, also under mpirun), and the good paths (--help,
# --version, check, reference, a short run) work.
#
# usage: cli_errors.sh MENISCUS SOURCE_DIR [MPIEXEC] [GROUP]
#   GROUP: serial (bad input, one process), mpi (bad input under mpirun -n 2 / -n 4),
#          good (help, version, check, reference, short runs, ksp_view), ksp_view (the ksp_view file
#          check alone), or all (default).
# Prints one line per check and finally "N passed, M failed"; exits non-zero if any check failed.
set -u

BIN=${1:?usage: cli_errors.sh MENISCUS SOURCE_DIR [MPIEXEC] [GROUP]}
SRC=${2:?usage: cli_errors.sh MENISCUS SOURCE_DIR [MPIEXEC] [GROUP]}
MPIEXEC=${3:-}
GROUP=${4:-all}
LIMIT=120  # seconds per command: a hang fails the check instead of blocking the suite

[ -f "$SRC/scripts/mpi-env.sh" ] && . "$SRC/scripts/mpi-env.sh"
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

BASE_DECK=$SRC/inputs/dam-break-2d.yaml
MULTIPHASE_DECK=$SRC/inputs/mpm-multiphase-dam-break-3d-ci.yaml
ROBOT_DECK=$SRC/inputs/membrane-robot-2d-ci.yaml
DROP3D_DECK=$SRC/inputs/membrane-drop-3d-ci.yaml
SPHERE3D_DECK=$SRC/inputs/membrane-sphere-drop-3d-ci.yaml
STRIDER3D_DECK=$SRC/inputs/membrane-strider-3d-ci.yaml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/meniscus-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT




# expect_error LABEL NP FILE KEY WORD ARGS...: meniscus ARGS must exit with 2 and print exactly one
# "error:" line, which names FILE, KEY and contains WORD (an empty FILE or KEY is not checked).
expect_error() {
  local label=$1 np=$2 file=$3 key=$4 word=$5
  shift 5
  local name="${label}_np${np}" what="$label (np=$np)"
  if [ "$np" != 1 ] && ! have_mpi; then
    echo "skip  $what: no mpiexec"
    return
  fi
  run_cmd "$name" "$np" "$@"
  local err=$tmp/$name.err problems=""
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    problems="timed out after ${LIMIT}s"
  else
    [ "$rc" = 2 ] || problems="exit code $rc, expected 2; "
    local count line
    count=$(grep -c '^error: ' "$err")
    line=$(grep -m1 '^error: ' "$err")
    [ "$count" = 1 ] || problems+="$count error lines, expected exactly 1; "
    [ -z "$file" ] || [[ "$line" == *"$file"* ]] || problems+="error line lacks the file name '$file'; "
    [ -z "$key" ] || [[ "$line" == *": $key: "* ]] || problems+="error line lacks the key ': $key: '; "
    [[ "$line" == *"$word"* ]] || problems+="error line lacks '$word'; "
    if grep -q -E 'double free|Segmentation fault|Aborted|terminate called|Process received signal' "$err"; then
      problems+="crash output on stderr; "
    fi
  fi
  if [ -z "$problems" ]; then
    pass "$what: exit 2, once: $(grep -m1 '^error: ' "$err" | cut -c1-150)"
  else
    fail "$what: $problems"
    show "$err"
  fi
}

# Decks. Each bad deck is the valid dam-break deck with one edit.
derive() {  # derive NAME SED-SCRIPT: writes $tmp/NAME.yaml from the base deck
  sed -e "$2" "$BASE_DECK" >"$tmp/$1.yaml"
  if cmp -s "$BASE_DECK" "$tmp/$1.yaml"; then
    fail "setup: the edit for $1 changed nothing (did inputs/dam-break-2d.yaml change?)"
  fi
}
derive unknown_key 's/^  cfl: 0.4/  cfll: 0.4/'
derive wrong_type 's/^  cell_size: .*/  cell_size: small/'
derive list_for_choice 's/^  walls: slip/  walls: [slip, slip]/'
derive missing_required '/^  cell_size:/d'
derive out_of_range 's/^  cfl: 0.4/  cfl: 3/'
derive wrong_unit 's/^  cell_size: .*/  cell_size: "2 kg"/'
derive nan 's/^  cell_size: .*/  cell_size: .nan/'
derive unknown_variant 's/^  - type: box/  - type: cylinder/'
derive unknown_method 's/^  method: mpm/  method: sph/'
# 0.4 m x 0.16 m at 4 cm: 10 x 4 cells, too few nodes per axis for any split among 4 ranks.
derive coarse 's/^  cell_size: .*/  cell_size: 0.04/'
cat >"$tmp/invalid_yaml.yaml" <<'EOF'
simulation:
  dimension: 2
  method: mpm
  end_time: [0.25
domain:
  lower: [0, 0]
EOF
cat >"$tmp/missing_mesh.yaml" <<'EOF'
simulation:
  dimension: 3
  method: mpm
  end_time: 0.1
domain:
  lower: [0, 0, 0]
  upper: [0.1, 0.1, 0.1]
  cell_size: 0.01
materials:
  - name: water
    model: fluid
    density: 1000
    bulk_modulus: 2.25e5
sources:
  - type: mesh
    material: water
    file: missing.obj
EOF

d=$tmp
run_args=(--output "$tmp/out-bad" --steps 1 --quiet)

serial_checks() {
  expect_error unknown_key 1 "$d/unknown_key.yaml" mpm.cfll "did you mean 'cfl'" run "$d/unknown_key.yaml" "${run_args[@]}"
  expect_error wrong_type 1 "$d/wrong_type.yaml" domain.cell_size "expected a number" run "$d/wrong_type.yaml" "${run_args[@]}"
  expect_error list_for_choice 1 "$d/list_for_choice.yaml" domain.walls "expected one of the choices" check "$d/list_for_choice.yaml"
  expect_error missing_required 1 "$d/missing_required.yaml" domain.cell_size "missing required key" run "$d/missing_required.yaml" "${run_args[@]}"
  expect_error out_of_range 1 "$d/out_of_range.yaml" mpm.cfl "out of range" run "$d/out_of_range.yaml" "${run_args[@]}"
  expect_error wrong_unit 1 "$d/wrong_unit.yaml" domain.cell_size "wrong unit 'kg'" run "$d/wrong_unit.yaml" "${run_args[@]}"
  expect_error nan 1 "$d/nan.yaml" domain.cell_size "not a finite number" run "$d/nan.yaml" "${run_args[@]}"
  expect_error unknown_variant 1 "$d/unknown_variant.yaml" "sources[0].type" "unknown value 'cylinder'" check "$d/unknown_variant.yaml"
  expect_error unknown_method 1 "$d/unknown_method.yaml" simulation.method "unknown method 'sph'" check "$d/unknown_method.yaml"
  expect_error missing_mesh 1 "$d/missing_mesh.yaml" "sources[0].file" "file not found" run "$d/missing_mesh.yaml" "${run_args[@]}"
  expect_error missing_deck 1 "$d/no-such-deck.yaml" "" "deck file not found" run "$d/no-such-deck.yaml" "${run_args[@]}"
  expect_error invalid_yaml 1 "$d/invalid_yaml.yaml" "" "not valid YAML" run "$d/invalid_yaml.yaml" "${run_args[@]}"
  expect_error bad_set 1 "$BASE_DECK" mpm.cfl "key.path=value" run "$BASE_DECK" --set mpm.cfl "${run_args[@]}"
  expect_error bad_set_path 1 "$BASE_DECK" "sources[7].radius" "does not index" check "$BASE_DECK" --set "sources[7].radius=0.1"
  expect_error bad_set_value 1 "$BASE_DECK" mpm.cfl "out of range" check "$BASE_DECK" --set mpm.cfl=1.5
  # Heat (mpm.heat): a melting point out of range, an unknown transfer, Robin terms without surface samples.
  expect_error melting_range 1 "$BASE_DECK" "materials[0].melting_temperature" "out of range" check "$BASE_DECK" --set "materials[0].melting_temperature=-5"
  expect_error heat_transfer 1 "$BASE_DECK" mpm.heat.thermal_transfer "unknown value 'exact'" check "$BASE_DECK" --set mpm.heat.thermal_transfer=exact
  expect_error phase_partner_heat 1 "$BASE_DECK" "materials[0].phase_partner" "needs mpm.heat.enabled" run "$BASE_DECK" --set "materials[0].phase_partner=water" "${run_args[@]}"
  expect_error marangoni_temperature_heat 1 "$BASE_DECK" mpm.surface_tension.marangoni.scalar "needs mpm.heat.enabled" run "$BASE_DECK" --set mpm.surface_tension.enabled=true --set mpm.surface_tension.marangoni.enabled=true --set mpm.surface_tension.marangoni.scalar=temperature "${run_args[@]}"
  expect_error heat_robin_samples 1 "$BASE_DECK" mpm.heat.transfer_coefficient "surface samples" run "$BASE_DECK" --set mpm.heat.enabled=true --set mpm.heat.transfer_coefficient=1 "${run_args[@]}"
  # Articulated membrane bodies (the water-strider robot): a link's root must be another, free, non-rotating body.
  expect_error robot_root_index 1 "$ROBOT_DECK" "membrane.bodies[1].root" "is not another body" check "$ROBOT_DECK" --set "membrane.bodies[1].root=7"
  expect_error robot_root_rotates 1 "$ROBOT_DECK" "membrane.bodies[1].root" "non-rotating" check "$ROBOT_DECK" --set "membrane.bodies[0].rotates=true"
  # A 3D body's orientation is a rotation vector, not the 2D angle.
  expect_error membrane3d_angle 1 "$SPHERE3D_DECK" "membrane.bodies[0].angle" "2D orientation" check "$SPHERE3D_DECK" --set "membrane.bodies[0].angle=30"
  # 3D links follow the same rules as 2D ones; a held axis starts at rest; z is a 3D axis; a 2D body is a disc.
  expect_error membrane3d_body_root 1 "$SPHERE3D_DECK" "membrane.bodies[0].root" "is not another body" check "$SPHERE3D_DECK" --set "membrane.bodies[0].root=0"
  expect_error membrane3d_root_rotates 1 "$STRIDER3D_DECK" "membrane.bodies[1].root" "non-rotating" check "$STRIDER3D_DECK" --set "membrane.bodies[0].rotates=true"
  expect_error membrane3d_link_held 1 "$STRIDER3D_DECK" "membrane.bodies[1].root" "cannot be fixed or held" check "$STRIDER3D_DECK" --set "membrane.bodies[1].held=z"
  expect_error membrane3d_body_held_moving 1 "$SPHERE3D_DECK" "membrane.bodies[0].held" "must start with velocity component 2 = 0" check "$SPHERE3D_DECK" --set "membrane.bodies[0].held=xz" --set "membrane.bodies[0].velocity=[0,0,-1]"
  # An initial spin is one number in 2D (about z) and a vector in 3D.
  expect_error membrane2d_spin_vector 1 "$ROBOT_DECK" "membrane.bodies[0].angular_velocity" "expected a number" check "$ROBOT_DECK" --set "membrane.bodies[0].angular_velocity=[0,0,1]"
  expect_error membrane3d_spin_scalar 1 "$SPHERE3D_DECK" "membrane.bodies[0].angular_velocity" "expected a list of 3 numbers" check "$SPHERE3D_DECK" --set "membrane.bodies[0].angular_velocity=2"
  expect_error membrane2d_body_held_z 1 "$ROBOT_DECK" "membrane.bodies[0].held" "z is a 3D axis" check "$ROBOT_DECK" --set "membrane.bodies[0].held=z"
  expect_error membrane3d_body_disc 1 "$SPHERE3D_DECK" "membrane.bodies[0].shape" "sphere" check "$SPHERE3D_DECK" --set "membrane.bodies[0].shape=disc"
  expect_error membrane2d_body_sphere 1 "$ROBOT_DECK" "membrane.bodies[0].shape" "disc" check "$ROBOT_DECK" --set "membrane.bodies[0].shape=sphere"
  expect_error membrane2d_body_capsule 1 "$ROBOT_DECK" "membrane.bodies[0].shape" "disc" check "$ROBOT_DECK" --set "membrane.bodies[0].shape=capsule"
  # A 2D box needs its two edge lengths.
  expect_error membrane2d_box_size 1 "$ROBOT_DECK" "membrane.bodies[0].size" "positive edge lengths" check "$ROBOT_DECK" --set "membrane.bodies[0].shape=box"
  # A box needs its edge lengths, a capsule or paperclip a length, a paperclip a wire thinner than its wire spacing.
  expect_error membrane3d_box_size 1 "$SPHERE3D_DECK" "membrane.bodies[0].size" "positive edge lengths" check "$SPHERE3D_DECK" --set "membrane.bodies[0].shape=box"
  expect_error membrane3d_clip_length 1 "$SPHERE3D_DECK" "membrane.bodies[0].length" "positive length" check "$SPHERE3D_DECK" --set "membrane.bodies[0].shape=paperclip"
  expect_error membrane3d_clip_radius 1 "$SPHERE3D_DECK" "membrane.bodies[0].radius" "0.037" check "$SPHERE3D_DECK" --set "membrane.bodies[0].shape=paperclip" --set "membrane.bodies[0].length=3"
  expect_error membrane3d_mesh_file 1 "$SPHERE3D_DECK" "membrane.bodies[0].file" "OBJ file" check "$SPHERE3D_DECK" --set "membrane.bodies[0].shape=mesh"
  # The 3D pool's sheet needs a square box in x and y (checked by `meniscus check` too).
  expect_error membrane3d_pool_square 1 "$SPHERE3D_DECK" "domain.upper" "square box" check "$SPHERE3D_DECK" --set "domain.upper=[6,5,5]"
  # An initial orientation is a 3D rotation vector shorter than 360 deg; a 2D disc has none.
  expect_error membrane3d_orientation 1 "$SPHERE3D_DECK" "membrane.bodies[0].orientation" "below 360" check "$SPHERE3D_DECK" --set "membrane.bodies[0].orientation=[0,0,400]"
  expect_error membrane2d_orientation 1 "$ROBOT_DECK" "membrane.bodies[0].orientation" "3D only" check "$ROBOT_DECK" --set "membrane.bodies[0].orientation=[0,30]"
  expect_error membrane3d_clip_walls 1 "$SPHERE3D_DECK" "membrane.bodies[0].center" "inside the box" check "$SPHERE3D_DECK" --set "membrane.bodies[0].shape=paperclip" --set "membrane.bodies[0].length=5.5" --set "membrane.bodies[0].radius=0.1"
  # The contact-line hold needs the adhesive wetting walls (explicit or implicit).
  CA2D_DECK=$SRC/inputs/mpm-contact-angle-2d-ci.yaml
  expect_error line_hold_no_wetting 1 "$CA2D_DECK" mpm.surface_tension.contact_line_hold "wetting_width > 0" \
    run "$CA2D_DECK" --steps 1 --quiet --output "$tmp/line_hold_no_wetting" --set mpm.surface_tension.contact_line_hold=true
  # A PETSc view file that cannot be written is the user's option: exit 2 naming the option.
  expect_error ksp_view_unwritable 1 "PETSc options database" -mpm_newton_ksp_view "cannot open" \
    run "$SRC/inputs/mpm-candle-2d-ci.yaml" --steps 1 --quiet --output "$tmp/ksp_view_unwritable" \
    -- -mpm_newton_ksp_view "ascii:$tmp/no-such-folder/view.txt"
  expect_error unknown_option 1 "" "" "unknown option --frobnicate" run "$BASE_DECK" --frobnicate
  expect_error unknown_command 1 "" "" "unknown command 'frobnicate'" frobnicate "$BASE_DECK"
  expect_error no_deck 1 "" "" "run needs a DECK" run
  expect_error bad_steps 1 "" "" "--steps needs a number" run "$BASE_DECK" --steps many
}

mpi_checks() {
  local np
  for np in 2 4; do
    expect_error unknown_key "$np" "$d/unknown_key.yaml" mpm.cfll "unknown key" run "$d/unknown_key.yaml" "${run_args[@]}"
    expect_error out_of_range "$np" "$d/out_of_range.yaml" mpm.cfl "out of range" run "$d/out_of_range.yaml" "${run_args[@]}"
  done
  expect_error wrong_type 2 "$d/wrong_type.yaml" domain.cell_size "expected a number" run "$d/wrong_type.yaml" "${run_args[@]}"
  expect_error missing_required 4 "$d/missing_required.yaml" domain.cell_size "missing required key" run "$d/missing_required.yaml" "${run_args[@]}"
  expect_error wrong_unit 2 "$d/wrong_unit.yaml" domain.cell_size "wrong unit" run "$d/wrong_unit.yaml" "${run_args[@]}"
  expect_error nan 4 "$d/nan.yaml" domain.cell_size "not a finite number" run "$d/nan.yaml" "${run_args[@]}"
  expect_error missing_mesh 2 "$d/missing_mesh.yaml" "sources[0].file" "file not found" run "$d/missing_mesh.yaml" "${run_args[@]}"
  expect_error missing_deck 2 "$d/no-such-deck.yaml" "" "deck file not found" run "$d/no-such-deck.yaml" "${run_args[@]}"
  expect_error invalid_yaml 4 "$d/invalid_yaml.yaml" "" "not valid YAML" run "$d/invalid_yaml.yaml" "${run_args[@]}"
  expect_error bad_set 2 "$BASE_DECK" mpm.cfl "key.path=value" run "$BASE_DECK" --set mpm.cfl "${run_args[@]}"
  expect_error unknown_option 2 "" "" "unknown option --frobnicate" run "$BASE_DECK" --frobnicate
  # The grid check runs after the libraries start: every rank must still exit 2, printing once.
  expect_error too_many_ranks 4 "$d/coarse.yaml" domain.cell_size "ranks" run "$d/coarse.yaml" "${run_args[@]}"
  expect_error too_many_ranks_again 4 "$d/coarse.yaml" domain.cell_size "4 ranks cannot decompose" run "$d/coarse.yaml" "${run_args[@]}"
  # Multiphase sources against the faces of a box without walls: refused before the first P2G (it
  # wrote past the grid and corrupted the heap at 2 ranks).
  expect_error multiphase_source_at_faces 2 "$MULTIPHASE_DECK" sources "one cell inside" run "$MULTIPHASE_DECK" --set domain.walls=none --set "sources[0].lower=[-0.08,-0.08,-0.08]" "${run_args[@]}"
  # A 3D membrane run whose process grid does not match the job's rank count.
  expect_error membrane3d_ranks 2 "$DROP3D_DECK" domain.ranks "domain.ranks has 3 blocks but the job has 2 ranks" run "$DROP3D_DECK" --set "domain.ranks=[1,1,3]" "${run_args[@]}"
}

# expect_ok LABEL NP PATTERN ARGS...: exit 0, no error line, stdout matches the extended regex PATTERN.
expect_ok() {
  local label=$1 np=$2 pattern=$3
  shift 3
  local what="$label (np=$np)"
  if [ "$np" != 1 ] && ! have_mpi; then
    echo "skip  $what: no mpiexec"
    return
  fi
  run_cmd "$label" "$np" "$@"
  local problems=""
  [ "$rc" = 0 ] || problems="exit code $rc, expected 0; "
  ! grep -q '^error: ' "$tmp/$label.err" || problems+="printed an error; "
  [ -z "$pattern" ] || grep -q -E -e "$pattern" "$tmp/$label.out" || problems+="stdout lacks /$pattern/; "
  if [ -z "$problems" ]; then
    pass "$what"
  else
    fail "$what: $problems"
    show "$tmp/$label.out"
    show "$tmp/$label.err"
  fi
}

# -<prefix>ksp_view ascii:FILE holds a view of every linear solve of the run. The Newton KSP is
# created per step and the inner one (prefix mpm_newton_redistribute_) configured per step and
# reset when its unknowns change; PETSc reopened FILE in write mode each time, so it held the last
# step's views only (3 of 9 on this deck), or nothing when the last step solved nothing.
ksp_view_file_check() {
  local deck=$SRC/inputs/mpm-candle-2d-ci.yaml inner=$tmp/inner_ksp_view.txt outer=$tmp/outer_ksp_view.txt
  echo stale >"$inner"
  expect_ok ksp_view_file 1 'Linear mpm_newton_redistribute_ solve converged' run "$deck" --steps 3 --quiet \
    --output "$tmp/ksp_view" -- -mpm_newton_redistribute_ksp_view "ascii:$inner" -mpm_newton_ksp_view "ascii:$outer" \
    -mpm_newton_redistribute_ksp_converged_reason
  local solves views outer_views problems=""
  solves=$(grep -c 'Linear mpm_newton_redistribute_ solve' "$tmp/ksp_view_file.out")
  views=$(grep -c '^KSP Object: (mpm_newton_redistribute_)' "$inner")
  outer_views=$(grep -c '^KSP Object: (mpm_newton_)' "$outer")
  [ "$solves" -gt 3 ] || problems+="$solves inner solves in 3 steps, expected more than 3; "
  # The default inner solve is the fused block-SSOR CG, a registered KSP type (PC: SOR on the node blocks).
  grep -q '^  type: meniscus_ssorcg$' "$inner" || problems+="the inner view does not name the KSP type meniscus_ssorcg; "
  ! grep -q stale "$inner" || problems+="the file was appended to, not started afresh; "
  [ "$views" = "$solves" ] || problems+="$views inner views for $solves solves; "
  [ "$outer_views" = "$solves" ] || problems+="$outer_views Newton KSP views for $solves solves; "
  if [ -z "$problems" ]; then
    pass "ksp_view ascii:FILE: $views views of $solves solves over 3 steps, type cg"
  else
    fail "ksp_view ascii:FILE: $problems"
  fi
}

good_checks() {
  expect_ok help 1 '^usage:' --help
  expect_ok help_after_command 1 'meniscus run DECK' run "$BASE_DECK" --help
  expect_ok version 1 '^meniscus [0-9]+\.[0-9]+\.[0-9]+' --version
  expect_ok check 1 'mpm\.cfl +=' check "$BASE_DECK"
  expect_ok check_with_set 1 'mpm\.cfl += 0\.25$' check "$BASE_DECK" --set mpm.cfl=0.25
  expect_ok check_coarse 1 'valid' check "$d/coarse.yaml"
  expect_ok reference 1 'sources\[\]\.particles_per_cell' reference
  # PETSc options reach PETSc's database from the command line (after --) and from the deck;
  # -options_left makes PETSc list the ones nothing used, which proves they arrived.
  expect_ok petsc_cli_options 1 'meniscus_probe_option' run "$BASE_DECK" --steps 1 --quiet \
    --output "$tmp/petsc_cli" -- -meniscus_probe_option 42 -options_left
  expect_ok petsc_deck_options 1 'meniscus_deck_option' run "$BASE_DECK" --steps 1 --quiet \
    --output "$tmp/petsc_deck" --set 'petsc.options=-meniscus_deck_option 7 -options_left'
  ksp_view_file_check

  local label
  for np in 1 2; do
    label="short_run (np=$np)"
    if [ "$np" != 1 ] && ! have_mpi; then
      echo "skip  $label: no mpiexec"
      continue
    fi
    local out=$tmp/out$np
    expect_ok "short_run_np$np" "$np" "" run "$BASE_DECK" --steps 5 --output "$out" --quiet
    local csv=$out/diagnostics.csv problems=""
    if [ ! -s "$csv" ]; then
      problems="no diagnostics.csv; "
    else
      local header
      header=$(head -n 1 "$csv")
      [[ "$header" == step,time,dt,wall_s,particles,mass,momentum_x* ]] ||
        problems+="diagnostics.csv header is '$header'; "
      # Rows for step 0 and step 5.
      [ "$(wc -l <"$csv")" -ge 3 ] || problems+="diagnostics.csv has $(wc -l <"$csv") lines, expected >= 3; "
      [ "$(tail -n 1 "$csv" | cut -d, -f1)" = 5 ] || problems+="last row is not step 5; "
    fi
    if [ ! -s "$out/run.json" ]; then
      problems+="no run.json; "
    else
      grep -q '"steps": 5' "$out/run.json" || problems+="run.json lacks \"steps\": 5; "
      grep -q "\"ranks\": $np" "$out/run.json" || problems+="run.json lacks \"ranks\": $np; "
      if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$out/run.json" 2>"$tmp/json.err" ||
          problems+="run.json is not valid JSON ($(tail -n 1 "$tmp/json.err")); "
        # The steps' core time, summed over ranks, and per particle-step (5 steps of the seeded count).
        python3 - "$out/run.json" "$csv" 2>"$tmp/core.err" <<'PY' || problems+="run.json core time: $(tail -n 1 "$tmp/core.err"); "
import csv, json, math, sys
r = json.load(open(sys.argv[1]))
n = float(list(csv.DictReader(open(sys.argv[2])))[-1]["particles"])
core, per = r["core_s"], r["core_ms_per_particle_step"]
assert math.isfinite(core) and core >= 0, f"core_s = {core}"  # 0 possible: the kernel counts CPU time in ticks
assert abs(per - 1e3 * core / (5 * n)) <= 1e-4 * per, f"core_ms_per_particle_step = {per}, core_s = {core}, {n:.0f} particles"
PY
      fi
    fi
    if [ -z "$problems" ]; then
      pass "$label: diagnostics.csv and run.json"
    else
      fail "$label: $problems"
    fi
  done
}

case "$GROUP" in
  serial) serial_checks ;;
  mpi) mpi_checks ;;
  good) good_checks ;;
  ksp_view) ksp_view_file_check ;;
  all) serial_checks; mpi_checks; good_checks ;;
  *) echo "unknown group '$GROUP' (serial, mpi, good, ksp_view, all)"; exit 2 ;;
esac

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
