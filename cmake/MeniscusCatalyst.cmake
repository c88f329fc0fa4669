# Optional ParaView Catalyst in-situ adaptor (legacy Catalyst API of ParaView 5.11; Debian ships no
# Catalyst 2). Recipe and its three workarounds: shared/deps.md §7; docs/insitu.md for users.
#
#   MENISCUS_ENABLE_CATALYST = AUTO (default)  on when ParaView 5.11 with Catalyst and PythonCatalyst
#                                               is found, otherwise off with a STATUS line saying why
#                              ON                ParaView is required (configure fails without it)
#                              OFF               never
#
# After this file MENISCUS_ENABLE_CATALYST is a plain ON/OFF variable for the rest of the configure
# (tests/ tests it with if()); the cache keeps the user's choice, so AUTO re-detects on every configure
# (installing ParaView later and re-running cmake switches the adaptor on).
#
# The library target `meniscus_catalyst` (src/io/catalyst) exists either way: with Catalyst off it is
# a stub whose make_insitu_observer() warns and returns nullptr, so the app links and calls it without
# #ifdefs. MENISCUS_HAVE_CATALYST (0/1) is a public compile definition of that target. With Catalyst on,
# the ParaView code is the shared module lib/libmeniscus_catalyst_vtk.so. meniscus_catalyst dlopen()s it
# only when a deck names a pipeline, so the executable does not link ParaView.
#
# MENISCUS_EXPAT_SHIM: path of the expat "no reparse deferral" LD_PRELOAD shim that ParaView 5.11's
# XML readers need with current bookworm libexpat (scripts/expat_noreparse.c; scripts/install-deps.sh
# installs it in /opt/meniscus/lib). When that file is absent the shim is built here instead (target
# meniscus_expat_noreparse) and MENISCUS_EXPAT_SHIM_PATH names the built file.

set(_meniscus_catalyst_help "Build the ParaView Catalyst in-situ adaptor: AUTO (when ParaView 5.11 is found), ON or OFF")
# Build folders configured before this file existed hold the placeholder BOOL option (OFF); move
# them to AUTO once. A value the user gave on the command line has a different help string.
get_property(_meniscus_catalyst_old_help CACHE MENISCUS_ENABLE_CATALYST PROPERTY HELPSTRING)
if(_meniscus_catalyst_old_help STREQUAL "Build the ParaView Catalyst in-situ adaptor")
  unset(MENISCUS_ENABLE_CATALYST CACHE)
endif()
set(MENISCUS_ENABLE_CATALYST AUTO CACHE STRING "${_meniscus_catalyst_help}")
set_property(CACHE MENISCUS_ENABLE_CATALYST PROPERTY STRINGS AUTO ON OFF)

string(TOUPPER "${MENISCUS_ENABLE_CATALYST}" _meniscus_catalyst_mode)
if(_meniscus_catalyst_mode MATCHES "^(ON|YES|TRUE|Y|1)$")
  set(_meniscus_catalyst_mode ON)
elseif(_meniscus_catalyst_mode MATCHES "^(OFF|NO|FALSE|N|0|)$")
  set(_meniscus_catalyst_mode OFF)
elseif(NOT _meniscus_catalyst_mode STREQUAL "AUTO")
  message(FATAL_ERROR "MENISCUS_ENABLE_CATALYST must be AUTO, ON or OFF (got '${MENISCUS_ENABLE_CATALYST}')")
endif()

# Reports why Catalyst is off: fatal when it was required, a STATUS line otherwise.
macro(_meniscus_catalyst_unavailable reason)
  if(_meniscus_catalyst_mode STREQUAL "ON")
    message(FATAL_ERROR "MENISCUS_ENABLE_CATALYST=ON but ${reason}. Install ParaView with "
                        "'scripts/install-deps.sh --with-paraview' (shared/deps.md §7).")
  endif()
  message(STATUS "ParaView Catalyst in-situ adaptor: OFF (${reason}; "
                 "'scripts/install-deps.sh --with-paraview' installs it)")
  set(_meniscus_catalyst_ok FALSE)
endmacro()

set(_meniscus_catalyst_ok FALSE)
if(_meniscus_catalyst_mode STREQUAL "OFF")
  message(STATUS "ParaView Catalyst in-situ adaptor: OFF (MENISCUS_ENABLE_CATALYST=OFF)")
