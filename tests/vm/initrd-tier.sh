#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The initrd tier: a debootstrapped Debian 12 image with initramfs-tools and
# dracut-core (the two install together) and the project's entropy-gate,
# entropy-gate-initramfs and entropy-gate-dracut packages installed with
# dpkg -i (the .debs of the commit under test, as the systemd tier gets
# them). Three initrds are built inside the image from what is installed
# there: by Debian's own update-initramfs with the package's hook and boot
# script, and by Debian's dracut with the package's module, once with
# systemd inside (dracut's default where systemd is installed: the module's
# two units) and once without (--omit systemd: its pre-trigger hook).
# Debian's kernel boots through each, cold, under TCG, twice:
#   cold        no credential: the gate runs in the initrd on a cold pool and
#               blocks until the kernel initializes it, before switch-root
#   credential  a seed as the fw_cfg system credential and
#               CreditCredentialWithoutMemory=yes: the initrd imports it,
#               credits it, the gate finds the pool ready at once; the real
#               root remembers it and does not credit it again
# The boots are cold and credential (initramfs-tools), dracut-cold and
# dracut-credential (dracut without systemd), dracut-systemd-cold and
# dracut-systemd-credential (dracut with systemd); all six pass the same
# checks, under their own names.
# Ordering is proven inside the guest, from the order of the kernel log's
# records (one sequence, not two clocks): the helper's line before the
# gate, the kernel's "crng init done", the line after the gate with the
# gate's own record, and the first line of the real root's systemd. Every
# initrd writes the same "entropy-gate-initrd:" lines; in a systemd initrd
# its systemd announces itself too, so the real root's is the first to
# start after the initrd's said "Running in initrd."
#
# Usage: initrd-tier.sh [--build-dir DIR] [--work-dir DIR]
# Exit: 0 pass, 1 fail, 77 skipped (not root, or no qemu even after apt-get).

source "$(dirname "$0")/lib.sh"
# The mirror and the base of the image; this tier debootstraps its own tree
# with initramfs-tools and dracut (EG_VM_INCLUDE and vm_customize_rootfs
# below).
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
# initramfs-tools and busybox (its shell and tools in the initrd), and
# dracut-core (dracut's tools without the dracut package, which conflicts
# with initramfs-tools), beside what the systemd tier's image has.
EG_VM_INCLUDE=systemd,systemd-sysv,udev,kmod,dbus,initramfs-tools,busybox,dracut-core

vm_customize_rootfs() {
    local r=$1
    vm_sd_customize_rootfs "$r"
    # The initrd: only the modules a virtio disk boot needs, gzip (the
    # image has no zstd), nothing taken from the build host's hardware.
    sed -i -e 's/^MODULES=.*/MODULES=list/' -e 's/^COMPRESS=.*/COMPRESS=gzip/' \
        "$r/etc/initramfs-tools/initramfs.conf"
    printf 'virtio_pci\nvirtio_blk\next4\n' >>"$r/etc/initramfs-tools/modules"
    # dracut likewise: a generic initrd (nothing from the build host), the
    # same three drivers besides what its modules add (ours: qemu_fw_cfg),
    # gzip.
    printf '%s\n' 'hostonly="no"' 'compress="gzip"' 'drivers+=" virtio_pci virtio_blk ext4 "' \
        >"$r/etc/dracut.conf.d/eg-vm.conf"
}

# ---------------------------------------------------------------- packages

rm -rf "$work/rootfs" "$work/boot"
mkdir -p "$work/boot"
: >"$work/dpkg.log"
deb_commit=$(vm_deb_commit) || exit 1
deb_v1=$(vm_deb_version "$deb_commit")
deb_dir=$(vm_deb_build "$deb_commit" "") || vm_die "could not build the .debs"
debs=("entropy-gate_${deb_v1}_amd64.deb" "entropy-gate-initramfs_${deb_v1}_all.deb"
      "entropy-gate-dracut_${deb_v1}_all.deb")
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
# Readable by everyone whatever the umask: the initrd generators copy no
# file that is not.
chmod 0644 "$root/etc/entropy-gate.conf.d/eg-vm.conf"
install -m 0755 "$EG_VM_DIR/guest/eg-initrd-report.sh" "$root/usr/local/sbin/eg-initrd-report"
install -m 0644 "$EG_VM_DIR/guest/eg-initrd-report.service" "$root/etc/systemd/system/"
chroot "$root" systemctl enable eg-initrd-report.service >>"$work/dpkg.log" 2>&1 ||
    { tail -n 20 "$work/dpkg.log" >&2; vm_die "systemctl enable failed in the image"; }
