# Finds every dependency of Meniscus; a missing one stops configure with the Debian package to install.
# Recipe and traps: shared/deps.md (PETSc via pkg-config, Kokkos via Kokkos_ROOT, Debian's broken
# Kokkos include path).

function(meniscus_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "Meniscus needs ${what}: install the Debian package '${package}' "
                        "(scripts/install-deps.sh does this), or point CMake at your own build.")
  endif()
endfunction()

find_package(MPI COMPONENTS C CXX)
meniscus_require(MPI_FOUND "MPI (C and C++)" "libopenmpi-dev openmpi-bin")

# Parallel HDF5 for particle output and checkpoints (shared/deps.md §5). Debian installs the serial
# build alongside (libnetcdf-dev, which ParaView needs, pulls it in); without HDF5_PREFER_PARALLEL
# FindHDF5 silently picks the serial one, whose files cannot be written collectively.
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 COMPONENTS C)
meniscus_require(HDF5_FOUND "parallel HDF5 (MPI build)" "libhdf5-openmpi-dev")
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "Meniscus needs the MPI build of HDF5, but CMake found a serial one "
                      "(${HDF5_C_LIBRARIES}): install the Debian package 'libhdf5-openmpi-dev' "
                      "(scripts/install-deps.sh does this), or point HDF5_ROOT at a parallel build.")
endif()
if(NOT TARGET hdf5::hdf5)
  # FindHDF5 of CMake < 3.19 makes no imported target; build one from its variables.
  add_library(hdf5::hdf5 INTERFACE IMPORTED)
  set_target_properties(hdf5::hdf5 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${HDF5_C_INCLUDE_DIRS}"
                        INTERFACE_LINK_LIBRARIES "${HDF5_C_LIBRARIES}"
                        INTERFACE_COMPILE_DEFINITIONS "${HDF5_C_DEFINITIONS}")
endif()
message(STATUS "HDF5 ${HDF5_VERSION} (parallel): ${HDF5_C_LIBRARIES}")

find_package(PkgConfig)
meniscus_require(PKG_CONFIG_FOUND "pkg-config" "pkg-config")
if(DEFINED ENV{PETSC_DIR})
  set(ENV{PKG_CONFIG_PATH} "$ENV{PETSC_DIR}/lib/pkgconfig:$ENV{PKG_CONFIG_PATH}")
endif()
pkg_check_modules(PETSc IMPORTED_TARGET PETSc>=3.18)
meniscus_require(PETSc_FOUND "PETSc >= 3.18" "petsc-dev")

# Kokkos: a user build through Kokkos_ROOT wins; otherwise the OpenMP build that
# scripts/install-deps.sh makes; Debian's Serial-only Trilinos export is the last resort.
set(MENISCUS_DEFAULT_KOKKOS /opt/meniscus/kokkos-3.4.01-openmp-static)
if(NOT DEFINED Kokkos_ROOT AND NOT DEFINED ENV{Kokkos_ROOT} AND EXISTS ${MENISCUS_DEFAULT_KOKKOS})
  set(Kokkos_ROOT ${MENISCUS_DEFAULT_KOKKOS})
endif()
find_package(Kokkos 3.4 QUIET)
meniscus_require(Kokkos_FOUND "Kokkos 3.4-4.x" "libtrilinos-kokkos-dev (or run scripts/install-deps.sh for OpenMP)")
if(TARGET Kokkos::kokkos AND Kokkos_INCLUDE_DIRS MATCHES "trilinos")
  get_filename_component(_kk_inc "${Kokkos_INCLUDE_DIRS}" REALPATH)
  set_property(TARGET Kokkos::kokkos PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${_kk_inc}")
endif()
message(STATUS "Kokkos ${Kokkos_VERSION} devices: ${Kokkos_DEVICES}")

find_package(Eigen3 3.3 QUIET NO_MODULE)
meniscus_require(Eigen3_FOUND "Eigen 3" "libeigen3-dev")

find_package(yaml-cpp QUIET)
meniscus_require(yaml-cpp_FOUND "yaml-cpp" "libyaml-cpp-dev")
if(TARGET yaml-cpp::yaml-cpp)
  set(MENISCUS_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(MENISCUS_YAML_TARGET yaml-cpp)
endif()

find_package(nlohmann_json 3.9 QUIET)
meniscus_require(nlohmann_json_FOUND "nlohmann-json" "nlohmann-json3-dev")
