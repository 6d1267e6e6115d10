# SPDX-License-Identifier: Apache-2.0
# RTL co-simulation with Verilator 5 (docs/rtl.md).
#
# GPUVP_RTL (ON when Verilator's CMake package is found) builds the RTL parts: the Verilated
# copy engine and SRAM, and anything declared with gpuvp_add_rtl_component. Without it the
# platform builds as before; copy.impl=rtl|lockstep is a configuration error and the RTL tests
# report themselves skipped.
#
# Verilator's SystemC output is compiled like the rest of gpuvp: C++20 against Debian's SystemC
# 2.3.4 (built as C++17), so with SC_CPLUSPLUS=201703L (from gpuvp_systemc). Verilator's runtime
# (verilated.cpp, verilated_fst_c.cpp, verilated_threads.cpp) is compiled once, into
# gpuvp_rtl_runtime, instead of once per design as verilate() would.
find_package(verilator 5 QUIET HINTS $ENV{VERILATOR_ROOT})
if(TARGET gpuvp::cli AND NOT TARGET gpuvp::rtl_runtime)
  set(verilator_FOUND FALSE)  # out of tree, and the installed gpuvp was built without the RTL parts
endif()
option(GPUVP_RTL "Build the RTL co-simulation parts (needs Verilator 5)" ${verilator_FOUND})
if(GPUVP_RTL AND NOT verilator_FOUND)
  message(FATAL_ERROR "GPUVP_RTL is ON but Verilator 5 was not found (apt-get install verilator, or set VERILATOR_ROOT)")
endif()
if(GPUVP_RTL)
  message(STATUS "gpuvp: RTL co-simulation on (Verilator ${verilator_VERSION} in ${VERILATOR_ROOT})")
else()
  message(STATUS "gpuvp: RTL co-simulation off (no Verilator 5): RTL tests will be skipped")
endif()

function(_gpuvp_rtl_runtime)
  if(TARGET gpuvp_rtl_runtime)
    return()
  endif()
  set(inc ${VERILATOR_ROOT}/include)
  if(TARGET gpuvp::rtl_runtime)
    # Out of tree (find_package(gpuvp)): the installed runtime, with Verilator's headers from here.
    add_library(gpuvp_rtl_runtime INTERFACE)
    target_include_directories(gpuvp_rtl_runtime SYSTEM INTERFACE ${inc} ${inc}/vltstd)
    target_link_libraries(gpuvp_rtl_runtime INTERFACE gpuvp::rtl_runtime gpuvp::rtl_bridge)
    return()
  endif()
  find_package(Threads REQUIRED)
  find_package(ZLIB REQUIRED)  # FST compression
  add_library(gpuvp_rtl_runtime STATIC ${inc}/verilated.cpp ${inc}/verilated_fst_c.cpp ${inc}/verilated_threads.cpp
              ${PROJECT_SOURCE_DIR}/models/rtl_bridge/rtl_trace.cpp ${PROJECT_SOURCE_DIR}/models/rtl_bridge/rtl_component.cpp)
  target_include_directories(gpuvp_rtl_runtime SYSTEM PUBLIC ${inc} ${inc}/vltstd)
  target_compile_definitions(gpuvp_rtl_runtime PUBLIC VM_SC=1 VM_TRACE=1 VM_TRACE_FST=1 VM_TRACE_VCD=0 VM_COVERAGE=0
                             GPUVP_HAVE_RTL=1)
  target_link_libraries(gpuvp_rtl_runtime PUBLIC gpuvp_rtl_bridge gpuvp_systemc ZLIB::ZLIB Threads::Threads)
  if(GPUVP_SANITIZE)
    # Verilator's FST writer (gtkwave's fstapi) reads packed words unaligned on purpose; that is
    # Verilator's code, not ours: no alignment checks in it (docs/testing.md).
    set_source_files_properties(${inc}/verilated_fst_c.cpp TARGET_DIRECTORY gpuvp_rtl_runtime
                                PROPERTIES COMPILE_OPTIONS -fno-sanitize=alignment)
  endif()
endfunction()

