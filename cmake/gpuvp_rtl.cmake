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
  find_package(Threads REQUIRED)
  find_package(ZLIB REQUIRED)  # FST compression
  set(inc ${VERILATOR_ROOT}/include)
  add_library(gpuvp_rtl_runtime STATIC ${inc}/verilated.cpp ${inc}/verilated_fst_c.cpp ${inc}/verilated_threads.cpp
              ${PROJECT_SOURCE_DIR}/models/rtl_bridge/rtl_trace.cpp)
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

# gpuvp_verilate(<target> TOP <module> SOURCES <.sv/.v files> [VERILATOR_ARGS ...]): a static
# library with the Verilated SystemC model V<module> (FST tracing compiled in).
function(gpuvp_verilate target)
  cmake_parse_arguments(V "" "TOP" "SOURCES;VERILATOR_ARGS" ${ARGN})
  _gpuvp_rtl_runtime()
  if(NOT TARGET ${target})
    add_library(${target} STATIC)
  endif()
  verilate(${target} SYSTEMC TRACE_FST TOP_MODULE ${V_TOP} PREFIX V${V_TOP} SOURCES ${V_SOURCES}
           VERILATOR_ARGS --no-timing -Wno-fatal -Wno-lint -Wno-style -O3 ${V_VERILATOR_ARGS})
  # The runtime is in gpuvp_rtl_runtime: drop verilate()'s own copy of it.
  if(GPUVP_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=alignment)  # Verilator's trace code: see the runtime
  endif()
  get_target_property(srcs ${target} SOURCES)
  list(FILTER srcs EXCLUDE REGEX "^${VERILATOR_ROOT}/include/.*\\.cpp$")
  set_property(TARGET ${target} PROPERTY SOURCES ${srcs})
  target_link_libraries(${target} PUBLIC gpuvp_rtl_runtime)
endfunction()

# gpuvp_add_rtl_component(NAME <type> TOP <module> SOURCES <files...> BUS axi4|axi4lite
#                         [MASTER|SLAVE] [IRQ] [UNLISTED])
# Verilates the sources and registers the platform component type <type> (components:
# {x: <type>} in YAML): the RTL top's ports follow models/rtl_bridge/rtl_component.h. The library
# is gpuvp_<type> with `void gpuvp_register_<type>()`; unless UNLISTED (test-only RTL), the gpuvp
# program registers it at start-up like any model (call this before gpuvp_finalize_models).
function(gpuvp_add_rtl_component)
  cmake_parse_arguments(R "MASTER;SLAVE;IRQ;UNLISTED" "NAME;TOP;BUS" "SOURCES;VERILATOR_ARGS" ${ARGN})
  if(NOT R_NAME OR NOT R_TOP OR NOT R_SOURCES)
    message(FATAL_ERROR "gpuvp_add_rtl_component: NAME, TOP and SOURCES are required")
  endif()
  if(R_BUS STREQUAL "axi4")
    set(bus axi4)
  elseif(R_BUS STREQUAL "axi4lite")
    set(bus axi4lite)
  else()
    message(FATAL_ERROR "gpuvp_add_rtl_component(${R_NAME}): BUS must be axi4 or axi4lite, not '${R_BUS}'")
  endif()
  if(R_MASTER AND R_SLAVE)
    message(FATAL_ERROR "gpuvp_add_rtl_component(${R_NAME}): MASTER or SLAVE, not both")
  endif()
  if(R_MASTER AND bus STREQUAL "axi4lite")
    message(FATAL_ERROR "gpuvp_add_rtl_component(${R_NAME}): an AXI4-Lite port can only be a SLAVE")
  endif()
  set(master false)
  set(role slave)
  if(R_MASTER)
    set(master true)
    set(role master)
  endif()
  set(irq false)
  if(R_IRQ)
    set(irq true)
  endif()
  set(glue ${CMAKE_CURRENT_BINARY_DIR}/gpuvp_rtl_${R_NAME}.cpp)
  file(CONFIGURE OUTPUT ${glue} CONTENT
"// Generated by gpuvp_add_rtl_component(${R_NAME}) (cmake/gpuvp_rtl.cmake).
#include \"V${R_TOP}.h\"
#include \"rtl_component.h\"
void gpuvp_register_${R_NAME}() {
  gpuvp::rtl::register_rtl_component<V${R_TOP}, gpuvp::rtl::bus::${bus}, ${master}, ${irq}>(
      \"${R_NAME}\", \"RTL block ${R_TOP} (Verilated; ${bus} ${role})\");
}
")
  add_library(gpuvp_${R_NAME} STATIC ${glue})
  gpuvp_verilate(gpuvp_${R_NAME} TOP ${R_TOP} SOURCES ${R_SOURCES} VERILATOR_ARGS ${R_VERILATOR_ARGS})
  target_link_libraries(gpuvp_${R_NAME} PUBLIC gpuvp_platform gpuvp_rtl_bridge)
  if(NOT R_UNLISTED)
    set_property(GLOBAL APPEND PROPERTY GPUVP_MODELS ${R_NAME})
  endif()
endfunction()
