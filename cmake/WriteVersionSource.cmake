# Script mode (cmake -P), called by MeniscusVersion.cmake: writes version.cpp from its template with
# the current commit. configure_file leaves the output untouched when the text is unchanged, so it
# recompiles only when the commit or the dirty state changes.
set(MENISCUS_GIT_COMMIT "unknown")
if(GIT_EXECUTABLE AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                  WORKING_DIRECTORY "${SOURCE_DIR}"
                  OUTPUT_VARIABLE _commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _commit)
    set(MENISCUS_GIT_COMMIT "${_commit}")
    # Only tracked files count: build folders and scratch decks are untracked. The refresh first
    # drops stale stat data (a file touched but not changed is not "dirty").
    execute_process(COMMAND "${GIT_EXECUTABLE}" update-index -q --refresh
                    WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_QUIET ERROR_QUIET)
    execute_process(COMMAND "${GIT_EXECUTABLE}" diff-index --quiet HEAD --
                    WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE _changed
                    OUTPUT_QUIET ERROR_QUIET)
    if(_changed EQUAL 1)
      string(APPEND MENISCUS_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
