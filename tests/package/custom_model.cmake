# SPDX-License-Identifier: Apache-2.0
# Installs gpuvp into WORK_DIR/prefix, builds examples/custom-model against it and checks it.
cmake_policy(SET CMP0007 NEW)
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

include(${CMAKE_CURRENT_LIST_DIR}/../support/package_testing.cmake)

run_checked("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f bin/gpuvp share/gpuvp/gpuvp_plot.py include/gpuvp/registry.h include/gpuvp/main.h lib/cmake/gpuvp/gpuvpConfig.cmake
          lib/cmake/gpuvp/gpuvpConfigVersion.cmake share/doc/gpuvp/LICENSE)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()

set(example ${SOURCE_DIR}/examples/custom-model)
set(launcher "")
if(LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run_checked("configuring the example" ${CMAKE_COMMAND} -S ${example} -B ${WORK_DIR}/build -G ${GENERATOR}
            -DCMAKE_CXX_COMPILER=${CXX} ${launcher} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run_checked("building the example" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
set(prog ${WORK_DIR}/build/my-gpuvp)

# The engine adds 1 + 2 + 3 + 0xfffffffa + 0x10 = 0x10 (mod 2^32) from 20 bytes: STATUS.DONE (2).
run_checked("my-gpuvp qtest" ${prog} qtest --config ${example}/platform.yaml --script ${example}/check.qtest)
string(REPLACE "\n" ";" lines "${out}")
list(GET lines 6 status_line)
list(GET lines 7 sum_line)
if(NOT status_line STREQUAL "OK 0x0000000000000002" OR NOT sum_line STREQUAL "OK 0x0000000000000010")
  message(FATAL_ERROR "sum_engine: expected STATUS 2 and SUM 0x10, got:\n${out}")
endif()
expect_in("${out}" "summer.bytes=20 summer.jobs=1" "sum_engine statistics")

# The user's parameters are part of the configuration, with their ranges checked.
run_checked("my-gpuvp config dump" ${prog} config dump --config ${example}/platform.yaml)
expect_in("${out}" "summer:" "config dump")
expect_in("${out}" "burst: 32" "config dump")
execute_process(COMMAND ${prog} config dump --config ${example}/platform.yaml --set summer.burst=5000
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "summer.burst=5000 (range 4..4096) should be a configuration error (exit 2), got ${rc}")
endif()
expect_in("${err}" "summer.burst" "out-of-range parameter message")

# The shipped models came along: the default run works in the user's program. The report names
# the component once, and SystemC's banner stays out of the output (gpuvp::main silences it).
execute_process(COMMAND ${prog} run --config ${example}/platform.yaml RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "my-gpuvp run failed (${rc}):\n${out}\n${err}")
endif()
expect_in("${out}" "\n  summer: 0 sums, 0 bytes read\n" "my-gpuvp run report")
foreach(unwanted "summer: summer" "Copyright" "SystemC")
  string(FIND "${out}${err}" "${unwanted}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "my-gpuvp run printed '${unwanted}':\n${out}\n${err}")
  endif()
endforeach()

# The installed program needs nothing from the source or build tree (the plot script included).
execute_process(COMMAND sh ${SOURCE_DIR}/tests/package/out_of_reach.sh ${prefix} ${SOURCE_DIR} ${BUILD_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 77)
  message(STATUS "${out}")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed gpuvp without the source tree failed (${rc}):\n${out}\n${err}")
endif()

if(WITH_PYTHON)
  # The installed Python package, from Debian's path under the prefix.
  set(ENV{PYTHONPATH} ${prefix}/lib/python3/dist-packages)
  file(WRITE ${WORK_DIR}/check.py "import gpuvp\n"
       "c = gpuvp.config(set={'mmu.tlb_entries': 32})\n"
       "assert c['mmu']['tlb_entries'] == 32, c['mmu']\n"
       "print(gpuvp.__file__)\n")
  run_checked("import gpuvp (installed)" ${PYTHON} ${WORK_DIR}/check.py)
  expect_in("${out}" "${prefix}/lib/python3/dist-packages/gpuvp/" "installed Python package")
endif()
