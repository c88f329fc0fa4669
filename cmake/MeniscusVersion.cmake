# Records the git commit in the binary (run.json, --version). Outside a git checkout: "unknown".
find_package(Git QUIET)
set(MENISCUS_GIT_COMMIT "unknown")
if(GIT_FOUND AND EXISTS ${CMAKE_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE _commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _commit)
    set(MENISCUS_GIT_COMMIT ${_commit})
  endif()
endif()
configure_file(${CMAKE_SOURCE_DIR}/src/core/version.hpp.in ${CMAKE_BINARY_DIR}/generated/meniscus/version.hpp @ONLY)
