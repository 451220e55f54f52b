#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The busybox tier: Debian's kernel booted cold under TCG into a busybox
# initramfs with the project's binaries, no systemd: the OpenWrt path. Every
# boot carries the OpenWrt package's files (packaging/openwrt/files): its
# /etc/entropy-gate.conf, which keeps the seed in /etc/entropy-gate, and its
# procd init script and /etc/config/entropy-gate, which a minimal
# /etc/rc.common of our own runs (no procd: start/stop call the script's
# start_service/stop_service, UCI is read by a small shell reader, and a
# /sbin/uci of our own answers the script's strict "uci export"). Scenarios,
# one boot each:
#   timeout        --timeout=200ms --on-timeout=fail on the cold pool exits 3
#   cold           no seed: the gate finds the pool cold, returns after
#                  "crng init done", exit 0; then saves a seed with the pool
#                  ready
#   seed           that seed, bound to this machine-id, on a disk of its own,
#                  credited by "entropy-seed load": the gate finds the pool
#                  ready, waits < 0.1 s
#   readyfd        --ready-fd readiness reaches a supervisor script; the
#                  same seed baked into the initramfs, as a boot image would
#                  carry it, is loaded first and not credited
#   openwrt-first  a fresh device (no seed, no machine-id) boots through the
#                  init script, in OpenWrt's layout (no /run; /var a link to
#                  the /tmp tmpfs): its boot() links /run to /var/run,
#                  returns with the pool initialized
#                  and makes /etc/machine-id; its stop() at shutdown saves
#                  the seed
#   openwrt-next   that seed (on a disk, as on flash) and machine-id: boot()
#                  credits the seed before the gate runs
#   openwrt-timeout a fresh device whose /etc/config/entropy-gate says
#                  200ms: boot() returns 3 (on_timeout=fail), the next boot
#                  script (the network's place) still runs, and the kernel
#                  log says why
#
# Usage: busybox-tier.sh [--build-dir DIR] [--work-dir DIR] [--musl]
#   default: the binaries linked statically against glibc's libc.a, as two
#            programs with the default build options
#   --musl:  the binaries built as the OpenWrt package builds them: the
#            CMake options and compiler and linker flags of
#            packaging/openwrt/Makefile (one multi-call binary with
#            entropy-seed a link to it, the seed directory under /etc, no
#            provision verb; -Os, PKG_BUILD_FLAGS gc-sections and lto, its
#            TARGET_CFLAGS and TARGET_LDFLAGS: tests/tools/openwrt-flags.sh),
#            linked dynamically against musl,
#            whose loader the initramfs carries; musl-gcc gets the kernel's
#            UAPI headers only.
# Exit: 0 pass, 1 fail, 77 skipped (not root, or no qemu even after apt-get).

source "$(dirname "$0")/lib.sh"

build_dir=$EG_SOURCE_DIR/build-vm
work=
musl=0
while [ $# -gt 0 ]; do
    case $1 in
        --musl) musl=1; shift ;;
        --build-dir) build_dir=$2; shift 2 ;;
        --work-dir) work=$2; shift 2 ;;
        *) echo "usage: $0 [--build-dir DIR] [--work-dir DIR] [--musl]" >&2; exit 2 ;;
    esac
done
work=${work:-$build_dir/vm-busybox$( [ "$musl" = 1 ] && echo -musl)}

vm_setup qemu kernel busybox cpio kmod e2fs build
tier_start=$(date +%s)

# The OpenWrt package: its Makefile and files.
owrt=$EG_SOURCE_DIR/packaging/openwrt
# How OpenWrt would build it: openwrt_flags.
source "$EG_SOURCE_DIR/tests/tools/openwrt-flags.sh"

