#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The initrd tier: a debootstrapped Debian 12 image with initramfs-tools and
# the project's entropy-gate and entropy-gate-initramfs packages installed
# with dpkg -i (the .debs of the commit under test, as the systemd tier gets
# them); its initrd is built inside the image by Debian's own
# update-initramfs with the package's hook and boot script, and Debian's
# kernel boots through it, cold, under TCG. Boots:
#   cold        no credential: the gate runs in the initrd on a cold pool and
#               blocks until the kernel initializes it, before switch-root
#   credential  a seed as the fw_cfg system credential and
#               CreditCredentialWithoutMemory=yes: the initrd imports it,
#               credits it, the gate finds the pool ready at once; the real
#               root remembers it and does not credit it again
# Ordering is proven inside the guest, from the order of the kernel log's
# records (one sequence, not two clocks): the boot script's line before the
# gate, the kernel's "crng init done", the line after the gate with the
# gate's own record, and the first line of the real root's systemd.
#
# Usage: initrd-tier.sh [--build-dir DIR] [--work-dir DIR]
# Exit: 0 pass, 1 fail, 77 skipped (not root, or no qemu even after apt-get).

source "$(dirname "$0")/lib.sh"
# The mirror and the base of the image; this tier debootstraps its own tree
# with initramfs-tools (EG_VM_INCLUDE and vm_customize_rootfs below).
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
work=${work:-$build_dir/vm-initrd}

vm_setup qemu kernel debootstrap e2fs cpio kmod build
tier_start=$(date +%s)

# ---------------------------------------------------------------- image

EG_VM_SUITE=bookworm
# initramfs-tools and busybox (its shell and tools in the initrd), beside
# what the systemd tier's image has.
EG_VM_INCLUDE=systemd,systemd-sysv,udev,kmod,dbus,initramfs-tools,busybox

vm_customize_rootfs() {
    local r=$1
    vm_sd_customize_rootfs "$r"
    # The initrd: only the modules a virtio disk boot needs, gzip (the
    # image has no zstd), nothing taken from the build host's hardware.
    sed -i -e 's/^MODULES=.*/MODULES=list/' -e 's/^COMPRESS=.*/COMPRESS=gzip/' \
        "$r/etc/initramfs-tools/initramfs.conf"
    printf 'virtio_pci\nvirtio_blk\next4\n' >>"$r/etc/initramfs-tools/modules"
}

# ---------------------------------------------------------------- packages

rm -rf "$work/rootfs" "$work/boot"
mkdir -p "$work/boot"
: >"$work/dpkg.log"
deb_commit=$(vm_deb_commit) || exit 1
deb_v1=$(vm_deb_version "$deb_commit")
deb_dir=$(vm_deb_build "$deb_commit" "") || vm_die "could not build the .debs"
debs=("entropy-gate_${deb_v1}_amd64.deb" "entropy-gate-initramfs_${deb_v1}_all.deb")
for f in "${debs[@]}"; do
    [ -e "$deb_dir/$f" ] || vm_die "packaging/build-deb made no $f"
done
vm_log "packages of commit ${deb_commit:0:12}: ${debs[*]}"

kver=$(vm_kernel_version)
kdir=$(vm_kernel_cache) && base_rootfs=$(vm_debian_rootfs) || vm_die "could not prepare the kernel or image"
[ -d "$base_rootfs" ] || vm_die "no debootstrapped tree at '$base_rootfs'"

vm_log "assembling the image"
cp -a "$base_rootfs" "$work/rootfs"
root=$work/rootfs
# The initrd credits the credential it is handed (there is no seed
# directory there to remember it in): a drop-in, beside the package's
# conffile.
install -d "$root/etc/entropy-gate.conf.d"
printf '[Seed]\nCreditCredentialWithoutMemory=yes\n' >"$root/etc/entropy-gate.conf.d/eg-vm.conf"
install -m 0755 "$EG_VM_DIR/guest/eg-initrd-report.sh" "$root/usr/local/sbin/eg-initrd-report"
install -m 0644 "$EG_VM_DIR/guest/eg-initrd-report.service" "$root/etc/systemd/system/"
chroot "$root" systemctl enable eg-initrd-report.service >>"$work/dpkg.log" 2>&1 ||
    { tail -n 20 "$work/dpkg.log" >&2; vm_die "systemctl enable failed in the image"; }
vm_new_machine_id >"$root/etc/machine-id"
mkdir -p "$root/var/cache/eg-vm/install"
for f in "${debs[@]}"; do cp "$deb_dir/$f" "$root/var/cache/eg-vm/install/"; done

