# SPDX-License-Identifier: LGPL-2.1-or-later
# Shared helpers of the VM tiers (sourced, not run).
#
# The VM tests boot Debian's own kernel under qemu's TCG emulator with no RNG
# device and with the CPU and boot loader distrusted, so user space starts
# with the kernel CRNG NOT initialized: the only place where waiting for the
# pool, crediting a seed into a cold pool and ordering units after the gate
# are real (a host's pool is always ready). Everything a boot needs is built
# here and cached under $EG_VM_CACHE, keyed on its inputs.

# No errexit: a tier runs every check and reports each failure; steps that
# must not fail say so with "|| vm_die".
set -uo pipefail

EG_VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
EG_SOURCE_DIR=${EG_SOURCE_DIR:-$(cd "$EG_VM_DIR/../.." && pwd)}
EG_VM_CACHE=${EG_VM_CACHE:-$EG_VM_DIR/cache}
# Kernel command line every boot gets: no trusted CPU or boot loader entropy,
# so the pool starts cold; no reboot loops; output on the first serial port.
EG_VM_CMDLINE_BASE="console=ttyS0 random.trust_cpu=off random.trust_bootloader=off panic=-1 no_timer_check"
# Extra qemu/kernel verbosity for debugging a boot: EG_VM_VERBOSE=1.
EG_VM_VERBOSE=${EG_VM_VERBOSE:-0}

vm_log() { printf '[vm %s] %s\n' "$(date +%T)" "$*" >&2; }
vm_die() { printf '[vm] FAIL: %s\n' "$*" >&2; exit 1; }
vm_skip() { printf '[vm] SKIP: %s\n' "$*" >&2; exit 77; }

# Failures are collected, not fatal, so one run reports every broken claim.
# Every check has a stable identifier (tier-unique, no live values) first, so
# tests/vm/flake-rate.sh can count passes and failures per check across runs;
# the description after it may show the values it was decided on.
EG_VM_FAILURES=0
vm_check() {   # vm_check ID "description" test-args...
    local id=$1 what=$2; shift 2
    if "$@"; then
        printf '[vm]   ok   %s  %s\n' "$id" "$what" >&2
    else
        printf '[vm]   FAIL %s  %s\n' "$id" "$what" >&2
        EG_VM_FAILURES=$((EG_VM_FAILURES + 1))
    fi
}
vm_finish() {
    if [ "$EG_VM_FAILURES" -ne 0 ]; then
        vm_die "$EG_VM_FAILURES check(s) failed"
    fi
    vm_log "all checks passed"
}

# Float comparison helpers (awk: no bc on a minimal machine).
vm_lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
vm_le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

# ---------------------------------------------------------------- deps

vm_require_root() {
    [ "$(id -u)" -eq 0 ] || vm_skip "the VM tests need root (apt-get, debootstrap, image ownership); run them as root"
}

vm_have_kernel() {
    compgen -G '/boot/vmlinuz-*' >/dev/null
}

vm_busybox_static() {
    [ -x /bin/busybox ] && ! LC_ALL=C ldd /bin/busybox >/dev/null 2>&1
}