# gpuvp_verilate(<target> TOP <module> SOURCES <.sv/.v files> [PREFIX <class>] [PLAIN_CXX]
#                [VERILATOR_ARGS ...]): a static library with the Verilated SystemC model V<module>
# (or <class>; FST tracing compiled in). PLAIN_CXX: a C++ model without SystemC instead, the same
# options otherwise (bench/rtl's bare-loop baseline).
function(gpuvp_verilate target)
  cmake_parse_arguments(V "PLAIN_CXX" "TOP;PREFIX" "SOURCES;VERILATOR_ARGS" ${ARGN})
  set(output SYSTEMC)
  if(V_PLAIN_CXX)
    set(output "")
  endif()
  if(NOT V_PREFIX)
    set(V_PREFIX V${V_TOP})
  endif()
  _gpuvp_rtl_runtime()
  if(NOT TARGET ${target})
    add_library(${target} STATIC)
  endif()
  verilate(${target} ${output} TRACE_FST TOP_MODULE ${V_TOP} PREFIX ${V_PREFIX} SOURCES ${V_SOURCES}
           VERILATOR_ARGS --no-timing -Wno-fatal -Wno-lint -Wno-style -O3 ${V_VERILATOR_ARGS})
  # The runtime is in gpuvp_rtl_runtime: drop verilate()'s own copy of it.
  if(GPUVP_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=alignment)  # Verilator's trace code: see the runtime
  endif()
  if(V_PLAIN_CXX)
    # Linked with the shared runtime (built with VM_SC=1): keep that definition, not verilate()'s
    # VM_SC=0 beside it (a redefinition warning in every file).
    get_target_property(defs ${target} COMPILE_DEFINITIONS)
    list(FILTER defs EXCLUDE REGEX "^VM_SC=")
    set_property(TARGET ${target} PROPERTY COMPILE_DEFINITIONS ${defs})
  endif()
  get_target_property(srcs ${target} SOURCES)
  list(FILTER srcs EXCLUDE REGEX "^${VERILATOR_ROOT}/include/.*\\.cpp$")
  set_property(TARGET ${target} PROPERTY SOURCES ${srcs})
  target_link_libraries(${target} PUBLIC gpuvp_rtl_runtime)
endfunction()