# The packages, then update-initramfs inside the image, as a Debian system
# runs them: dpkg -i (the initramfs package's postinst activates
# initramfs-tools' trigger, which runs in the same dpkg call), then the
# initrd for the booted kernel, whose modules are lent read-only; in a
# private mount namespace, so nothing stays mounted.
vm_log "dpkg -i and update-initramfs in the image for $kver"
mkdir -p "$root/lib/modules/$kver" "$root/boot"
# mkinitramfs reads the kernel's configuration (which compressions it unpacks).
cp "/boot/config-$kver" "$root/boot/" || vm_die "no /boot/config-$kver"
unshare -m sh -c '
    set -e
    root=$1 kver=$2
    mount --make-rprivate /
    mount --bind -o ro "/lib/modules/$kver" "$root/lib/modules/$kver"
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    mount --bind /dev "$root/dev"
    chroot "$root" sh -c "DEBIAN_FRONTEND=noninteractive dpkg -i /var/cache/eg-vm/install/*.deb"
    chroot "$root" update-initramfs -c -k "$kver"
' sh "$root" "$kver" >"$work/update-initramfs.log" 2>&1 ||
    { cat "$work/update-initramfs.log" >&2; vm_die "dpkg -i or update-initramfs failed in the image"; }
rm -rf "$root/var/cache/eg-vm"
vm_check image.packages "dpkg installed $(chroot "$root" dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}; ' entropy-gate entropy-gate-initramfs 2>&1)" \
    eval '[ "$(chroot "$root" dpkg-query -W -f="\${db:Status-Abbrev}" entropy-gate entropy-gate-initramfs 2>/dev/null)" = "ii ii " ]'
vm_check image.seed-enabled "the package enabled entropy-seed.service in the image" \
    test -L "$root/etc/systemd/system/sysinit.target.wants/entropy-seed.service"
[ -x "$root/usr/share/initramfs-tools/hooks/entropy-gate" ] || vm_die "the initramfs-tools hook was not installed"
cp "$root/boot/initrd.img-$kver" "$work/boot/initrd.img"
lsinitramfs "$work/boot/initrd.img" >"$work/boot/initrd.list"
vm_log "initrd: $(stat -c %s "$work/boot/initrd.img") bytes; ours: $(grep -E 'entropy' "$work/boot/initrd.list" | tr '\n' ' ')"
grep -q 'scripts/init-top/entropy-gate$' "$work/boot/initrd.list" || vm_die "update-initramfs did not take our boot script"
rm -rf "$root/lib/modules/$kver" "$root/boot/initrd.img-$kver" "$root/boot/config-$kver"
mkfs.ext4 -q -F -L egroot -d "$root" "$work/boot/pristine.img" 1G >&2 || vm_die "mkfs.ext4 failed"
rm -rf "$root"

# ---------------------------------------------------------------- boots

# boot NAME [qemu args...]: a fresh copy of the image, the report disk
# unpacked into $work/boot/NAME.
boot() {
    local name=$1
    shift
    local d=$work/boot/$name
    rm -rf "$d"
    mkdir -p "$d"
    cp --sparse=always "$work/boot/pristine.img" "$d/disk.img"
    truncate -s 16M "$d/report.img"
    vm_log "boot $name"
    vm_boot "$d/serial.log" 240 "$kdir/vmlinuz" "$work/boot/initrd.img" \
        "root=/dev/vda rw fsck.mode=skip" \
        -drive "file=$d/disk.img,format=raw,if=virtio" \
        -drive "file=$d/report.img,format=raw,if=virtio" "$@"
    eval "boot_s_$name=\$EG_VM_LAST_BOOT_S"
    (cd "$d" && tar -xf report.img 2>/dev/null) || vm_log "$name: no report on the report disk"
    [ -s "$d/dmesg.txt" ] || { tail -n 40 "$d/serial.log" >&2; vm_log "$name: no kernel log in the report"; }
}

# The line number (record order) of the first kernel log record matching
# an extended regular expression, empty if none.
kline() { grep -n -m1 -E "$2" "$1/dmesg.txt" 2>/dev/null | cut -d: -f1; }
ktext() { grep -m1 -E "$2" "$1/dmesg.txt" 2>/dev/null | sed 's/^<[0-9]*>//'; }
before() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -lt "$2" ]; }
rec() { sed -n "s/^$3=//p" "$1/run-entropy-gate/$2" 2>/dev/null; }

# The kernel log's order, the same for both boots.
order_facts() {
    local d=$1
    l_init=$(kline "$d" 'Run /init as init process')
    l_wait=$(kline "$d" 'entropy-gate-initrd: waiting for the kernel random pool')
    l_crng=$(kline "$d" 'random: crng init done')
    l_rel=$(kline "$d" 'entropy-gate-initrd: released:')
    # The real root's systemd announces itself first thing after switch-root;
    # initramfs-tools runs no systemd, so any systemd[1] line is the real root's.
    l_root=$(kline "$d" 'systemd\[1\]: systemd [0-9][^ ]* running in system mode')
    rel_line=$(ktext "$d" 'entropy-gate-initrd: released:')
}