# Install what the tiers need with apt-get, only what is missing. A fresh CI
# machine has none of it; this function is what installs it.
vm_install_deps() {
    local want=() need=("$@")
    [ ${#need[@]} -gt 0 ] || need=(qemu kernel busybox debootstrap e2fs cpio kmod build)
    local n
    for n in "${need[@]}"; do
        case $n in
            qemu)        command -v qemu-system-x86_64 >/dev/null || want+=(qemu-system-x86) ;;
            kernel)      vm_have_kernel || want+=(linux-image-amd64) ;;
            busybox)     vm_busybox_static || want+=(busybox-static) ;;
            debootstrap) command -v debootstrap >/dev/null || want+=(debootstrap) ;;
            e2fs)        { command -v mkfs.ext4 >/dev/null && command -v debugfs >/dev/null; } || want+=(e2fsprogs) ;;
            cpio)        command -v cpio >/dev/null || want+=(cpio) ;;
            kmod)        command -v modprobe >/dev/null || want+=(kmod) ;;
            procps)      command -v pgrep >/dev/null || want+=(procps) ;;
            socat)       command -v socat >/dev/null || want+=(socat) ;;
            musl)        command -v musl-gcc >/dev/null || want+=(musl-tools) ;;
            ctl)         pkg-config --exists libsystemd libudev 2>/dev/null || want+=(libsystemd-dev libudev-dev) ;;
            chromium)    command -v chromium >/dev/null || want+=(chromium) ;;
            build)       for p in cmake gcc make pkg-config; do
                             command -v $p >/dev/null || want+=("$p")
                         done
                         [ -e /usr/lib/x86_64-linux-gnu/libc.a ] || want+=(libc6-dev)
                         ;;
        esac
    done
    [ ${#want[@]} -gt 0 ] || return 0
    vm_apt_install "${want[@]}" || true
}

# vm_apt_install PKG...: apt-get install, once more after an update when
# the first try fails; its status. Tiers run side by side (tests/vm.cmake):
# each waits for another's dpkg lock rather than fail on it.
vm_apt_install() {
    local lock=(-o DPkg::Lock::Timeout=600)
    vm_log "installing: $*"
    DEBIAN_FRONTEND=noninteractive apt-get "${lock[@]}" install -y --no-install-recommends "$@" >&2 && return 0
    apt-get "${lock[@]}" update >&2 || true
    DEBIAN_FRONTEND=noninteractive apt-get "${lock[@]}" install -y --no-install-recommends "$@" >&2
}

# The only two reasons to skip: not root, or no TCG-capable qemu even after
# trying to install it. Everything else missing is a failure.
vm_require_qemu() {
    command -v qemu-system-x86_64 >/dev/null ||
        vm_skip "qemu-system-x86_64 is missing and could not be installed (apt-get install qemu-system-x86)"
    qemu-system-x86_64 -accel help 2>/dev/null | grep -qx tcg ||
        vm_skip "qemu-system-x86_64 has no TCG accelerator"
}

vm_setup() {
    vm_require_root
    vm_install_deps "$@"
    vm_require_qemu
    vm_have_kernel || vm_die "no /boot/vmlinuz-* after installing linux-image-amd64"
    mkdir -p "$EG_VM_CACHE"
}

# ---------------------------------------------------------------- cache

# Several runs share one cache (`ctest -j2` runs two tiers side by side, and
# a person may start a tier beside them): whoever fills an entry holds this
# lock, the others wait and then find the entry done. Callers run inside
# $(...), so the lock is released when their subshell exits at the latest.
vm_cache_lock() {
    exec 9>"$EG_VM_CACHE/.lock"
    flock 9
}
vm_cache_unlock() {
    flock -u 9
    exec 9>&-
}

# ---------------------------------------------------------------- kernel

# The newest installed Debian kernel with its modules directory.
vm_kernel_version() {
    local v best=
    for v in /boot/vmlinuz-*; do
        v=${v#/boot/vmlinuz-}
        [ -d "/lib/modules/$v" ] || continue
        if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
    done
    [ -n "$best" ] || vm_die "no /boot/vmlinuz-* with a matching /lib/modules directory"
    echo "$best"
}

# Copy the kernel and the few modules a disk boot needs into the cache (the
# host's /boot can change under a running test when apt upgrades it).
# Prints the kernel cache directory: vmlinuz, modules/*.ko, modules.order.
vm_kernel_cache() {
    local kver dir
    kver=$(vm_kernel_version)
    dir=$EG_VM_CACHE/kernel-$kver
    vm_cache_lock
    if [ ! -e "$dir/.done" ]; then
        rm -rf "$dir"
        mkdir -p "$dir/modules"
        cp "/boot/vmlinuz-$kver" "$dir/vmlinuz"
        # Load order from kmod itself; crc32c-intel needs SSE4.2 that the
        # emulated qemu64 CPU lacks and fails harmlessly in the guest.
        local m
        for m in virtio_pci virtio_blk ext4; do
            modprobe --show-depends -S "$kver" "$m" | awk '$1 == "insmod" { print $2 }'
        done | awk '!seen[$0]++' | while read -r ko; do
            cp "$ko" "$dir/modules/"
            basename "$ko" >>"$dir/modules.order"
        done
        cp "$(modinfo -k "$kver" -n qemu_fw_cfg)" "$dir/qemu_fw_cfg.ko" 2>/dev/null || true
        echo "$kver" >"$dir/version"
        touch "$dir/.done"
    fi
    vm_cache_unlock
    echo "$dir"
}

# ---------------------------------------------------------------- initramfs

# A cpio (newc) of directory $1 into file $2, every file owned by root.
vm_cpio() {
    (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$2"
}

# The busybox base initramfs: busybox with its applet links and the top-level
# directories, cached and keyed on the busybox binary. Per-boot files (/init,
# the project's binaries, a seed) go into a second cpio appended to it: the
# kernel unpacks concatenated archives in order.
vm_busybox_base() {
    local key dir out
    key=$(sha256sum /bin/busybox | cut -c1-16)
    out=$EG_VM_CACHE/busybox-base-$key.cpio
    vm_cache_lock
    if [ ! -e "$out" ]; then
        dir=$(mktemp -d)
        mkdir -p "$dir"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,run,tmp,etc,var/lib,newroot,lib/modules}
        cp /bin/busybox "$dir/bin/busybox"
        local a
        for a in $(/bin/busybox --list); do
            [ "$a" = busybox ] || ln -s busybox "$dir/bin/$a"
        done
        mknod -m 600 "$dir/dev/console" c 5 1
        mknod -m 666 "$dir/dev/null" c 1 3
        vm_cpio "$dir" "$out.tmp"
        mv "$out.tmp" "$out"
        rm -rf "$dir"
    fi
    vm_cache_unlock
    echo "$out"
}

# ---------------------------------------------------------------- qemu

# vm_qemu_cmd LOG KERNEL INITRD APPEND [qemu args...]: sets the array
# EG_VM_QEMU to one cold boot under TCG: no accelerator, no RNG device, no
# NIC, the serial port to LOG.
vm_qemu_cmd() {
    local log=$1 kernel=$2 initrd=$3 append=$4
    shift 4
    local quiet=quiet
    [ "$EG_VM_VERBOSE" = 1 ] && quiet=
    EG_VM_QEMU=(qemu-system-x86_64 -accel tcg -cpu qemu64 -smp 1 -m "${EG_VM_MEM:-512}"
        -nodefaults -no-user-config -display none -monitor none -no-reboot
        -serial "file:$log"
        -kernel "$kernel" -initrd "$initrd"
        -append "$EG_VM_CMDLINE_BASE $quiet $append"
        "$@")
}

# vm_boot LOG TIMEOUT_S KERNEL INITRD APPEND [qemu args...]
# One cold boot, waited for. A hard wall-clock timeout bounds every boot.
# Returns qemu's status (124 on timeout); prints the wall time.
vm_boot() {
    local log=$1 tmo=$2
    shift 2
    vm_qemu_cmd "$log" "$@"
    local start end rc=0
    start=$(date +%s.%N)
    timeout --kill-after=10 "$tmo" "${EG_VM_QEMU[@]}" </dev/null >"$log.qemu" 2>&1 || rc=$?
    end=$(date +%s.%N)
    EG_VM_LAST_BOOT_S=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        vm_log "boot timed out after ${tmo}s (serial log: $log)"
        tail -n 30 "$log" >&2 || true
        return 124
    fi
    vm_log "boot finished in ${EG_VM_LAST_BOOT_S}s (qemu status $rc)"
    return "$rc"
}

# ---------------------------------------------------------------- a running qemu

# A test that works on a running machine (stops it, saves or restores its
# memory, cuts it) starts qemu in the background, one at a time:
#
#   vm_qemu_spawn [--qmp] LOG TIMEOUT_S KERNEL INITRD APPEND [qemu args...]
#                         vm_boot's qemu command line plus a pid file, under
#                         the same hard wall-clock timeout (sets
#                         EG_VM_QEMU_JOB, the job, and EG_VM_QEMU_PID, qemu);
#                         with --qmp a QMP socket too
#   vm_qemu_start LOG TIMEOUT_S KERNEL INITRD APPEND [qemu args...]
#                         vm_qemu_spawn --qmp, connected to its monitor
#   vm_qmp JSON           one command; its reply in EG_VM_QMP_REPLY
#   vm_qmp_status         the run state ("running", "paused", "inmigrate")
#   vm_qmp_migrate_wait TIMEOUT_S
#                         until the migration is completed (0) or failed
#   vm_qmp_incoming_wait TIMEOUT_S
#                         on the receiving side, until the machine is there
#   vm_wait_log LOG ERE TIMEOUT_S
#                         until a line of the serial log matches
#   vm_qemu_kill          SIGKILL, as a power cut: no shutdown runs
#   vm_qemu_wait TIMEOUT_S
#                         until qemu has exited by itself (quit, power-off)
#
# The pid file and the socket live in a directory of their own under /tmp
# (EG_VM_QEMU_DIR, removed by vm_qemu_wait and vm_qemu_kill): a socket's
# path is limited to 107 bytes, a build directory is not.
vm_qemu_spawn() {
    local qmp=0 log tmo i
    [ "$1" = --qmp ] && { qmp=1; shift; }
    log=$1 tmo=$2
    shift 2
    EG_VM_QEMU_DIR=$(mktemp -d /tmp/eg-vm-qemu.XXXXXX) || return 1
    EG_VM_QEMU_PID=
    [ "$qmp" = 1 ] && set -- "$@" -qmp "unix:$EG_VM_QEMU_DIR/qmp,server=on,wait=off"
    vm_qemu_cmd "$log" "$@" -pidfile "$EG_VM_QEMU_DIR/pid"
    : >"$log"
    # (In a subshell, so that the shell does not report a killed job.)
    (timeout --signal=KILL "$tmo" "${EG_VM_QEMU[@]}" </dev/null >"$log.qemu" 2>&1; exit $?) 2>/dev/null &
    EG_VM_QEMU_JOB=$!
    # qemu writes its pid file with the newline last: read succeeds only
    # once the whole pid is there.
    for ((i = 0; i < 300; i++)); do
        { [ "$qmp" = 0 ] || [ -S "$EG_VM_QEMU_DIR/qmp" ]; } &&
            read -r EG_VM_QEMU_PID <"$EG_VM_QEMU_DIR/pid" 2>/dev/null && break
        EG_VM_QEMU_PID=
        kill -0 "$EG_VM_QEMU_JOB" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$EG_VM_QEMU_PID" ]; then
        vm_log "qemu did not start: $(tail -n 5 "$log.qemu" 2>/dev/null)"
        vm_qemu_kill
        return 1
    fi
}

vm_qemu_start() {
    vm_qemu_spawn --qmp "$@" || return 1
    vm_qmp_open || { vm_log "no QMP monitor at $EG_VM_QEMU_DIR/qmp"; vm_qemu_kill; return 1; }
}

# socat carries the session, through two FIFOs: both ends are opened in the
# same order on each side, so neither open blocks for good. connect() may
# come between the socket's bind() and listen(): socat retries.
vm_qmp_open() {
    local d=$EG_VM_QEMU_DIR line
    mkfifo "$d/to" "$d/from" || return 1
    socat - "UNIX-CONNECT:$d/qmp,retry=50,interval=0.1" <"$d/to" >"$d/from" 2>"$d/socat.err" &
    EG_VM_QMP_SOCAT=$!
    exec {EG_VM_QMP_OUT}>"$d/to" {EG_VM_QMP_IN}<"$d/from"
    IFS= read -r -t 30 line <&"$EG_VM_QMP_IN" && [[ $line == '{"QMP"'* ]] &&
        vm_qmp '{"execute": "qmp_capabilities"}'
}

vm_qmp_close() {
    [ -n "${EG_VM_QMP_OUT:-}" ] && exec {EG_VM_QMP_OUT}>&-
    [ -n "${EG_VM_QMP_IN:-}" ] && exec {EG_VM_QMP_IN}<&-
    EG_VM_QMP_OUT='' EG_VM_QMP_IN=''
    if [ -n "${EG_VM_QMP_SOCAT:-}" ]; then
        kill "$EG_VM_QMP_SOCAT" 2>/dev/null
        wait "$EG_VM_QMP_SOCAT" 2>/dev/null
    fi
    EG_VM_QMP_SOCAT=
}

# vm_qmp JSON: one command; its reply ({"return": ...} or {"error": ...}) in
# EG_VM_QMP_REPLY. Events ({"event": ...}) in between are skipped. Status 1
# on an error, when qemu is gone or after 60 s without a reply. The write
# runs in a subshell that ignores SIGPIPE: a monitor that went away is an
# error to report, not a signal that ends the tier.
vm_qmp() {
    local line
    EG_VM_QMP_REPLY=
    [ -n "${EG_VM_QMP_OUT:-}" ] || return 1
    ( trap '' PIPE; printf '%s\n' "$1" >&"$EG_VM_QMP_OUT" ) 2>/dev/null || return 1
    while IFS= read -r -t 60 line <&"$EG_VM_QMP_IN"; do
        case $line in
            '{"return"'*) EG_VM_QMP_REPLY=$line; return 0 ;;
            '{"error"'*) EG_VM_QMP_REPLY=$line; return 1 ;;
        esac
    done
    return 1
}

