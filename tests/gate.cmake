# SPDX-License-Identifier: LGPL-2.1-or-later
eg_unit_test(test-notify)
eg_unit_test(test-gate LIBS eg-gate)

# Every installed unit verifies and each service meets its exposure bar.
add_test(NAME units-verify
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/units-verify.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}
                 ${SYSTEMD_SYSTEM_UNIT_DIR} ${CMAKE_INSTALL_FULL_MANDIR})
# Every man page lints clean.
add_test(NAME man-lint COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/man-lint.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(units-verify man-lint PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
# cmake --install writes install_manifest.txt into the build directory.
set_tests_properties(units-verify PROPERTIES RESOURCE_LOCK eg-install)

# entropy-gate-fakepool against a notify receiver of the test's own: the
# protocol (STATUS= refreshes, READY=1 then BARRIER=1), timeouts, signals,
# --ready-fd, the result file, log prefixes, option layering, usage errors.
find_program(EG_PYTHON3 python3)
if(EG_PYTHON3)
  add_test(NAME gate-cli
           COMMAND ${EG_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/gate-cli.py fake $<TARGET_FILE:entropy-gate-fakepool>)
  # The installed real entropy-gate under a test NOTIFY_SOCKET on this host.
  add_test(NAME gate-installed
           COMMAND ${EG_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/gate-cli.py installed ${CMAKE_BINARY_DIR}
                   ${CMAKE_INSTALL_FULL_SBINDIR})
else()
  foreach(t gate-cli gate-installed)
    add_test(NAME ${t} COMMAND sh -c "echo 'SKIP: python3 not found, it runs the notify receiver'; exit 77")
  endforeach()
endif()
set_tests_properties(gate-installed PROPERTIES RESOURCE_LOCK eg-install)
# On the boot path: libc only.
add_test(NAME gate-ldd COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/gate-ldd.sh $<TARGET_FILE:entropy-gate>
                               ${ENTROPY_GATE_SANITIZE})
set_tests_properties(gate-cli gate-installed gate-ldd PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
