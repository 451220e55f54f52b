#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# A FILES= tree for one device, for OpenWrt's image builder:
#   openwrt-device-files.sh files-0042 [MACHINE_ID]
#   make image PROFILE=... PACKAGES="entropy-gate" FILES=files-0042
set -eu
files=$1
# OpenWrt has no machine ID of its own: the device gets one here, and the
# seed is bound to it. The package's init script keeps an /etc/machine-id it
# finds, so the first boot passes the binding and first-boot rules, and
# credits the seed; CreditWithoutMachineId= stays off. entropy-seed here is
# the build host's (the OpenWrt package's binary has no provision verb).
machine_id=${2:-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}

mkdir -p "$files/etc"
# The package keeps its seed in /etc/entropy-gate (Directory= in its
# /etc/entropy-gate.conf): /var is a tmpfs on OpenWrt.
entropy-seed provision --root="$files" --seed-dir=/etc/entropy-gate --machine-id="$machine_id"
echo "$files: seed and machine ID $machine_id for one device; flash it to that device only"
