# SPDX-License-Identifier: Apache-2.0
# Install rules and the gpuvp CMake package (docs/extending.md).
#
# `cmake --install build --prefix P` installs:
#   bin/gpuvp                               the program
#   lib/libgpuvp_*.a                        the platform, every model, gpuvp_all and the CLI
#   include/gpuvp/*.h                       the platform's public headers (and gpuvp/main.h)
#   include/gpuvp/models/<model>/...        each model's headers
#   include/gpuvp/firmware/asc/asc_fw.h     the ASC firmware's interface (asc.h includes it)
#   lib/cmake/gpuvp/gpuvpConfig.cmake       find_package(gpuvp): targets gpuvp::platform,
#                                           gpuvp::<model>, gpuvp::all, gpuvp::cli; with
#                                           gpuvp_rtl.cmake and rtl_ports.py the functions
#                                           gpuvp_add_rtl_component and gpuvp_add_program
#   share/gpuvp/firmware/cp/*.fw            gpuvp's own CP firmware (when the cp model is built)
#   share/gpuvp/gpuvp_plot.py               the script behind `gpuvp plot` and a sweep's plots
# Exported names drop the gpuvp_ prefix: gpuvp_pfifo is gpuvp::pfifo.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Every library target of this project that `target` links, itself included.
function(_gpuvp_collect_targets target out_var)
  set(seen ${${out_var}})
  if(NOT TARGET ${target} OR ${target} IN_LIST seen)
    return()
  endif()
  get_target_property(imported ${target} IMPORTED)
  if(imported)
    return()
  endif()
  list(APPEND seen ${target})
  get_target_property(libs ${target} LINK_LIBRARIES)
  get_target_property(ilibs ${target} INTERFACE_LINK_LIBRARIES)
  foreach(l IN LISTS libs ilibs)
    if(l AND TARGET ${l})
      _gpuvp_collect_targets(${l} seen)
    endif()
  endforeach()
  set(${out_var} ${seen} PARENT_SCOPE)
endfunction()

function(gpuvp_install)
  set(targets "")
  _gpuvp_collect_targets(gpuvp_cli targets)
  set(headers_done "")
  foreach(t IN LISTS targets)
    string(REGEX REPLACE "^gpuvp_" "" export_name ${t})
    set_target_properties(${t} PROPERTIES EXPORT_NAME ${export_name})
    # Include folders of the source tree become folders under include/ once installed.
    get_target_property(dirs ${t} INTERFACE_INCLUDE_DIRECTORIES)
    if(NOT dirs)
      continue()
    endif()
    set(mapped "")
    foreach(d IN LISTS dirs)
      if(d MATCHES "^\\$<" OR NOT IS_ABSOLUTE ${d})
        list(APPEND mapped ${d})
        continue()
      endif()
      file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${d})
      if(rel MATCHES "^(platform|sc_main)/include$")
        set(dest ${CMAKE_INSTALL_INCLUDEDIR})
        set(inc ${CMAKE_INSTALL_INCLUDEDIR})
      elseif(rel MATCHES "^(models|firmware)/")
        set(dest ${CMAKE_INSTALL_INCLUDEDIR}/gpuvp/${rel})
        set(inc ${dest})
      else()
        # sc_main/ (cli.h, internal) and anything else: usable from the build tree only.
        list(APPEND mapped "$<BUILD_INTERFACE:${d}>")
        continue()
      endif()
      if(NOT d IN_LIST headers_done)
        list(APPEND headers_done ${d})
        install(DIRECTORY ${d}/ DESTINATION ${dest} FILES_MATCHING PATTERN "*.h"
                PATTERN "configs" EXCLUDE PATTERN "workloads" EXCLUDE PATTERN "docs" EXCLUDE)
      endif()
      list(APPEND mapped "$<BUILD_INTERFACE:${d}>" "$<INSTALL_INTERFACE:${inc}>")
    endforeach()
    set_target_properties(${t} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${mapped}")
  endforeach()

  install(TARGETS gpuvp RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(TARGETS ${targets} EXPORT gpuvpTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT gpuvpTargets NAMESPACE gpuvp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuvp)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpuvpConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/gpuvpConfig.cmake
                                INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuvp)
  # 0.x: a minor version may break the API.
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpuvpConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/gpuvpConfig.cmake ${PROJECT_BINARY_DIR}/gpuvpConfigVersion.cmake
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuvp)
  # RTL co-simulation for out-of-tree projects: gpuvp_add_rtl_component, gpuvp_add_program.
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/gpuvp_rtl.cmake ${PROJECT_SOURCE_DIR}/models/rtl_bridge/rtl_ports.py
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gpuvp)
  if(TARGET cp_firmware)
    install(DIRECTORY ${PROJECT_BINARY_DIR}/firmware/cp DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuvp/firmware)
  endif()
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/gpuvp_plot.py DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuvp)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/gpuvp)
endfunction()