vm_new_machine_id >"$root/etc/machine-id"
mkdir -p "$root/var/cache/eg-vm/install"
for f in "${debs[@]}"; do cp "$deb_dir/$f" "$root/var/cache/eg-vm/install/"; done

# The packages, then update-initramfs and dracut inside the image, as a
# Debian system runs them: dpkg -i (the initrd packages' postinsts activate
# initramfs-tools' trigger, which runs in the same dpkg call), then the
# initrds for the booted kernel, whose modules are lent read-only; in a
# private mount namespace, so nothing stays mounted.
vm_log "dpkg -i, update-initramfs and dracut in the image for $kver"
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
    chroot "$root" dracut --force --kver "$kver" /boot/dracut-systemd.img
    chroot "$root" dracut --force --omit systemd --kver "$kver" /boot/dracut.img
    chroot "$root" lsinitrd /boot/dracut-systemd.img >"$root/boot/dracut-systemd.list"
    chroot "$root" lsinitrd /boot/dracut.img >"$root/boot/dracut.list"
' sh "$root" "$kver" >"$work/initrds.log" 2>&1 ||
    { tail -n 60 "$work/initrds.log" >&2; vm_die "dpkg -i, update-initramfs or dracut failed in the image"; }
rm -rf "$root/var/cache/eg-vm"
vm_check image.packages "dpkg installed $(chroot "$root" dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}; ' entropy-gate entropy-gate-initramfs entropy-gate-dracut 2>&1)" \
    eval '[ "$(chroot "$root" dpkg-query -W -f="\${db:Status-Abbrev}" entropy-gate entropy-gate-initramfs entropy-gate-dracut 2>/dev/null)" = "ii ii ii " ]'
vm_check image.seed-enabled "the package enabled entropy-seed.service in the image" \
    test -L "$root/etc/systemd/system/sysinit.target.wants/entropy-seed.service"
[ -x "$root/usr/share/initramfs-tools/hooks/entropy-gate" ] || vm_die "the initramfs-tools hook was not installed"
cp "$root/boot/initrd.img-$kver" "$work/boot/initrd.img"
lsinitramfs "$work/boot/initrd.img" >"$work/boot/initrd.list"
vm_log "initrd: $(stat -c %s "$work/boot/initrd.img") bytes; ours: $(grep -E 'entropy' "$work/boot/initrd.list" | tr '\n' ' ')"
grep -q 'scripts/init-top/entropy-gate$' "$work/boot/initrd.list" || vm_die "update-initramfs did not take our boot script"
# dracut's two: with systemd, the module's units and no hook; without, the
# hook and no units (packaging/check-dracut-initrd checks the rest).
for v in dracut dracut-systemd; do
    mv "$root/boot/$v.img" "$root/boot/$v.list" "$work/boot/"
    vm_log "$v initrd: $(stat -c %s "$work/boot/$v.img") bytes; ours: $(awk '$9 ~ /entropy-(gate|seed)/ { print $9 }' "$work/boot/$v.list" | tr '\n' ' ')"
done
grep -q 'initrd\.target\.wants/entropy-gate-initrd\.service' "$work/boot/dracut-systemd.list" &&
    ! grep -q 'pre-trigger/01-entropy-gate-hook\.sh$' "$work/boot/dracut-systemd.list" ||
    vm_die "dracut with systemd did not take the module's units (or took its hook)"
grep -q 'pre-trigger/01-entropy-gate-hook\.sh$' "$work/boot/dracut.list" &&
    ! grep -q 'entropy-gate-initrd\.service' "$work/boot/dracut.list" ||
    vm_die "dracut without systemd did not take the module's hook (or took its units)"
