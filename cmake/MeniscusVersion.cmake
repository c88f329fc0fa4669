# Records the source a binary was built from (run.json, --version): the git commit, with "-dirty" when
# tracked files differ from it, so that a run can be traced to the exact code. Outside a git checkout
# the commit reads "unknown".
# The source file is rewritten by cmake/WriteVersionSource.cmake at configure time and again at every
# build (the meniscus_version target), but only when its text changes: committing or editing a tracked
# file recompiles that one file (a header would recompile everything that includes it), and nothing
# recompiles otherwise.
find_package(Git QUIET)
set(MENISCUS_VERSION_SOURCE ${CMAKE_BINARY_DIR}/generated/version.cpp)
set(_write_version ${CMAKE_COMMAND}
    -DGIT_EXECUTABLE=${GIT_EXECUTABLE}
    -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
    -DTEMPLATE=${CMAKE_SOURCE_DIR}/src/core/version.cpp.in
    -DOUTPUT=${MENISCUS_VERSION_SOURCE}
    -DPROJECT_VERSION=${PROJECT_VERSION}
    -P ${CMAKE_SOURCE_DIR}/cmake/WriteVersionSource.cmake)
execute_process(COMMAND ${_write_version})
add_custom_target(meniscus_version
  COMMAND ${_write_version}
  BYPRODUCTS ${MENISCUS_VERSION_SOURCE}
  VERBATIM)
