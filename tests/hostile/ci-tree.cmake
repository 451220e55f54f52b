# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile image trees against entropyctl check-image (label "hostile";
# names ci-): each an attack that once worked, and the class behind it,
# with a canary "host" tree beside the image that must not change. Tests
# that make bind mounts need root and skip (77) without it.
if(TARGET entropyctl)
  if(EG_PYTHON3)
    add_test(NAME ci-check-image
             COMMAND ${EG_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/ci-check-image.py
                     $<TARGET_FILE:entropyctl> ${ENTROPY_GATE_CONF_FILE})
    add_test(NAME ci-check-image-mounts
             COMMAND ${EG_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/hostile/ci-check-image-mounts.py
                     $<TARGET_FILE:entropyctl> ${ENTROPY_GATE_CONF_FILE})
    set_tests_properties(ci-check-image ci-check-image-mounts
                         PROPERTIES LABELS hostile SKIP_RETURN_CODE 77 TIMEOUT 900)
  else()
    add_test(NAME ci-check-image COMMAND sh -c "echo 'SKIP: python3 not found'; exit 77")
    set_tests_properties(ci-check-image PROPERTIES LABELS hostile SKIP_RETURN_CODE 77)
  endif()
endif()

# Random hostile trees (symlinks, "..", hard links; no mounts), scanned and
# fixed: nothing beside the tree may change.
if(TARGET eg-ctl)
  eg_fuzz_test(fuzz-image-tree MAX_LEN 2048 SOURCES ctl/check-image.c)
  target_include_directories(fuzz-image-tree PRIVATE ${PROJECT_SOURCE_DIR}/src/ctl)
endif()

# bench/bench-check-image: check-image's cost over 10^3 ... 10^6 entries
# (not a test; `cmake --build BUILD --target bench-check-image`).
if(TARGET eg-ctl)
  add_executable(bench-check-image EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/bench/bench-check-image.c)
  target_link_libraries(bench-check-image PRIVATE eg-ctl eg-pool-fake eg-shared)
endif()