rm -rf "$root/lib/modules/$kver" "$root/boot/initrd.img-$kver" "$root/boot/config-$kver"
mkfs.ext4 -q -F -L egroot -d "$root" "$work/boot/pristine.img" 1G >&2 || vm_die "mkfs.ext4 failed"
rm -rf "$root"

# ---------------------------------------------------------------- boots

# boot NAME INITRD [qemu args...]: a fresh copy of the image booted through
# $work/boot/INITRD, the report disk unpacked into $work/boot/NAME.
boot() {
    local name=$1 initrd=$2
    shift 2
    local d=$work/boot/$name
    rm -rf "$d"
    mkdir -p "$d"
    cp --sparse=always "$work/boot/pristine.img" "$d/disk.img"
    truncate -s 16M "$d/report.img"
    vm_log "boot $name ($initrd)"
    vm_boot "$d/serial.log" 240 "$kdir/vmlinuz" "$work/boot/$initrd" \
        "root=/dev/vda rw fsck.mode=skip" \
        -drive "file=$d/disk.img,format=raw,if=virtio" \
        -drive "file=$d/report.img,format=raw,if=virtio" "$@"
    eval "boot_s_${name//-/_}=\$EG_VM_LAST_BOOT_S"
    (cd "$d" && tar -xf report.img 2>/dev/null) || vm_log "$name: no report on the report disk"
    rm -f "$d/disk.img"
    [ -s "$d/dmesg.txt" ] || { tail -n 40 "$d/serial.log" >&2; vm_log "$name: no kernel log in the report"; }
}

# The line number (record order) of the first kernel log record matching
# an extended regular expression after line $3 (default 0), empty if none.
# (The expression reaches awk through the environment: -v would take its
# backslashes as escapes.)
kline() { EG_RE=$2 awk -v after="${3:-0}" 'NR > after && $0 ~ ENVIRON["EG_RE"] { print NR; exit }' "$1/dmesg.txt" 2>/dev/null; }
ktext() { grep -m1 -E "$2" "$1/dmesg.txt" 2>/dev/null | sed 's/^<[0-9]*>//'; }
before() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -lt "$2" ]; }
rec() { sed -n "s/^$3=//p" "$1/run-entropy-gate/$2" 2>/dev/null; }

# The kernel log's order, the same for every boot.
order_facts() {
    local d=$1
    l_init=$(kline "$d" 'Run /init as init process')
    l_wait=$(kline "$d" 'entropy-gate-initrd: waiting for the kernel random pool')
    l_crng=$(kline "$d" 'random: crng init done')
    l_rel=$(kline "$d" 'entropy-gate-initrd: released:')
    l_mount=$(kline "$d" 'EXT4-fs \(vda\): mounted filesystem')
    # The real root's systemd announces itself first thing after
    # switch-root. An initrd with systemd has its own announce itself first,
    # and say "Running in initrd." (before its journal takes over its log):
    # the real root's is the first after that. initramfs-tools and dracut
    # without systemd run no systemd: there, any is the real root's.
    l_sdinitrd=$(kline "$d" 'systemd\[1\]: Running in initrd\.')
    l_root=$(kline "$d" 'systemd\[1\]: systemd [0-9][^ ]* running in system mode' "${l_sdinitrd:-0}")
    rel_line=$(ktext "$d" 'entropy-gate-initrd: released:')
}

# What each boot shows at the end: its kernel log from /init to the real
# root's systemd, our lines and the milestones.
order_lines() {
    local d=$1
    order_facts "$d"
    sed -n "${l_init:-1},${l_root:-\$}p" "$d/dmesg.txt" 2>/dev/null |
        grep -E 'Run /init|entropy-gate|crng init done|systemd\[1\]: systemd [0-9][^ ]* running|systemd\[1\]: Running in initrd|EXT4-fs \(vda\): mounted|dracut: (Mounted root|Switching root)' |
        sed -e 's/^<[0-9]*>/  /' -e 's/\(running in system mode\) (.*/\1 (...)/'
}

