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

# entropyctl, when it is built: the same code linked with the scripted pool
# for the tests that need a pool in a known state; the real binary for the
# host checks.
if(TARGET eg-ctl)
  add_executable(entropyctl-fake-pool ${CMAKE_SOURCE_DIR}/src/ctl/entropyctl.c)
  target_link_libraries(entropyctl-fake-pool PRIVATE eg-ctl eg-pool-fake eg-shared)

  eg_unit_test(test-json LIBS eg-ctl)

  find_program(EG_CTL_PYTHON3 python3)
  if(EG_CTL_PYTHON3)
    add_test(NAME ctl-status
             COMMAND ${EG_CTL_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/ctl-status.py
                     $<TARGET_FILE:entropyctl> $<TARGET_FILE:entropyctl-fake-pool>
                     ${CMAKE_SOURCE_DIR}/man/entropyctl-status.schema.json)
  else()
    add_test(NAME ctl-status COMMAND sh -c "echo 'SKIP: python3 not found, cannot validate the JSON'; exit 77")
  endif()
  set_tests_properties(ctl-status PROPERTIES LABELS cli SKIP_RETURN_CODE 77)

  eg_cli_test(ctl-check-image $<TARGET_FILE:entropyctl>)
  eg_cli_test(ctl-timeline $<TARGET_FILE:entropyctl-fake-pool>)
endif()
