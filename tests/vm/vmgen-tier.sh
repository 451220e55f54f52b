#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The VM generation (entropy-seed(8), "VM GENERATION"): the systemd image
# (lib-systemd.sh, the project installed with cmake --install) on one
# persistent disk, booted with QEMU's -device vmgenid:
#
#   gen-a1   guid=A: the first boot; save at its shutdown binds the seed to A
#   gen-a2   guid=A again: the seed of A is credited
#   snap     guid=A, left running: its load credits the seed of A and leaves
#            a creditable replacement bound to A; then, through QMP, stop,
#            the memory saved to a file (migrate "exec:cat > FILE"), qemu
#            quits and the disk, as the stopped machine left it, is copied
#            twice: a memory snapshot with its disk
#   restore-c, restore-d
#            the snapshot restored (-incoming, the original's device
#            configuration, only the disk file and the guid differ) on its
#            own copy of the disk with a new guid, C resp. D: the kernel
#            logs "crng reseeded due to virtual machine fork"; a few
#            seconds later qemu is killed (SIGKILL: no shutdown, no save)
#   copy-c, copy-d
#            each copy's disk booted again with its guid: the seed the
#            pre-snapshot load wrote is mixed, not credited ("VM generation
#            changed"), and nothing else is credited
#   gen-b    guid=B, the original disk (stopped at the snapshot): mixed
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

vm_setup qemu kernel busybox debootstrap e2fs cpio kmod build ctl socat

rm -rf "$work/rootfs" "$work/boot"
mkdir -p "$work/boot"
vm_sd_prepare "$work"

root=$work/rootfs
vm_sd_assemble "$root"
install -m 0755 "$EG_VM_DIR/guest/eg-vm-report.sh" "$root/usr/local/sbin/eg-vm-report"
install -m 0644 "$EG_VM_DIR/guest/eg-vm-report.service" "$root/etc/systemd/system/eg-vm-report.service"
install -m 0755 "$EG_VM_DIR/guest/eg-vm-snapshot-point.sh" "$root/usr/local/sbin/eg-vm-snapshot-point"
install -m 0644 "$EG_VM_DIR/guest/eg-vm-snapshot-point.service" "$root/etc/systemd/system/eg-vm-snapshot-point.service"
vm_sd_enable "$root" entropy-seed.service eg-vm-report.service
vm_new_machine_id >"$root/etc/machine-id"
vm_sd_mkfs "$root" "$work/boot/disk.img"
rm -rf "$root"

guid_a=8f0d4c1e-2b7a-4c55-9a51-3f6e0b1d2c01
guid_b=1c2d3e4f-5a6b-4c7d-8e9f-a0b1c2d3e4f5
guid_c=5e1f0a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b
guid_d=d4c3b2a1-0f9e-4d8c-b7a6-958473625140

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

# ---------------------------------------------------------------- snapshot

# A memory snapshot of a running VM whose seed is bound to A, restored twice
# with new guids, each copy killed and booted again: the seed the load
# before the snapshot wrote (creditable, bound to A) is credited in neither
# copy. Notice-level kernel messages reach the console (the snapshot point,
# the fork reseed); the report, whose end is a power-off, is masked, and the
# snapshot point is started instead.
snap_append="$EG_VM_SD_APPEND loglevel=6 systemd.mask=eg-vm-report.service systemd.wants=eg-vm-snapshot-point.service"
# The saved memory: at most the guest's memory (lib.sh's -m), removed once
# both copies are restored.
state=$work/boot/snap.state

# snap_start NAME DISK GUID [qemu args...]: the original and each restore,
# from this one command line: a restore must have the device configuration
# that was saved. Only the disk files and the guid differ.
snap_start() {
    local name=$1 disk=$2 guid=$3
    shift 3
    rm -f "$work/boot/$name-report.img"
    truncate -s 16M "$work/boot/$name-report.img"
    vm_qemu_start "$work/boot/$name.log" 600 "$kdir/vmlinuz" "$initrd" "$snap_append" \
        -drive "file=$disk,format=raw,if=virtio" \
        -drive "file=$work/boot/$name-report.img,format=raw,if=virtio" \
        -device "vmgenid,guid=$guid" "$@"
}
slog() { tr -d '\r' <"$work/boot/$1.log" 2>/dev/null; }
# A key of the snapshot point's record.
sk() { slog snap | grep -a -m1 'EGSNAP point' | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1; }

vm_log "boot 'snap' (guid A, left running for a memory snapshot)"
rm -f "$state" "$work/boot/copy-c.img" "$work/boot/copy-d.img"
point=false saved=false
EG_VM_QMP_MIGRATION=
if snap_start snap "$work/boot/disk.img" "$guid_a"; then
    vm_wait_log "$work/boot/snap.log" 'EGSNAP point' "${EG_VM_SD_BOOT_TIMEOUT:-240}" && point=true
    # The machine stopped first, then its memory saved: a snapshot. A
    # stopped machine goes in one pass; qemu's bandwidth cap is lifted, as
    # only a file is written.
    $point && vm_qmp '{"execute": "stop"}' &&
        vm_qmp '{"execute": "migrate-set-parameters", "arguments": {"max-bandwidth": 4294967296}}' &&
        vm_qmp "{\"execute\": \"migrate\", \"arguments\": {\"uri\": \"exec:cat >'$state'\"}}" &&
        vm_qmp_migrate_wait 120 && saved=true
    vm_qmp '{"execute": "quit"}'
    vm_qemu_wait 30
