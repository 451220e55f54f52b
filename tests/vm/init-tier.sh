#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The init tier: the project's service definitions for init systems other
# than systemd (init/), each run by the real supervisor from Debian's own
# packages, in cold boots under TCG. One debootstrapped Debian 12 tree with
# sysvinit-core, sysv-rc, insserv, runit, s6 and execline is the base of
# four disks, one per init system, each with the project installed by
# "cmake --install" and that init system's component:
#   sysvinit  /sbin/init (sysvinit-core) with sysv-rc; our LSB scripts
#             enabled by update-rc.d, ordered by insserv
#   openrc    the same /sbin/init with Debian's openrc in place of sysv-rc
#             (its packages installed with dpkg -i: openrc conflicts with
#             sysv-rc); our services in the boot runlevel
#   runit     init=/lib/runit/runit-init: Debian's stage 1 followed by
#             Void's core-services hook, our sv service in runsvdir
#   s6        a stage 1 of the tier's own as PID 1 (Debian has neither
#             s6-linux-init nor s6-rc), s6-svscan supervising our longrun
# The initramfs picks the init from init= on the kernel command line.
# Boots per init system (12 in all):
#   boot1    no seed: the gate waits for the kernel, a consumer ordered
#            after it the way entropy-gate-init(7) says finds the pool
#            initialized, the seed is saved on the init system's shutdown path
#   boot2    the same disk: the seed is credited before the gate runs
#   timeout  a copy of the fresh disk configured with a 200 ms timeout
#            (OpenRC's conf.d, sysvinit's /etc/default, the gate's own
#            configuration file for runit and s6): the gate gives up on the
#            cold pool, and what follows behaves as configured
# Every fact comes from inside the guest: eg-vm-probe's answer (the
# initramfs, each consumer), the gate's and the seed helper's records, the
# init system's own status; the seed on the powered-off disk is read with
# debugfs. A consumer's "the pool was initialized when I started" is the
# kernel's answer at that moment, never a comparison of clocks.
#
# Usage: init-tier.sh [--build-dir DIR] [--work-dir DIR] [--only INIT...]
# Exit: 0 pass, 1 fail, 77 skipped (not root, or no qemu even after apt-get).

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-systemd.sh"

build_dir=$EG_SOURCE_DIR/build-vm
work=
inits=(sysvinit openrc runit s6)
while [ $# -gt 0 ]; do
    case $1 in
        --build-dir) build_dir=$2; shift 2 ;;
        --work-dir) work=$2; shift 2 ;;
        --only) IFS=, read -ra inits <<<"$2"; shift 2 ;;
        *) echo "usage: $0 [--build-dir DIR] [--work-dir DIR] [--only sysvinit,openrc,runit,s6]" >&2; exit 2 ;;
    esac
done
work=${work:-$build_dir/vm-init}

vm_setup qemu kernel busybox debootstrap e2fs cpio kmod build
tier_start=$(date +%s)
guest=$EG_VM_DIR/guest/init

# ---------------------------------------------------------------- image

EG_VM_SUITE=bookworm
EG_VM_INCLUDE=sysvinit-core,sysv-rc,initscripts,insserv,kmod,runit,s6,execline

vm_customize_rootfs() {
    local r=$1
    echo egvm >"$r/etc/hostname"
    printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$r/etc/fstab"
    # No terminal to log in on: no gettys respawning on absent ttys.
    sed -i -e '/getty/d' "$r/etc/inittab"
    # Each disk gets its own machine-id; no legacy seed in the base.
    rm -f "$r/var/lib/urandom/random-seed"
    : >"$r/etc/machine-id"
    rm -rf "$r/var/cache/apt/archives/"*.deb "$r/var/lib/apt/lists/"*
}

