#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# /init of the busybox tier: no systemd, the OpenWrt-like boot path. Runs one
# scenario named by eg.scenario= on the kernel command line, reports on the
# serial port as "EGVM:key=value" lines and powers off.
#
# The facts the host checks come from inside the guest: eg-vm-probe asks the
# kernel, without blocking, whether the CRNG is initialized at the moments
# that matter (first thing in user space, right before and right after the
# gate, when a supervisor learns readiness) and records the answer in the
# kernel log. The "eg-vm:" markers only make the dmesg dump readable.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
scenario=$(sed -n 's/.*eg\.scenario=\([^ ]*\).*/\1/p' /proc/cmdline)
case $scenario in
openwrt-*)
    # OpenWrt's layout, as procd's early mounts leave it: no /run, a tmpfs
    # at /tmp with /tmp/run in it, and /var a link to /tmp. The package's
    # boot() must find its way from there.
    mount -t tmpfs -o mode=1777 tmpfs /tmp
    mkdir -m 0755 /tmp/run
    rm -rf /run /var
    ln -s /tmp /var
    ;;
*)
    mount -t tmpfs -o mode=0755 tmpfs /run
    ;;
esac
# The first question user space asks: was the pool cold when it started?
probe=/usr/libexec/eg-vm-probe
$probe init
mkdir -p /var/lib
out=/dev/ttyS0

say() { echo "EGVM:$1=$2" >"$out"; }
mark() { echo "eg-vm: $1" >/dev/kmsg; }
# Every line of a file, prefixed, so the host can show it on failure.
dump() { sed "s/^/EGVM-LOG:$1: /" "$2" >"$out" 2>/dev/null; }
runstate() {   # runstate NAME: report every KEY=VALUE of /run/entropy-gate/NAME
    [ -f "/run/entropy-gate/$1" ] || { say "$1.present" no; return; }
    say "$1.present" yes
    while IFS= read -r line; do
        say "$1.${line%%=*}" "${line#*=}"
    done <"/run/entropy-gate/$1"
}
# The seed directory of the OpenWrt package (its /etc/entropy-gate.conf,
# which every boot of this tier carries, says Directory=).
seed_dir=/etc/entropy-gate
seed_sha() { sha256sum "$seed_dir/seed" 2>/dev/null | cut -d' ' -f1; }
# A boot that carries a seed on a disk (the host put the kernel's virtio and
# ext4 modules in this initramfs then): the disk is the seed directory, as
# flash is on a router. A seed in the initramfs itself is the image's.
if [ -f /lib/modules/order ]; then
    while read -r ko; do
        insmod "/lib/modules/$ko" 2>/dev/null   # crc32c-intel fails on qemu64: fine
    done </lib/modules/order
    i=0
    while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    mkdir -p "$seed_dir"
    if mount -t ext4 /dev/vda "$seed_dir"; then say seed_disk mounted; else say seed_disk failed; fi
fi

mark "init started, scenario $scenario"
say scenario "$scenario"

case $scenario in
cold)
    # (a) No seed: the gate finds the pool cold, blocks, returns after the
    # kernel's "crng init done". Then, with the pool ready, save the seed
    # the "seed" scenario credits on the next boot.
    # A watcher that sleeps in poll() until the kernel wakes the pool's
    # waiters records when that was (CLOCK_BOOTTIME) without running the
    # jitter generator itself.
    $probe --wait pool &
    watcher=$!
    $probe gate-pre
    mark "gate start"
    entropy-gate 2>/run/gate.err
    rc=$?
    $probe gate-post
    say gate_rc $rc
    mark "gate end"
    wait $watcher
    dump gate /run/gate.err
    runstate gate
    mkdir -p -m 0700 "$seed_dir"
    entropy-seed save 2>/run/save.err
    say save_rc $?
    dump save /run/save.err
    say seed_sha "$(seed_sha)"
    say seed_b64 "$(base64 -w 0 "$seed_dir/seed" 2>/dev/null)"
    ;;
seed)
    # (b) The seed saved by the cold boot, bound to this machine-id, is
    # credited by "entropy-seed load" and the gate finds the pool ready.
    say seed_sha_before "$(seed_sha)"
    $probe load-pre
    mark "seed load start"
    entropy-seed load 2>/run/load.err
    rc=$?
    $probe load-post
    say load_rc $rc
    mark "seed load end"
    dump load /run/load.err
    runstate seed
    mark "gate start"
    entropy-gate 2>/run/gate.err
    say gate_rc $?
    mark "gate end"
    dump gate /run/gate.err
    runstate gate
    say seed_sha_after "$(seed_sha)"
    ;;
