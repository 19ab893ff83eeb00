# Run by CTest through the include file cmake/gtest_suites.cmake writes: lists a test
# executable's suites and writes one add_test per suite into tests_file.
#
# `--gtest_list_tests` prints a suite as a line of its own ("Suite.", "Instance/Suite.",
# "Suite/0.  # TypeParam = ...") and its tests indented below it; only the suite lines are read.

# The line an executable prints when every test it ran was skipped and none failed
# (tests/common/test_support.cpp); a suite printing it is reported as skipped.
set(_SYMGNN_ALL_SKIPPED_MARKER "symgnn-tests: every test of this run was skipped")

function(symgnn_write_suite_tests executable prefix tests_file working_dir environment costs)
  execute_process(COMMAND "${executable}" --gtest_list_tests
                  WORKING_DIRECTORY "${working_dir}"
                  TIMEOUT 60
                  OUTPUT_VARIABLE listing
                  ERROR_VARIABLE errors
                  RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${executable} --gtest_list_tests failed (${result}):\n${listing}${errors}")
  endif()
  # Only suite lines matter, and none holds these; removing them keeps the lines a list.
  string(REGEX REPLACE "[][;\\\\]" "" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(script "")
  set(count 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^([A-Za-z0-9_/]+)\\.")
      set(suite "${CMAKE_MATCH_1}")
      if(suite MATCHES "^DISABLED_" OR suite MATCHES "/DISABLED_")
        continue()
      endif()
      set(name "${prefix}${suite}")
      string(APPEND script
        "add_test([==[${name}]==] [==[${executable}]==] [==[--gtest_filter=${suite}.*]==])\n"
        "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${working_dir}]==]\n"
        "  SKIP_REGULAR_EXPRESSION [==[${_SYMGNN_ALL_SKIPPED_MARKER}]==] ENVIRONMENT [==[${environment}]==])\n")
      list(FIND costs "${suite}" at)
      if(at GREATER -1)
        math(EXPR at "${at} + 1")
        list(GET costs ${at} seconds)
        string(APPEND script "set_tests_properties([==[${name}]==] PROPERTIES COST ${seconds})\n")
      endif()
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  if(count EQUAL 0)
    message(FATAL_ERROR "${executable} --gtest_list_tests listed no suite:\n${listing}")
  endif()
  file(WRITE "${tests_file}" "${script}")
endfunction()
