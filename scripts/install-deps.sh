#!/usr/bin/env bash
# Installs everything Meniscus needs from Debian's packages, then builds Kokkos (OpenMP + Serial)
# from Debian's trilinos source package into $KOKKOS_PREFIX. Idempotent: each stage is skipped
# when what it provides is already there. Recipe: shared/deps.md §1 and §4.
set -euo pipefail

# Kokkos is built as a static, position-independent library: Debian's PETSc pulls in Trilinos, whose
# shared Serial-only Kokkos 3.4 would otherwise share symbol names with ours in one process, and the
# two copies' static objects would be constructed and destroyed twice (a double free at exit).
KOKKOS_PREFIX=${KOKKOS_PREFIX:-/opt/meniscus/kokkos-3.4.01-openmp-static}
CORE_PACKAGES=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libopenmpi-dev openmpi-bin
  petsc-dev
  libhdf5-openmpi-dev hdf5-tools
  libeigen3-dev libgtest-dev libgmock-dev
  libyaml-cpp-dev nlohmann-json3-dev
)

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
    sudo_if_needed apt-get update -qq
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
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
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

install_packages "${CORE_PACKAGES[@]}"
build_kokkos
log "all dependencies present"