# gpuvp_add_rtl_component(NAME <type> TOP <module> SOURCES <files...>
#     CLOCK <port> RESET <port> ACTIVE_HIGH|ACTIVE_LOW [PARAMS NAME=VALUE...]
#     BUS <prefix> AXI4|AXI4LITE SLAVE|MASTER [BUS ...] [IRQ <port>]... [BUSY <port>]
#     [TIE <port>=<value>]... [VERILATOR_ARGS ...] [UNLISTED])
# Verilates the IP's own files unchanged and registers the platform component type <type>
# (components: {x: <type>} in YAML). The top's real ports (names, directions, widths) are read
# from Verilator's --xml-only output by models/rtl_bridge/rtl_ports.py, which generates the
# binding (models/rtl_bridge/rtl_component.h, docs/rtl.md). PARAMS are Verilator -G overrides.
# The old form `BUS axi4|axi4lite [MASTER|SLAVE] [IRQ]` (ports clk, rst_n, s_axi_* / s_axil_* /
# m_axi_*, irq, an optional busy) still works. The library is gpuvp_<type> with
# `void gpuvp_register_<type>()`; unless UNLISTED (test-only or example RTL), the gpuvp program
# registers it at start-up like any model (call this before gpuvp_finalize_models); an UNLISTED
# component reaches a program through gpuvp_add_program(... RTL_COMPONENTS <type>).
function(gpuvp_add_rtl_component)
  if(NOT GPUVP_RTL)
    message(FATAL_ERROR "gpuvp_add_rtl_component: RTL co-simulation is off (Verilator 5 not found, or gpuvp built without it)")
  endif()
  set(one NAME TOP CLOCK RESET)
  set(multi SOURCES PARAMS VERILATOR_ARGS IRQ TIE)
  set(flags ACTIVE_HIGH ACTIVE_LOW UNLISTED MASTER SLAVE)
  set(key "")
  set(buses "")
  set(legacy FALSE)
  foreach(k IN LISTS one multi)
    set(R_${k} "")
  endforeach()
  set(R_BUSY "")
  set(args ${ARGN})
  list(LENGTH args n)
  set(i 0)
  set(irq_flag FALSE)
  while(i LESS n)
    list(GET args ${i} a)
    math(EXPR i "${i} + 1")
    if(a STREQUAL "BUS")
      list(GET args ${i} p)
      if(p STREQUAL "axi4" OR p STREQUAL "axi4lite")  # the old form: BUS axi4|axi4lite [MASTER|SLAVE]
        set(legacy TRUE)
        set(legacy_bus ${p})
        math(EXPR i "${i} + 1")
      else()
        math(EXPR j "${i} + 2")
        if(j GREATER n)
          message(FATAL_ERROR "gpuvp_add_rtl_component: BUS ${p} needs a kind (AXI4|AXI4LITE) and a role (SLAVE|MASTER)")
        endif()
        math(EXPR i1 "${i} + 1")
        math(EXPR i2 "${i} + 2")
        list(GET args ${i1} kind)
        list(GET args ${i2} role)
        if(NOT kind MATCHES "^(AXI4|AXI4LITE)$" OR NOT role MATCHES "^(SLAVE|MASTER)$")
          message(FATAL_ERROR "gpuvp_add_rtl_component: BUS ${p} ${kind} ${role}: expected BUS <prefix> AXI4|AXI4LITE SLAVE|MASTER")
        endif()
        list(APPEND buses "--bus=${p}:${kind}:${role}")
        set(i ${j})
      endif()
      set(key "")
    elseif(a STREQUAL "IRQ")
      set(irq_flag TRUE)
      set(key IRQ)
    elseif(a STREQUAL "BUSY")
      list(GET args ${i} R_BUSY)
      math(EXPR i "${i} + 1")
      set(key "")
    elseif(a IN_LIST flags)
      set(R_${a} TRUE)
      set(key "")
    elseif(a IN_LIST one)
      list(GET args ${i} R_${a})
      math(EXPR i "${i} + 1")
      set(key "")
    elseif(a IN_LIST multi)
      set(key ${a})
    elseif(key)
      list(APPEND R_${key} ${a})
    else()
      message(FATAL_ERROR "gpuvp_add_rtl_component: unexpected argument '${a}' (docs/rtl.md)")
    endif()
  endwhile()
  if(NOT R_NAME OR NOT R_TOP OR NOT R_SOURCES)
    message(FATAL_ERROR "gpuvp_add_rtl_component: NAME, TOP and SOURCES are required")
  endif()
  set(gen_args --name ${R_NAME} --top ${R_TOP})
  if(legacy)
    # Fixed port names: clk, rst_n (active low), one bus, irq, an optional busy output.
    if(R_MASTER AND R_SLAVE)
      message(FATAL_ERROR "gpuvp_add_rtl_component(${R_NAME}): MASTER or SLAVE, not both")
    endif()
    if(R_MASTER AND legacy_bus STREQUAL "axi4lite")
      message(FATAL_ERROR "gpuvp_add_rtl_component(${R_NAME}): an AXI4-Lite port can only be a SLAVE")
    endif()
    if(legacy_bus STREQUAL "axi4lite")
      set(buses --bus=s_axil_:AXI4LITE:SLAVE)
    elseif(R_MASTER)
      set(buses --bus=m_axi_:AXI4:MASTER)
    else()
      set(buses --bus=s_axi_:AXI4:SLAVE)
    endif()
    list(APPEND gen_args --legacy --clock clk --reset rst_n --busy busy?)
    if(irq_flag)
      list(APPEND gen_args --irq irq)
    endif()
  else()
    if(NOT R_CLOCK OR NOT R_RESET OR NOT buses)
      message(FATAL_ERROR "gpuvp_add_rtl_component(${R_NAME}): CLOCK, RESET and at least one BUS are required")
    endif()
    if(R_ACTIVE_HIGH AND R_ACTIVE_LOW OR NOT R_ACTIVE_HIGH AND NOT R_ACTIVE_LOW)
      message(FATAL_ERROR "gpuvp_add_rtl_component(${R_NAME}): RESET ${R_RESET} needs ACTIVE_HIGH or ACTIVE_LOW")
    endif()
    list(APPEND gen_args --clock ${R_CLOCK} --reset ${R_RESET})
    if(R_ACTIVE_HIGH)
      list(APPEND gen_args --active-high)
    endif()
    foreach(q IN LISTS R_IRQ)
      list(APPEND gen_args --irq ${q})
    endforeach()
    if(R_BUSY)
      list(APPEND gen_args --busy ${R_BUSY})
    endif()
  endif()
  foreach(t IN LISTS R_TIE)
    list(APPEND gen_args --tie ${t})
  endforeach()
  set(vargs ${R_VERILATOR_ARGS})
  foreach(p IN LISTS R_PARAMS)
    list(APPEND vargs -G${p})
  endforeach()
  set(srcs "")
  foreach(f IN LISTS R_SOURCES)
    get_filename_component(f ${f} ABSOLUTE)
    list(APPEND srcs ${f})
  endforeach()
  _gpuvp_rtl_tools()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/gpuvp_rtl_${R_NAME})
  set(glue ${dir}/glue.cpp)
  add_custom_command(OUTPUT ${glue}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${CMAKE_COMMAND} -E env VERILATOR_ROOT=${VERILATOR_ROOT} ${VERILATOR_BIN} --xml-only --xml-output ${dir}/ports.xml -Mdir ${dir}/xml --top-module ${R_TOP}
            -Wno-fatal -Wno-lint -Wno-style ${vargs} ${srcs}
    COMMAND ${GPUVP_PYTHON} ${GPUVP_RTL_PORTS_PY} --xml ${dir}/ports.xml ${gen_args} ${buses} --out ${glue}
    DEPENDS ${srcs} ${GPUVP_RTL_PORTS_PY}
    COMMENT "gpuvp_add_rtl_component(${R_NAME}): reading the ports of ${R_TOP}"
    VERBATIM)
  add_library(gpuvp_${R_NAME} STATIC ${glue})
  # The model class is V<NAME>: one top Verilated twice with other PARAMS links into one program.
  gpuvp_verilate(gpuvp_${R_NAME} TOP ${R_TOP} PREFIX V${R_NAME} SOURCES ${srcs} VERILATOR_ARGS ${vargs})
  target_link_libraries(gpuvp_${R_NAME} PUBLIC gpuvp_rtl_runtime)
  if(NOT R_UNLISTED)
    set_property(GLOBAL APPEND PROPERTY GPUVP_MODELS ${R_NAME})
  endif()