readyfd)
    # (c) A supervisor that is not systemd learns readiness from --ready-fd
    # (the s6/dinit convention): one newline, then the fd is closed. This
    # boot's initramfs carries the cold boot's seed, as a boot image would:
    # load must credit none of it, so the gate still finds the pool cold.
    say seed_sha_before "$(seed_sha)"
    entropy-seed load 2>/run/load.err
    say load_rc $?
    $probe load-post
    dump load /run/load.err
    runstate seed
    mkfifo /run/ready
    entropy-gate --ready-fd=3 3>/run/ready 2>/run/gate.err &
    pid=$!
    lines=0
    got=no
    while IFS= read -r line; do
        if [ $lines -eq 0 ]; then
            $probe supervisor
            mark "supervisor got readiness"
        fi
        lines=$((lines + 1))
        [ -z "$line" ] && got=yes
    done </run/ready
    mark "supervisor saw ready fd closed"
    say ready_lines $lines
    say ready_newline $got
    wait $pid
    say gate_rc $?
    dump gate /run/gate.err
    runstate gate
    ;;
openwrt-first|openwrt-next|openwrt-timeout)
    # OpenWrt's own sequence with the package's init script: installing the
    # package enables it (/etc/rc.d links from START and STOP); procd's rcS
    # runs "/etc/rc.d/S* boot" at boot and "/etc/rc.d/K* shutdown" at
    # shutdown, each through /etc/rc.common. The script's boot() loads the
    # seed and runs the gate synchronously, so the probe right after rcS
    # boot says whether what starts next finds the pool initialized; its
    # stop() saves the seed the next boot credits. openwrt-first is a fresh
    # device (no seed, no /etc/machine-id: boot() makes one after the gate);
    # openwrt-next carries the seed and machine-id the first one left.
    # openwrt-timeout is a fresh device whose /etc/config/entropy-gate
    # says 200ms, shorter than the cold pool needs: the boot must go on to
    # the scripts after it (a stand-in for the network at START=20 records
    # that it ran and whether the pool was ready then), and the kernel log
    # must say why.
    if [ "$scenario" = openwrt-timeout ]; then
        sed -i "s/option timeout .*/option timeout '200ms'/" /etc/config/entropy-gate
        say uci_timeout "$(sed -n "s/.*option timeout '\(.*\)'/\1/p" /etc/config/entropy-gate)"
        mkdir -p /etc/rc.d
        printf '#!/bin/sh\n[ "$1" = boot ] || exit 0\n/usr/libexec/eg-vm-probe network\necho yes >/tmp/network-started\n' \
            >/etc/rc.d/S20eg-network
        chmod 0755 /etc/rc.d/S20eg-network
    fi
    say run_before "$(readlink /run || { [ -e /run ] && echo present; } || echo none)"
    say machine_id_before "$(cat /etc/machine-id 2>/dev/null || echo none)"
    say seed_sha_before "$(seed_sha)"
    /etc/init.d/entropy-gate enable 2>/tmp/enable.err
    say enable_rc $?
    dump enable /tmp/enable.err
    say rc_d "$(ls /etc/rc.d 2>/dev/null | tr '\n' ' ')"
    $probe boot-pre
    mark "rcS boot"
    rc=0
    for s in /etc/rc.d/S*; do
        "$s" boot 2>>/tmp/boot.err || rc=$?
    done
    $probe boot-post
    mark "rcS boot done"
    say boot_rc $rc
    say network_started "$(cat /tmp/network-started 2>/dev/null || echo no)"
    say kmsg_gate "$(dmesg | grep -m1 'entropy-gate: the kernel random pool is not initialized' | sed 's/^\[[ 0-9.]*\] //')"
    dump boot /tmp/boot.err
    say run_after "$(readlink /run || echo none)"
    runstate seed
    runstate gate
    say machine_id "$(cat /etc/machine-id 2>/dev/null || echo none)"
    say seed_sha_boot "$(seed_sha)"
    mark "rcS shutdown"
    rc=0
    for k in /etc/rc.d/K*; do
        "$k" shutdown 2>>/tmp/shutdown.err || rc=$?
    done
    mark "rcS shutdown done"
    say shutdown_rc $rc
    dump shutdown /tmp/shutdown.err
    say seed_sha "$(seed_sha)"
    say seed_stat "$(stat -c '%a %u' "$seed_dir" "$seed_dir/seed" 2>/dev/null | tr '\n' ' ')"
    say seed_b64 "$(base64 -w 0 "$seed_dir/seed" 2>/dev/null)"
    ;;
timeout)
    # (d) A cold pool takes about a second even while the gate blocks in
    # getrandom, so 200 ms at the start of the boot is a real timeout.
    mark "gate start"
    entropy-gate --timeout=200ms --on-timeout=fail 2>/run/gate.err
    rc=$?
    $probe gate-exit
    say gate_rc $rc
    mark "gate end"
    dump gate /run/gate.err
    runstate gate
    # The pool still initializes afterwards: a plain gate then succeeds.
    entropy-gate 2>/run/gate2.err
    say gate2_rc $?
    dump gate2 /run/gate2.err
    ;;
*)
    say error "unknown scenario '$scenario'"
    ;;
esac

dmesg | sed 's/^/EGVM-DMESG:/' >"$out"
say done yes
sync
poweroff -f
