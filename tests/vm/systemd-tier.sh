#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd tier: a debootstrapped Debian 12 image with systemd as PID 1 and
# the project installed by "cmake --install", booted cold under TCG from a
# persistent disk. Boots:
#   boot1     no seed: the gate waits for the kernel, consumers wait for the
#             gate, the seed is saved at shutdown
#   boot2     the seed saved by boot1 is credited before the gate starts; the
#             gate waits < 0.1 s; the seed on disk is replaced
#   clone     boot1's disk with another /etc/machine-id: not credited
#   firstboot boot1's disk with /etc/machine-id "uninitialized": not credited
#   coldgate  a seedless disk with systemd-random-seed masked: the gate is
#             the one blocking reader and waits for the kernel
#   timeout   a seedless disk with entropy_gate.timeout=200ms
#             entropy_gate.on_timeout=fail on the kernel command line
# Each boot writes a report (journal, unit states, result files, entropyctl
# output) to a second disk; the checks run on the host.
#
# Usage: systemd-tier.sh [--build-dir DIR] [--work-dir DIR] [--demo]
#   --demo: boot1 and boot2 only, and print a timeline of each on stdout.
# Exit: 0 pass, 1 fail, 77 skipped (not root, or no qemu even after apt-get).

source "$(dirname "$0")/lib.sh"

build_dir=$EG_SOURCE_DIR/build-vm
work=
demo=0
while [ $# -gt 0 ]; do
    case $1 in
        --build-dir) build_dir=$2; shift 2 ;;
        --work-dir) work=$2; shift 2 ;;
        --demo) demo=1; shift ;;
        *) echo "usage: $0 [--build-dir DIR] [--work-dir DIR] [--demo]" >&2; exit 2 ;;
    esac
done
work=${work:-$build_dir/vm-systemd}

vm_setup qemu kernel busybox debootstrap e2fs cpio kmod build ctl
tier_start=$(date +%s)

# ---------------------------------------------------------------- image