fi
vm_check snap.point "snap: the guest reached the snapshot point, after entropy-seed's load" $point
vm_check snap.credited "snap: before the snapshot, the load credited the seed saved in A ($(sk ACTION), $(sk SEED_GENERATION)) and left a creditable replacement ($(sk REPLACEMENT_CREDITABLE))" \
    test "$(sk ACTION)" = credited -a "$(sk SEED_GENERATION)" = same -a "$(sk REPLACEMENT_CREDITABLE)" = yes
vm_check snap.saved "snap: stopped, its memory saved to a file (migration ${EG_VM_QMP_MIGRATION:-not started}, $(stat -c %s "$state" 2>/dev/null || echo 0) bytes)" \
    $saved
# Block devices are not migrated: the disk as the stopped machine left it
# is the snapshot's (qemu flushed it when the migration completed, and has
# exited since), copied once for each restore.
if $saved; then
    cp --sparse=always "$work/boot/disk.img" "$work/boot/copy-c.img"
    cp --sparse=always "$work/boot/disk.img" "$work/boot/copy-d.img"
fi
# That disk holds the seed the load left: read on a copy whose journal is
# replayed first, as the next mount replays it (the guest was not shut down).
cp --sparse=always "$work/boot/disk.img" "$work/boot/snap-check.img"
e2fsck -E journal_only -y "$work/boot/snap-check.img" >"$work/boot/snap-check.log" 2>&1
snap_disk_sha=$(disk_seed_sha "$work/boot/snap-check.img")
rm -f "$work/boot/snap-check.img"
vm_check snap.disk-seed "snap: the disk at the snapshot holds the seed the load left ($(sk seed | cut -c1-16) in the guest, ${snap_disk_sha:0:16} on the disk)" \
    test -n "$snap_disk_sha" -a "$(sk seed)" = "$snap_disk_sha"

# restore NAME GUID COPY: the snapshot restored onto the disk COPY with
# guid GUID, let run a few seconds, then killed: this copy's life ends in a
# power cut, so no shutdown saves a fresh seed.
restore() {
    local name=$1 guid=$2 disk=$work/boot/$3.img st='' st_cut='' killed=false reseed=false line
    vm_log "restore '$name' (the snapshot, guid $guid, disk $3)"
    EG_VM_QMP_MIGRATION=
    if snap_start "$name" "$disk" "$guid" -incoming "exec:cat '$state'"; then
        vm_qmp_incoming_wait 120; st=$EG_VM_QMP_STATE
        # The original was stopped when it was saved: the copy comes back
        # paused, and runs on "cont".
        if [ "$st" = paused ] && vm_qmp '{"execute": "cont"}'; then
            vm_wait_log "$work/boot/$name.log" 'crng reseeded due to virtual machine fork' 60 && reseed=true
            sleep 3
        fi
        st_cut=$(vm_qmp_status)
        vm_qemu_kill && killed=true
    fi
    line=$(slog "$name" | grep -a -m1 'crng reseeded due to virtual machine fork')
    vm_check "$name.restored" "$name: the saved memory restored (migration ${EG_VM_QMP_MIGRATION:-not started}), the machine paused as it was saved (${st:-?})" \
        test "$st" = paused
    vm_check "$name.fork-reseed" "$name: the restored kernel saw the new generation (${line:-no fork reseed on the console})" $reseed
    # Killed while running, not after a power-off of its own.
    vm_check "$name.killed" "$name: running (${st_cut:-?}) when killed, without a shutdown" \
        test "$st_cut" = running -a "$killed" = true -a "$(slog "$name" | grep -ac 'reboot: Power down')" = 0
}
restore restore-c "$guid_c" copy-c
restore restore-d "$guid_d" copy-d
rm -f "$state"

# copy NAME GUID: the killed copy's disk booted again with its guid.
copy() {
    local name=$1 guid=$2
    vm_sd_boot_report "$name" "$work/boot/$name.img" "" -device "vmgenid,guid=$guid"
    show
    vm_check "$name.not-credited" "$name: the seed the snapshot carried is mixed, not credited ($(rs "$rep" seed ACTION), $(rs "$rep" seed SEED_GENERATION))" \
        test "$(rs "$rep" seed ACTION)" = not-credited -a "$(rs "$rep" seed SEED_GENERATION)" = changed
    vm_check "$name.reason" "$name: the record says why" \
        grep -q "^REASON=VM generation changed since this seed was saved: restored snapshot or clone" "$rep/runstate/seed"
    # Nor anything else of the load's: no bits, no credential, and the
    # ledger of this boot names no seed or credential credited.
    vm_check "$name.nothing-credited" "$name: nothing else credited (BITS=$(rs "$rep" seed BITS), CREDENTIAL=$(rs "$rep" seed CREDENTIAL), $(grep -c '^\(SEED\|CREDENTIAL\)=' "$rep/runstate/consumed" 2>/dev/null) in the ledger)" \
        test "$(rs "$rep" seed BITS)" = 0 -a "$(rs "$rep" seed CREDENTIAL)" = none -a -s "$rep/runstate/consumed" \
            -a "$(grep -c '^\(SEED\|CREDENTIAL\)=' "$rep/runstate/consumed" 2>/dev/null)" = 0
}
copy copy-c "$guid_c"
copy copy-d "$guid_d"

# ---------------------------------------------------------------- the original

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