# Debian's openrc and its libraries, which conflict with sysv-rc and so
# are not in the debootstrapped base: the host's apt downloads them once
# (same suite and mirror), keyed on their versions.
vm_openrc_debs() {
    local pkgs="openrc libeinfo1 librc1" key dir
    key=$(apt-cache policy $pkgs 2>/dev/null | awk '/^[a-z]/ || /Candidate/' | sha256sum | cut -c1-16)
    dir=$EG_VM_CACHE/openrc-debs-$key
    vm_cache_lock
    if [ ! -e "$dir/.done" ]; then
        rm -rf "$dir"
        mkdir -p "$dir"
        (cd "$dir" && apt-get download $pkgs >"$dir/download.log" 2>&1) ||
            { apt-get update >&2; (cd "$dir" && apt-get download $pkgs >"$dir/download.log" 2>&1); } ||
            { cat "$dir/download.log" >&2; vm_die "apt-get download $pkgs failed"; }
        touch "$dir/.done"
    fi
    vm_cache_unlock
    echo "$dir"
}

rm -rf "$work/boot" "$work/tree"
mkdir -p "$work/boot"
vm_log "building the project with every init system's files in $work/dist"
cmake -S "$EG_SOURCE_DIR" -B "$work/dist" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
    -DENTROPY_GATE_TESTS=OFF -DENTROPY_GATE_CTL=OFF -DENTROPY_GATE_OPENRC=ON -DENTROPY_GATE_RUNIT=ON \
    -DENTROPY_GATE_S6=ON -DENTROPY_GATE_SYSVINIT=ON >"$work/cmake.log" 2>&1 ||
    { cat "$work/cmake.log" >&2; vm_die "cmake configure failed"; }
cmake --build "$work/dist" -j"$(nproc)" >>"$work/cmake.log" 2>&1 || { tail -n 40 "$work/cmake.log" >&2; vm_die "build failed"; }
vm_guest_tools "$work/guest-tools"
kdir=$(vm_kernel_cache) && initrd=$(vm_disk_initrd "$kdir" "$work/guest-tools") &&
    base_rootfs=$(vm_debian_rootfs) && openrc_debs=$(vm_openrc_debs) ||
    vm_die "could not prepare the kernel, initramfs or image"
[ -d "$base_rootfs" ] || vm_die "no debootstrapped tree at '$base_rootfs'"
EG_VM_SD_WORK=$work

inchroot() { chroot "$root" "$@" >>"$work/image.log" 2>&1 || { tail -n 20 "$work/image.log" >&2; vm_die "in the image: $* failed"; }; }