# The binaries from a build of their own (the caller's build may carry
# sanitizers): static against glibc's libc.a with the default options, or
# (--musl) as the OpenWrt package builds them.
rm -rf "$work/root" "$work/boot"
mkdir -p "$work/root" "$work/boot"
cc_env=()
build_opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DENTROPY_GATE_STATIC=ON -DENTROPY_GATE_CTL=OFF -DENTROPY_GATE_TESTS=OFF)
if [ "$musl" = 1 ]; then
    vm_install_deps musl
    command -v musl-gcc >/dev/null || vm_die "musl-gcc is missing (apt-get install musl-tools)"
    # musl-gcc sees no /usr/include; the kernel's UAPI headers alone, as an
    # OpenWrt toolchain has them.
    kh=$work/kernel-headers
    mkdir -p "$kh"
    ln -sfn /usr/include/linux "$kh/linux"
    ln -sfn /usr/include/asm-generic "$kh/asm-generic"
    ln -sfn "/usr/include/$(gcc -dumpmachine)/asm" "$kh/asm"
    # What the Makefile gives CMake and the compiler, and what OpenWrt's
    # build adds: the target's default optimization (-Os) and what
    # package.mk adds for each of the Makefile's PKG_BUILD_FLAGS. OpenWrt's
    # cmake.mk builds Release with no optimization of CMake's own
    # (-DNDEBUG only).
    openwrt_flags "$owrt/Makefile" || vm_die "cannot tell how OpenWrt builds $owrt/Makefile"
    printf '%s\n' "${owrt_opts[@]}" | grep -x -- '-DENTROPY_GATE_MULTICALL=ON' >/dev/null ||
        vm_die "no -DENTROPY_GATE_MULTICALL=ON among the CMAKE_OPTIONS read from $owrt/Makefile: ${owrt_opts[*]}"
    owrt_state=$(printf '%s\n' "${owrt_opts[@]}" | sed -n 's/^-DENTROPY_GATE_STATE_DIR=//p')
    vm_log "OpenWrt build: ${owrt_opts[*]}; CFLAGS $owrt_cflags; LDFLAGS $owrt_ldflags"
    cc_env=(CC=musl-gcc "CFLAGS=-isystem $kh $owrt_cflags" "LDFLAGS=$owrt_ldflags")
    build_opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE=-DNDEBUG "${owrt_opts[@]}")
    rm -rf "$work/static"
fi
vm_log "building the binaries in $work/static"
env "${cc_env[@]}" cmake -S "$EG_SOURCE_DIR" -B "$work/static" -DCMAKE_INSTALL_PREFIX=/usr "${build_opts[@]}" \
    >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; vm_die "cmake configure failed"; }