else()
  set(_meniscus_catalyst_ok TRUE)
  # Workaround (1): VTK's export needs MPI::MPI_C and hdf5::hdf5, so C is enabled (project() does)
  # and MPI's C component found (MeniscusDependencies does).
  if(NOT TARGET MPI::MPI_C)
    _meniscus_catalyst_unavailable("MPI's C component was not found")
  endif()
  # Workaround (2): without this, hdf5::hdf5 resolves to the serial HDF5 that libnetcdf-dev pulls in.
  set(HDF5_PREFER_PARALLEL TRUE)
  if(_meniscus_catalyst_ok)
    find_package(ParaView 5.11 QUIET COMPONENTS Catalyst PythonCatalyst)
    if(NOT ParaView_FOUND)
      _meniscus_catalyst_unavailable("ParaView 5.11 with Catalyst and PythonCatalyst was not found")
    elseif(NOT ParaView_VERSION VERSION_GREATER_EQUAL 5.11 OR NOT ParaView_VERSION VERSION_LESS 5.12)
      # The adaptor uses the legacy vtkCPProcessor API as shipped in 5.11; later versions route it
      # through Catalyst 2 and need checking first.
      _meniscus_catalyst_unavailable("ParaView ${ParaView_VERSION} is not 5.11")
    endif()
  endif()
  if(_meniscus_catalyst_ok)
    # Workaround (3): Debian's VTK export links imported targets of private dependencies that its
    # config never finds; without them generation fails ("Freetype::Freetype ... not found").
    # VTK's own FindNetCDF lives in VTK_DIR.
    list(APPEND CMAKE_MODULE_PATH "${VTK_DIR}")
    set(_meniscus_catalyst_missing "")
    foreach(_dep Freetype X11 GLEW LibXml2 Boost NetCDF)
      find_package(${_dep} QUIET)
      if(NOT ${_dep}_FOUND)
        list(APPEND _meniscus_catalyst_missing ${_dep})
      endif()
    endforeach()
    find_package(HDF5 QUIET COMPONENTS C HL)
    if(NOT HDF5_FOUND)
      list(APPEND _meniscus_catalyst_missing HDF5)
    endif()
    if(_meniscus_catalyst_missing)
      string(REPLACE ";" ", " _meniscus_catalyst_missing "${_meniscus_catalyst_missing}")
      set(_meniscus_catalyst_why "ParaView's CMake export needs ${_meniscus_catalyst_missing} (Debian: \
libfreetype-dev libx11-dev libglew-dev libxml2-dev libboost-dev libnetcdf-dev libhdf5-openmpi-dev)")
      _meniscus_catalyst_unavailable("${_meniscus_catalyst_why}")
    endif()
  endif()
  if(_meniscus_catalyst_ok)
    message(STATUS "ParaView Catalyst in-situ adaptor: ON (ParaView ${ParaView_VERSION}, legacy Catalyst API)")
  endif()
endif()

if(_meniscus_catalyst_ok)
  set(MENISCUS_ENABLE_CATALYST ON)
else()
  set(MENISCUS_ENABLE_CATALYST OFF)
endif()

# The expat shim, for anything that reads VTK XML files with ParaView (the in-situ tests, pvpython).
set(MENISCUS_EXPAT_SHIM_DEFAULT /opt/meniscus/lib/libexpat_noreparse.so)
if(EXISTS "${MENISCUS_EXPAT_SHIM_DEFAULT}")
  set(_meniscus_shim_default "${MENISCUS_EXPAT_SHIM_DEFAULT}")
else()
  set(_meniscus_shim_default "")
endif()
set(MENISCUS_EXPAT_SHIM "${_meniscus_shim_default}" CACHE FILEPATH
    "expat no-reparse-deferral LD_PRELOAD shim (empty: build it from scripts/expat_noreparse.c)")
if(MENISCUS_EXPAT_SHIM STREQUAL "" AND _meniscus_shim_default)
  set_property(CACHE MENISCUS_EXPAT_SHIM PROPERTY VALUE "${_meniscus_shim_default}")
endif()
set(MENISCUS_EXPAT_SHIM_PATH "")
if(MENISCUS_ENABLE_CATALYST)
  if(MENISCUS_EXPAT_SHIM AND EXISTS "${MENISCUS_EXPAT_SHIM}")
    set(MENISCUS_EXPAT_SHIM_PATH "${MENISCUS_EXPAT_SHIM}")
  else()
    find_package(EXPAT QUIET)
    if(EXPAT_FOUND)
      add_library(meniscus_expat_noreparse SHARED ${CMAKE_SOURCE_DIR}/scripts/expat_noreparse.c)
      set_target_properties(meniscus_expat_noreparse PROPERTIES OUTPUT_NAME expat_noreparse
                            C_VISIBILITY_PRESET default)
      target_link_libraries(meniscus_expat_noreparse PRIVATE -Wl,--no-as-needed EXPAT::EXPAT ${CMAKE_DL_LIBS})
      set(MENISCUS_EXPAT_SHIM_PATH "$<TARGET_FILE:meniscus_expat_noreparse>")
    endif()
  endif()
  message(STATUS "expat shim for ParaView's XML readers: ${MENISCUS_EXPAT_SHIM_PATH}")
endif()

add_subdirectory(${CMAKE_SOURCE_DIR}/src/io/catalyst ${CMAKE_BINARY_DIR}/src/io/catalyst)
