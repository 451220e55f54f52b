#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The VM generation (entropy-seed(8), "VM GENERATION"): the systemd image
# (lib-systemd.sh, the project installed with cmake --install) on one
# persistent disk, booted with QEMU's -device vmgenid:
#
#   gen-a1   guid=A: the first boot; save at its shutdown binds the seed to A
#   gen-a2   guid=A again: the seed of A is credited
#   gen-b    guid=B (a restored snapshot or a copy): mixed, not credited
#   gen-none no device, the seed (saved in B) names a generation: mixed
#
# Each boot reads the generation through the real unit's sandbox
# (CAP_SYS_RAWIO, /dev/mem readable only) and mmap() of /dev/mem.
set -u

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-systemd.sh"

build_dir=$EG_SOURCE_DIR/build-vm
work=
while [ $# -gt 0 ]; do
    case $1 in
        --build-dir) build_dir=$2; shift 2 ;;
        --work-dir) work=$2; shift 2 ;;
        *) echo "usage: $0 [--build-dir DIR] [--work-dir DIR]" >&2; exit 2 ;;
    esac
done
work=${work:-$build_dir/vm-vmgen}

vm_setup qemu kernel busybox debootstrap e2fs cpio kmod build ctl

rm -rf "$work/rootfs" "$work/boot"
mkdir -p "$work/boot"
vm_sd_prepare "$work"

root=$work/rootfs
vm_sd_assemble "$root"
install -m 0755 "$EG_VM_DIR/guest/eg-vm-report.sh" "$root/usr/local/sbin/eg-vm-report"
install -m 0644 "$EG_VM_DIR/guest/eg-vm-report.service" "$root/etc/systemd/system/eg-vm-report.service"
vm_sd_enable "$root" entropy-seed.service eg-vm-report.service
vm_new_machine_id >"$root/etc/machine-id"
vm_sd_mkfs "$root" "$work/boot/disk.img"
rm -rf "$root"

guid_a=8f0d4c1e-2b7a-4c55-9a51-3f6e0b1d2c01
guid_b=1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5

show() {   # what the load recorded, for the log
    sed 's/^/[vm]     /' "$rep/runstate/seed" >&2 2>/dev/null || true
    grep -a "VM generation" "$rep/entropyctl-status.txt" 2>/dev/null | sed 's/^/[vm]     /' >&2 || true
}

vm_sd_boot_report gen-a1 "$work/boot/disk.img" "" -device "vmgenid,guid=$guid_a"
show
vm_check gen-a1.read "gen-a1: the load read the VM Generation ID ($(rs "$rep" seed VM_GENERATION))" \
    test "$(rs "$rep" seed VM_GENERATION)" = vmgenid

vm_sd_boot_report gen-a2 "$work/boot/disk.img" "" -device "vmgenid,guid=$guid_a"
show
vm_check gen-a2.credited "gen-a2: same guid, the seed saved in it is credited ($(rs "$rep" seed ACTION), $(rs "$rep" seed SEED_GENERATION))" \
    test "$(rs "$rep" seed ACTION)" = credited -a "$(rs "$rep" seed SEED_GENERATION)" = same

vm_sd_boot_report gen-b "$work/boot/disk.img" "" -device "vmgenid,guid=$guid_b"
show
vm_check gen-b.mixed "gen-b: another guid, the seed is mixed, not credited ($(rs "$rep" seed ACTION): $(rs "$rep" seed REASON))" \
    test "$(rs "$rep" seed ACTION)" = not-credited -a "$(rs "$rep" seed SEED_GENERATION)" = changed
vm_check gen-b.reason "gen-b: the record says why" \
    grep -q "^REASON=VM generation changed since this seed was saved: restored snapshot or clone" "$rep/runstate/seed"

vm_sd_boot_report gen-none "$work/boot/disk.img" ""
show
vm_check gen-none.mixed "gen-none: no device, a seed saved in a generation is mixed ($(rs "$rep" seed ACTION), $(rs "$rep" seed SEED_GENERATION))" \
    test "$(rs "$rep" seed ACTION)" = not-credited -a "$(rs "$rep" seed SEED_GENERATION)" = unverifiable

vm_finish
