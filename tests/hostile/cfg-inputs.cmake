# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile inputs to the configuration and kernel command line parsers, the
# terminal and JSON output and the notification socket, and the initrd's
# reading of the command line, and the service definitions for other init
# systems, and the packages' state files (label "hostile"; names cfg-,
# cmdline-, init-, term-, notify-, initrd-, pkg-). Each test is an attack
# that once worked.

# eg_hostile_input_test(NAME SCRIPT|SOURCE [ARGS...] [TIMEOUT s] [LIBS ...]):
# tests/hostile/SCRIPT run by sh or python3, or tests/hostile/SOURCE (.c), a
# cmocka program. Exit 77 is a skip, which the test explains.
function(eg_hostile_input_test name file)
  cmake_parse_arguments(T "" "TIMEOUT" "ARGS;LIBS" ${ARGN})
  set(path ${CMAKE_CURRENT_SOURCE_DIR}/hostile/${file})
  if(file MATCHES "\\.c$")
    add_executable(${name} ${path})
    target_link_libraries(${name} PRIVATE ${T_LIBS} eg-shared eg-pool-fake PkgConfig::CMOCKA)
    target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unit)
    add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
  elseif(file MATCHES "\\.py$")
    if(EG_PYTHON3)
      add_test(NAME ${name} COMMAND ${EG_PYTHON3} ${path} ${T_ARGS})
    else()
      add_test(NAME ${name} COMMAND sh -c "echo 'SKIP: python3 not found'; exit 77")
    endif()
  else()
    add_test(NAME ${name} COMMAND sh ${path} ${T_ARGS})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS hostile SKIP_RETURN_CODE 77)
  if(T_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
endfunction()

# READY=1, STATUS= and BARRIER=1 to a service manager that never reads.
eg_hostile_input_test(notify-full-receiver notify-full-receiver.py
                      ARGS $<TARGET_FILE:entropy-gate-fakepool> TIMEOUT 120)

# C1 controls, invalid UTF-8 and long paths in entropyctl's terminal, JSON and SVG output.
if(TARGET eg-ctl)
  eg_hostile_input_test(term-output term-output.c LIBS eg-ctl)
  # plot and metrics --output=/dev/null, /dev/stdout, a FIFO: never replaced.
  eg_hostile_input_test(ctl-output-special ctl-output-special.sh ARGS $<TARGET_FILE:entropyctl-fake-pool>)
  # A user's program named rngd is not an entropy daemon.
  eg_hostile_input_test(ctl-daemon-impostor ctl-daemon-impostor.sh ARGS $<TARGET_FILE:entropyctl-fake-pool>)
endif()

# Configuration files that are symbolic links to nothing, more drop-ins,
# bytes or units than the caps, a byte order mark.
eg_hostile_input_test(cfg-load cfg-load.c)

# Durations near the largest a usec_t holds: refused or as long as they
# say, never wrapped into a short wait.
eg_hostile_input_test(cfg-durations cfg-durations.c)

# entropy-gate's options, names and arguments hundreds of bytes or 100 KiB
# long: refused (exit status 2) with a message said to its end.
eg_hostile_input_test(gate-long-options gate-long-options.py ARGS $<TARGET_FILE:entropy-gate-fakepool>)

# The initrd's entropy_gate.initrd= switch, read as the kernel splits the
# command line (quoted values, 0xA0), never as the shell does. The helper
# is built only with a hook (ENTROPY_GATE_INITRD_CONFIG); the dracut unit is
# read from its template, built or not.
if(ENTROPY_GATE_INITRD_CONFIG)
  eg_hostile_input_test(initrd-cmdline initrd-cmdline.sh
                        ARGS ${CMAKE_BINARY_DIR}/initrd/entropy-gate-initrd $<TARGET_FILE:entropy-gate-fakepool>
                             $<TARGET_FILE:entropy-seed-fakepool>
                             ${CMAKE_SOURCE_DIR}/initrd/dracut/entropy-gate-initrd.service.in
                        TIMEOUT 120)
endif()

# The kernel command line split as the kernel splits it: 0xA0, quotes.
eg_hostile_input_test(cmdline-split cmdline-split.c)

# The service definitions for other init systems run with stand-ins: a UCI
# value the gate refuses still waits (with the defaults), and a seed load
# that fails leaves OpenRC's and s6-rc's seed service up, so that it saves
# at shutdown.
eg_hostile_input_test(init-scripts init-scripts.sh
                      ARGS ${CMAKE_SOURCE_DIR} $<TARGET_FILE:entropy-gate-fakepool> TIMEOUT 60)

# The configuration the initramfs-tools hook and the dracut module put into
# the initrd: no byte of what a name leads to (the seed through a link), and
# broken in the initrd exactly where it is broken on the system. Not in a
# build without either hook (OpenWrt's), whose entropy-seed has no
# initrd-config.
if(ENTROPY_GATE_INITRD_CONFIG)
  eg_hostile_input_test(initrd-hook-config initrd-hook-config.sh
                        ARGS ${CMAKE_SOURCE_DIR} $<TARGET_FILE:entropy-seed-fakepool> TIMEOUT 60)
endif()

# Erasing the RPM removes the seed's and the credential record's temporary
# copies too, which a save cut short leaves behind (%ghost).
eg_hostile_input_test(pkg-state-files pkg-state-files.sh ARGS ${CMAKE_SOURCE_DIR})

# The initrd helper imports no credential from the hypervisor of a
# confidential VM (SEV, TDX, Secure Execution), as systemd does not.
if(ENTROPY_GATE_INITRD_CONFIG)
  eg_hostile_input_test(initrd-credential-cvm initrd-credential-cvm.sh
                        ARGS ${CMAKE_BINARY_DIR}/initrd/entropy-gate-initrd TIMEOUT 60)
endif()

# The messages of the tree tools quote an image's configuration: C1
# controls and bytes that are not UTF-8 never reach the terminal as such.
if(TARGET entropyctl AND TARGET entropy-seed)
  eg_hostile_input_test(log-output log-output.py
                        ARGS $<TARGET_FILE:entropyctl> $<TARGET_FILE:entropy-seed> ${ENTROPY_GATE_CONF_FILE}
                        TIMEOUT 120)
endif()
