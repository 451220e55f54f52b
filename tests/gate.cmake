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

# Option parsing, fuzzed: with clang a libFuzzer target (ASan + UBSan) run for
# a bounded time from the committed corpus; with gcc the corpus driver.
if(NOT DEFINED EG_HAVE_LIBFUZZER AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
  check_c_source_compiles([[
    #include <stddef.h>
    #include <stdint.h>
    int LLVMFuzzerTestOneInput(const uint8_t *d, size_t s);
    int LLVMFuzzerTestOneInput(const uint8_t *d, size_t s) { (void) d; (void) s; return 0; }
  ]] EG_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
endif()
if(NOT DEFINED EG_FUZZ_TIME)
  set(EG_FUZZ_TIME 20 CACHE STRING "Seconds CTest runs each libFuzzer target")
endif()
set(EG_GATE_ARGV_CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/gate-argv)
# gate.c and the duration parser compiled in, so libFuzzer sees their coverage.
set(EG_FUZZ_GATE_ARGV_SOURCES fuzz/fuzz-gate-argv.c ${PROJECT_SOURCE_DIR}/src/gate/gate.c
    ${PROJECT_SOURCE_DIR}/src/shared/time-util.c)
if(EG_HAVE_LIBFUZZER)
  add_executable(fuzz-gate-argv ${EG_FUZZ_GATE_ARGV_SOURCES})
  target_compile_options(fuzz-gate-argv PRIVATE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
  target_link_options(fuzz-gate-argv PRIVATE -fsanitize=fuzzer,address,undefined)
  set(_work ${CMAKE_CURRENT_BINARY_DIR}/fuzz-work/gate-argv)
  file(MAKE_DIRECTORY ${_work} ${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts)
  add_test(NAME fuzz-gate-argv
           COMMAND fuzz-gate-argv -max_total_time=${EG_FUZZ_TIME} -max_len=512 -print_final_stats=1
                   -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts/
                   ${_work} ${EG_GATE_ARGV_CORPUS})
  set_tests_properties(fuzz-gate-argv PROPERTIES LABELS fuzz TIMEOUT 300)
else()
  add_executable(fuzz-gate-argv ${EG_FUZZ_GATE_ARGV_SOURCES} fuzz/fuzz-main.c)
  add_test(NAME fuzz-gate-argv COMMAND fuzz-gate-argv ${EG_GATE_ARGV_CORPUS})
  set_tests_properties(fuzz-gate-argv PROPERTIES LABELS fuzz)
endif()
target_include_directories(fuzz-gate-argv PRIVATE ${PROJECT_SOURCE_DIR}/src/gate ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
target_link_libraries(fuzz-gate-argv PRIVATE eg-shared eg-pool-fake)