# check_initrd NAME SYSTEMD: what kind of initrd booted. SYSTEMD is yes
# when systemd must have run in it (and the gate as its unit), no when not.
# Without systemd the gate runs before anything mounts the root (init-top,
# pre-trigger); with it, the gate's unit holds initrd.target, and so
# switch-root, but not the root's mount, which needs no randomness.
check_initrd() {
    local b=$1 want=$2 d=$work/boot/$1
    order_facts "$d"
    if [ "$want" = yes ]; then
        vm_check "$b.systemd-in-initrd" "$b: systemd ran in the initrd ('Running in initrd.' line ${l_sdinitrd:-none}) and the gate as its unit ($(grep -m1 -Eo '(Started|Finished) entropy-gate-initrd.service[^.]*' "$d/journal.txt"))" \
            eval 'test -n "$l_sdinitrd" && grep -Eq "systemd\[1\]: (Started|Finished) entropy-gate-initrd\.service" "$d/journal.txt"'
        vm_check "$b.gate-under-initrd-systemd" "$b: the gate's lines come after the initrd's systemd started (line $l_sdinitrd < $l_wait < $l_rel)" \
            eval 'before "$l_sdinitrd" "$l_wait" && before "$l_wait" "$l_rel"'
    else
        vm_check "$b.no-systemd-in-initrd" "$b: no systemd ran in the initrd (no 'Running in initrd.' line${l_sdinitrd:+: line $l_sdinitrd}; the first systemd line is the real root's, line $l_root)" \
            eval 'test -z "$l_sdinitrd" && test -n "$l_root"'
        vm_check "$b.released-before-root-mount" "$b: the gate was released before the root was mounted (line $l_rel < the first mount of /dev/vda, line $l_mount)" \
            before "$l_rel" "$l_mount"
    fi
}

# check_cold NAME: no credential; the gate in the initrd found the pool
# cold, waited, and was released before switch-root.
check_cold() {
    local b=$1 d=$work/boot/$1 waited
    order_facts "$d"
    vm_check "$b.cold-start" "$b: user space started with the CRNG not initialized ('Run /init' line $l_init < 'crng init done' line $l_crng)" \
        before "$l_init" "$l_crng"
    vm_check "$b.waiting-before-init" "$b: the initrd said it was waiting before the kernel initialized the pool (line $l_wait < $l_crng)" \
        before "$l_wait" "$l_crng"
    vm_check "$b.cold-at-start" "$b: the gate found the pool cold at its start (its record: READY_AT_START=$(echo "$rel_line" | sed -n 's/.*READY_AT_START=\([a-z]*\).*/\1/p'))" \
        grep -q 'READY_AT_START=no' <<<"$rel_line"
    waited=$(echo "$rel_line" | sed -n 's/.*WAITED_USEC=\([0-9]*\).*/\1/p')
    eval "waited_${b//-/_}=\${waited:-?}"
    vm_check "$b.waited" "$b: the gate waited (WAITED_USEC=${waited:-?}) and was released (OUTCOME=ready)" \
        test "${waited:-0}" -gt 0 -a -n "$(grep -o 'OUTCOME=ready' <<<"$rel_line")"
    vm_check "$b.released-after-wait" "$b: the initrd's release line (line $l_rel) comes after it waited (line $l_wait)" before "$l_wait" "$l_rel"
    vm_check "$b.released-before-root" "$b: ... and before switch-root (the real root's systemd, line $l_root)" before "$l_rel" "$l_root"
    vm_check "$b.root-gate-ready" "$b: the real root's gate found the pool ready (gate record READY_AT_START=$(rec "$d" gate READY_AT_START))" \
        test "$(rec "$d" gate READY_AT_START)" = yes
}

