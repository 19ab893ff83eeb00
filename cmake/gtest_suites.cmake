# One CTest test per GoogleTest suite of a test executable, named <prefix><Suite> and run as
# `<exe> --gtest_filter=<Suite>.*`.
#
# Why not CMake's gtest_discover_tests (one test per TEST): every test executable that links
# LibTorch takes about half a second to start (Debian's libtorch_cpu loads some 280 libraries
# and registers its operators), so one process per test spent about a third of CTest's time
# starting processes. One process per suite keeps `ctest -R <folder>` and `ctest -R <Suite>`
# while starting about a quarter as many.
#
# The list is read when CTest starts (as gtest_discover_tests' PRE_TEST mode), so that the
# build does not run the executables; it is read again only when the executable changed.
# A suite whose every test skipped (data absent) is reported as skipped: the executables print a
# line for that case and only then (tests/common/test_support.cpp, AllSkippedMarker; its text is
# cmake/gtest_suites_list.cmake's _SYMGNN_ALL_SKIPPED_MARKER).
set(_SYMGNN_GTEST_SUITES_LIST_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/gtest_suites_list.cmake")

# symgnn_gtest_suites(<target> <prefix> ENVIRONMENT <NAME=value>... [COSTS <Suite> <seconds>...])
# COSTS: the measured seconds of the longest suites. CTest starts the costliest tests first, but
# on a fresh clone it has no timings of its own and would start them in the order listed; a
# three-minute suite started last makes the run three minutes longer on two cores.
function(symgnn_gtest_suites target prefix)
  cmake_parse_arguments(ARG "" "" "ENVIRONMENT;COSTS" ${ARGN})
  set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  set(tests_file "${base}_suites.cmake")
  string(CONCAT content
    "if(EXISTS \"$<TARGET_FILE:${target}>\")\n"
    "  if(NOT EXISTS \"${tests_file}\" OR\n"
    "     NOT \"${tests_file}\" IS_NEWER_THAN \"$<TARGET_FILE:${target}>\" OR\n"
    "     NOT \"${tests_file}\" IS_NEWER_THAN \"\${CMAKE_CURRENT_LIST_FILE}\")\n"
    "    include(\"${_SYMGNN_GTEST_SUITES_LIST_SCRIPT}\")\n"
    "    symgnn_write_suite_tests([==[$<TARGET_FILE:${target}>]==] [==[${prefix}]==]\n"
    "                             [==[${tests_file}]==] [==[${CMAKE_CURRENT_BINARY_DIR}]==]\n"
    "                             [==[${ARG_ENVIRONMENT}]==] [==[${ARG_COSTS}]==])\n"
    "  endif()\n"
    "  include(\"${tests_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  file(GENERATE OUTPUT "${base}_include.cmake" CONTENT "${content}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${base}_include.cmake")
endfunction()
