#!/usr/bin/env bash
# Compile-only check that Meniscus builds against a CUDA Kokkos (not part of CI; no GPU needed).
#
#   1. enables Debian's contrib/non-free components (the CUDA toolkit lives in non-free),
#   2. installs Debian's CUDA toolkit (nvidia-cuda-toolkit, 11.8 in bookworm) and g++-11, the newest
#      host compiler CUDA 11.8 accepts,
#   3. builds Kokkos 3.4 with the CUDA backend (plus Serial) from Debian's trilinos source package,
#      with Kokkos' nvcc_wrapper as the C++ compiler, into $KOKKOS_CUDA_PREFIX,
#   4. configures Meniscus against it in $MENISCUS_CUDA_BUILD_DIR and compiles the library and the app
#      with `ninja -k 0`, so that every translation unit's errors are reported, not only the first.
#
# The result (and what each error means) is recorded in docs/architecture.md, "CUDA build check".
# Environment: MENISCUS_PREFIX (default /opt/meniscus), KOKKOS_CUDA_PREFIX, KOKKOS_CUDA_ARCH
# (a Kokkos 3.4 architecture option, default AMPERE80), MENISCUS_CUDA_BUILD_DIR (default build-cuda),
# JOBS (default nproc). Exit status: 0 when everything compiled, 1 otherwise; the log of the last
# stage is in $MENISCUS_CUDA_BUILD_DIR/check-cuda-build.log.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MENISCUS_PREFIX=${MENISCUS_PREFIX:-/opt/meniscus}
KOKKOS_CUDA_PREFIX=${KOKKOS_CUDA_PREFIX:-$MENISCUS_PREFIX/kokkos-3.4.01-cuda-static}
KOKKOS_CUDA_ARCH=${KOKKOS_CUDA_ARCH:-AMPERE80}
build=${MENISCUS_CUDA_BUILD_DIR:-$root/build-cuda}
JOBS=${JOBS:-$(nproc)}
HOST_CXX=${HOST_CXX:-g++-11}

# Debian's toolkit puts nvcc in /usr/bin; a CUDA installed elsewhere (e.g. /usr/local/cuda) earlier in
# PATH would otherwise be the one nvcc_wrapper calls.
export PATH=/usr/bin:$PATH

log() { printf '[check-cuda-build] %s\n' "$*"; }
sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=600 "$@"
}

# --- 1. contrib/non-free ---------------------------------------------------------------------------
changed=0
if [ -f /etc/apt/sources.list.d/debian.sources ] && \
   grep -q '^Components: main$' /etc/apt/sources.list.d/debian.sources; then
  sudo_if_needed sed -i 's/^Components: main$/Components: main contrib non-free non-free-firmware/' \
    /etc/apt/sources.list.d/debian.sources
  changed=1
fi
if [ -f /etc/apt/sources.list ] && grep -qE '^deb(-src)? .* main$' /etc/apt/sources.list; then
  sudo_if_needed sed -i -E 's/^(deb(-src)? .* main)$/\1 contrib non-free non-free-firmware/' /etc/apt/sources.list
  changed=1
fi
if [ "$changed" -eq 1 ] || ! apt-cache show nvidia-cuda-toolkit >/dev/null 2>&1; then
  log "apt-get update (contrib/non-free enabled)"
  sudo_if_needed apt-get update -qq -o DPkg::Lock::Timeout=600
fi

# --- 2. CUDA toolkit and host compiler -------------------------------------------------------------
if ! dpkg-query -W -f='${Status}' nvidia-cuda-toolkit 2>/dev/null | grep -q "install ok installed" || \
   ! command -v "$HOST_CXX" >/dev/null; then
  log "installing nvidia-cuda-toolkit and $HOST_CXX (about 2-3 GB)"
  apt_install nvidia-cuda-toolkit "$HOST_CXX" dpkg-dev
fi
log "$(nvcc --version | tail -n 2 | tr '\n' ' ')"

# --- 3. Kokkos 3.4 with CUDA -----------------------------------------------------------------------
if [ ! -f "$KOKKOS_CUDA_PREFIX/lib/cmake/Kokkos/KokkosConfig.cmake" ] && \
   [ ! -f "$KOKKOS_CUDA_PREFIX/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
  log "building Kokkos 3.4 (CUDA $KOKKOS_CUDA_ARCH + Serial) into $KOKKOS_CUDA_PREFIX"
  work=$(mktemp -d /tmp/meniscus-kokkos-cuda.XXXXXX)
  (
    cd "$work"
    chmod 755 "$work"   # apt-get source drops privileges to _apt for the download
    apt-get source --download-only trilinos >/dev/null
    tar -xzf trilinos_*.orig.tar.gz --wildcards '*/packages/kokkos/*'
    src=$(cd "$(find . -maxdepth 3 -type d -path '*/packages/kokkos' | head -n 1)" && pwd)
    # nvcc_wrapper is installed with Kokkos and becomes the C++ compiler of everything built on it.
    NVCC_WRAPPER_DEFAULT_COMPILER=$HOST_CXX \
    cmake -S "$src" -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_INSTALL_PREFIX="$KOKKOS_CUDA_PREFIX" -DCMAKE_CXX_STANDARD=17 \
      -DCMAKE_CXX_COMPILER="$src/bin/nvcc_wrapper" \
      -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON \
      -DKokkos_ARCH_"$KOKKOS_CUDA_ARCH"=ON -DBUILD_SHARED_LIBS=OFF \
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON
    NVCC_WRAPPER_DEFAULT_COMPILER=$HOST_CXX cmake --build build -j"$JOBS"
    sudo_if_needed cmake --install build >/dev/null
  )
  rm -rf "$work"
fi

# --- 4. Meniscus against it ------------------------------------------------------------------------
mkdir -p "$build"
logfile=$build/check-cuda-build.log
export NVCC_WRAPPER_DEFAULT_COMPILER=$HOST_CXX
log "configuring Meniscus in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DKokkos_ROOT="$KOKKOS_CUDA_PREFIX" -DCMAKE_CXX_COMPILER="$KOKKOS_CUDA_PREFIX/bin/nvcc_wrapper" \
  -DMENISCUS_BUILD_TESTS=OFF -DMENISCUS_CPU_ARCH=generic >"$logfile" 2>&1 || { tail -n 40 "$logfile"; exit 1; }
log "compiling the library and the app (log: $logfile)"
if ninja -C "$build" -k 0 -j"$JOBS" meniscus >>"$logfile" 2>&1; then
  log "OK: the library and the app compile and link against Kokkos $KOKKOS_CUDA_ARCH (CUDA)"
  exit 0
fi
log "FAILED; the errors:"
grep -E 'error|FAILED' "$logfile" | sort | uniq | head -n 200
exit 1
