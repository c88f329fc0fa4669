#!/usr/bin/env bash
# mpirun for meniscus, exiting with the run's own exit code when a signal stops it.
#
#   bash jobs/mpirun.sh -n 4 build/bin/meniscus run inputs/dam-break-2d.yaml --output runs/dam
#
# Arguments are mpirun's. Why: Open MPI's mpirun (4.1) answers SIGTERM, SIGINT and SIGHUP by ending
# the job itself and exits with status 1 whatever the ranks report (its abort handler fixes the
# status), and it refuses to forward these signals (ess_base_forward_signals). It ends the job by
# sending every rank SIGCONT, then SIGTERM after T seconds, then SIGKILL after T more, where T is
# the MCA parameter odls_base_sigkill_timeout (default 1 s: too short for a checkpoint). meniscus
# checkpoints on SIGTERM/SIGINT/SIGHUP and exits 143/130/129, as it does on one rank. This script
#   - sets T to 15 s unless OMPI_MCA_odls_base_sigkill_timeout is already set: a rank told at once
#     (by Slurm, or by this script) has 2T = 30 s, Slurm's default KillWait, for its checkpoint; a
#     rank told only by mpirun has T;
#   - asks rank 0 for its exit code (MENISCUS_EXIT_STATUS_FILE, passed to every rank with -x) and
#     exits with it whenever mpirun fails, so Slurm and shells see 143 for a run stopped by SIGTERM,
#     also when the signal went to mpirun itself;
#   - passes the signals it receives itself on to the ranks of this node at once (TERM, INT, HUP; the
#     ranks elsewhere learn of the stop from them at the end of the step) and USR1 to mpirun, which
#     forwards USR1 to every rank. mpirun is not sent TERM/INT/HUP: a second one within 5 s makes it
#     exit at once, leaving the ranks without their launcher.
# Where srun starts the ranks (jobs/meniscus.sbatch), none of this is needed: srun forwards the
# signals and exits with the ranks' highest exit code.
set -u

status=$(mktemp "${TMPDIR:-/tmp}/meniscus-exit.XXXXXX") || exit 1
trap 'rm -f "$status"' EXIT
export MENISCUS_EXIT_STATUS_FILE=$status
export OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-15}

launcher=""
# shellcheck disable=SC2317  # invoked by the traps
to_ranks() { [ -n "$launcher" ] && pkill "-$1" -P "$launcher" 2>/dev/null; }
# shellcheck disable=SC2317
to_mpirun() { [ -n "$launcher" ] && kill "-$1" "$launcher" 2>/dev/null; }
trap 'to_ranks TERM' TERM
trap 'to_ranks INT' INT
trap 'to_ranks HUP' HUP
trap 'to_mpirun USR1' USR1

# In the background, so that the traps run while mpirun does (bash runs a trap between commands;
# `wait` returns early, with a status above 128, when one arrives: wait again).
"${MPIRUN:-mpirun}" -x MENISCUS_EXIT_STATUS_FILE "$@" &
launcher=$!
while :; do
  rc=0
  wait "$launcher" || rc=$?
  if ((rc > 128)) && kill -0 "$launcher" 2>/dev/null; then continue; fi
  break
done
if ((rc != 0)) && [ -s "$status" ]; then
  code=$(head -c 4 "$status" | tr -dc 0-9)
  [ -n "$code" ] && ((code != 0)) && rc=$code
fi
exit "$rc"
