#!/usr/bin/env bash
# Installs everything Meniscus needs from Debian's packages, then builds Kokkos (OpenMP + Serial)
# from Debian's trilinos source package into $KOKKOS_PREFIX. Idempotent: each stage is skipped
# when what it provides is already there. Recipe: shared/deps.md §1 and §4.
#
# Optional ParaView stage (in-situ Catalyst adaptor, ParaView readers, rendering under Xvfb; about
# 2.1 GB and 6.5 min of apt on a fresh machine, shared/deps.md §7): run it with
#   MENISCUS_WITH_PARAVIEW=1 scripts/install-deps.sh     or     scripts/install-deps.sh --with-paraview
# It also builds the expat "no reparse deferral" LD_PRELOAD shim (scripts/expat_noreparse.c) into
# $MENISCUS_PREFIX/lib, which ParaView 5.11's XML readers need with current bookworm libexpat.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: install-deps.sh [--with-paraview] [--help]
  --with-paraview   also install ParaView 5.11 (Catalyst, python3-paraview, Xvfb) and build the
                    expat shim; the same as MENISCUS_WITH_PARAVIEW=1
Environment: KOKKOS_PREFIX, MENISCUS_PREFIX (default /opt/meniscus), MENISCUS_WITH_PARAVIEW.
USAGE
}

WITH_PARAVIEW=${MENISCUS_WITH_PARAVIEW:-0}
for arg in "$@"; do
  case "$arg" in
    --with-paraview) WITH_PARAVIEW=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
case "$WITH_PARAVIEW" in 1|ON|on|yes|true) WITH_PARAVIEW=1 ;; *) WITH_PARAVIEW=0 ;; esac

# Kokkos is built as a static, position-independent library: Debian's PETSc pulls in Trilinos, whose
# shared Serial-only Kokkos 3.4 would otherwise share symbol names with ours in one process, and the
# two copies' static objects would be constructed and destroyed twice (a double free at exit).
MENISCUS_PREFIX=${MENISCUS_PREFIX:-/opt/meniscus}
KOKKOS_PREFIX=${KOKKOS_PREFIX:-$MENISCUS_PREFIX/kokkos-3.4.01-openmp-static}
CORE_PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libopenmpi-dev openmpi-bin
  petsc-dev
  libhdf5-openmpi-dev hdf5-tools
  libeigen3-dev libgtest-dev libgmock-dev
  libyaml-cpp-dev nlohmann-json3-dev
)
# ParaView 5.11 with legacy Catalyst (shared/deps.md §1 and §7): paraview-dev declares none of the nine
# -dev packages its CMake export needs; xvfb/xauth/mesa are for rendering (the build is GLX-only);
# libexpat1-dev is for the shim; python3-h5py lets the ParaView reader tests read the HDF5 output
# independently of ParaView.
PARAVIEW_PACKAGES=(
  paraview-dev python3-paraview python3-h5py
  libfreetype-dev libx11-dev libglew-dev libxml2-dev libboost-dev libnetcdf-dev
  libutfcpp-dev liblz4-dev libdouble-conversion-dev
  xvfb xauth libgl1-mesa-dri
  libexpat1-dev
)
EXPAT_SHIM_SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/expat_noreparse.c
EXPAT_SHIM=$MENISCUS_PREFIX/lib/libexpat_noreparse.so

log() { printf '[install-deps] %s\n' "$*"; }

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}

apt_updated=0
apt_update_once() {
  if [ "$apt_updated" -eq 0 ]; then
    log "apt-get update"
    sudo_if_needed apt-get update -qq -o DPkg::Lock::Timeout=600
    apt_updated=1
  fi
}

install_packages() {
  local missing
  missing=$(missing_packages "$@" | tr '\n' ' ')
  if [ -n "${missing// /}" ]; then
    apt_update_once
    log "installing: $missing"
    # shellcheck disable=SC2086
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      -o DPkg::Lock::Timeout=600 $missing
  fi
}

