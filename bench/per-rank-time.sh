#!/usr/bin/env bash
# Runs a command under GNU time with one output file per MPI rank: mpirun ... bench/per-rank-time.sh
# FORMAT PREFIX command... writes PREFIX.<rank>. GNU time does not expand Open MPI's %q{VAR} in -o (it
# wrote one file, literally "PREFIX.%q{OMPI_COMM_WORLD_RANK}", that every rank overwrote, so sums
# over ranks counted one rank); the rank comes from the environment mpirun gives each process.
set -euo pipefail
fmt=$1 prefix=$2
shift 2
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
exec /usr/bin/time -f "$fmt" -o "$prefix.$rank" "$@"
