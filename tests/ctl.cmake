# SPDX-License-Identifier: LGPL-2.1-or-later
# Configuration files, the generator and entropyctl.
eg_unit_test(test-conf-parser)
eg_unit_test(test-unit-name)

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

# The configuration parser, fuzzed: with clang a libFuzzer target (ASan +
# UBSan) run for a bounded time from the committed corpus, new inputs going
# to the build directory; with gcc the corpus driver tests/fuzz/fuzz-main.c.
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
set(EG_CONFIG_CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/config)
# The parser's sources compiled into the target, so libFuzzer sees their coverage.
set(EG_FUZZ_CONFIG_SOURCES fuzz/fuzz-config.c
    ${PROJECT_SOURCE_DIR}/src/shared/config.c ${PROJECT_SOURCE_DIR}/src/shared/conf-parser.c
    ${PROJECT_SOURCE_DIR}/src/shared/proc-cmdline.c ${PROJECT_SOURCE_DIR}/src/shared/time-util.c
    ${PROJECT_SOURCE_DIR}/src/shared/unit-name.c)
if(EG_HAVE_LIBFUZZER)
  add_executable(fuzz-config ${EG_FUZZ_CONFIG_SOURCES})
  target_compile_options(fuzz-config PRIVATE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
  target_link_options(fuzz-config PRIVATE -fsanitize=fuzzer,address,undefined)
  set(_work ${CMAKE_CURRENT_BINARY_DIR}/fuzz-work/config)
  file(MAKE_DIRECTORY ${_work} ${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts)
  add_test(NAME fuzz-config
           COMMAND fuzz-config -max_total_time=${EG_FUZZ_TIME} -max_len=4096 -print_final_stats=1
                   -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts/
                   ${_work} ${EG_CONFIG_CORPUS})
  set_tests_properties(fuzz-config PROPERTIES LABELS fuzz TIMEOUT 300)
else()
  add_executable(fuzz-config ${EG_FUZZ_CONFIG_SOURCES} fuzz/fuzz-main.c)
  add_test(NAME fuzz-config COMMAND fuzz-config ${EG_CONFIG_CORPUS})
  set_tests_properties(fuzz-config PROPERTIES LABELS fuzz)
endif()