# The value of the last "status" key of the reply (query-status,
# query-migrate).
vm_qmp_reply_status() {
    printf '%s\n' "$EG_VM_QMP_REPLY" | sed -n 's/.*"status": *"\([^"]*\)".*/\1/p'
}

vm_qmp_status() {
    vm_qmp '{"execute": "query-status"}' && vm_qmp_reply_status
}

# vm_qmp_migrate_wait TIMEOUT_S: poll query-migrate (on either side) until
# the migration is completed (0) or failed, cancelled or out of time (1);
# the last status in EG_VM_QMP_MIGRATION.
vm_qmp_migrate_wait() {
    local end=$(( $(date +%s) + $1 ))
    EG_VM_QMP_MIGRATION=
    while [ "$(date +%s)" -le "$end" ]; do
        vm_qmp '{"execute": "query-migrate"}' || return 1
        EG_VM_QMP_MIGRATION=$(vm_qmp_reply_status)
        case $EG_VM_QMP_MIGRATION in
            completed) return 0 ;;
            failed|cancelled) return 1 ;;
        esac
        sleep 0.2
    done
    return 1
}

# vm_qmp_incoming_wait TIMEOUT_S: on a qemu started with -incoming, until
# the migration is completed and the machine has left the "inmigrate" state,
# which qemu changes a moment after the migration's end, in a bottom half:
# 0, the state in EG_VM_QMP_STATE ("paused" when the saved machine was
# stopped, else "running"); 1 when the migration failed or out of time.
vm_qmp_incoming_wait() {
    local end=$(( $(date +%s) + $1 ))
    EG_VM_QMP_STATE=
    vm_qmp_migrate_wait "$1" || return 1
    while [ "$(date +%s)" -le "$end" ]; do
        EG_VM_QMP_STATE=$(vm_qmp_status) || return 1
        [ "$EG_VM_QMP_STATE" = inmigrate ] || return 0
        sleep 0.2
    done
    return 1
}

