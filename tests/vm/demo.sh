#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The demo: what entropy-gate does, shown in two real boots.
#
# On a Debian 12 machine, as root: installs what it needs with apt-get
# (qemu, Debian's kernel, busybox, debootstrap, the build tools), builds the
# project's Debian packages from the checkout's last commit, debootstraps a
# small Debian 12 image (cached after the first run), installs the packages
# into it and boots it twice, cold, under qemu's TCG emulator with the CPU
# and boot loader distrusted and no RNG device:
#
#   boot 1: no seed yet. The kernel's pool is cold; entropy-ready.target and a
#           consumer unit ordered after it wait for "crng init done". At
#           shutdown entropy-seed saves a seed.
#   boot 2: entropy-seed credits that seed at once (and a seed the VM hands
#           over as an SMBIOS credential), so the pool is ready before the
#           gate starts and the gate releases the boot at once; later in the
#           boot the packages are upgraded, which restarts nothing.
#
# It prints the checks as they run and, for each boot, a timeline in seconds
# since the kernel started; at the end it draws the two boots as one picture,
# DIR/boot1-vs-boot2.svg (entropyctl plot), with a screenshot of it as
# Chromium shows it next to it. Usage: tests/vm/demo.sh [--build-dir DIR]

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$(cd "$here/../.." && pwd)/build-demo
while [ $# -gt 0 ]; do
    case $1 in
        --build-dir) build_dir=$2; shift 2 ;;
        *) echo "usage: $0 [--build-dir DIR]" >&2; exit 2 ;;
    esac
done

if [ "$(id -u)" -ne 0 ]; then
    echo "The demo installs packages and builds a disk image: run it as root (sudo $0)." >&2
    exit 1
fi

start=$(date +%s)
"$here/systemd-tier.sh" --demo --build-dir "$build_dir"
rc=$?
if [ "$rc" -eq 0 ]; then
    echo "demo finished in $(( $(date +%s) - start )) s; reports and serial logs: $build_dir/vm-systemd/boot/"
    [ -s "$build_dir/boot1-vs-boot2.svg" ] &&
        echo "the two boots as a picture: $build_dir/boot1-vs-boot2.svg (open it in a browser)"
else
    echo "demo FAILED (status $rc); serial logs and reports: $build_dir/vm-systemd/boot/" >&2
fi
exit "$rc"
