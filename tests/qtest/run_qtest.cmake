# SPDX-License-Identifier: Apache-2.0
# Runs one qtest script and compares its output with the expected file.
file(STRINGS ${SCRIPT} _first LIMIT_COUNT 1)
set(_args "")
if(_first MATCHES "^#! (.*)$")
  separate_arguments(_args UNIX_COMMAND "${CMAKE_MATCH_1}")
endif()
execute_process(COMMAND ${GPUVP} qtest ${_args} --script ${SCRIPT}
                OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
file(READ ${EXPECTED} _expected)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "gpuvp qtest exited ${_rc}\n${_err}")
endif()
if(NOT _out STREQUAL _expected)
  message(FATAL_ERROR "output differs from ${EXPECTED}\n--- got ---\n${_out}--- expected ---\n${_expected}")
endif()
