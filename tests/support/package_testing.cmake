# SPDX-License-Identifier: Apache-2.0
# Helpers of the cmake -P scripts that install gpuvp and build an example against it out of tree
# (tests/package/custom_model.cmake, tests/rtl_bridge/third_party_example.cmake).

# run_checked(WHAT COMMAND...): runs the command; a non-zero exit stops the script with its output.
# Sets `out` and `err` in the caller.
function(run_checked what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# expect_in(TEXT PATTERN WHAT): stops the script unless PATTERN occurs in TEXT.
function(expect_in text pattern what)
  string(FIND "${text}" "${pattern}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected '${pattern}' in:\n${text}")
  endif()
endfunction()