# assemble INIT: a copy of the base with the programs and INIT's files
# installed as "cmake --install" does, the guest programs, the test's
# consumers and reporter; then the disk of boot1/boot2 and the disk of the
# timeout boot. Sets init_arg_INIT (the kernel's init=).
assemble() {
    local init=$1 c
    root=$work/tree
    rm -rf "$root"
    cp -a "$base_rootfs" "$root"
    for c in Unspecified "$init"; do
        DESTDIR=$root cmake --install "$work/dist" --component "$c" >>"$work/image.log" 2>&1 ||
            vm_die "cmake --install --component $c failed"
    done
    install -d "$root$EG_VM_GUEST_LIBEXEC"
    install -m 0755 "$work/guest-tools/eg-vm-probe" "$root$EG_VM_GUEST_LIBEXEC/"
    install -m 0755 "$guest/eg-vm-init-report.sh" "$root/usr/local/sbin/eg-vm-init-report"
    eval "init_arg_$init=/sbin/init"
    # A lean boot: Debian's early scripts that do nothing in this VM (no
    # hardware clock, backlight, NFS, modules to load or second disk to
    # check) only take time under TCG, and the gate must run while the
    # pool is still cold (fsck of the root: "fastboot" on the command line).
    # sysvinit, OpenRC (which takes them over) and runit's stage 1 run them.
    for c in hwclock.sh brightness checkfs.sh mount-configfs mountnfs.sh mountnfs-bootclean.sh urandom kmod; do
        [ -e "$root/etc/init.d/$c" ] && inchroot update-rc.d -f "$c" remove
    done
    case $init in
    sysvinit)
        install -m 0755 "$guest/sysvinit-consumer" "$root/etc/init.d/eg-vm-consumer"
        install -m 0755 "$guest/sysvinit-ssh" "$root/etc/init.d/ssh"
        install -m 0755 "$guest/sysvinit-report" "$root/etc/init.d/eg-vm-report"
        for c in entropy-seed entropy-gate ssh eg-vm-consumer eg-vm-report; do
            inchroot update-rc.d "$c" defaults
        done
        ;;
    openrc)
        # Debian's way to OpenRC: it replaces sysv-rc under the same
        # /sbin/init, and its postinst moves the enabled LSB scripts over.
        mkdir -p "$root/tmp/openrc-debs"
        cp "$openrc_debs"/*.deb "$root/tmp/openrc-debs/"
        inchroot dpkg --purge --force-depends sysv-rc
        inchroot sh -c 'dpkg -i /tmp/openrc-debs/*.deb'
        rm -rf "$root/tmp/openrc-debs"
        install -m 0755 "$guest/openrc-consumer" "$root/etc/init.d/eg-vm-consumer"
        install -m 0755 "$guest/openrc-report" "$root/etc/init.d/eg-vm-report"
        inchroot rc-update add entropy-seed boot
        inchroot rc-update add entropy-gate boot
        inchroot rc-update add eg-vm-consumer default
        inchroot rc-update add eg-vm-report default
        ;;
    runit)
        mv "$root/etc/runit/1" "$root/etc/runit/1.debian"
        mv "$root/etc/runit/3" "$root/etc/runit/3.debian"
        install -m 0755 "$guest/runit-1" "$root/etc/runit/1"
        install -m 0755 "$guest/runit-3" "$root/etc/runit/3"
        for c in eg-vm-consumer eg-vm-report; do
            install -D -m 0755 "$guest/runit-${c#eg-vm-}/run" "$root/etc/sv/$c/run"
        done
        for c in entropy-gate eg-vm-consumer eg-vm-report; do
            ln -sfn "/etc/sv/$c" "$root/etc/runit/runsvdir/default/$c"
        done
        init_arg_runit=/lib/runit/runit-init
        ;;
    s6)
        for c in eg-vm-consumer eg-vm-report; do
            install -D -m 0755 "$guest/s6-${c#eg-vm-}/run" "$root/etc/s6/sv/$c/run"
        done
        install -m 0755 "$guest/eg-s6-init" "$root/usr/local/sbin/eg-s6-init"
        install -m 0755 "$guest/eg-s6-shutdown" "$root/usr/local/sbin/eg-s6-shutdown"
        init_arg_s6=/usr/local/sbin/eg-s6-init
        ;;
    esac
    vm_new_machine_id >"$root/etc/machine-id"
    vm_sd_mkfs "$root" "$work/boot/$init.img"
    # The timeout boot's disk: the same tree, a 200 ms bound on the wait
    # set where this init system's users set it.
    case $init in
    sysvinit) echo 'ENTROPY_GATE_OPTS="--timeout=200ms --on-timeout=proceed"' >>"$root/etc/default/entropy-gate" ;;
    openrc) printf 'gate_timeout="200ms"\ngate_on_timeout="fail"\n' >>"$root/etc/conf.d/entropy-gate" ;;
    runit|s6) printf '[Gate]\nTimeout=200ms\nOnTimeout=fail\n' >"$root/etc/entropy-gate.conf" ;;
    esac
    vm_sd_mkfs "$root" "$work/boot/$init-timeout.img"
    # What insserv made of the headers, for the host's checks.
    [ "$init" = sysvinit ] && (cd "$root/etc" && ls rcS.d rc2.d rc0.d) >"$work/boot/sysvinit-links.txt"
    rm -rf "$root"
}

# ---------------------------------------------------------------- checks

usec_to_s() { awk -v u="$1" 'BEGIN { if (u == "") exit 1; printf "%.6f", u / 1e6 }'; }
# The gate's record of this boot: for runit the one stage 1's gate wrote
# (the entropy-gate service may write another later).
gs() {
    if [ "$init" = runit ]; then
        sed -n "s/^$2=//p" "$1/init/stage1-gate" 2>/dev/null | head -n1
    else
        rs "$1" gate "$2"
    fi
}
# The S number insserv gave a script in an rc directory listing.
snum() { awk -v d="$2:" -v n="$3" '$0 == d { on = 1; next } /^$/ { on = 0 } on && substr($0, 4) == n { print substr($0, 2, 2) }' "$1"; }

check_cold_start() {   # REPORT NAME
    vm_check "$2.cold-start" "$2: CRNG not initialized when user space started (probe 'initrd': READY=$(pr "$1" initrd READY) ERRNO=$(pr "$1" initrd ERRNO))" \
        test "$(pr "$1" initrd READY)" = no
    local want=${pid1_comm[$init]}
    vm_check "$2.pid1" "$2: PID 1 is $init's ($(cat "$1/pid1.txt" 2>/dev/null), want $want)" \
        test "$(cat "$1/pid1.txt" 2>/dev/null)" = "$want"
}
declare -A pid1_comm=([sysvinit]=init [openrc]=init [runit]=runit [s6]=s6-svscan)

# What holds after the gate in every boot that waits for the pool: each
# consumer ordered after it found it initialized, and the init system says
# the gate is up.
check_consumers() {   # REPORT NAME
    local r=$1 n=$2
    vm_check "$n.consumer-ready" "$n: the consumer ordered after the gate found the pool initialized when it started (probe 'consumer': $(pr "$r" consumer READY) at $(usec_to_s "$(pr "$r" consumer BOOTTIME_USEC)" || echo ?) s)" \
        test "$(pr "$r" consumer READY)" = yes
    case $init in
    sysvinit)
        vm_check "$n.ssh-ready" "$n: ssh, whose headers name no gate, found the pool initialized when it started (probe 'ssh': $(pr "$r" ssh READY))" \
            test "$(pr "$r" ssh READY)" = yes
        vm_check "$n.status" "$n: /etc/init.d/entropy-gate status says released (status $(cat "$r/gate-status.rc" 2>/dev/null))" \
            test "$(cat "$r/gate-status.rc" 2>/dev/null)" = 0 ;;
    openrc)
        vm_check "$n.status" "$n: rc-service entropy-gate status: started ($(cat "$r/status-entropy-gate.txt" 2>/dev/null | tr -s ' \n' ' '))" \
            test "$(cat "$r/status-entropy-gate.rc" 2>/dev/null)" = 0 ;;
    runit)
        vm_check "$n.status" "$n: sv check entropy-gate says ok ($(cat "$r/sv-check.txt" 2>/dev/null))" \
            test "$(cat "$r/sv-check.rc" 2>/dev/null)" = 0 ;;
    s6)
        vm_check "$n.status" "$n: s6-svstat: the gate is up and ready (up,wantedup,ready,exitcode: $(cat "$r/svstat-entropy-gate.txt" 2>/dev/null))" \
            eval 'set -- $(cat "$r/svstat-entropy-gate.txt" 2>/dev/null); test "${1:-} ${3:-}" = "true true"' ;;
    esac
}

# The seed on the powered-off disk differs from the one the boot's load
# left: the init system's shutdown path saved a new one.
check_saved() {   # REPORT NAME DISK
    local during after
    during=$(cat "$1/seed.sha256" 2>/dev/null)
    after=$(disk_seed_sha "$3")
    vm_check "$2.seed-saved" "$2: a new seed was saved at shutdown (after load: ${during:0:12}, on the powered-off disk: ${after:0:12})" \
        test -n "$during" -a -n "$after" -a "$during" != "$after"
}

# boot_init NAME DISK: boot DISK under $init, unpack the report the guest
# wrote to a second disk into $work/boot/NAME/ (sets rep).
boot_init() {
    local name=$1 disk=$2 a ok=true
    eval "a=\$init_arg_$init"
    rep=$work/boot/$name
    rm -rf "$rep" "$rep-report.img"
    mkdir -p "$rep"
    truncate -s 16M "$rep-report.img"
    vm_log "boot '$name' (init=$a)"
    vm_boot "$rep.log" "${EG_VM_INIT_BOOT_TIMEOUT:-480}" "$kdir/vmlinuz" "$initrd" "$EG_VM_SD_APPEND fastboot init=$a" \
        -drive "file=$disk,format=raw,if=virtio" -drive "file=$rep-report.img,format=raw,if=virtio" || ok=false
    vm_check "$name.boot" "boot '$name' completed" $ok
    tar -xf "$rep-report.img" -C "$rep" 2>/dev/null || true
    ok=true
    [ -e "$rep/complete" ] || ok=false
    vm_check "$name.report" "boot '$name' wrote its report" $ok
    $ok || tail -n 40 "$rep.log" >&2
}

declare -A tier_boot_s
for init in "${inits[@]}"; do
    case $init in sysvinit|openrc|runit|s6) ;; *) vm_die "unknown init system '$init'" ;; esac
    vm_log "assembling the $init image"
    assemble "$init"
    disk=$work/boot/$init.img

    if [ "$init" = sysvinit ]; then
        l=$work/boot/sysvinit-links.txt
        vm_check sysvinit.insserv-order "sysvinit: insserv put entropy-seed in rcS (S$(snum "$l" rcS.d entropy-seed), after mountall S$(snum "$l" rcS.d mountall.sh)) and K$(grep -o 'K[0-9]*entropy-seed' "$l" | cut -c2-3) in rc0.d; in rc2.d the gate (S$(snum "$l" rc2.d entropy-gate)) before ssh (S$(snum "$l" rc2.d ssh)) and the consumer (S$(snum "$l" rc2.d eg-vm-consumer))" \
            eval 'g=$(snum "$l" rc2.d entropy-gate); s=$(snum "$l" rc2.d ssh); c=$(snum "$l" rc2.d eg-vm-consumer); e=$(snum "$l" rcS.d entropy-seed); m=$(snum "$l" rcS.d mountall.sh)
                  test -n "$g" -a -n "$s" -a -n "$c" -a -n "$e" -a -n "$m" && [ "$g" -lt "$s" ] && [ "$g" -lt "$c" ] && [ "$m" -lt "$e" ] && grep -q "K[0-9]*entropy-seed" "$l"'
    fi

    # ---- boot1: no seed; the gate waits, consumers find the pool ready
    n=$init.boot1
    boot_init "$n" "$disk"; r=$rep; tier_boot_s[$n]=$EG_VM_LAST_BOOT_S
    check_cold_start "$r" "$n"
    vm_check "$n.not-credited" "$n: nothing to credit on a first boot (ACTION=$(rs "$r" seed ACTION), REASON=$(rs "$r" seed REASON))" \
        test "$(rs "$r" seed ACTION)" = not-credited
    vm_check "$n.gate-waited" "$n: the gate found the pool cold and released once it was initialized (OUTCOME=$(gs "$r" OUTCOME) READY_AT_START=$(gs "$r" READY_AT_START) waited $(gs "$r" WAITED_USEC) us)" \
        test "$(gs "$r" OUTCOME)" = ready -a "$(gs "$r" READY_AT_START)" = no
    check_consumers "$r" "$n"
    check_saved "$r" "$n" "$disk"
    boot1_wait=$(gs "$r" WAITED_USEC)

    # ---- boot2: the seed boot1 saved is credited before the gate runs
    n=$init.boot2
    boot_init "$n" "$disk"; r=$rep; tier_boot_s[$n]=$EG_VM_LAST_BOOT_S
    check_cold_start "$r" "$n"
    vm_check "$n.credited" "$n: the seed saved at boot1's shutdown was credited (ACTION=$(rs "$r" seed ACTION), BITS=$(rs "$r" seed BITS), REASON=$(rs "$r" seed REASON))" \
        test "$(rs "$r" seed ACTION)" = credited -a "$(rs "$r" seed BITS)" -ge 256
    seed_t=$(rs "$r" seed BOOTTIME_USEC); gate_t=$(gs "$r" START_BOOTTIME_USEC)
    # Two records of the guest's CLOCK_BOOTTIME, written in sequence.
    vm_check "$n.credited-before-gate" "$n: the credit came before the gate started (seed record at $(usec_to_s "$seed_t" || echo ?) s, gate started at $(usec_to_s "$gate_t" || echo ?) s), and the gate found the pool initialized (READY_AT_START=$(gs "$r" READY_AT_START), waited $(gs "$r" WAITED_USEC) us)" \
        eval 'test -n "$seed_t" -a -n "$gate_t" && [ "$seed_t" -le "$gate_t" ] && test "$(gs "$r" READY_AT_START)" = yes -a "$(gs "$r" OUTCOME)" = ready'
    check_consumers "$r" "$n"
    check_saved "$r" "$n" "$disk"

    # ---- timeout: 200 ms on the cold pool, as configured
    n=$init.timeout
    boot_init "$n" "$work/boot/$init-timeout.img"; r=$rep; tier_boot_s[$n]=$EG_VM_LAST_BOOT_S
    check_cold_start "$r" "$n"
    want=timeout-fail; [ "$init" = sysvinit ] && want=timeout-proceed
    w=$(gs "$r" WAITED_USEC)
    vm_check "$n.gave-up" "$n: the gate gave up on the cold pool after ~200 ms as configured (OUTCOME=$(gs "$r" OUTCOME), want $want; READY_AT_START=$(gs "$r" READY_AT_START); waited ${w:-?} us)" \
        test "$(gs "$r" OUTCOME)" = "$want" -a "$(gs "$r" READY_AT_START)" = no -a "${w:-0}" -ge 190000 -a "${w:-0}" -lt 1000000
    case $init in
    sysvinit)
        # proceed: the boot goes on, loudly; sysv-rc starts what follows.
        vm_check "$n.proceeded" "$n: --on-timeout=proceed: the consumer and ssh started (probes: $(pr "$r" consumer READY), $(pr "$r" ssh READY)) and the status says released" \
            test -n "$(pr "$r" consumer READY)" -a -n "$(pr "$r" ssh READY)" -a "$(cat "$r/gate-status.rc" 2>/dev/null)" = 0 ;;
    openrc)
        vm_check "$n.held" "$n: gate_on_timeout=fail: entropy-gate failed (status $(cat "$r/status-entropy-gate.rc" 2>/dev/null): $(tr -s ' \n' ' ' <"$r/status-entropy-gate.txt" 2>/dev/null)) and the consumer that needs it never started (probe: ${pr_c:-none})" \
            eval 'pr_c=$(pr "$r" consumer READY); test -z "$pr_c" -a "$(cat "$r/status-entropy-gate.rc" 2>/dev/null)" != 0' ;;
    runit)
        # Stage 1 goes on; the service retries until the pool is ready and
        # "sv check" holds the consumer back until then.
        vm_check "$n.held" "$n: the consumer that checks the gate started only with the pool initialized (probe 'consumer': $(pr "$r" consumer READY); the pool right after stage 1: $(pr "$r" stage1-end READY); sv check: $(cat "$r/sv-check.txt" 2>/dev/null))" \
            test "$(pr "$r" consumer READY)" = yes -a "$(cat "$r/sv-check.rc" 2>/dev/null)" = 0 ;;
    s6)
        vm_check "$n.held" "$n: OnTimeout=fail: the gate is down for good and never ready (up,wantedup,ready,exitcode: $(cat "$r/svstat-entropy-gate.txt" 2>/dev/null)) and the consumer waiting for it never started (probe: ${pr_c:-none})" \
            eval 'pr_c=$(pr "$r" consumer READY); set -- $(cat "$r/svstat-entropy-gate.txt" 2>/dev/null); test -z "$pr_c" -a "${1:-} ${2:-} ${3:-} ${4:-}" = "false false false 3"' ;;
    esac
    vm_log "$init: gate wait on boot1 ${boot1_wait:-?} us; boots: boot1 ${tier_boot_s[$init.boot1]}s boot2 ${tier_boot_s[$init.boot2]}s timeout ${tier_boot_s[$init.timeout]}s"
done

tier_s=$(( $(date +%s) - tier_start ))
vm_log "init tier: ${#inits[@]} init systems, tier ${tier_s}s"
vm_finish
