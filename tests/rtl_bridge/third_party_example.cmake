# SPDX-License-Identifier: Apache-2.0
# Installs gpuvp into WORK_DIR/prefix, builds examples/rtl-third-party against it out of tree
# (find_package(gpuvp), gpuvp_add_rtl_component, gpuvp_add_program) and runs its check.qtest.
cmake_policy(SET CMP0007 NEW)
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

include(${CMAKE_CURRENT_LIST_DIR}/../support/package_testing.cmake)

run_checked("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f lib/cmake/gpuvp/gpuvp_rtl.cmake lib/cmake/gpuvp/rtl_ports.py include/gpuvp/models/rtl_bridge/rtl_component.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()
# The example component of examples/rtl is not part of what gpuvp ships.
file(GLOB shipped ${prefix}/lib/*example_countdown*)
if(shipped)
  message(FATAL_ERROR "the RTL example component was installed: ${shipped}")
endif()

set(example ${SOURCE_DIR}/examples/rtl-third-party)
set(launcher "")
if(LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
run_checked("configuring the example" ${CMAKE_COMMAND} -S ${example} -B ${WORK_DIR}/build -G ${GENERATOR}
            -DCMAKE_CXX_COMPILER=${CXX} ${launcher} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run_checked("building the example" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)

run_checked("tp-gpuvp qtest" ${WORK_DIR}/build/tp-gpuvp qtest --config ${example}/platform.yaml --script ${example}/check.qtest)
# 40 bytes through the 32-bit, 16-bit-address AXI4 memory (unaligned: partial first and last beats).
expect_in("${out}" "OK 0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627\n" "scratch read")
expect_in("${out}" "OK 0x0000000012345678\n" "doorbell SCRATCH")
expect_in("${out}" "IRQ raise" "doorbell interrupt")
expect_in("${out}" "OK 0x0000000000000001\n" "doorbell STATUS.RING")
expect_in("${out}" "IRQ lower" "doorbell acknowledged at the block")
