#!/usr/bin/env bash
# Installs missing dependencies and builds Meniscus (Release) into build/. Idempotent.
#
# CMake runs again whenever what it found may have changed: no CMakeCache.txt yet, a package installed
# or removed since the last configure (ParaView installed by the test command after a first plain
# build), a different MENISCUS_PREFIX/KOKKOS_PREFIX content, or a different ParaView request. Cache
# entries that were NOT-FOUND are dropped first so that the searches run again; every other cache
# variable (CMAKE_CXX_COMPILER_LAUNCHER, options given by hand) is kept.
#
# MENISCUS_WITH_PARAVIEW=1 (the test command's default) asks for the in-situ adaptor: the configure
# then runs with MENISCUS_ENABLE_CATALYST=ON, which stops with the reason when ParaView is not usable.
# Otherwise MENISCUS_ENABLE_CATALYST is AUTO (on when ParaView is found), or what that environment
# variable says.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MENISCUS_BUILD_DIR:-$root/build}
bash "$root/scripts/install-deps.sh"

case "${MENISCUS_WITH_PARAVIEW:-0}" in 1|ON|on|yes|true) paraview=1 ;; *) paraview=0 ;; esac
catalyst=${MENISCUS_ENABLE_CATALYST:-$([ "$paraview" = 1 ] && echo ON || echo AUTO)}
if [ "$paraview" = 1 ] && [ "$catalyst" != ON ]; then
  echo "build.sh: MENISCUS_WITH_PARAVIEW=1 asks for the in-situ adaptor, but MENISCUS_ENABLE_CATALYST=$catalyst" >&2
  exit 1
fi

# What the configure depends on outside the source tree: the installed packages (with versions), the
# prefix holding Kokkos and the expat shim, and the adaptor request.
prefix=${MENISCUS_PREFIX:-/opt/meniscus}
deps_stamp() {
  {
    dpkg-query -W -f='${Package} ${Version} ${Status}\n' 2>/dev/null || true
    ls -lR "$prefix" "${KOKKOS_PREFIX:-$prefix}" 2>/dev/null | grep -v '^total' || true
    echo "MENISCUS_ENABLE_CATALYST=$catalyst"
  } | sha256sum | cut -d' ' -f1
}
stamp_file=$build/meniscus-deps.stamp
stamp=$(deps_stamp)

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMENISCUS_ENABLE_CATALYST="$catalyst"
  echo "$stamp" > "$stamp_file"
elif [ "$(cat "$stamp_file" 2>/dev/null)" != "$stamp" ]; then
  echo "build.sh: the dependencies changed since the last configure of $build: configuring again"
  unset_args=()
  while IFS= read -r name; do unset_args+=(-U "$name"); done < <(
    sed -n 's/^\([^#/][^:=]*\):[A-Z]*=.*-NOTFOUND$/\1/p' "$build/CMakeCache.txt")
  cmake "${unset_args[@]}" -DMENISCUS_ENABLE_CATALYST="$catalyst" -S "$root" -B "$build"
  echo "$stamp" > "$stamp_file"
fi
cmake --build "$build" -j"$(nproc)"
