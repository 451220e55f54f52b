# SPDX-License-Identifier: LGPL-2.1-or-later
# Real image builders (tests/images/): Debian 12's mmdebstrap and mkosi build
# an image with the project's .debs by the recipes of docs/image-builders.md,
# and its clones and a provisioned copy boot cold under qemu TCG (five boots
# per builder, six for mmdebstrap). Labelled "images": `ctest -L images`;
# the two builds also "images-build", to leave them out where no Debian
# mirror is reachable (`-LE images-build`). CI runs them all.
# Root and qemu as for the VM tiers (tests/vm/lib.sh); they share its cache
# (kernel, initramfs, the .debs of the commit), filled under its flock, and
# run beside the VM tiers as they do (tests/vm.cmake).
foreach(builder IN ITEMS mmdebstrap mkosi)
  add_test(NAME images-${builder}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/images/run --builder ${builder}
                   --build-dir ${CMAKE_BINARY_DIR} --work-dir ${CMAKE_BINARY_DIR}/images-${builder})
  set_tests_properties(images-${builder} PROPERTIES
    LABELS "images;images-build" SKIP_RETURN_CODE 77 TIMEOUT 2700)
endforeach()
# The seed credential in every hypervisor's form (entropyctl credential),
# libvirt's validated against libvirt's schema; no boot.
if(TARGET entropyctl)
  add_test(NAME images-credential-formats
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/images/credential-formats ${CMAKE_SOURCE_DIR} $<TARGET_FILE:entropyctl>)
  set_tests_properties(images-credential-formats PROPERTIES LABELS images SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