# The Debian mirror apt already uses (deb822 or one-line sources).
vm_mirror() {
    local m=
    if [ -n "${EG_VM_MIRROR:-}" ]; then echo "$EG_VM_MIRROR"; return; fi
    m=$(awk '/^deb / && $3 ~ /^bookworm$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
    if [ -z "$m" ]; then
        m=$(awk 'tolower($1) == "uris:" { u = $2 }
                 tolower($1) == "suites:" && $0 ~ / bookworm( |$)/ && u != "" { print u; exit }' \
            /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    fi
    echo "${m:-http://deb.debian.org/debian}"
}

EG_VM_SUITE=bookworm
EG_VM_INCLUDE=systemd,systemd-sysv,udev,kmod,dbus

# Make the debootstrapped tree a quick, quiet test machine.
vm_customize_rootfs() {
    local r=$1 u
    echo egvm >"$r/etc/hostname"
    printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$r/etc/fstab"
    # Nothing may hold the console or run on a timer during a test boot.
    for u in serial-getty@ttyS0.service getty@tty1.service console-getty.service \
             apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
             e2scrub_all.timer e2scrub_reap.service fstrim.timer \
             systemd-tmpfiles-clean.timer systemd-timesyncd.service; do
        ln -sf /dev/null "$r/etc/systemd/system/$u"
    done
    ln -sf /lib/systemd/system/multi-user.target "$r/etc/systemd/system/default.target"
    # Each test run sets its own machine-id; no legacy seed in the base.
    rm -f "$r/var/lib/systemd/random-seed"
    : >"$r/etc/machine-id"
    rm -rf "$r/var/cache/apt/archives/"*.deb "$r/var/lib/apt/lists/"*
}

# The debootstrapped base tree, cached and keyed on every input: suite,
# package list, mirror and the customization above.
vm_debian_rootfs() {
    local mirror key dir
    mirror=$(vm_mirror)
    key=$({ echo "$EG_VM_SUITE $EG_VM_INCLUDE $mirror"; declare -f vm_customize_rootfs; } |
          sha256sum | cut -c1-16)
    dir=$EG_VM_CACHE/debian-$EG_VM_SUITE-$key
    vm_cache_lock
    if [ ! -e "$dir/.done" ]; then
        vm_log "debootstrapping $EG_VM_SUITE from $mirror into $dir (about a minute)"
        rm -rf "$dir"
        mkdir -p "$dir"
        debootstrap --variant=minbase --include="$EG_VM_INCLUDE" "$EG_VM_SUITE" \
            "$dir/rootfs" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
            { tail -n 30 "$dir/debootstrap.log" >&2; vm_die "debootstrap failed"; }
        vm_customize_rootfs "$dir/rootfs"
        touch "$dir/.done"
    fi
    vm_cache_unlock
    echo "$dir/rootfs"
}

# The initramfs: busybox, the virtio and ext4 modules, and a /init that
# mounts /dev/vda and switches to systemd. Keyed on its inputs.
vm_disk_initrd() {
    local kdir=$1 base key out ov
    base=$(vm_busybox_base)
    key=$(cat "$base" "$kdir/version" "$kdir/modules.order" "$EG_VM_DIR/guest/initrd-init.sh" | sha256sum | cut -c1-16)
    out=$EG_VM_CACHE/initrd-disk-$key.cpio
    vm_cache_lock
    if [ ! -e "$out" ]; then
        ov=$(mktemp -d)
        mkdir -p "$ov/lib/modules"
        cp "$kdir/modules/"*.ko "$ov/lib/modules/"
        cp "$kdir/modules.order" "$ov/lib/modules/order"
        install -m 0755 "$EG_VM_DIR/guest/initrd-init.sh" "$ov/init"
        vm_cpio "$ov" "$out.ov"
        cat "$base" "$out.ov" >"$out.tmp"
        rm -rf "$ov" "$out.ov"
        mv "$out.tmp" "$out"
    fi
    vm_cache_unlock
    echo "$out"
}

# ---------------------------------------------------------------- build

vm_log "building the project in $work/dist"
rm -rf "$work/rootfs" "$work/boot"
mkdir -p "$work/boot"
cmake -S "$EG_SOURCE_DIR" -B "$work/dist" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_INSTALL_PREFIX=/usr -DENTROPY_GATE_TESTS=OFF >"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log" >&2; vm_die "cmake configure failed"; }
cmake --build "$work/dist" -j"$(nproc)" >>"$work/cmake.log" 2>&1 ||
    { tail -n 40 "$work/cmake.log" >&2; vm_die "build failed"; }

kdir=$(vm_kernel_cache) && initrd=$(vm_disk_initrd "$kdir") && base_rootfs=$(vm_debian_rootfs) ||
    vm_die "could not prepare the kernel, initramfs or image"
[ -d "$base_rootfs" ] || vm_die "no debootstrapped tree at '$base_rootfs'"

vm_log "assembling the image"
cp -a "$base_rootfs" "$work/rootfs"
root=$work/rootfs
DESTDIR=$root cmake --install "$work/dist" >>"$work/cmake.log" 2>&1 || vm_die "cmake --install failed"
for b in usr/sbin/entropy-gate usr/sbin/entropy-seed; do
    [ -x "$root/$b" ] || vm_die "/$b was not installed"
done
have_ctl=0; [ -x "$root/usr/bin/entropyctl" ] && have_ctl=1
have_gen=0
if [ -x "$root/lib/systemd/system-generators/entropy-gate-generator" ] ||
   [ -x "$root/usr/lib/systemd/system-generators/entropy-gate-generator" ]; then
    have_gen=1
fi
install -m 0755 "$EG_VM_DIR/guest/eg-vm-report.sh" "$root/usr/local/sbin/eg-vm-report"
units="eg-vm-consumer.service eg-vm-strict.service eg-vm-report.service"
for u in eg-vm-consumer.service eg-vm-strict.service eg-vm-report.service eg-vm-gated.service; do
    install -m 0644 "$EG_VM_DIR/guest/$u" "$root/etc/systemd/system/$u"
done
if [ "$have_gen" = 1 ]; then
    # The generator, not the unit, orders eg-vm-gated.service after the gate.
    units="$units eg-vm-gated.service"
    printf '[Gate]\nUnits=eg-vm-gated.service\n' >"$root/etc/entropy-gate.conf"
fi
chroot "$root" systemctl enable entropy-seed.service entropy-gate.service $units >>"$work/cmake.log" 2>&1 ||
    { tail -n 20 "$work/cmake.log" >&2; vm_die "systemctl enable failed in the image"; }
machine_id=$(vm_new_machine_id)
echo "$machine_id" >"$root/etc/machine-id"
vm_log "image: entropyctl=$have_ctl generator=$have_gen machine-id=$machine_id"
mkfs.ext4 -q -F -L egroot -d "$root" "$work/boot/pristine.img" 1G >&2 || vm_die "mkfs.ext4 failed"
rm -rf "$root"

# ---------------------------------------------------------------- boots

# boot NAME DISK [KERNEL ARGS]: boot DISK, then unpack the report into
# $work/boot/NAME/ (sets $rep).
boot() {
    local name=$1 disk=$2 extra=${3:-}
    rep=$work/boot/$name
    rm -rf "$rep" "$work/boot/$name-report.img"
    mkdir -p "$rep"
    truncate -s 16M "$work/boot/$name-report.img"
    vm_log "boot '$name'"
    vm_boot "$work/boot/$name.log" 240 "$kdir/vmlinuz" "$initrd" \
        "root=/dev/vda rw fsck.mode=skip systemd.show_status=0 $extra" \
        -drive "file=$disk,format=raw,if=virtio" \
        -drive "file=$work/boot/$name-report.img,format=raw,if=virtio" ||
        vm_check "boot '$name' completed" false
    eval "boot_s_$name=$EG_VM_LAST_BOOT_S"
    tar -xf "$work/boot/$name-report.img" -C "$rep" 2>/dev/null || true
    if [ ! -e "$rep/complete" ]; then
        vm_check "boot '$name' wrote its report" false
        tail -n 40 "$work/boot/$name.log" >&2
    fi
}

# Journal (short-monotonic) time in seconds of the first line matching ERE.
jts() {
    grep -m1 -E "$2" "$1/journal.txt" 2>/dev/null | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'
}
jline() { grep -m1 -E "$2" "$1/journal.txt" 2>/dev/null | sed 's/^\[[^]]*\] [^ ]* //'; }
# A property from "systemctl show" of a unit.
prop() { sed -n "s/^$3=//p" "$1/show-$2.txt" 2>/dev/null | head -n1; }
# A monotonic-µs property in seconds.
props() { awk -v u="$(prop "$@")" 'BEGIN { if (u == "" || u == 0) exit 1; printf "%.6f", u / 1e6 }'; }
rs() { sed -n "s/^$3=//p" "$1/runstate/$2" 2>/dev/null | head -n1; }
disk_seed_sha() {   # the seed on a powered-off disk image, read with debugfs
    local tmp
    tmp=$(mktemp)
    debugfs -R "dump /var/lib/entropy-gate/seed $tmp" "$1" >/dev/null 2>&1
    [ -s "$tmp" ] && sha256sum "$tmp" | cut -d' ' -f1
    rm -f "$tmp"
}
set_machine_id() {   # set_machine_id DISK CONTENT
    local tmp
    tmp=$(mktemp)
    printf '%s\n' "$2" >"$tmp"
    chmod 0444 "$tmp"
    debugfs -w -R "rm /etc/machine-id" "$1" >/dev/null 2>&1
    debugfs -w -R "write $tmp /etc/machine-id" "$1" >/dev/null 2>&1
    rm -f "$tmp"
    local got
    got=$(debugfs -R "cat /etc/machine-id" "$1" 2>/dev/null)
    [ "$got" = "$2" ] || vm_die "could not set /etc/machine-id in $1 (got '$got')"
}

# The CRNG was cold when user space started: the kernel's "crng init done"
# comes after it ran the initramfs /init.
check_cold_start() {
    local init crng
    init=$(jts "$1" 'Run /init as init process')
    crng=$(jts "$1" 'random: crng init done')
    vm_check "$2: CRNG not initialized when user space started (Run /init ${init:-?} < crng init done ${crng:-?})" \
        vm_lt "${init:-9e9}" "${crng:-0}"
}

# The common facts of a boot, in seconds since boot (CLOCK_MONOTONIC).
facts() {
    local r=$1
    f_crng=$(jts "$r" 'random: crng init done')
    f_gate_start=$(props "$r" entropy-gate.service ExecMainStartTimestampMonotonic || true)
    f_gate_ready=$(props "$r" entropy-gate.service ActiveEnterTimestampMonotonic || true)
    f_target=$(props "$r" entropy-ready.target ActiveEnterTimestampMonotonic || true)
    f_consumer=$(props "$r" eg-vm-consumer.service ExecMainStartTimestampMonotonic || true)
    f_gated=$(props "$r" eg-vm-gated.service ExecMainStartTimestampMonotonic || true)
    f_wait=$(rs "$r" gate WAITED_USEC)
    # When the gate process itself ran (CLOCK_BOOTTIME; no suspend in a test
    # VM, so comparable with the monotonic times above).
    f_gate_main=$(awk -v u="$(rs "$r" gate START_BOOTTIME_USEC)" 'BEGIN { if (u == "") exit 1; printf "%.6f", u / 1e6 }' || true)
}

# What holds in every boot, seeded or not: nothing ordered after the gate
# ran before the kernel said "crng init done".
check_ordering() {
    local r=$1 n=$2
    vm_check "$n: entropy-gate.service is active ($(prop "$r" entropy-gate.service ActiveState)/$(prop "$r" entropy-gate.service Result))" \
        test "$(prop "$r" entropy-gate.service ActiveState)" = active -a "$(prop "$r" entropy-gate.service Result)" = success
    vm_check "$n: READY (gate unit active at ${f_gate_ready:-?}) after 'crng init done' (${f_crng:-?})" \
        vm_le "${f_crng:-9e9}" "${f_gate_ready:-0}"
    vm_check "$n: entropy-ready.target reached after the gate (${f_target:-?})" vm_le "${f_gate_ready:-9e9}" "${f_target:-0}"
    vm_check "$n: the consumer started after entropy-ready.target (${f_consumer:-?})" vm_le "${f_target:-9e9}" "${f_consumer:-0}"
    vm_check "$n: the Requires= consumer started" test "$(prop "$r" eg-vm-strict.service ActiveState)" = active
    if [ "$have_gen" = 1 ]; then
        vm_check "$n: Units= in entropy-gate.conf ordered eg-vm-gated.service after the gate (${f_gated:-?})" \
            vm_le "${f_gate_ready:-9e9}" "${f_gated:-0}"
    fi
    vm_check "$n: systemctl status shows the gate's Status line ($(grep -m1 'Status:' "$r/status-entropy-gate.service.txt" | sed 's/^ *//'))" \
        grep -qE 'Status: "' "$r/status-entropy-gate.service.txt"
}

# The gate either waited for the kernel, or found the pool already
# initialized: another blocking getrandom() (systemd-random-seed) may start
# the kernel's jitter entropy first while systemd still sets up the gate's
# sandbox, which takes seconds under TCG. Either way its claim must agree
# with the kernel log.
check_gate_claim() {
    local r=$1 n=$2
    if [ "$(rs "$r" gate READY_AT_START)" = no ]; then
        vm_check "$n: the gate found the pool cold, waited (${f_wait:-?} us) and says so in STATUS" \
            grep -qiE 'Status: ".*wait' "$r/status-entropy-gate.service.txt"
        vm_check "$n: the gate ran before 'crng init done' (${f_gate_main:-?} < ${f_crng:-?})" \
            vm_lt "${f_gate_main:-9e9}" "${f_crng:-0}"
    else
        vm_log "$n: the pool was initialized (${f_crng:-?} s) before the gate process ran (${f_gate_main:-?} s;" \
            "systemd forked it at ${f_gate_start:-?} s): $(jline "$r" 'systemd-random-seed\[[0-9]+\]: .*waiting' || true)"
        vm_check "$n: 'already initialized' agrees with the kernel log (${f_crng:-?} <= ${f_gate_main:-?} + 0.05)" \
            awk -v c="${f_crng:-9e9}" -v g="${f_gate_main:-0}" 'BEGIN { exit !(c <= g + 0.05) }'
    fi
}

# A short, readable timeline of a boot, on stdout.
timeline() {
    local r=$1 title=$2 seedmsg gatemsg
    facts "$r"
    seedmsg=$(grep -m1 -E 'entropy-seed\[[0-9]+\]: .*(credit|Credit)' "$r/journal.txt" | sed 's/^.*entropy-seed\[[0-9]*\]: //')
    gatemsg=$(prop "$r" entropy-gate.service StatusText)
    printf '\n%s\n' "$title"
    {
        printf '%s\t%s\n' 0.000000 "kernel started ($(sed -n 's/.*Linux version \([^ ]*\).*/\1/p' "$r/journal.txt" | head -n1))"
        printf '%s\t%s\n' "$(jts "$r" 'Run /init as init process')" "user space started, CRNG not yet initialized"
        printf '%s\t%s\n' "$(jts "$r" 'Starting entropy-seed.service')" "systemd starts entropy-seed.service"
        [ -n "$seedmsg" ] && printf '%s\t%s\n' "$(jts "$r" 'entropy-seed\[[0-9]+\]: .*(credit|Credit)')" "entropy-seed: $seedmsg"
        [ -n "$f_gate_start" ] && printf '%s\t%s\n' "$f_gate_start" "systemd starts entropy-gate.service (sets up its sandbox)"
        [ -n "$f_gate_main" ] && printf '%s\t%s\n' "$f_gate_main" "entropy-gate runs: pool $( [ "$(rs "$r" gate READY_AT_START)" = yes ] && echo "already initialized" || echo "not initialized, waiting")"
        local rsw
        rsw=$(jts "$r" 'systemd-random-seed\[[0-9]+\]: .*waiting')
        [ -n "$rsw" ] && printf '%s\t%s\n' "$rsw" "systemd-random-seed blocks in getrandom() too"
        [ -n "$f_crng" ] && printf '%s\t%s\n' "$f_crng" "kernel: random: crng init done"
        [ -n "$f_gate_ready" ] && printf '%s\t%s\n' "$f_gate_ready" "entropy-gate released the boot: \"$gatemsg\""
        [ -n "$f_target" ] && printf '%s\t%s\n' "$f_target" "entropy-ready.target reached"
        [ -n "$f_consumer" ] && printf '%s\t%s\n' "$f_consumer" "eg-vm-consumer.service started (Wants=/After=entropy-ready.target)"
        [ -n "$f_gated" ] && printf '%s\t%s\n' "$f_gated" "eg-vm-gated.service started (ordered by Units= in entropy-gate.conf)"
        true
    } | awk -F'\t' '$1 != ""' | sort -g | awk -F'\t' '{ printf "  %8.3f s  %s\n", $1, $2 }'
}

# Boot 1: no seed. systemd-random-seed blocks in getrandom() too, so under
# TCG, where systemd needs seconds to set up the gate's sandbox, the pool is
# often initialized before the gate runs; the "coldgate" boot below isolates
# the gate.
cp --sparse=always "$work/boot/pristine.img" "$work/boot/disk.img"
boot boot1 "$work/boot/disk.img"
r=$rep
facts "$r"
check_cold_start "$r" boot1
check_ordering "$r" boot1
check_gate_claim "$r" boot1
vm_check "boot1: the seed helper found no seed to credit ($(rs "$r" seed ACTION): $(rs "$r" seed REASON))" \
    test "$(rs "$r" seed ACTION)" = not-credited
vm_check "boot1: the gate started before 'crng init done' (systemd forked it at ${f_gate_start:-?})" vm_lt "${f_gate_start:-9e9}" "${f_crng:-0}"
sed 's/^/[boot1 status] /' "$r/status-entropy-gate.service.txt" >&2
b1_wait=$f_wait; b1_target=$f_target; b1_crng=$f_crng; b1_main=$f_gate_main; b1_fork=$f_gate_start
sha1=$(disk_seed_sha "$work/boot/disk.img")
sha1_running=$(cat "$work/boot/boot1/seed.sha256" 2>/dev/null || true)
vm_check "boot1: a seed was saved at shutdown (on disk after power-off $sha1, while running ${sha1_running:-none})" \
    test -n "$sha1" -a "$sha1" != "$sha1_running"
[ "$demo" = 1 ] || {
    cp --sparse=always "$work/boot/disk.img" "$work/boot/clone.img"
    cp --sparse=always "$work/boot/disk.img" "$work/boot/firstboot.img"
}

# Boot 2: the seed saved by boot 1.
boot boot2 "$work/boot/disk.img"
r=$rep
facts "$r"
check_cold_start "$r" boot2
vm_check "boot2: entropy-seed credited the saved seed (ACTION=$(rs "$r" seed ACTION) BITS=$(rs "$r" seed BITS) REASON=$(rs "$r" seed REASON))" \
    test "$(rs "$r" seed ACTION)" = credited
vm_check "boot2: the journal says so ($(jline "$r" 'entropy-seed\[[0-9]+\]: .*[Cc]redit'))" \
    grep -qE 'entropy-seed\[[0-9]+\]: .*credited [0-9]+ bits' "$r/journal.txt"
vm_check "boot2: pool ready before the gate started (crng ${f_crng:-?} < gate start ${f_gate_start:-?})" \
    vm_lt "${f_crng:-9e9}" "${f_gate_start:-0}"
vm_check "boot2: the gate found the pool ready at start" test "$(rs "$r" gate READY_AT_START)" = yes
vm_check "boot2: the gate waited under 0.1 s (${f_wait:-?} us)" test -n "$f_wait" -a "${f_wait:-999999}" -lt 100000
check_ordering "$r" boot2
sha2=$(cat "$r/seed.sha256" 2>/dev/null || true)
vm_check "boot2: the seed on disk is a new one ($sha2 != $sha1)" test -n "$sha2" -a "$sha2" != "$sha1"
vm_check "boot2: the seed file is 0600 root ($(cat "$r/seed.stat" 2>/dev/null))" grep -q '^600 root ' "$r/seed.stat"
sed 's/^/[boot2 status] /' "$r/status-entropy-gate.service.txt" >&2
b2_wait=$f_wait; b2_target=$f_target; b2_crng=$f_crng; b2_main=$f_gate_main; b2_fork=$f_gate_start
if [ "$have_ctl" = 1 ]; then
    vm_check "boot2: entropyctl status exits 0 (initialized)" test "$(cat "$r/entropyctl-status.rc" 2>/dev/null)" = 0
    vm_check "boot2: entropyctl timeline exits 0" test "$(cat "$r/entropyctl-timeline.rc" 2>/dev/null)" = 0
    for ev in 'crng init done' 'entropy-ready.target|released|gate'; do
        vm_check "boot2: entropyctl timeline shows '$ev'" grep -qiE "$ev" "$r/entropyctl-timeline.txt"
    done
    {
        echo "---- entropyctl status (boot2)"; cat "$r/entropyctl-status.txt"
        echo "---- entropyctl timeline (boot2)"; cat "$r/entropyctl-timeline.txt"
    } >&2
fi

if [ "$demo" = 0 ]; then
    # A clone of boot 1's disk: another machine-id, the same seed.
    set_machine_id "$work/boot/clone.img" "$(vm_new_machine_id)"
    boot clone "$work/boot/clone.img"
    r=$rep
    facts "$r"
    check_cold_start "$r" clone
    vm_check "clone: the seed is NOT credited (ACTION=$(rs "$r" seed ACTION))" test "$(rs "$r" seed ACTION)" = not-credited
    vm_check "clone: the log says why ($(jline "$r" 'entropy-seed\[[0-9]+\]: .*not crediting'))" \
        grep -qiE 'entropy-seed\[[0-9]+\]: .*not crediting: .*machine' "$r/journal.txt"
    check_ordering "$r" clone
    check_gate_claim "$r" clone
    clone_wait=$f_wait

    # First boot: machine-id "uninitialized".
    set_machine_id "$work/boot/firstboot.img" uninitialized
    boot firstboot "$work/boot/firstboot.img"
    r=$rep
    facts "$r"
    check_cold_start "$r" firstboot
    vm_check "firstboot: the seed is NOT credited (ACTION=$(rs "$r" seed ACTION))" test "$(rs "$r" seed ACTION)" = not-credited
    vm_check "firstboot: the log says why ($(jline "$r" 'entropy-seed\[[0-9]+\]: .*not crediting'))" \
        grep -qiE 'entropy-seed\[[0-9]+\]: .*not crediting: .*(first|machine)' "$r/journal.txt"
    check_ordering "$r" firstboot
    check_gate_claim "$r" firstboot

    # The gate as the only blocking reader: no seed, systemd-random-seed
    # masked for this boot, so the gate is what waits for the kernel and its
    # STATUS says for how long.
    cp --sparse=always "$work/boot/pristine.img" "$work/boot/coldgate.img"
    boot coldgate "$work/boot/coldgate.img" "systemd.mask=systemd-random-seed.service"
    r=$rep
    facts "$r"
    check_cold_start "$r" coldgate
    vm_check "coldgate: the gate found the pool not initialized at start" test "$(rs "$r" gate READY_AT_START)" = no
    check_gate_claim "$r" coldgate
    check_ordering "$r" coldgate
    vm_check "coldgate: the gate waited (${f_wait:-?} us)" test "${f_wait:-0}" -gt 0
    sed 's/^/[coldgate status] /' "$r/status-entropy-gate.service.txt" >&2
    cg_wait=$f_wait; cg_target=$f_target; cg_crng=$f_crng

    # Timeout: a cold pool takes about a second even with the gate blocking in
    # getrandom, so 200 ms from the kernel command line is a real timeout, as
    # long as no other blocking reader has started the kernel's jitter
    # entropy while systemd set up the gate's sandbox (seconds under TCG):
    # systemd-random-seed is masked for this boot only.
    cp --sparse=always "$work/boot/pristine.img" "$work/boot/timeout.img"
    boot timeout "$work/boot/timeout.img" \
        "entropy_gate.timeout=200ms entropy_gate.on_timeout=fail systemd.mask=systemd-random-seed.service"
    r=$rep
    facts "$r"
    check_cold_start "$r" timeout
    vm_check "timeout: entropy-gate.service failed with exit status 3 (Result=$(prop "$r" entropy-gate.service Result) status=$(prop "$r" entropy-gate.service ExecMainStatus))" \
        test "$(prop "$r" entropy-gate.service ExecMainStatus)" = 3
    vm_check "timeout: result file says OUTCOME=timeout-fail" test "$(rs "$r" gate OUTCOME)" = timeout-fail
    vm_check "timeout: the gate gave up before 'crng init done'" \
        awk -v e="$(rs "$r" gate END_BOOTTIME_USEC)" -v c="${f_crng:-0}" 'BEGIN { exit !(e != "" && e / 1e6 < c) }'
    vm_check "timeout: the gate found the pool cold" test "$(rs "$r" gate READY_AT_START)" = no
    vm_check "timeout: entropy-ready.target was not reached ($(prop "$r" entropy-ready.target ActiveState))" \
        test "$(prop "$r" entropy-ready.target ActiveState)" != active
    vm_check "timeout: the Requires= consumer did not start ($(prop "$r" eg-vm-strict.service ActiveState))" \
        test "$(prop "$r" eg-vm-strict.service ActiveState)" != active
    timeout_consumer="not started"
    if [ -n "$f_consumer" ]; then
        timeout_consumer="started at $f_consumer s, $(vm_lt "$f_consumer" "${f_crng:-9e9}" && echo BEFORE || echo after) 'crng init done' (${f_crng:-never})"
    fi
    vm_log "timeout: the Wants= consumer $timeout_consumer (Wants= does not propagate the gate's failure)"
fi

timeline "$work/boot/boot1" "boot 1: no seed on disk, cold pool"
timeline "$work/boot/boot2" "boot 2: the seed saved at the end of boot 1"
printf '\nkernel "crng init done": boot 1 at %s s, boot 2 at %s s; entropy-ready.target: boot 1 at %s s, boot 2 at %s s\n' \
    "${b1_crng:-?}" "${b2_crng:-?}" "${b1_target:-?}" "${b2_target:-?}"
echo
tier_s=$(( $(date +%s) - tier_start ))
vm_log "systemd tier: gate wait boot1 ${b1_wait:-?} us, boot2 ${b2_wait:-?} us, clone ${clone_wait:-?} us, coldgate ${cg_wait:-?} us;" \
    "entropy-ready.target at coldgate ${cg_target:-?} s (crng init done ${cg_crng:-?} s);" \
    "gate process ran at boot1 ${b1_main:-?} s (forked ${b1_fork:-?} s), boot2 ${b2_main:-?} s (forked ${b2_fork:-?} s);" \
    "entropy-ready.target at boot1 ${b1_target:-?} s, boot2 ${b2_target:-?} s (crng init done ${b1_crng:-?} / ${b2_crng:-?} s);" \
    "boots: boot1 ${boot_s_boot1:-?}s boot2 ${boot_s_boot2:-?}s clone ${boot_s_clone:-?}s firstboot ${boot_s_firstboot:-?}s coldgate ${boot_s_coldgate:-?}s timeout ${boot_s_timeout:-?}s; tier ${tier_s}s"
vm_finish
