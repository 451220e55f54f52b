# SPDX-License-Identifier: LGPL-2.1-or-later
# The VM tiers (tests/vm/): Debian's kernel booted cold under qemu TCG.
# Labelled "vm": run them alone with `ctest -L vm`, leave them out with
# `ctest -LE vm`. They need root; they install their own dependencies with
# apt-get and skip (exit 77, saying why) only when not root or when no TCG
# qemu exists after that. Each builds the project afresh in its own
# directory (static for busybox, /usr layout for systemd), so a sanitizer
# build of the test suite still boots normal binaries.
#
# Two at a time on two cores: each guest is one emulated CPU (one host
# thread), each tier works in its own directory and a qemu's sockets in a
# directory of its own, and the shared cache (kernel, busybox, debootstrapped
# trees, the .debs of a commit) is filled under its own flock
# (tests/vm/lib.sh), so `ctest -j2` runs two tiers side by side. The
# busybox tiers hold the gate to a 200 ms timeout and a release within 2 s
# of the pool's wake-up, with nothing else to prove either: those two run
# alone (RUN_SERIAL), first. The systemd tier's one tight bound (the
# watcher within 0.25 s of the gate, in gate-claim) is one of three facts,
# any of which proves the claim, for a loaded host (systemd-tier.sh).
add_test(NAME vm-busybox
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vm/busybox-tier.sh --build-dir ${CMAKE_BINARY_DIR})
set_tests_properties(vm-busybox PROPERTIES
  LABELS vm SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 900)
# The OpenWrt-like tier once more with the binaries linked against musl.
add_test(NAME vm-busybox-musl
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vm/busybox-tier.sh --musl --build-dir ${CMAKE_BINARY_DIR})
set_tests_properties(vm-busybox-musl PROPERTIES
  LABELS vm SKIP_RETURN_CODE 77 RUN_SERIAL TRUE TIMEOUT 900)
foreach(tier IN ITEMS systemd initrd)
  add_test(NAME vm-${tier}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vm/${tier}-tier.sh --build-dir ${CMAKE_BINARY_DIR})
  set_tests_properties(vm-${tier} PROPERTIES LABELS vm SKIP_RETURN_CODE 77)
endforeach()
# Power cuts: the systemd image on one persistent disk, 28 boots of which 22
# are cut by a SIGKILL to qemu, checked on the host after each (crash-tier.sh).
add_test(NAME vm-crash
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vm/crash-tier.sh --build-dir ${CMAKE_BINARY_DIR})
set_tests_properties(vm-crash PROPERTIES
  LABELS "vm;vm-crash" SKIP_RETURN_CODE 77 TIMEOUT 2400)
# The VM generation: the systemd image on one disk booted with QEMU's
# -device vmgenid, the same guid twice, a memory snapshot restored twice
# with new guids and each copy booted again after a kill, then another
# guid, then none (vmgen-tier.sh): the seed is credited in its own
# generation only.
add_test(NAME vm-vmgen
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vm/vmgen-tier.sh --build-dir ${CMAKE_BINARY_DIR})
set_tests_properties(vm-vmgen PROPERTIES
  LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 1200)
# Cold caches: the busybox tier builds in seconds and boots 7 times (~1 min);
# the systemd tier debootstraps once (~1.5 min), builds the .debs twice
# (~1 min) and boots 9 times (20-30 s each); the crash tier boots 28 times,
# most of them cut short (~10 min).
set_tests_properties(vm-systemd PROPERTIES TIMEOUT 1800)
# The initrd tier debootstraps its own image with initramfs-tools and dracut
# (~1-2 min), installs the .debs (built by the systemd tier before it, or
# now), runs update-initramfs and dracut (with and without systemd) in it
# and boots twice through each of the three initrds (~5 min in all).
set_tests_properties(vm-initrd PROPERTIES TIMEOUT 1800)
# OpenRC, runit, s6 and sysvinit with the project's service definitions
# (init/): one debootstrapped tree (~2 min) is the base of four disks, each
# booted three times (first boot, second boot, a 200 ms timeout).
add_test(NAME vm-init
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/vm/init-tier.sh --build-dir ${CMAKE_BINARY_DIR})
set_tests_properties(vm-init PROPERTIES
  LABELS vm SKIP_RETURN_CODE 77 TIMEOUT 2400)