cmake --build "$work/static" -j"$(nproc)" >>"$work/cmake.log" 2>&1 || { tail -n 40 "$work/cmake.log" >&2; vm_die "build failed"; }
DESTDIR=$work/root cmake --install "$work/static" >>"$work/cmake.log" 2>&1 || vm_die "install failed"
# What goes on the device: the programs as the package installs them, its
# configuration and its init script.
pkg=$work/pkg
rm -rf "$pkg"
mkdir -p "$pkg/usr/sbin" "$pkg/etc/init.d" "$pkg/etc/rc.d"
if [ "$musl" = 1 ]; then
    # Package/entropy-gate/install: the multi-call binary, entropy-seed a
    # link to it.
    install -m 0755 "$work/root/usr/sbin/entropy-gate" "$pkg/usr/sbin/"
    ln -s entropy-gate "$pkg/usr/sbin/entropy-seed"
    interp=$(readelf -l "$pkg/usr/sbin/entropy-gate" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
    needed=$(readelf -d "$pkg/usr/sbin/entropy-gate" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' ')
    vm_check build.openwrt-layout "musl: one dynamically linked program, entropy-seed a link to it (interpreter ${interp:-none}; needs ${needed:-nothing}; $(ls -l "$work/root/usr/sbin" | awk 'NR > 1 { print $NF == $9 ? $9 : $9 "->" $NF }' | tr '\n' ' '))" \
        test -n "$interp" -a "$needed" = "libc.so " -a -L "$work/root/usr/sbin/entropy-seed" \
        -a "$(readlink "$work/root/usr/sbin/entropy-seed")" = entropy-gate
    vm_check build.openwrt-state-dir "musl: the seed directory built in is the package's (${owrt_state:-none}; the init script makes /etc/entropy-gate)" \
        eval 'test "$owrt_state" = /etc/entropy-gate && strings "$pkg/usr/sbin/entropy-gate" | grep -x /etc/entropy-gate >/dev/null'
    install -d "$pkg$(dirname "$interp")"
    cp -L "$interp" "$pkg$interp" || vm_die "no musl loader $interp on the host (apt-get install musl)"
else
    for b in entropy-gate entropy-seed; do
        [ -x "$work/root/usr/sbin/$b" ] || vm_die "$b was not built/installed"
        if LC_ALL=C ldd "$work/root/usr/sbin/$b" >/dev/null 2>&1; then
            vm_die "$b is not statically linked"
        fi
        install -m 0755 "$work/root/usr/sbin/$b" "$pkg/usr/sbin/"
    done
fi
install -m 0755 "$owrt/files/entropy-gate.init" "$pkg/etc/init.d/entropy-gate"
install -m 0644 "$owrt/files/entropy-gate.conf" "$pkg/etc/entropy-gate.conf"
install -D -m 0644 "$owrt/files/entropy-gate.config" "$pkg/etc/config/entropy-gate"
install -m 0755 "$EG_VM_DIR/guest/rc.common" "$pkg/etc/rc.common"
install -D -m 0755 "$EG_VM_DIR/guest/uci" "$pkg/sbin/uci"
seed_dir=$(sed -n 's/^Directory=//p' "$owrt/files/entropy-gate.conf")
[ "$seed_dir" = /etc/entropy-gate ] || vm_die "the package's entropy-gate.conf keeps the seed in '$seed_dir', the guest looks in /etc/entropy-gate"
owrt_start=$(sed -n 's/^START=//p' "$owrt/files/entropy-gate.init")
owrt_stop=$(sed -n 's/^STOP=//p' "$owrt/files/entropy-gate.init")

kdir=$(vm_kernel_cache) && base=$(vm_busybox_base) || vm_die "could not prepare the kernel or the initramfs"
vm_guest_tools "$work/guest-tools"
machine_id=$(vm_new_machine_id)
vm_log "kernel $(cat "$kdir/version"), guest machine-id $machine_id"

# boot NAME [SEED_FILE [MACHINE_ID [WHERE]]]: the base cpio plus an overlay
# with /init, the package's files, the probe, /etc/machine-id (this tier's,
# or MACHINE_ID; none for "none") and optionally a seed; sets $log. The seed
# is on a disk of its own by default (WHERE "disk": an ext4 the guest mounts
# on the seed directory, as a router's flash holds it), or in the initramfs
# (WHERE "initramfs": baked into the boot image, which load must not credit).
boot() {
    local name=$1 seed=${2:-} mid=${3:-$machine_id} where=${4:-disk} ov=$work/boot/$1-overlay
    local disk=()
    rm -rf "$ov" "$work/boot/$name-disk" "$work/boot/$name-disk.img"
    mkdir -p "$ov/usr/libexec"
    cp -a "$pkg/." "$ov/"
    install -m 0755 "$EG_VM_DIR/guest/busybox-init.sh" "$ov/init"
    install -m 0755 "$work/guest-tools/eg-vm-probe" "$ov/usr/libexec/"
    if [ "$mid" != none ]; then
        echo "$mid" >"$ov/etc/machine-id"
        chmod 0444 "$ov/etc/machine-id"
    fi
    if [ -n "$seed" ] && [ "$where" = initramfs ]; then
        install -d -m 0700 "$ov$seed_dir"
        install -m 0600 "$seed" "$ov$seed_dir/seed"
    elif [ -n "$seed" ]; then
        # The disk's own root is the seed directory: root's, mode 0700,
        # holding the seed alone. The guest loads virtio and ext4 from the
        # kernel's modules and mounts it before anything runs.
        install -d -m 0700 "$work/boot/$name-disk"
        install -m 0600 "$seed" "$work/boot/$name-disk/seed"
        mke2fs -q -t ext4 -E root_owner=0:0 -d "$work/boot/$name-disk" "$work/boot/$name-disk.img" 8M &&
            debugfs -w -R 'sif / mode 040700' "$work/boot/$name-disk.img" >/dev/null 2>&1 &&
            debugfs -w -R 'rmdir lost+found' "$work/boot/$name-disk.img" >/dev/null 2>&1 ||
            vm_die "could not make the seed disk of boot '$name'"
        mkdir -p "$ov/lib/modules"
        cp "$kdir/modules/"*.ko "$ov/lib/modules/"
        cp "$kdir/modules.order" "$ov/lib/modules/order"
        disk=(-drive "file=$work/boot/$name-disk.img,if=virtio,format=raw")
    fi
    vm_cpio "$ov" "$work/boot/$name-overlay.cpio"
    cat "$base" "$work/boot/$name-overlay.cpio" >"$work/boot/$name.cpio"
    log=$work/boot/$name.log
    vm_log "boot '$name'"
    local ok=true
    EG_VM_MEM=256 vm_boot "$log" 120 "$kdir/vmlinuz" "$work/boot/$name.cpio" "eg.scenario=$name" "${disk[@]}" || ok=false
    vm_check "$name.boot" "boot '$name' completed" $ok
    ok=true
    [ "$(vm_get "$log" done)" = yes ] || ok=false
    vm_check "$name.report" "boot '$name' reported its results" $ok
    $ok || tail -n 40 "$log" >&2
    eval "boot_s_${name//-/_}=$EG_VM_LAST_BOOT_S"
    grep -a 'EGVM-LOG:' "$log" | sed 's/^.*EGVM-LOG:/[guest] /' >&2 || true
}

# Kernel log timestamp (seconds) of the first dmesg line matching $2: shown
# for reading, never compared across clocks.
kts() {
    tr -d '\r' <"$1" | grep -a 'EGVM-DMESG:' | sed 's/^.*EGVM-DMESG://' |
        grep -m1 -E "$2" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'
}
usec_to_s() { awk -v u="$1" 'BEGIN { if (u == "") exit 1; printf "%.6f", u / 1e6 }'; }
# probe NAME: "READY=x at T s" of a probe in this boot, for descriptions.
probe() { echo "READY=$(vm_probe "$log" "$1" READY) at $(usec_to_s "$(vm_probe "$log" "$1" BOOTTIME_USEC)" || echo ?) s"; }
probe_is() { [ "$(vm_probe "$log" "$1" READY)" = "$2" ]; }

# The pool was cold when user space started: the first program /init runs
# asks the kernel without blocking and gets EAGAIN.
check_cold_start() {
    vm_check "$1.cold-start" "$1: CRNG not initialized when user space started (probe 'init': $(probe init), ERRNO=$(vm_probe "$log" init ERRNO); kernel 'crng init done' at $(kts "$log" 'random: crng init done') s)" \
        probe_is init no
}

# ---- (d) timeout: first, while nothing has ever touched this pool
boot timeout
check_cold_start timeout
vm_check timeout.exit-3 "timeout: gate --timeout=200ms --on-timeout=fail exits 3 (got $(vm_get "$log" gate_rc))" \
    test "$(vm_get "$log" gate_rc)" = 3
vm_check timeout.outcome "timeout: result file says OUTCOME=timeout-fail" test "$(vm_get "$log" gate.OUTCOME)" = timeout-fail
vm_check timeout.cold-at-start "timeout: result file says READY_AT_START=no" test "$(vm_get "$log" gate.READY_AT_START)" = no
w=$(vm_get "$log" gate.WAITED_USEC)
vm_check timeout.waited-200ms "timeout: gave up after ~200 ms (waited ${w:-?} us)" \
    test -n "$w" -a "${w:-0}" -ge 190000 -a "${w:-0}" -lt 1000000
# Readiness never goes back: a pool still cold right after the gate exited
# was cold when it gave up.
vm_check timeout.gave-up-cold "timeout: the pool was still not initialized right after the gate gave up (probe 'gate-exit': $(probe gate-exit))" \
    probe_is gate-exit no
vm_check timeout.plain-gate-after "timeout: a plain gate afterwards still succeeds" test "$(vm_get "$log" gate2_rc)" = 0

# ---- (a) cold: no seed
boot cold
cold_log=$log
check_cold_start cold
vm_check cold.exit-0 "cold: entropy-gate exits 0 (got $(vm_get "$log" gate_rc))" test "$(vm_get "$log" gate_rc)" = 0
vm_check cold.cold-at-start "cold: result file says READY_AT_START=no (not ready at start)" test "$(vm_get "$log" gate.READY_AT_START)" = no
vm_check cold.outcome "cold: result file says OUTCOME=ready" test "$(vm_get "$log" gate.OUTCOME)" = ready
vm_check cold.gate-started-cold "cold: the pool was not initialized right before the gate started (probe 'gate-pre': $(probe gate-pre))" \
    probe_is gate-pre no
vm_check cold.gate-returned-ready "cold: the pool was initialized the moment the gate returned (probe 'gate-post': $(probe gate-post))" \
    probe_is gate-post yes
cold_wait=$(vm_get "$log" gate.WAITED_USEC)
cold_end=$(vm_get "$log" gate.END_BOOTTIME_USEC)
cold_start_us=$(vm_get "$log" gate.START_BOOTTIME_USEC)
pool_us=$(vm_probe "$log" pool BOOTTIME_USEC)
# The gate's release against the moment the kernel woke the pool's waiters,
# both CLOCK_BOOTTIME in the guest: the watcher in poll() and the gate in
# getrandom() sleep on the same wait queue and wake together, so the gate
# released the boot promptly when it returned within 2 s of the watcher
# (2 s: a loaded host can stall the emulated CPU; a gate that polled on a
# timer or missed the wake-up would come much later or never). And the
# watcher woke after the gate started waiting: the gate did wait for the
# kernel, not for a clock.
vm_check cold.woke-with-pool "cold: the pool's waiters woke (watcher $(usec_to_s "$pool_us" || echo ?) s, WAITED=$(vm_probe "$log" pool WAITED)) after the gate started ($(usec_to_s "$cold_start_us" || echo ?) s)" \
    awk -v p="$pool_us" -v s="$cold_start_us" -v w="$(vm_probe "$log" pool WAITED)" 'BEGIN { exit !(p != "" && s != "" && w == "yes" && s + 0 < p + 0) }'
vm_check cold.released-promptly "cold: the gate released at $(usec_to_s "$cold_end" || echo ?) s, within 2 s of the kernel waking the pool's waiters ($(usec_to_s "$pool_us" || echo ?) s)" \
    awk -v e="$cold_end" -v p="$pool_us" 'BEGIN { exit !(e != "" && p != "" && e + 0 <= p + 2000000) }'
vm_check cold.save-exit-0 "cold: 'entropy-seed save' with the pool ready exits 0" test "$(vm_get "$log" save_rc)" = 0
vm_get "$log" seed_b64 | base64 -d >"$work/boot/saved-seed" 2>/dev/null || true
vm_check cold.seed-transferred "cold: the saved seed came back over the serial port" test -s "$work/boot/saved-seed"
saved_sha=$(sha256sum "$work/boot/saved-seed" | cut -d' ' -f1)
vm_check cold.seed-intact "cold: seed transfer is intact" test "$saved_sha" = "$(vm_get "$log" seed_sha)"

# ---- (b) seed: credited before the gate runs
boot seed "$work/boot/saved-seed"
check_cold_start seed
vm_check seed.on-disk "seed: the seed directory is a disk of its own ($(vm_get "$log" seed_disk))" \
    test "$(vm_get "$log" seed_disk)" = mounted
vm_check seed.found "seed: the guest found the saved seed" test "$(vm_get "$log" seed_sha_before)" = "$saved_sha"
vm_check seed.load-exit-0 "seed: entropy-seed load exits 0" test "$(vm_get "$log" load_rc)" = 0
vm_check seed.credited "seed: load credited the seed (ACTION=$(vm_get "$log" seed.ACTION), REASON=$(vm_get "$log" seed.REASON))" \
    test "$(vm_get "$log" seed.ACTION)" = credited
bits=$(vm_get "$log" seed.BITS)
vm_check seed.bits "seed: at least 256 bits credited (BITS=$bits)" test "${bits:-0}" -ge 256
# The credit is what initialized the pool: cold right before load, ready
# right after it and before the gate (which runs next).
vm_check seed.cold-before-load "seed: the pool was not initialized right before load (probe 'load-pre': $(probe load-pre))" \
    probe_is load-pre no
vm_check seed.ready-after-load "seed: the pool was initialized right after load, before the gate (probe 'load-post': $(probe load-post))" \
    probe_is load-post yes
vm_check seed.gate-exit-0 "seed: gate exits 0" test "$(vm_get "$log" gate_rc)" = 0
vm_check seed.ready-at-start "seed: gate found the pool ready at start" test "$(vm_get "$log" gate.READY_AT_START)" = yes
seed_wait=$(vm_get "$log" gate.WAITED_USEC)
vm_check seed.waited-under-100ms "seed: gate waited under 0.1 s (${seed_wait:-?} us)" test -n "$seed_wait" -a "${seed_wait:-999999}" -lt 100000
after=$(vm_get "$log" seed_sha_after)
vm_check seed.replaced "seed: the seed on disk was replaced by a new one" test -n "$after" -a "$after" != "$saved_sha"

# not_credited_because WORD: this boot's load credited nothing, and its
# reason names WORD.
not_credited_because() {
    test "$(vm_get "$log" seed.ACTION)" = not-credited && vm_get "$log" seed.REASON | grep -q "$1"
}

# ---- (c) readyfd: readiness reaches a supervisor
boot readyfd "$work/boot/saved-seed" "$machine_id" initramfs
check_cold_start readyfd
vm_check readyfd.image-seed-found "readyfd: the cold boot's seed was in the initramfs" \
    test "$(vm_get "$log" seed_sha_before)" = "$saved_sha"
vm_check readyfd.image-seed-not-credited "readyfd: load credited nothing from the initramfs (ACTION=$(vm_get "$log" seed.ACTION), REASON=$(vm_get "$log" seed.REASON))" \
    not_credited_because initramfs
vm_check readyfd.cold-after-image-load "readyfd: the pool was still not initialized after that load (probe 'load-post': $(probe load-post))" \
    probe_is load-post no
vm_check readyfd.exit-0 "readyfd: gate exits 0" test "$(vm_get "$log" gate_rc)" = 0
vm_check readyfd.one-newline "readyfd: supervisor read exactly one newline, then EOF" \
    test "$(vm_get "$log" ready_lines)" = 1 -a "$(vm_get "$log" ready_newline)" = yes
vm_check readyfd.ready-when-told "readyfd: the pool was initialized when the supervisor learned readiness (probe 'supervisor': $(probe supervisor))" \
    probe_is supervisor yes
vm_check readyfd.cold-at-start "readyfd: the gate was not ready at start" test "$(vm_get "$log" gate.READY_AT_START)" = no

# ---- (e) openwrt-first: a fresh device boots through the package's init script
boot openwrt-first "" none
check_cold_start openwrt-first
vm_check openwrt-first.enabled "openwrt-first: enabling the init script linked S${owrt_start}/K${owrt_stop} in /etc/rc.d ($(vm_get "$log" rc_d))" \
    test "$(vm_get "$log" enable_rc)" = 0 -a "$(vm_get "$log" rc_d)" = "K${owrt_stop}entropy-gate S${owrt_start}entropy-gate "
vm_check openwrt-first.boot-rc "openwrt-first: rcS boot ran the script's boot() without error (status $(vm_get "$log" boot_rc))" \
    test "$(vm_get "$log" boot_rc)" = 0
vm_check openwrt-first.run-link "openwrt-first: as on OpenWrt there was no /run before boot(), which linked it to /var/run for the records (before: $(vm_get "$log" run_before), after: $(vm_get "$log" run_after))" \
    test "$(vm_get "$log" run_before)" = none -a "$(vm_get "$log" run_after)" = /var/run
vm_check openwrt-first.not-credited "openwrt-first: a device with no seed and no machine-id credits nothing (ACTION=$(vm_get "$log" seed.ACTION), REASON=$(vm_get "$log" seed.REASON))" \
    test "$(vm_get "$log" seed.ACTION)" = not-credited
vm_check openwrt-first.ready-after-boot "openwrt-first: boot() returned with the pool initialized: what starts after it finds it so (probe 'boot-post': $(probe boot-post); gate OUTCOME=$(vm_get "$log" gate.OUTCOME) READY_AT_START=$(vm_get "$log" gate.READY_AT_START))" \
    eval 'probe_is boot-post yes && test "$(vm_get "$log" gate.OUTCOME)" = ready'
first_mid=$(vm_get "$log" machine_id)
vm_check openwrt-first.machine-id "openwrt-first: boot() made /etc/machine-id (before: $(vm_get "$log" machine_id_before), after: $first_mid)" \
    eval 'test "$(vm_get "$log" machine_id_before)" = none && [[ $first_mid =~ ^[0-9a-f]{32}$ ]]'
vm_check openwrt-first.saved-at-stop "openwrt-first: rcS shutdown ran stop(), which saved a new seed in $seed_dir (status $(vm_get "$log" shutdown_rc); seed after boot $(vm_get "$log" seed_sha_boot | cut -c1-12), after stop $(vm_get "$log" seed_sha | cut -c1-12); modes $(vm_get "$log" seed_stat))" \
    test "$(vm_get "$log" shutdown_rc)" = 0 -a -n "$(vm_get "$log" seed_sha)" \
    -a "$(vm_get "$log" seed_sha)" != "$(vm_get "$log" seed_sha_boot)" -a "$(vm_get "$log" seed_stat)" = "700 0 600 0 "
vm_get "$log" seed_b64 | base64 -d >"$work/boot/openwrt-seed" 2>/dev/null || true
owrt_sha=$(sha256sum "$work/boot/openwrt-seed" | cut -d' ' -f1)
vm_check openwrt-first.seed-transferred "openwrt-first: the saved seed came back intact over the serial port" \
    test -s "$work/boot/openwrt-seed" -a "$owrt_sha" = "$(vm_get "$log" seed_sha)"

# ---- (f) openwrt-next: the same device's next boot
boot openwrt-next "$work/boot/openwrt-seed" "$first_mid"
check_cold_start openwrt-next
vm_check openwrt-next.found "openwrt-next: the guest found the seed stop() saved" test "$(vm_get "$log" seed_sha_before)" = "$owrt_sha"
vm_check openwrt-next.boot-rc "openwrt-next: rcS boot ran boot() without error (status $(vm_get "$log" boot_rc))" \
    test "$(vm_get "$log" boot_rc)" = 0
vm_check openwrt-next.cold-before-boot "openwrt-next: the pool was not initialized right before rcS boot (probe 'boot-pre': $(probe boot-pre))" \
    probe_is boot-pre no
vm_check openwrt-next.credited "openwrt-next: boot() credited the seed (ACTION=$(vm_get "$log" seed.ACTION), BITS=$(vm_get "$log" seed.BITS), REASON=$(vm_get "$log" seed.REASON))" \
    test "$(vm_get "$log" seed.ACTION)" = credited -a "$(vm_get "$log" seed.BITS)" -ge 256
vm_check openwrt-next.ready-at-start "openwrt-next: the gate, run by boot() after the load, found the pool ready (READY_AT_START=$(vm_get "$log" gate.READY_AT_START), waited $(vm_get "$log" gate.WAITED_USEC) us)" \
    test "$(vm_get "$log" gate.READY_AT_START)" = yes -a "$(vm_get "$log" gate.WAITED_USEC)" -lt 100000
vm_check openwrt-next.machine-id-kept "openwrt-next: the device kept its machine-id ($(vm_get "$log" machine_id))" \
    test "$(vm_get "$log" machine_id)" = "$first_mid"
vm_check openwrt-next.saved-at-stop "openwrt-next: stop() saved a new seed again (status $(vm_get "$log" shutdown_rc))" \
    test "$(vm_get "$log" shutdown_rc)" = 0 -a -n "$(vm_get "$log" seed_sha)" -a "$(vm_get "$log" seed_sha)" != "$(vm_get "$log" seed_sha_boot)"

# ---- (g) openwrt-timeout: the package's bounded timeout, shorter than the
# cold pool needs: the boot goes on to the network, and the log says why.
boot openwrt-timeout "" none
check_cold_start openwrt-timeout
vm_check openwrt-timeout.config "openwrt-timeout: /etc/config/entropy-gate set the timeout to $(vm_get "$log" uci_timeout)" \
    test "$(vm_get "$log" uci_timeout)" = 200ms
vm_check openwrt-timeout.status "openwrt-timeout: boot() returned the gate's timeout status, 3, as on_timeout=fail says (rcS boot status $(vm_get "$log" boot_rc); gate OUTCOME=$(vm_get "$log" gate.OUTCOME))" \
    test "$(vm_get "$log" boot_rc)" = 3
vm_check openwrt-timeout.network "openwrt-timeout: the next boot script (the network's place, START=20) still ran (network_started=$(vm_get "$log" network_started); pool then: $(probe network))" \
    test "$(vm_get "$log" network_started)" = yes
vm_check openwrt-timeout.logged "openwrt-timeout: the kernel log says why ($(vm_get "$log" kmsg_gate))" \
    eval '[[ "$(vm_get "$log" kmsg_gate)" == *"not initialized after 200ms"*"boot goes on"* ]]'
vm_check openwrt-timeout.no-machine-id "openwrt-timeout: no machine-id made after a wait the gate recorded as timed out (OUTCOME=$(vm_get "$log" gate.OUTCOME); machine-id: $(vm_get "$log" machine_id))" \
    test "$(vm_get "$log" gate.OUTCOME)" = timeout-fail -a "$(vm_get "$log" machine_id)" = none
vm_check openwrt-timeout.saved-at-stop "openwrt-timeout: stop() still saved a seed at shutdown (status $(vm_get "$log" shutdown_rc))" \
    test "$(vm_get "$log" shutdown_rc)" = 0 -a -n "$(vm_get "$log" seed_sha)"

tier_s=$(( $(date +%s) - tier_start ))
vm_log "busybox tier: gate wait cold ${cold_wait:-?} us, with credited seed ${seed_wait:-?} us;" \
    "boots: timeout ${boot_s_timeout:-?}s cold ${boot_s_cold:-?}s seed ${boot_s_seed:-?}s readyfd ${boot_s_readyfd:-?}s" \
    "openwrt-first ${boot_s_openwrt_first:-?}s openwrt-next ${boot_s_openwrt_next:-?}s openwrt-timeout ${boot_s_openwrt_timeout:-?}s; tier ${tier_s}s"
vm_finish
