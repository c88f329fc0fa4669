# Included by ctest after the discovered validation tests (tests/CMakeLists.txt): the Long* ones carry
# the labels `long` (left out by the default `ctest -LE long`) and `validation` (the report's -L).
if(validation_long_tests)
  set_tests_properties(${validation_long_tests} PROPERTIES LABELS "long;validation")
endif()
