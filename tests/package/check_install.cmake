# The test package.consumer (tests/CMakeLists.txt), `cmake -P` with -D BUILD_DIR, SOURCE_DIR,
# WORK, GENERATOR, CXX: installs the build's `dev` component into a fresh prefix, then
# configures, builds and runs tests/package/consumer/ against it, as a C++ user would.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix --component dev)

# An installed package that points back into the source or build tree works here and
# nowhere else: look for both in the installed CMake files.
file(GLOB_RECURSE _files ${WORK}/prefix/*.cmake)
foreach(_f ${_files})
  file(READ ${_f} _text)
  foreach(_tree ${SOURCE_DIR} ${BUILD_DIR})
    string(FIND "${_text}" "${_tree}/" _at)
    if(NOT _at EQUAL -1)
      message(FATAL_ERROR "${_f} names ${_tree}")
    endif()
  endforeach()
endforeach()

run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/consumer -B ${WORK}/build -G "${GENERATOR}"
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK}/prefix)
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/consumer)
message(STATUS "${out}")
if(NOT out MATCHES "consumer: .* on synthetic, test RMSE [0-9]+\\.[0-9]+")
  message(FATAL_ERROR "unexpected output of the consumer:\n${out}")
endif()
