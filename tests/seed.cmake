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
