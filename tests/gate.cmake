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
