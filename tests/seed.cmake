# SPDX-License-Identifier: LGPL-2.1-or-later
# Tests of the seed helper: its pure core (unit, fuzz) and the entropy-seed binary (cli).

# The pure core: BLAKE2s, the seed file format, the credit decision.
eg_unit_test(test-blake2s)
eg_unit_test(test-seed-file)
eg_unit_test(test-credit)

# Our BLAKE2s against Python's hashlib on random inputs, keys, digest lengths
# and update splits.
add_executable(blake2s-tool tools/blake2s-tool.c)
target_link_libraries(blake2s-tool PRIVATE eg-shared)
find_program(EG_PYTHON3 python3)
if(EG_PYTHON3)
  add_test(NAME blake2s-vs-python
           COMMAND ${EG_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/blake2s-vs-python.py $<TARGET_FILE:blake2s-tool> 500)
else()
  add_test(NAME blake2s-vs-python
           COMMAND sh -c "echo 'SKIP: python3 not found, cannot compare BLAKE2s with hashlib'; exit 77")
endif()
set_tests_properties(blake2s-vs-python PROPERTIES LABELS cli SKIP_RETURN_CODE 77)

# The entropy-seed binary (entropy-seed-fakepool: the same objects linked
# with the scripted pool) against temporary seed directories and a fake root.
# seed-inspect parses a seed file for the tests.
eg_unit_test(test-seed-store LIBS eg-seed)
add_executable(seed-inspect tools/seed-inspect.c)
target_link_libraries(seed-inspect PRIVATE eg-shared)
if(EG_PYTHON3)
  add_test(NAME seed-cli
           COMMAND ${EG_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/seed-cli.py
                   $<TARGET_FILE:entropy-seed-fakepool> $<TARGET_FILE:seed-inspect>)
else()
  add_test(NAME seed-cli COMMAND sh -c "echo 'SKIP: python3 not found'; exit 77")
endif()
set_tests_properties(seed-cli PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 300)

# The seed file parser, fuzzed. With clang: a libFuzzer target (ASan+UBSan),
# run by CTest for a bounded time from the committed corpus; new inputs go to
# the build directory, never into the source tree. With gcc: the same target
# behind a driver that runs each corpus file once.
set(EG_SEED_CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/seed-file)
set(EG_FUZZ_SEED_FILE_SOURCES fuzz/fuzz-seed-file.c
    ${PROJECT_SOURCE_DIR}/src/shared/seed-file.c ${PROJECT_SOURCE_DIR}/src/shared/blake2s.c)
set(EG_FUZZ_TIME 20 CACHE STRING "Seconds CTest runs each libFuzzer target")
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
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
if(EG_HAVE_LIBFUZZER)
  add_executable(fuzz-seed-file ${EG_FUZZ_SEED_FILE_SOURCES})
  target_compile_options(fuzz-seed-file PRIVATE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
  target_link_options(fuzz-seed-file PRIVATE -fsanitize=fuzzer,address,undefined)
  set(_work ${CMAKE_CURRENT_BINARY_DIR}/fuzz-work/seed-file)
  file(MAKE_DIRECTORY ${_work} ${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts)
  add_test(NAME fuzz-seed-file
           COMMAND fuzz-seed-file -max_total_time=${EG_FUZZ_TIME} -print_final_stats=1
                   -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/fuzz-artifacts/
                   ${_work} ${EG_SEED_CORPUS})
  set_tests_properties(fuzz-seed-file PROPERTIES LABELS fuzz TIMEOUT 300)
else()
  add_executable(fuzz-seed-file ${EG_FUZZ_SEED_FILE_SOURCES} fuzz/fuzz-main.c)
  add_test(NAME fuzz-seed-file COMMAND fuzz-seed-file ${EG_SEED_CORPUS})
  set_tests_properties(fuzz-seed-file PROPERTIES LABELS fuzz)
endif()

# Every system call of load and save failing with EIO, and killed with
# SIGKILL: never a torn seed, never a seed credited twice.
if(EG_PYTHON3)
  add_test(NAME seed-faults
           COMMAND ${EG_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli/seed-faults.py
                   $<TARGET_FILE:entropy-seed-fakepool> $<TARGET_FILE:seed-inspect>)
else()
  add_test(NAME seed-faults COMMAND sh -c "echo 'SKIP: python3 not found'; exit 77")
endif()
set_tests_properties(seed-faults PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 600)