# check_credential NAME: a 64-byte fw_cfg credential, credited in the
# initrd once, remembered and not credited again on the real root.
check_credential() {
    local b=$1 d=$work/boot/$1 l_imp l_cred re_imp
    order_facts "$d"
    # The helper imports it; a systemd in the initrd that loads qemu_fw_cfg
    # itself (252 does, in a VM) has imported it before, and the helper
    # says so.
    re_imp='entropy-gate-initrd: (imported credential entropy-gate\.seed from qemu fw_cfg|credential entropy-gate\.seed already present in /run/credentials/@system)'
    l_imp=$(kline "$d" "$re_imp")
    l_cred=$(kline "$d" 'entropy-gate-initrd: entropy-seed credited 512 bits from credential')
    vm_check "$b.imported" "$b: the fw_cfg credential was there in the initrd (line $l_imp: $(ktext "$d" "$re_imp" | sed 's/^.*entropy-gate-initrd: //'))" \
        test -n "$l_imp"
    vm_check "$b.credited" "$b: entropy-seed credited it in the initrd, 512 bits (line $l_cred)" before "$l_imp" "$l_cred"
    vm_check "$b.ready-before-gate" "$b: the pool was initialized then ('crng init done' line $l_crng, before the gate's line $l_wait)" \
        before "$l_crng" "$l_wait"
    vm_check "$b.gate-ready-at-once" "$b: the gate found the pool ready at once ($(grep -o 'READY_AT_START=[a-z]* WAITED_USEC=[0-9]*' <<<"$rel_line"))" \
        grep -q 'READY_AT_START=yes WAITED_USEC=0)' <<<"$rel_line"
    vm_check "$b.before-root" "$b: all of it before switch-root (line $l_rel < $l_root)" before "$l_rel" "$l_root"
    vm_check "$b.not-credited-again" "$b: the real root's entropy-seed did not credit it again ($(grep -m1 -o 'credential[^"]*earlier in this boot[^"]*' "$d/journal.txt"))" \
        grep -q 'credited earlier in this boot' "$d/journal.txt"
    vm_check "$b.record-credited" "$b: ... and its record still says the credential was credited in this boot (CREDENTIAL=$(rec "$d" seed CREDENTIAL))" \
        test "$(rec "$d" seed CREDENTIAL)" = credited
}

# A fresh 64-byte seed as the fw_cfg credential of boot NAME: random, the
# last byte never a NUL, CR or LF (a terminator the credential would lose,
# and with it 8 of the 512 bits checked).
credential_arg() {
    { head -c 63 /dev/urandom; printf '\377'; } >"$work/boot/$1.seed"
    echo "name=opt/io.systemd.credentials/entropy-gate.seed,file=$work/boot/$1.seed"
}

# boot_pair PREFIX INITRD SYSTEMD: the cold boot and the credential boot
# through one initrd, and their checks.
boot_pair() {
    local p=$1 initrd=$2 sd=$3
    boot "${p}cold" "$initrd"
    check_initrd "${p}cold" "$sd"
    check_cold "${p}cold"
    boot "${p}credential" "$initrd" -fw_cfg "$(credential_arg "${p}credential")"
    check_initrd "${p}credential" "$sd"
    check_credential "${p}credential"
}

# initramfs-tools (the boot names of this tier before dracut was booted).
boot_pair "" initrd.img no
# dracut without systemd: its pre-trigger hook runs the helper.
boot_pair dracut- dracut.img no
# dracut with systemd: the module's two units run the helper's steps.
boot_pair dracut-systemd- dracut-systemd.img yes

for b in cold credential dracut-cold dracut-credential dracut-systemd-cold dracut-systemd-credential; do
    printf '\n%s (kernel log, in record order):\n%s\n' "$b" "$(order_lines "$work/boot/$b")"
done
echo
vm_log "initrd tier: the cold gate waited ${waited_cold:-?} us (initramfs-tools), ${waited_dracut_cold:-?} us (dracut), ${waited_dracut_systemd_cold:-?} us (dracut with systemd)"
vm_log "boots: cold ${boot_s_cold:-?}s credential ${boot_s_credential:-?}s dracut-cold ${boot_s_dracut_cold:-?}s dracut-credential ${boot_s_dracut_credential:-?}s dracut-systemd-cold ${boot_s_dracut_systemd_cold:-?}s dracut-systemd-credential ${boot_s_dracut_systemd_credential:-?}s; tier $(( $(date +%s) - tier_start ))s"
vm_finish
