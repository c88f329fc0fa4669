# Records the git commit in the binary (run.json, --version). Outside a git checkout: "unknown".
# The commit is read at configure time; HEAD and the branch's ref file are configure dependencies, so
# a build after a commit or checkout re-runs CMake and the binary names the commit it was built from.
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
  # --git-path resolves worktrees and a shared common directory; only files that exist are watched
  # (a packed ref has no file of its own until it next moves).
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --git-path HEAD
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE _head OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} symbolic-ref -q HEAD
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE _ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  set(_watch ${_head})
  if(_ref)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --git-path ${_ref}
                    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                    OUTPUT_VARIABLE _ref_file OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    list(APPEND _watch ${_ref_file})
  endif()
  foreach(_f IN LISTS _watch)
    get_filename_component(_f ${_f} ABSOLUTE BASE_DIR ${CMAKE_SOURCE_DIR})
    if(EXISTS ${_f})
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_f})
    endif()
  endforeach()
endif()
configure_file(${CMAKE_SOURCE_DIR}/src/core/version.hpp.in ${CMAKE_BINARY_DIR}/generated/meniscus/version.hpp @ONLY)
