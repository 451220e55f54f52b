# SPDX-License-Identifier: LGPL-2.1-or-later
# Configuration files, the generator and entropyctl.
eg_unit_test(test-conf-parser)

# CLI tests: shell scripts running the real binaries against temp dirs;
# exit 77 means a tool they need is missing (reported as skipped).
function(eg_cli_test name)
  add_test(NAME ${name} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/${name}.sh ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
endfunction()

eg_cli_test(generator-basic $<TARGET_FILE:entropy-gate-generator>)
eg_cli_test(generator-verify $<TARGET_FILE:entropy-gate-generator> ${CMAKE_SOURCE_DIR})