endfunction()

# The tools gpuvp_add_rtl_component runs at build time: Verilator and rtl_ports.py.
macro(_gpuvp_rtl_tools)
  if(NOT GPUVP_PYTHON)
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    set(GPUVP_PYTHON ${Python3_EXECUTABLE})
  endif()
  if(NOT GPUVP_RTL_PORTS_PY)
    set(GPUVP_RTL_PORTS_PY ${PROJECT_SOURCE_DIR}/models/rtl_bridge/rtl_ports.py)
  endif()
endmacro()

# gpuvp_add_program(<name> [RTL_COMPONENTS <type>...] [SOURCES ...] [LIBS ...]): a gpuvp program,
# the gpuvp command line with every shipped model plus these RTL components (and whatever the
# extra sources register before gpuvp::main; they may not define sc_main).
function(gpuvp_add_program name)
  cmake_parse_arguments(P "" "" "RTL_COMPONENTS;SOURCES;LIBS" ${ARGN})
  set(decls "")
  set(calls "")
  set(libs "")
  foreach(c IN LISTS P_RTL_COMPONENTS)
    string(APPEND decls "void gpuvp_register_${c}();\n")
    string(APPEND calls "  gpuvp_register_${c}();\n")
    list(APPEND libs gpuvp_${c})
  endforeach()
  set(main ${CMAKE_CURRENT_BINARY_DIR}/gpuvp_program_${name}.cpp)
  file(CONFIGURE OUTPUT ${main} CONTENT
"// Generated by gpuvp_add_program(${name}) (cmake/gpuvp_rtl.cmake): gpuvp with extra components.
#include <cstdlib>
#include <systemc>
#include \"gpuvp/main.h\"
${decls}
// No SystemC copyright banner on every command (as the gpuvp program).
static const bool quiet_banner = [] { return setenv(\"SYSTEMC_DISABLE_COPYRIGHT_MESSAGE\", \"1\", 0) == 0; }();

int sc_main(int argc, char** argv) {
${calls}  return gpuvp::main(argc, argv);
}
")
  add_executable(${name} ${main} ${P_SOURCES})
  if(TARGET gpuvp::cli)
    target_link_libraries(${name} PRIVATE gpuvp::cli ${libs} ${P_LIBS})
  else()
    target_link_libraries(${name} PRIVATE gpuvp_cli ${libs} ${P_LIBS})
  endif()
endfunction()