build_kokkos() {
  if [ -f "$KOKKOS_PREFIX/lib/cmake/Kokkos/KokkosConfig.cmake" ] || \
     [ -f "$KOKKOS_PREFIX/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
    return 0
  fi
  log "building Kokkos 3.4 (OpenMP + Serial) from Debian's trilinos source package into $KOKKOS_PREFIX"
  install_packages dpkg-dev
  # Enable source entries for the mirrors already configured (no host name is written here).
  if [ -f /etc/apt/sources.list.d/debian.sources ] && ! grep -q '^Types: deb deb-src' /etc/apt/sources.list.d/debian.sources; then
    sudo_if_needed sed -i 's/^Types: deb$/Types: deb deb-src/' /etc/apt/sources.list.d/debian.sources
    apt_updated=0
  fi
  if [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list && [ ! -f /etc/apt/sources.list.d/meniscus-src.list ]; then
    sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list | sudo_if_needed tee /etc/apt/sources.list.d/meniscus-src.list >/dev/null
    apt_updated=0
  fi
  apt_update_once
  local work
  work=$(mktemp -d /tmp/meniscus-kokkos.XXXXXX)
  (
    cd "$work"
    chmod 755 "$work"   # apt-get source drops privileges to _apt for the download
    apt-get source --download-only trilinos >/dev/null
    tar -xzf trilinos_*.orig.tar.gz --wildcards '*/packages/kokkos/*'
    src=$(find . -maxdepth 3 -type d -path '*/packages/kokkos' | head -n 1)
    cmake -S "$src" -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_INSTALL_PREFIX="$KOKKOS_PREFIX" -DCMAKE_CXX_STANDARD=17 \
      -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DBUILD_SHARED_LIBS=OFF \
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON >/dev/null
    cmake --build build -j"$(nproc)" >/dev/null
    sudo_if_needed cmake --install build >/dev/null
  )
  rm -rf "$work"
  log "Kokkos installed in $KOKKOS_PREFIX"
}

build_expat_shim() {
  # Rebuilt when the source's content changes (a fresh clone's file is always newer than the
  # installed library, so a time stamp would rebuild it on every clone), and put in place by a
  # rename, so two checkouts installing at once never see a half-written or missing library.
  local want
  want=$(sha256sum "$EXPAT_SHIM_SOURCE" | cut -d' ' -f1)
  if [ -f "$EXPAT_SHIM" ] && [ "$(cat "$EXPAT_SHIM.sha256" 2>/dev/null)" = "$want" ]; then
    return 0
  fi
  log "building the expat no-reparse-deferral shim into $EXPAT_SHIM"
  local work
  work=$(mktemp -d /tmp/meniscus-expat.XXXXXX)
  gcc -O2 -Wall -shared -fPIC -o "$work/libexpat_noreparse.so" "$EXPAT_SHIM_SOURCE" \
    -Wl,--no-as-needed -lexpat -ldl
  printf '%s\n' "$want" >"$work/sha256"
  sudo_if_needed install -D -m 0755 "$work/libexpat_noreparse.so" "$EXPAT_SHIM.tmp.$$"
  sudo_if_needed mv -f "$EXPAT_SHIM.tmp.$$" "$EXPAT_SHIM"
  sudo_if_needed install -m 0644 "$work/sha256" "$EXPAT_SHIM.sha256.tmp.$$"
  sudo_if_needed mv -f "$EXPAT_SHIM.sha256.tmp.$$" "$EXPAT_SHIM.sha256"
  rm -rf "$work"
}

install_packages "${CORE_PACKAGES[@]}"
build_kokkos
if [ "$WITH_PARAVIEW" -eq 1 ]; then
  install_packages "${PARAVIEW_PACKAGES[@]}"
  build_expat_shim
  log "ParaView $(dpkg-query -W -f='${Version}' paraview 2>/dev/null) present; expat shim: $EXPAT_SHIM"
elif dpkg-query -W -f='${Status}' paraview-dev 2>/dev/null | grep -q "install ok installed"; then
  # ParaView came from elsewhere (an earlier --with-paraview run, a cached image): keep the shim.
  install_packages libexpat1-dev
  build_expat_shim
fi
log "all dependencies present"