# vm_wait_log LOG ERE TIMEOUT_S: until a line of the serial log LOG matches
# ERE (0), or qemu is gone or TIMEOUT_S passed without one (1).
vm_wait_log() {
    local end=$(( $(date +%s) + $3 ))
    while :; do
        tr -d '\r' <"$1" | grep -aqE "$2" && return 0
        kill -0 "$EG_VM_QEMU_PID" 2>/dev/null || break
        [ "$(date +%s)" -lt "$end" ] || break
        sleep 0.2
    done
    tr -d '\r' <"$1" | grep -aqE "$2"
}

# vm_qemu_wait TIMEOUT_S: until qemu has exited, killed when it is still
# there after TIMEOUT_S. Returns its status (137 when killed); the monitor
# is closed and the directory removed. qemu's pid is signalled only while
# the job that runs it is there (timeout waits for qemu): never a pid that
# may have been reused.
vm_qemu_wait() {
    local end=$(( $(date +%s) + $1 )) rc=0
    while kill -0 "$EG_VM_QEMU_JOB" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
        sleep 0.2
    done
    if kill -0 "$EG_VM_QEMU_JOB" 2>/dev/null && [ -n "$EG_VM_QEMU_PID" ]; then
        kill -KILL "$EG_VM_QEMU_PID" 2>/dev/null
    fi
    wait "$EG_VM_QEMU_JOB" 2>/dev/null || rc=$?
    vm_qmp_close
    rm -rf "$EG_VM_QEMU_DIR"
    EG_VM_QEMU_PID=
    return "$rc"
}