# Boot 1: cold, no credential.
boot cold
d=$work/boot/cold
order_facts "$d"
vm_check cold.cold-start "cold: user space started with the CRNG not initialized ('Run /init' line $l_init < 'crng init done' line $l_crng)" \
    before "$l_init" "$l_crng"
vm_check cold.waiting-before-init "cold: the boot script said it was waiting before the kernel initialized the pool (line $l_wait < $l_crng)" \
    before "$l_wait" "$l_crng"
vm_check cold.cold-at-start "cold: the gate found the pool cold at its start (its record: READY_AT_START=$(echo "$rel_line" | sed -n 's/.*READY_AT_START=\([a-z]*\).*/\1/p'))" \
    grep -q 'READY_AT_START=no' <<<"$rel_line"
waited=$(echo "$rel_line" | sed -n 's/.*WAITED_USEC=\([0-9]*\).*/\1/p')
vm_check cold.waited "cold: the gate waited (WAITED_USEC=${waited:-?}) and was released (OUTCOME=ready)" \
    test "${waited:-0}" -gt 0 -a -n "$(grep -o 'OUTCOME=ready' <<<"$rel_line")"
vm_check cold.released-after-wait "cold: the boot script's release line (line $l_rel) comes after it waited (line $l_wait)" before "$l_wait" "$l_rel"
vm_check cold.released-before-root "cold: ... and before switch-root (the real root's systemd, line $l_root)" before "$l_rel" "$l_root"
vm_check cold.root-gate-ready "cold: the real root's gate found the pool ready (gate record READY_AT_START=$(rec "$d" gate READY_AT_START))" \
    test "$(rec "$d" gate READY_AT_START)" = yes
cold_lines=$(sed -n "${l_init:-1},${l_root:-\$}p" "$d/dmesg.txt" 2>/dev/null |
             grep -E 'Run /init|entropy-gate|crng init done|systemd\[1\]: systemd [0-9][^ ]* running' | sed 's/^<[0-9]*>//')

# Boot 2: a 64-byte seed as the fw_cfg credential.
# 64 random bytes, the last never a NUL, CR or LF (a terminator the
# credential would lose, and with it 8 of the 512 bits checked below).
{ head -c 63 /dev/urandom; printf '\377'; } >"$work/boot/credential.seed"
boot credential -fw_cfg "name=opt/io.systemd.credentials/entropy-gate.seed,file=$work/boot/credential.seed"
d=$work/boot/credential
order_facts "$d"
l_imp=$(kline "$d" 'entropy-gate-initrd: imported credential entropy-gate.seed from qemu fw_cfg')
l_cred=$(kline "$d" 'entropy-gate-initrd: entropy-seed credited 512 bits from credential')
vm_check credential.imported "credential: the initrd imported the fw_cfg credential (line $l_imp)" test -n "$l_imp"
vm_check credential.credited "credential: entropy-seed credited it in the initrd, 512 bits (line $l_cred)" test -n "$l_cred"
vm_check credential.ready-before-gate "credential: the pool was initialized then ('crng init done' line $l_crng, before the gate's line $l_wait)" \
    before "$l_crng" "$l_wait"
vm_check credential.gate-ready-at-once "credential: the gate found the pool ready at once ($(grep -o 'READY_AT_START=[a-z]* WAITED_USEC=[0-9]*' <<<"$rel_line"))" \
    grep -q 'READY_AT_START=yes WAITED_USEC=0)' <<<"$rel_line"
vm_check credential.before-root "credential: all of it before switch-root (line $l_rel < $l_root)" before "$l_rel" "$l_root"
vm_check credential.not-credited-again "credential: the real root's entropy-seed did not credit it again ($(grep -m1 -o 'credential[^"]*earlier in this boot[^"]*' "$d/journal.txt"))" \
    grep -q 'credited earlier in this boot' "$d/journal.txt"
vm_check credential.record-credited "credential: ... and its record still says the credential was credited in this boot (CREDENTIAL=$(rec "$d" seed CREDENTIAL))" \
    test "$(rec "$d" seed CREDENTIAL)" = credited
cred_lines=$(sed -n "${l_init:-1},${l_root:-\$}p" "$d/dmesg.txt" 2>/dev/null |
             grep -E 'Run /init|entropy-gate|crng init done|systemd\[1\]: systemd [0-9][^ ]* running' | sed 's/^<[0-9]*>//')

printf '\ninitrd boot, cold pool (kernel log, in record order):\n%s\n' "$cold_lines" | sed '2,$s/^/  /'
printf '\ninitrd boot, fw_cfg credential (kernel log, in record order):\n%s\n' "$cred_lines" | sed '2,$s/^/  /'
echo
vm_log "initrd tier: cold gate waited ${waited:-?} us in the initrd; boots: cold ${boot_s_cold:-?}s credential ${boot_s_credential:-?}s; tier $(( $(date +%s) - tier_start ))s"
vm_finish