# vm_qemu_kill: SIGKILL to qemu itself, then as vm_qemu_wait. Returns 0 when
# qemu was still running when it was killed.
vm_qemu_kill() {
    local alive=1
    [ -n "$EG_VM_QEMU_PID" ] || read -r EG_VM_QEMU_PID <"$EG_VM_QEMU_DIR/pid" 2>/dev/null
    if kill -0 "$EG_VM_QEMU_JOB" 2>/dev/null && [ -n "$EG_VM_QEMU_PID" ]; then
        kill -KILL "$EG_VM_QEMU_PID" 2>/dev/null && alive=0
    fi
    vm_qemu_wait 10
    return "$alive"
}

# The programs the tiers run inside the guest (tests/vm/guest/*.c), built
# static with the host compiler into DIR: eg-vm-probe (what a consumer of
# the pool sees) and eg-vm-watch (the crash tier's seed store markers).
vm_guest_tools() {
    local dir=$1 t
    mkdir -p "$dir"
    for t in eg-vm-probe eg-vm-watch; do
        gcc -std=gnu11 -static -Os -s -Wall -Wextra -Werror -o "$dir/$t" "$EG_VM_DIR/guest/$t.c" ||
            vm_die "could not build $t (gcc -static needs libc6-dev)"
    done
}

# A probe record from a kernel log text: vm_probe FILE NAME KEY prints the
# value of KEY in the last "eg-vm-probe: NAME ..." record of FILE.
vm_probe() {
    tr -d '\r' <"$1" 2>/dev/null | grep -a "eg-vm-probe: $2 " | tail -n 1 |
        tr ' ' '\n' | sed -n "s/^$3=//p"
}

# Lines the guest reports are "EGVM:<key>=<value>" on the serial port.
vm_get() {   # vm_get LOG KEY
    tr -d '\r' <"$1" | sed -n "s/^.*EGVM:$2=//p" | tail -n 1
}

# A fresh 32-hex machine-id for a guest.
vm_new_machine_id() {
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n'
}
