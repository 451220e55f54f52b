#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd tier: a debootstrapped Debian 12 image with systemd as PID 1 and
# the project installed as a distribution installs it, "dpkg -i" of the
# .debs that packaging/build-deb makes of the commit under test (the source
# tree's HEAD, or EG_VM_DEB_COMMIT), booted cold under TCG from a persistent
# disk. Boots, the first four on one disk:
#   boot1      no seed: the gate waits for the kernel, consumers wait for the
#              gate, the seed is saved at shutdown
#   boot2      the seed saved by boot1 is credited before the gate starts; the
#              gate waits < 0.1 s; the seed on disk is replaced. A seed as
#              the SMBIOS system credential is credited too. After the gate,
#              the packages are upgraded in the running system to a rebuild
#              with a higher version: entropy-seed.service is not restarted,
#              nothing is credited again, the boot's record stays
#   boot3      the upgraded packages credit the seed saved at boot2's
#              shutdown; the same SMBIOS credential is only mixed (credited
#              on an earlier boot); entropy_gate.units=systemd-remount-fs.service
#              is refused by the generator (no ordering cycle, the root file
#              system writable). After its report, the packages are purged
#              in the running system
#   afterpurge nothing of ours is left enabled or on disk, and the boot
#              reaches multi-user.target
#   clone      boot1's disk with another /etc/machine-id: not credited
#   firstboot  boot1's disk with /etc/machine-id "uninitialized": not credited
#   coldgate   a seedless disk with systemd-random-seed masked: the gate is
#              the one blocking reader and waits for the kernel
#              (and, as in cpuoff, the kernel's entropy_avail the gate
#              sampled while it waited rises to 256)
#   nsrace     coldgate with the gate's first start failing as a lost race
#              in systemd's sandbox set-up does (226/NAMESPACE): started
#              again, and nothing after entropy-ready.target fails or
#              starts early
#   cpuoff     coldgate with -cpu max: RDRAND there, random.trust_cpu=off,
#              the pool as cold and the verdict the kernel's jitter
#   cpu        a seedless disk, -cpu max (RDRAND under TCG) and
#              random.trust_cpu=on: the pool is ready before user space
#   hwrng      a seedless disk and -device virtio-rng-pci, its driver
#              loaded by the initramfs after the probe found the pool cold
#   Provenance (boot1, boot2, boot3, coldgate, cpuoff, cpu, hwrng): what the guest's
#              entropyctl infers made the pool ready, one source each
#   timeout    a seedless disk with entropy_gate.timeout=200ms
#              entropy_gate.on_timeout=fail on the kernel command line
#   provision  a fresh image whose seed "entropy-seed provision
#              --machine-id=ID" (the package's binary, run on the host)
#              wrote into the tree: its very first boot is credited and the
#              pool is ready before the gate starts
# Each boot writes a report (journal, unit states, result files, the probes'
# records, entropyctl output) to a second disk; the checks run on the host.
#
# Every claim stands on a fact recorded inside the guest, not on comparing
# the kernel's printk clock with systemd's: eg-vm-probe asks the kernel
# without blocking whether the CRNG is initialized at the moments that
# matter (first thing in the initramfs, when systemd starts the gate, right
# after a failed gate exits, in every unit ordered after the gate), and a
# watcher in poll() on /dev/random records when the kernel woke the pool's
# waiters on the guest's CLOCK_BOOTTIME, the clock of the gate's own record.
#
# Usage: systemd-tier.sh [--build-dir DIR] [--work-dir DIR] [--demo]
#   --demo: boot1 and boot2 only, and print a timeline of each on stdout.
# Exit: 0 pass, 1 fail, 77 skipped (not root, or no qemu even after apt-get).

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-systemd.sh"

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

vm_setup qemu kernel busybox debootstrap e2fs cpio kmod build ctl chromium
tier_start=$(date +%s)

# ---------------------------------------------------------------- image

rm -rf "$work/rootfs" "$work/boot"
mkdir -p "$work/boot"
vm_sd_prepare "$work" --debs

vm_log "assembling the image"
root=$work/rootfs
vm_sd_assemble "$root"
# node_exporter's textfile directory, as prometheus-node-exporter makes it:
# where it exists, entropy-gate-metrics.service writes the metrics.
mkdir -p "$root/var/lib/prometheus/node-exporter"
# What the packages did in the image: the seed helper enabled by its
# postinst (entropy-gate.service has nothing to enable: entropy-ready.target,
# which the consumers want, pulls it in), the example configuration in
# place as a conffile.
vm_check image.seed-enabled "the package enabled entropy-seed.service in the image ($(cd "$root/etc/systemd/system" && ls -d */entropy-seed.service 2>/dev/null | tr '\n' ' '))" \
    test -L "$root/etc/systemd/system/sysinit.target.wants/entropy-seed.service"
vm_check image.conffile "the package installed /etc/entropy-gate.conf" test -f "$root/etc/entropy-gate.conf"
for f in eg-vm-report eg-vm-upgrade eg-vm-purge; do
    install -m 0755 "$EG_VM_DIR/guest/$f.sh" "$root/usr/local/sbin/$f"
done
units="eg-vm-consumer.service eg-vm-strict.service eg-vm-report.service eg-vm-poolwatch.service eg-vm-upgrade.service"
for u in eg-vm-consumer.service eg-vm-strict.service eg-vm-report.service eg-vm-gated.service \
         eg-vm-poolwatch.service eg-vm-upgrade.service; do
    install -m 0644 "$EG_VM_DIR/guest/$u" "$root/etc/systemd/system/$u"
done
install -d "$root/etc/systemd/system/entropy-gate.service.d"
install -m 0644 "$EG_VM_DIR/guest/entropy-gate.service.d/eg-vm-probe.conf" \
    "$root/etc/systemd/system/entropy-gate.service.d/"
# The nsrace boot's stand-in for a failed sandbox set-up; its drop-in goes
# into that boot's disk only.
install -m 0755 "$EG_VM_DIR/guest/nsrace/eg-vm-nsrace.sh" "$root$EG_VM_GUEST_LIBEXEC/eg-vm-nsrace"
if [ "$have_gen" = 1 ]; then
    # The generator, not the unit, orders eg-vm-gated.service after the gate;
    # a drop-in, as an administrator leaves the package's conffile alone.
    units="$units eg-vm-gated.service"
    install -d "$root/etc/entropy-gate.conf.d"
    printf '[Gate]\nUnits=eg-vm-gated.service\n' >"$root/etc/entropy-gate.conf.d/eg-vm.conf"
fi
vm_sd_enable "$root" $units
# The upgrade boot2 installs from inside the guest.
install -d "$root/var/cache/eg-vm/upgrade"
cp "$deb_dir2/entropy-gate_${deb_v2}_amd64.deb" "$deb_dir2/entropyctl_${deb_v2}_amd64.deb" "$root/var/cache/eg-vm/upgrade/"
machine_id=$(vm_new_machine_id)
echo "$machine_id" >"$root/etc/machine-id"
vm_log "image: entropyctl=$have_ctl generator=$have_gen machine-id=$machine_id"
vm_sd_mkfs "$root" "$work/boot/pristine.img"

# The same tree provisioned for one device, as an image builder does it on
# its own machine: the package's entropy-seed, run on the host, writes a
# creditable seed bound to the device's machine-id into the tree.
if [ "$demo" = 0 ]; then
    rm -rf "$work/host-pkg"
    dpkg-deb -x "$deb_dir1/entropy-gate_${deb_v1}_amd64.deb" "$work/host-pkg" || vm_die "dpkg-deb -x failed"
    prov_id=$(vm_new_machine_id)
    "$work/host-pkg/usr/sbin/entropy-seed" provision --root="$root" --machine-id="$prov_id" >"$work/provision.log" 2>&1
    prov_rc=$?
    sed 's/^/[provision] /' "$work/provision.log" >&2
    vm_check provision.host "entropy-seed provision --root=TREE --machine-id=$prov_id on the host exits 0 ($prov_rc) and leaves a 0600 seed in a 0700 directory ($(stat -c '%a %U' "$root/var/lib/entropy-gate" "$root/var/lib/entropy-gate/seed" 2>/dev/null | tr '\n' ' '))" \
        test "$prov_rc" = 0 -a "$(stat -c %a "$root/var/lib/entropy-gate/seed" 2>/dev/null)" = 600 \
        -a "$(stat -c %a "$root/var/lib/entropy-gate" 2>/dev/null)" = 700 -a "$(cat "$root/etc/machine-id")" = "$prov_id"
    vm_sd_mkfs "$root" "$work/boot/provision.img"
fi
rm -rf "$root"

# ---------------------------------------------------------------- boots

boot() { vm_sd_boot_report "$@"; }
usec_to_s() { awk -v u="$1" 'BEGIN { if (u == "") exit 1; printf "%.6f", u / 1e6 }'; }

# The pool was cold when user space started: the first program the
# initramfs runs asks the kernel without blocking and gets EAGAIN.
check_cold_start() {
    vm_check "$2.cold-start" "$2: CRNG not initialized when user space started (probe 'initrd': READY=$(pr "$1" initrd READY) ERRNO=$(pr "$1" initrd ERRNO); kernel 'crng init done' at $(jts "$1" 'random: crng init done') s)" \
        test "$(pr "$1" initrd READY)" = no
}

# A Python expression over a JSON file's document "d": print it, or "?".
json_get() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); exec(sys.argv[2])' "$1" "$2" 2>/dev/null || echo "?"; }
json_true() { [ "$(json_get "$1" "$2")" = True ]; }

# The kernel's entropy_avail as the gate sampled it while it waited (its
# record's ENTROPY_AVAIL=MSEC:BITS ...): at least the start and the end,
# times and counts never going back (the kernel only adds to the count it
# initializes on), none above 256, and 256 at the end: the gate was woken
# by an initialized pool, which the kernel makes so only at 256 bits. And
# entropyctl status in the guest says it.
check_entropy_samples() {
    local r=$1 n=$2 samples
    samples=$(rs "$r" gate ENTROPY_AVAIL)
    vm_check "$n.entropy-avail" "$n: the gate sampled entropy_avail while it waited, rising to 256 (ENTROPY_AVAIL=${samples:-none})" \
        awk -v s="$samples" 'BEGIN {
            k = split(s, a, " "); if (k < 2) exit 1
            pt = -1; pb = -1
            for (i = 1; i <= k; i++) {
                if (split(a[i], p, ":") != 2 || p[1] !~ /^[0-9]+$/ || p[2] !~ /^[0-9]+$/) exit 1
                if (p[1] + 0 < pt || p[2] + 0 < pb || p[2] + 0 > 256) exit 1
                pt = p[1] + 0; pb = p[2] + 0
            }
            exit !(pb == 256) }'
    vm_check "$n.entropy-avail-status" "$n: entropyctl status shows it ($(grep -m1 -o 'entropy_avail: .*' "$r/entropyctl-status.txt" 2>/dev/null))" \
        grep -q 'entropy_avail: [0-9]* bits when the wait began, 256 at its end' "$r/entropyctl-status.txt"
}

# The common facts of a boot. Seconds since boot: systemd's timestamps
# (CLOCK_MONOTONIC), the gate's and the probes' (CLOCK_BOOTTIME); a test VM
# never suspends, so the two agree (the probes record both). The kernel's
# "crng init done" (printk clock) is shown, never compared.
facts() {
    local r=$1
    f_crng=$(jts "$r" 'random: crng init done')
    f_gate_start=$(props "$r" entropy-gate.service ExecMainStartTimestampMonotonic || true)
    f_gate_ready=$(props "$r" entropy-gate.service ActiveEnterTimestampMonotonic || true)
    f_target=$(props "$r" entropy-ready.target ActiveEnterTimestampMonotonic || true)
    f_consumer=$(props "$r" eg-vm-consumer.service ExecMainStartTimestampMonotonic || true)
    f_gated=$(props "$r" eg-vm-gated.service ExecMainStartTimestampMonotonic || true)
    f_wait=$(rs "$r" gate WAITED_USEC)
    f_gate_main=$(usec_to_s "$(rs "$r" gate START_BOOTTIME_USEC)" || true)
    f_gate_start_us=$(rs "$r" gate START_BOOTTIME_USEC)
    f_pre=$(pr "$r" gate-pre READY)
    f_pre_t=$(usec_to_s "$(pr "$r" gate-pre BOOTTIME_USEC)" || true)
    f_pool_us=$(pr "$r" pool BOOTTIME_USEC)
    f_pool=$(usec_to_s "$f_pool_us" || true)
    # systemd-random-seed, when it finds the pool cold, says so and blocks
    # in getrandom() until the kernel initializes it; systemd marks it
    # active only after that process returned and exited. Then its
    # activation time is a moment by which the pool was initialized.
    f_rs_ready_us=
    if grep -qE 'systemd-random-seed\[[0-9]+\]: .*waiting' "$r/journal.txt"; then
        f_rs_ready_us=$(prop "$r" systemd-random-seed.service ActiveEnterTimestampMonotonic)
    fi
}

# What holds in every boot, seeded or not: the gate said READY only with an
# initialized pool, and everything ordered after it found the pool
# initialized the moment it started.
check_ordering() {
    local r=$1 n=$2
    vm_check "$n.gate-active" "$n: entropy-gate.service is active ($(prop "$r" entropy-gate.service ActiveState)/$(prop "$r" entropy-gate.service Result))" \
        test "$(prop "$r" entropy-gate.service ActiveState)" = active -a "$(prop "$r" entropy-gate.service Result)" = success
    vm_check "$n.gate-outcome" "$n: the gate's record says OUTCOME=ready ($(rs "$r" gate OUTCOME))" \
        test "$(rs "$r" gate OUTCOME)" = ready
    vm_check "$n.consumer-ready" "$n: the Wants=/After= consumer found the pool initialized when it started ($(pr "$r" consumer READY) at $(usec_to_s "$(pr "$r" consumer BOOTTIME_USEC)" || echo ?) s)" \
        test "$(pr "$r" consumer READY)" = yes
    vm_check "$n.strict-ready" "$n: the Requires= consumer started and found the pool initialized ($(prop "$r" eg-vm-strict.service ActiveState), $(pr "$r" strict READY))" \
        test "$(prop "$r" eg-vm-strict.service ActiveState)" = active -a "$(pr "$r" strict READY)" = yes
    # systemd's own timestamps, one clock, one process: job order.
    vm_check "$n.target-after-gate" "$n: entropy-ready.target reached (${f_target:-?}) after the gate was ready (${f_gate_ready:-?}; systemd's clock)" \
        vm_le "${f_gate_ready:-9e9}" "${f_target:-0}"
    vm_check "$n.consumer-after-target" "$n: the consumer started (${f_consumer:-?}) after entropy-ready.target (systemd's clock)" \
        vm_le "${f_target:-9e9}" "${f_consumer:-0}"
    if [ "$have_gen" = 1 ]; then
        vm_check "$n.gated-after-gate" "$n: Units= in entropy-gate.conf ordered eg-vm-gated.service (${f_gated:-?}) after the gate (systemd's clock)" \
            vm_le "${f_gate_ready:-9e9}" "${f_gated:-0}"
        vm_check "$n.gated-ready" "$n: eg-vm-gated.service found the pool initialized when it started ($(pr "$r" gated READY))" \
            test "$(pr "$r" gated READY)" = yes
    fi
    vm_check "$n.status-line" "$n: systemctl status shows the gate's Status line ($(grep -m1 'Status:' "$r/status-entropy-gate.service.txt" | sed 's/^ *//'))" \
        grep -qE 'Status: "' "$r/status-entropy-gate.service.txt"
}

# The gate either waited for the kernel, or found the pool already
# initialized: another blocking getrandom() (systemd-random-seed) may start
# the kernel's jitter entropy first while systemd still sets up the gate's
# sandbox, which takes seconds under TCG. Either way its claim must agree
# with what the guest saw, on the gate's own clock (CLOCK_BOOTTIME):
#   not ready at start: the probe when systemd started the gate found the
#     pool cold too, and the kernel woke the pool's waiters only after the
#     gate had started (the watcher's wake-up comes after the pool became
#     ready, which came after the gate's start: no race in this direction);
#   ready at start: the probe when systemd started the gate found it ready
#     already, or systemd-random-seed, which blocked in getrandom() until
#     the pool was initialized, was done before the gate ran (systemd's
#     CLOCK_MONOTONIC against the gate's CLOCK_BOOTTIME: one clock in a
#     guest that never suspends; every probe records both, equal to the
#     microsecond), or the watcher woke before the gate started. The watcher
#     runs within a scheduler slice of the wake-up; 0.25 s covers a stalled
#     emulated CPU on a loaded host, and a gate that claimed a ready pool
#     that only came later would lie by far more than that in this boot
#     (the gate starts ~1.5 s after that probe). On a host loaded enough
#     the watcher can be later still, which the random-seed fact covers.
check_gate_claim() {
    local r=$1 n=$2
    if [ "$(rs "$r" gate READY_AT_START)" = no ]; then
        vm_check "$n.gate-status" "$n: the gate found the pool cold, waited (${f_wait:-?} us) and says so in STATUS" \
            grep -qiE 'Status: ".*wait' "$r/status-entropy-gate.service.txt"
        vm_check "$n.gate-claim" "$n: 'not initialized at start' agrees with the guest (probe at gate start: ${f_pre:-?} at ${f_pre_t:-?} s; gate ran at ${f_gate_main:-?} s; kernel woke the pool's waiters at ${f_pool:-?} s)" \
            awk -v p="$f_pre" -v s="$f_gate_start_us" -v w="$f_pool_us" 'BEGIN { exit !(p == "no" && s != "" && w != "" && s + 0 < w + 0) }'
    else
        vm_check "$n.gate-status" "$n: the gate found the pool initialized at start and says so in STATUS" \
            grep -qiE 'Status: ".*already' "$r/status-entropy-gate.service.txt"
        vm_log "$n: the pool was initialized before the gate process ran (${f_gate_main:-?} s;" \
            "systemd started the unit at ${f_pre_t:-?} s, pool ${f_pre:-?} then): $(jline "$r" 'systemd-random-seed\[[0-9]+\]: .*waiting' || true)"
        vm_check "$n.gate-claim" "$n: 'already initialized' agrees with the guest (probe at gate start: ${f_pre:-?}; systemd-random-seed done after waiting for the pool at $(usec_to_s "$f_rs_ready_us" || echo -) s <= gate ran at ${f_gate_main:-?} s; or kernel woke the pool's waiters at ${f_pool:-?} s <= gate ran + 0.25)" \
            awk -v p="$f_pre" -v s="$f_gate_start_us" -v w="$f_pool_us" -v rs="$f_rs_ready_us" 'BEGIN {
                exit !(p == "yes" || (s != "" && rs + 0 > 0 && rs + 0 <= s + 0) || (s != "" && w != "" && w + 0 <= s + 250000)) }'
    fi
}

# A short, readable timeline of a boot, on stdout. Kernel log lines carry the
# printk clock, the rest the guest's monotonic/boottime clock; close events
# from the two may appear swapped.
timeline() {
    local r=$1 title=$2 seedmsg credmsg gatemsg
    facts "$r"
    seedmsg=$(grep -m1 -E "$seed_verdict_re" "$r/journal.txt" | sed 's/^.*entropy-seed\[[0-9]*\]: //')
    credmsg=$(grep -m1 -E "$cred_verdict_re" "$r/journal.txt" | sed 's/^.*entropy-seed\[[0-9]*\]: //')
    gatemsg=$(prop "$r" entropy-gate.service StatusText)
    printf '\n%s\n' "$title"
    {
        printf '%s\t%s\n' 0.000000 "kernel started ($(sed -n 's/.*Linux version \([^ ]*\).*/\1/p' "$r/journal.txt" | head -n1))"
        printf '%s\t%s\n' "$(usec_to_s "$(pr "$r" initrd BOOTTIME_USEC)")" "user space started: CRNG initialized? $(pr "$r" initrd READY)"
        printf '%s\t%s\n' "$(jts "$r" 'Starting entropy-seed.service')" "systemd starts entropy-seed.service"
        [ -n "$credmsg" ] && printf '%s\t%s\n' "$(jts "$r" "$cred_verdict_re")" "entropy-seed: $credmsg"
        [ -n "$seedmsg" ] && printf '%s\t%s\n' "$(jts "$r" "$seed_verdict_re")" "entropy-seed: $seedmsg"
        [ -n "$f_pre_t" ] && printf '%s\t%s\n' "$f_pre_t" "systemd starts entropy-gate.service: CRNG initialized? $f_pre (then sets up its sandbox)"
        [ -n "$f_gate_main" ] && printf '%s\t%s\n' "$f_gate_main" "entropy-gate runs: pool $( [ "$(rs "$r" gate READY_AT_START)" = yes ] && echo "already initialized" || echo "not initialized, waiting")"
        local rsw
        rsw=$(jts "$r" 'systemd-random-seed\[[0-9]+\]: .*waiting')
        [ -n "$rsw" ] && printf '%s\t%s\n' "$rsw" "systemd-random-seed blocks in getrandom() too"
        [ -n "$f_crng" ] && printf '%s\t%s\n' "$f_crng" "kernel: random: crng init done (printk clock)"
        [ -n "$f_pool" ] && printf '%s\t%s\n' "$f_pool" "the kernel woke the pool's waiters (watcher in poll())"
        [ -n "$f_gate_ready" ] && printf '%s\t%s\n' "$f_gate_ready" "entropy-gate released the boot: \"$gatemsg\""
        [ -n "$f_target" ] && printf '%s\t%s\n' "$f_target" "entropy-ready.target reached"
        [ -n "$f_consumer" ] && printf '%s\t%s\n' "$f_consumer" "eg-vm-consumer.service started (Wants=/After=entropy-ready.target): CRNG initialized? $(pr "$r" consumer READY)"
        [ -n "$f_gated" ] && printf '%s\t%s\n' "$f_gated" "eg-vm-gated.service started (ordered by Units= in entropy-gate.conf): CRNG initialized? $(pr "$r" gated READY)"
        true
    } | awk -F'\t' '$1 != ""' | sort -g | awk -F'\t' '{ printf "  %8.3f s  %s\n", $1, $2 }'
}

# A seed as the SMBIOS system credential (a type 11 OEM string, which
# systemd imports at every boot), 48 random bytes: the same for boot2 and
# boot3, as a VM definition that carries a fixed one hands it over.
# 48 random bytes, the last never a NUL, CR or LF (a terminator the
# credential would lose, and with it 8 of the 384 bits checked below).
cred_b64=$({ head -c 47 /dev/urandom; printf '\377'; } | base64 -w 0)
cred_qemu=(-smbios "type=11,value=io.systemd.credential.binary:entropy-gate.seed=$cred_b64")

# Journal lines of entropy-seed: its one verdict on the seed file per load
# ("credited N bits from /var/lib/...", "not crediting: ..."), its verdict
# on a credential, and its credits of the seed file alone.
seed_verdict_re='entropy-seed\[[0-9]+\]: (credited [0-9]+ bits from /|not crediting: )'
cred_verdict_re='entropy-seed\[[0-9]+\]: (credited [0-9]+ bits from credential|Not crediting credential)'
seed_verdicts() { grep -cE "$seed_verdict_re" "$1/journal.txt"; }
seed_credits() { grep -cE 'entropy-seed\[[0-9]+\]: credited [0-9]+ bits from /' "$1/journal.txt"; }
# A systemd job deleted to break an ordering cycle (not the generator's
# refusal, which says "ordering cycle" too).
ordering_cycles() { grep -cE 'systemd\[1\]: .*(Found ordering cycle|to break ordering cycle)' "$1/journal.txt"; }
# The lines of a file, without blank ones.
lines() { grep -c . "$1" 2>/dev/null; }

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
vm_check boot1.no-seed "boot1: the seed helper found no seed to credit ($(rs "$r" seed ACTION): $(rs "$r" seed REASON))" \
    test "$(rs "$r" seed ACTION)" = not-credited
vm_check boot1.gate-started-cold "boot1: systemd started entropy-gate.service while the pool was cold (probe at gate start: ${f_pre:-?} at ${f_pre_t:-?} s)" \
    test "$f_pre" = no
sed 's/^/[boot1 status] /' "$r/status-entropy-gate.service.txt" >&2
b1_wait=$f_wait; b1_target=$f_target; b1_crng=$f_crng; b1_main=$f_gate_main; b1_pre=$f_pre_t; b1_pool=$f_pool
sha1=$(disk_seed_sha "$work/boot/disk.img")
sha1_running=$(cat "$work/boot/boot1/seed.sha256" 2>/dev/null || true)
vm_check boot1.seed-saved "boot1: a seed was saved at shutdown (on disk after power-off $sha1, while running ${sha1_running:-none})" \
    test -n "$sha1" -a "$sha1" != "$sha1_running"
[ "$demo" = 1 ] || {
    cp --sparse=always "$work/boot/disk.img" "$work/boot/clone.img"
    cp --sparse=always "$work/boot/disk.img" "$work/boot/firstboot.img"
}

# Boot 2: the seed saved by boot 1, the credential seen for the first time,
# and an upgrade of the packages once the gate has released the boot.
boot boot2 "$work/boot/disk.img" "eg.vm.upgrade" "${cred_qemu[@]}"
r=$rep
facts "$r"
check_cold_start "$r" boot2
vm_check boot2.credited "boot2: entropy-seed credited the saved seed (ACTION=$(rs "$r" seed ACTION) BITS=$(rs "$r" seed BITS) REASON=$(rs "$r" seed REASON))" \
    test "$(rs "$r" seed ACTION)" = credited
vm_check boot2.journal-credited "boot2: the journal says so ($(jline "$r" 'entropy-seed\[[0-9]+\]: credited [0-9]+ bits from /'))" \
    grep -qE 'entropy-seed\[[0-9]+\]: credited [0-9]+ bits from /' "$r/journal.txt"
vm_check boot2.credential-credited "boot2: the SMBIOS credential, new to this disk, was credited (CREDENTIAL=$(rs "$r" seed CREDENTIAL) CREDENTIAL_BITS=$(rs "$r" seed CREDENTIAL_BITS))" \
    test "$(rs "$r" seed CREDENTIAL)" = credited -a "$(rs "$r" seed CREDENTIAL_BITS)" = 384
vm_check boot2.credential-journal "boot2: the journal says so ($(jline "$r" 'entropy-seed\[[0-9]+\]: .*credential'))" \
    grep -qE 'entropy-seed\[[0-9]+\]: credited 384 bits from credential ' "$r/journal.txt"
vm_check boot2.ready-before-gate "boot2: the pool was initialized when systemd started the gate (probe at gate start: ${f_pre:-?} at ${f_pre_t:-?} s)" \
    test "$f_pre" = yes
vm_check boot2.ready-at-start "boot2: the gate found the pool ready at start" test "$(rs "$r" gate READY_AT_START)" = yes
vm_check boot2.waited-under-100ms "boot2: the gate waited under 0.1 s (${f_wait:-?} us)" test -n "$f_wait" -a "${f_wait:-999999}" -lt 100000
check_ordering "$r" boot2
sha2=$(cat "$r/seed.sha256" 2>/dev/null || true)
vm_check boot2.seed-replaced "boot2: the seed on disk is a new one ($sha2 != $sha1)" test -n "$sha2" -a "$sha2" != "$sha1"
vm_check boot2.seed-mode "boot2: the seed file is 0600 root ($(cat "$r/seed.stat" 2>/dev/null))" grep -q '^600 root ' "$r/seed.stat"
sed 's/^/[boot2 status] /' "$r/status-entropy-gate.service.txt" >&2
b2_wait=$f_wait; b2_target=$f_target; b2_crng=$f_crng; b2_main=$f_gate_main; b2_pre=$f_pre_t

# The upgrade in the running guest (eg-vm-upgrade: dpkg -i of the rebuild
# with the higher version, after the gate): what systemd said of
# entropy-seed.service right before and after dpkg, and at the report.
u=$r/upgrade
sed 's/^/[boot2 dpkg -i] /' "$u/dpkg.log" >&2 2>/dev/null
vm_check boot2.upgrade-dpkg "boot2: dpkg -i upgraded the running system from $(cat "$u/version-before" 2>/dev/null) to $(cat "$u/version-after" 2>/dev/null) (status $(cat "$u/dpkg.rc" 2>/dev/null))" \
    test "$(cat "$u/dpkg.rc" 2>/dev/null)" = 0 -a "$(cat "$u/version-before" 2>/dev/null)" = "$deb_v1" \
    -a "$(cat "$u/version-after" 2>/dev/null)" = "$deb_v2"
inv_before=$(sed -n 's/^InvocationID=//p' "$u/seed-unit-before.txt" 2>/dev/null)
inv_after=$(sed -n 's/^InvocationID=//p' "$u/seed-unit-after.txt" 2>/dev/null)
act_before=$(sed -n 's/^ActiveEnterTimestampMonotonic=//p' "$u/seed-unit-before.txt" 2>/dev/null)
act_after=$(sed -n 's/^ActiveEnterTimestampMonotonic=//p' "$u/seed-unit-after.txt" 2>/dev/null)
vm_check boot2.upgrade-no-restart "boot2: the upgrade did not restart entropy-seed.service (InvocationID ${inv_before:-?} before, ${inv_after:-?} after, $(prop "$r" entropy-seed.service InvocationID) at the report; active since ${act_before:-?} / ${act_after:-?} / $(prop "$r" entropy-seed.service ActiveEnterTimestampMonotonic) us)" \
    test -n "$inv_before" -a "$inv_before" = "$inv_after" -a "$inv_after" = "$(prop "$r" entropy-seed.service InvocationID)" \
    -a -n "$act_before" -a "$act_before" != 0 -a "$act_before" = "$act_after" \
    -a "$act_after" = "$(prop "$r" entropy-seed.service ActiveEnterTimestampMonotonic)"
vm_check boot2.upgrade-one-load "boot2: one load in this boot: one verdict on the seed from entropy-seed in the journal ($(seed_verdicts "$r")), none saying it was already loaded" \
    eval 'test "$(seed_verdicts "$r")" = 1 && ! grep -q "already loaded in this boot" "$r/journal.txt"'
vm_check boot2.upgrade-no-save "boot2: no save ran before the report (no 'saved N bits' line: $(grep -cE 'entropy-seed\[[0-9]+\]: saved [0-9]+ bits' "$r/journal.txt"))" \
    eval '! grep -qE "entropy-seed\[[0-9]+\]: saved [0-9]+ bits" "$r/journal.txt"'
vm_check boot2.upgrade-no-second-credit "boot2: the seed was credited once ($(seed_credits "$r") line) and the credential once ($(grep -c 'credited 384 bits from credential' "$r/journal.txt") line) in this boot" \
    test "$(seed_credits "$r")" = 1 -a "$(grep -c 'credited 384 bits from credential' "$r/journal.txt")" = 1
vm_check boot2.upgrade-record-kept "boot2: /run/entropy-gate/seed at the report is the record from before the upgrade (BOOT_ID=$(rs "$r" seed BOOT_ID), this boot $(cat "$r/boot-id.txt" 2>/dev/null); BOOTTIME_USEC=$(rs "$r" seed BOOTTIME_USEC))" \
    eval 'cmp -s "$u/seed-record-before" "$r/runstate/seed" && test -n "$(rs "$r" seed BOOTTIME_USEC)" -a "$(rs "$r" seed BOOT_ID | tr -d -)" = "$(tr -d -- "-\n" <"$r/boot-id.txt")"'
b2_running=$sha2
b2_disk=$(disk_seed_sha "$work/boot/disk.img")
vm_check boot2.upgraded-save "boot2: the upgraded unit saved a new seed at shutdown (on disk after power-off ${b2_disk:-none}, while running ${b2_running:-none})" \
    test -n "$b2_disk" -a "$b2_disk" != "$b2_running"
if [ "$have_ctl" = 1 ]; then
    vm_check boot2.ctl-status "boot2: entropyctl status exits 0 (initialized)" test "$(cat "$r/entropyctl-status.rc" 2>/dev/null)" = 0
    vm_check boot2.ctl-timeline "boot2: entropyctl timeline exits 0" test "$(cat "$r/entropyctl-timeline.rc" 2>/dev/null)" = 0
    vm_check boot2.ctl-timeline-crng "boot2: entropyctl timeline shows 'crng init done'" \
        grep -qiE 'crng init done' "$r/entropyctl-timeline.txt"
    vm_check boot2.ctl-timeline-gate "boot2: entropyctl timeline shows the gate's release" \
        grep -qiE 'entropy-ready.target|released|gate' "$r/entropyctl-timeline.txt"
    {
        echo "---- entropyctl status (boot2)"; cat "$r/entropyctl-status.txt"
        echo "---- entropyctl timeline (boot2)"; cat "$r/entropyctl-timeline.txt"
    } >&2
fi

if [ "$demo" = 0 ]; then
    # Boot 3: the upgraded packages, the credential handed over again, a
    # unit on the kernel command line that the gate must not be put in front
    # of. After the report: dpkg --purge in the running system.
    boot boot3 "$work/boot/disk.img" "entropy_gate.units=systemd-remount-fs.service eg.vm.purge" "${cred_qemu[@]}"
    r=$rep
    facts "$r"
    check_cold_start "$r" boot3
    vm_check boot3.upgraded "boot3: the upgraded package is installed ($(grep '^entropy-gate ' "$r/dpkg.txt"))" \
        grep -qx "entropy-gate $deb_v2 ii " "$r/dpkg.txt"
    vm_check boot3.credited "boot3: the upgraded entropy-seed credited the seed boot2 saved (ACTION=$(rs "$r" seed ACTION) BITS=$(rs "$r" seed BITS); $(jline "$r" 'entropy-seed\[[0-9]+\]: credited [0-9]+ bits from /'))" \
        eval 'test "$(rs "$r" seed ACTION)" = credited -a "$(seed_credits "$r")" = 1'
    vm_check boot3.ready-before-gate "boot3: the pool was initialized when systemd started the gate (probe at gate start: ${f_pre:-?} at ${f_pre_t:-?} s)" \
        test "$f_pre" = yes
    vm_check boot3.credential-mixed "boot3: the same SMBIOS credential was only mixed (CREDENTIAL=$(rs "$r" seed CREDENTIAL) CREDENTIAL_BITS=$(rs "$r" seed CREDENTIAL_BITS))" \
        test "$(rs "$r" seed CREDENTIAL)" = mixed -a "$(rs "$r" seed CREDENTIAL_BITS)" = 0
    vm_check boot3.credential-journal "boot3: the journal says why ($(jline "$r" 'entropy-seed\[[0-9]+\]: .*credential'))" \
        grep -qE 'entropy-seed\[[0-9]+\]: Not crediting credential .*: credited on an earlier boot' "$r/journal.txt"
    check_ordering "$r" boot3
    vm_check boot3.target-active "boot3: entropy-ready.target is active ($(prop "$r" entropy-ready.target ActiveState))" \
        test "$(prop "$r" entropy-ready.target ActiveState)" = active
    # entropy_gate.units=systemd-remount-fs.service: the generator refuses
    # it, in the kernel log (the journal is not running yet when generators
    # run), and systemd deletes no job to break a cycle.
    vm_check boot3.units-refused "boot3: the generator refused systemd-remount-fs.service ($(grep -m1 -o 'entropy-gate-generator.*systemd-remount-fs.service.*' "$r/dmesg.txt"))" \
        grep -qE 'entropy-gate-generator.*Not ordering systemd-remount-fs.service after entropy-ready.target' "$r/dmesg.txt"
    vm_check boot3.units-no-dropin "boot3: ... and wrote no drop-in for it (eg-vm-gated.service's: $(grep -c 'eg-vm-gated.service.d' "$r/generator.txt"))" \
        eval '! grep -q "systemd-remount-fs.service.d" "$r/generator.txt" && grep -q "eg-vm-gated.service.d" "$r/generator.txt"'
    vm_check boot3.no-ordering-cycle "boot3: no ordering cycle in the journal ($(ordering_cycles "$r"))" \
        test "$(ordering_cycles "$r")" = 0
    vm_check boot3.remount-fs-ran "boot3: systemd-remount-fs.service ran ($(prop "$r" systemd-remount-fs.service ActiveState)/$(prop "$r" systemd-remount-fs.service Result))" \
        test "$(prop "$r" systemd-remount-fs.service ActiveState)" = active
    vm_check boot3.root-rw "boot3: the root file system is writable ($(cat "$r/root-options.txt" 2>/dev/null))" \
        grep -qE '^rw(,|$)' "$r/root-options.txt"

    # The purge at the end of boot 3 (eg-vm-purge, after the report): what it
    # left right away, read from the powered-off disk, and what its shutdown
    # left there.
    p=$work/boot/purge
    rm -rf "$p"
    debugfs -R "rdump /var/lib/eg-vm/purge $work/boot" "$work/boot/disk.img" >/dev/null 2>&1
    sed 's/^/[boot3 dpkg --purge] /' "$p/dpkg.log" >&2 2>/dev/null
    vm_check purge.dpkg "purge: dpkg --purge entropyctl entropy-gate in the running system exits 0 ($(cat "$p/dpkg.rc" 2>/dev/null)) and leaves neither installed ($(tr '\n' ';' <"$p/dpkg-status.txt" 2>/dev/null))" \
        eval 'test "$(cat "$p/dpkg.rc" 2>/dev/null)" = 0 && ! grep -q " ii " "$p/dpkg-status.txt"'
    vm_check purge.nothing-stopped "purge: nothing on the boot path was stopped ($(tr '\n' ';' <"$p/units.txt" 2>/dev/null))" \
        test "$(awk '$2 == "active"' "$p/units.txt" 2>/dev/null | wc -l)" = 4
    vm_check purge.links-gone "purge: no unit of ours left enabled ($(lines "$p/links.txt") links: $(tr '\n' ' ' <"$p/links.txt" 2>/dev/null))" \
        test -e "$p/links.txt" -a "$(lines "$p/links.txt")" = 0
    vm_check purge.state-gone "purge: /var/lib/entropy-gate and the conffile removed ($(tr '\n' ';' <"$p/left.txt" 2>/dev/null))" \
        eval 'grep -qx "/var/lib/entropy-gate absent" "$p/left.txt" && grep -qx "/etc/entropy-gate.conf absent" "$p/left.txt"'
    left_after=$(debugfs -R "stat /var/lib/entropy-gate" "$work/boot/disk.img" 2>&1 | grep 'File not found' >/dev/null && echo absent || echo present)
    vm_check purge.state-gone-after-shutdown "purge: /var/lib/entropy-gate is still gone after the purged system shut down ($left_after on the disk)" \
        test "$left_after" = absent

    # The boot after the purge: nothing of ours, the normal target reached.
    boot afterpurge "$work/boot/disk.img"
    r=$rep
    vm_check afterpurge.multi-user "afterpurge: multi-user.target is active ($(prop "$r" multi-user.target ActiveState)) and the report unit ran" \
        test "$(prop "$r" multi-user.target ActiveState)" = active -a -e "$r/complete"
    vm_check afterpurge.not-installed "afterpurge: neither package is installed ($(tr '\n' ';' <"$r/dpkg.txt"))" \
        eval '! grep -q " ii " "$r/dpkg.txt"'
    vm_check afterpurge.no-units "afterpurge: no unit of ours is left (entropy-seed.service $(prop "$r" entropy-seed.service LoadState), entropy-ready.target $(prop "$r" entropy-ready.target LoadState); $(lines "$r/our-links.txt") links)" \
        test "$(prop "$r" entropy-seed.service LoadState)" = not-found -a "$(prop "$r" entropy-ready.target LoadState)" = not-found \
        -a "$(lines "$r/our-links.txt")" = 0
    vm_check afterpurge.state-gone "afterpurge: no /var/lib/entropy-gate, no /etc/entropy-gate.conf ($(tr '\n' ';' <"$r/left.txt"))" \
        eval 'grep -qx "/var/lib/entropy-gate absent" "$r/left.txt" && grep -qx "/etc/entropy-gate.conf absent" "$r/left.txt"'

    # A clone of boot 1's disk: another machine-id, the same seed.
    set_machine_id "$work/boot/clone.img" "$(vm_new_machine_id)"
    boot clone "$work/boot/clone.img"
    r=$rep
    facts "$r"
    check_cold_start "$r" clone
    vm_check clone.not-credited "clone: the seed is NOT credited (ACTION=$(rs "$r" seed ACTION))" test "$(rs "$r" seed ACTION)" = not-credited
    vm_check clone.log-says-why "clone: the log says why ($(jline "$r" 'entropy-seed\[[0-9]+\]: .*not crediting'))" \
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
    vm_check firstboot.not-credited "firstboot: the seed is NOT credited (ACTION=$(rs "$r" seed ACTION))" test "$(rs "$r" seed ACTION)" = not-credited
    vm_check firstboot.log-says-why "firstboot: the log says why ($(jline "$r" 'entropy-seed\[[0-9]+\]: .*not crediting'))" \
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
    vm_check coldgate.cold-at-start "coldgate: the gate found the pool not initialized at start" test "$(rs "$r" gate READY_AT_START)" = no
    check_gate_claim "$r" coldgate
    check_ordering "$r" coldgate
    vm_check coldgate.waited "coldgate: the gate waited (${f_wait:-?} us)" test "${f_wait:-0}" -gt 0
    sed 's/^/[coldgate status] /' "$r/status-entropy-gate.service.txt" >&2
    cg_wait=$f_wait; cg_target=$f_target; cg_crng=$f_crng; cg_pool=$f_pool
    check_entropy_samples "$r" coldgate

    # coldgate again, with the gate's first start failing as it does when
    # systemd loses a race in setting up the gate's sandbox (exit status
    # 226, NAMESPACE, seen under load on systemd 252). The unit starts it
    # again (RestartForceExitStatus=226). With RestartMode=direct (systemd
    # 254 and later) entropy-ready.target and every unit after it wait
    # through that; systemd 252 fails their jobs first, as for any failure
    # of the gate, and then no unit that requires the target may have run
    # on a cold pool, and the target is reached once the restarted gate is
    # ready (the gate wants it).
    cp --sparse=always "$work/boot/pristine.img" "$work/boot/nsrace.img"
    debugfs -w -R "write $EG_VM_DIR/guest/nsrace/eg-vm-nsrace.conf /etc/systemd/system/entropy-gate.service.d/eg-vm-nsrace.conf" \
        "$work/boot/nsrace.img" >/dev/null 2>&1
    boot nsrace "$work/boot/nsrace.img" "systemd.mask=systemd-random-seed.service"
    r=$rep
    facts "$r"
    ns_226=$(grep -cE 'systemd\[1\]: entropy-gate\.service: Main process exited, code=exited, status=226/NAMESPACE' "$r/journal.txt")
    ns_dep=$(grep -cE 'Dependency failed' "$r/journal.txt")
    vm_check nsrace.failed-once "nsrace: the gate's first start failed with 226/NAMESPACE ($ns_226 time(s))" test "$ns_226" = 1
    vm_check nsrace.restarted "nsrace: systemd started it again (NRestarts=$(prop "$r" entropy-gate.service NRestarts))" \
        test "$(prop "$r" entropy-gate.service NRestarts)" = 1
    vm_check nsrace.gate-active "nsrace: the restarted gate is active ($(prop "$r" entropy-gate.service ActiveState)/$(prop "$r" entropy-gate.service Result)) and was released by the pool (OUTCOME=$(rs "$r" gate OUTCOME))" \
        test "$(prop "$r" entropy-gate.service ActiveState)" = active -a "$(rs "$r" gate OUTCOME)" = ready
    vm_check nsrace.target-active "nsrace: entropy-ready.target is active at the end ($(prop "$r" entropy-ready.target ActiveState))" \
        test "$(prop "$r" entropy-ready.target ActiveState)" = active
    if [ "$(prop "$r" entropy-gate.service RestartMode)" = direct ]; then
        vm_check nsrace.no-dependency-failed "nsrace: RestartMode=direct: no job failed for it ($ns_dep 'Dependency failed' lines)" \
            test "$ns_dep" = 0
        check_ordering "$r" nsrace
    else
        # systemd 252: the strict consumer's job failed with the target's;
        # had it run, it must have found the pool initialized.
        vm_check nsrace.strict-never-cold "nsrace: no RestartMode=direct here: the Requires= consumer did not run on a cold pool ($(prop "$r" eg-vm-strict.service ActiveState), READY=$(pr "$r" strict READY); $ns_dep 'Dependency failed' lines)" \
            eval 'test "$(pr "$r" strict READY)" = yes || { test -z "$(pr "$r" strict READY)" && grep -q "Dependency failed for eg-vm-strict.service" "$r/journal.txt"; }'
    fi

    # The CPU's RNG there but not trusted: -cpu max gives the guest RDRAND,
    # random.trust_cpu=off (the tier's command line) keeps the kernel from
    # crediting it, so the pool is as cold as in coldgate and the verdict
    # must not name the CPU.
    cp --sparse=always "$work/boot/pristine.img" "$work/boot/cpuoff.img"
    boot cpuoff "$work/boot/cpuoff.img" "systemd.mask=systemd-random-seed.service" -cpu max
    r=$rep
    check_cold_start "$r" cpuoff
    vm_check cpuoff.cpu-not-trusted "cpuoff: entropyctl saw RDRAND and that the kernel was told not to trust it ($(json_get "$work/boot/cpuoff/entropyctl-status.json" 'p=d["provenance"]; print("rdrand=%s trust_cpu=%s reasons=%s" % (p["facts"]["cpu_rdrand"], p["facts"]["trust_cpu"], ",".join(p["reasons"])))'))" \
        json_true "$work/boot/cpuoff/entropyctl-status.json" 'p=d["provenance"]; print(p["facts"]["cpu_rdrand"] is True and p["facts"]["trust_cpu"] is False and "cpu-not-trusted" in p["reasons"])'
    check_entropy_samples "$r" cpuoff

    # The CPU's RNG, trusted: -cpu max gives the guest RDRAND under TCG, and
    # with random.trust_cpu=on the kernel credits it before user space, so
    # the pool is ready at once and nothing of ours made it so.
    cp --sparse=always "$work/boot/pristine.img" "$work/boot/cpu.img"
    boot cpu "$work/boot/cpu.img" "random.trust_cpu=on" -cpu max
    r=$rep
    vm_check cpu.ready-at-userspace "cpu: the CRNG was initialized when user space started (probe 'initrd': READY=$(pr "$r" initrd READY); kernel 'crng init done' at $(jts "$r" 'random: crng init done') s)" \
        test "$(pr "$r" initrd READY)" = yes

    # A hardware RNG: -device virtio-rng-pci, its driver (a module in
    # Debian's kernel) loaded by the initramfs right after the probe found
    # the pool cold; the kernel's hwrng thread then credits what it reads.
    rng_ko=$(modinfo -k "$(cat "$kdir/version")" -n virtio_rng 2>/dev/null) && [ -f "$rng_ko" ] ||
        vm_die "no virtio_rng module for the guest's kernel $(cat "$kdir/version")"
    vm_disk_initrd_plus "$kdir" "$initrd" "$rng_ko" "$work/initrd-hwrng.cpio" ||
        vm_die "could not add $rng_ko to the initramfs"
    initrd_plain=$initrd
    initrd=$work/initrd-hwrng.cpio
    cp --sparse=always "$work/boot/pristine.img" "$work/boot/hwrng.img"
    boot hwrng "$work/boot/hwrng.img" "" -device virtio-rng-pci
    initrd=$initrd_plain
    r=$rep
    check_cold_start "$r" hwrng

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
    vm_check timeout.exit-3 "timeout: entropy-gate.service failed with exit status 3 (Result=$(prop "$r" entropy-gate.service Result) status=$(prop "$r" entropy-gate.service ExecMainStatus))" \
        test "$(prop "$r" entropy-gate.service ExecMainStatus)" = 3
    vm_check timeout.outcome "timeout: result file says OUTCOME=timeout-fail" test "$(rs "$r" gate OUTCOME)" = timeout-fail
    # Readiness never goes back: a pool still cold right after the gate's
    # process exited was cold when it gave up.
    vm_check timeout.gave-up-cold "timeout: the pool was still not initialized right after the gate gave up (probe after the gate exited: $(pr "$r" gate-exit READY) at $(usec_to_s "$(pr "$r" gate-exit BOOTTIME_USEC)" || echo ?) s; gate ended at $(usec_to_s "$(rs "$r" gate END_BOOTTIME_USEC)" || echo ?) s)" \
        test "$(pr "$r" gate-exit READY)" = no
    vm_check timeout.cold-at-start "timeout: the gate found the pool cold" test "$(rs "$r" gate READY_AT_START)" = no
    vm_check timeout.target-not-reached "timeout: entropy-ready.target was not reached ($(prop "$r" entropy-ready.target ActiveState))" \
        test "$(prop "$r" entropy-ready.target ActiveState)" != active
    vm_check timeout.strict-not-started "timeout: the Requires= consumer did not start ($(prop "$r" eg-vm-strict.service ActiveState), no probe record: $( [ -e "$r/probe/strict" ] && echo present || echo absent))" \
        test "$(prop "$r" eg-vm-strict.service ActiveState)" != active -a ! -e "$r/probe/strict"
    timeout_consumer="not started"
    if [ -n "$f_consumer" ]; then
        timeout_consumer="started at $f_consumer s and found the pool $( [ "$(pr "$r" consumer READY)" = yes ] && echo initialized || echo "NOT initialized")"
    fi
    vm_log "timeout: the Wants= consumer $timeout_consumer (Wants= does not propagate the gate's failure)"

    # A device's image provisioned on the host (above): its very first boot.
    boot provision "$work/boot/provision.img"
    r=$rep
    facts "$r"
    check_cold_start "$r" provision
    vm_check provision.machine-id "provision: the device runs with the provisioned machine-id ($(cat "$r/machine-id.txt"))" \
        test "$(cat "$r/machine-id.txt")" = "$prov_id"
    vm_check provision.credited "provision: its first boot credited the provisioned seed (ACTION=$(rs "$r" seed ACTION) BITS=$(rs "$r" seed BITS) REASON=$(rs "$r" seed REASON))" \
        test "$(rs "$r" seed ACTION)" = credited
    vm_check provision.ready-before-gate "provision: the pool was initialized when systemd started the gate (probe at gate start: ${f_pre:-?} at ${f_pre_t:-?} s)" \
        test "$f_pre" = yes
    vm_check provision.ready-at-start "provision: the gate found the pool ready at start (READY_AT_START=$(rs "$r" gate READY_AT_START), waited ${f_wait:-?} us)" \
        test "$(rs "$r" gate READY_AT_START)" = yes
    check_ordering "$r" provision
fi

timeline "$work/boot/boot1" "boot 1: no seed on disk, cold pool"
timeline "$work/boot/boot2" "boot 2: the seed saved at the end of boot 1, and a seed as the SMBIOS credential"
printf '\nkernel "crng init done": boot 1 at %s s, boot 2 at %s s; entropy-ready.target: boot 1 at %s s, boot 2 at %s s\n' \
    "${b1_crng:-?}" "${b2_crng:-?}" "${b1_target:-?}" "${b2_target:-?}"
echo

# The same two boots as one picture: entropyctl plot (the packaged
# entropyctl, run on the host) of the timelines the guests saved, cold
# against credited, rendered in headless Chromium and checked there; the
# screenshot stays next to the picture in the build directory.
picture=$build_dir/boot1-vs-boot2.svg
if [ "$have_ctl" = 1 ]; then
    rm -rf "$work/host-ctl" "$picture" "${picture%.svg}.png" "${picture%.svg}-dark.png"
    dpkg-deb -x "$deb_dir1/entropyctl_${deb_v1}_amd64.deb" "$work/host-ctl" || vm_die "dpkg-deb -x entropyctl failed"
    cp "$work/boot/boot1/entropyctl-timeline.json" "$work/boot/boot1-cold.json" 2>/dev/null
    cp "$work/boot/boot2/entropyctl-timeline.json" "$work/boot/boot2-credited.json" 2>/dev/null
    "$work/host-ctl/usr/bin/entropyctl" plot "$work/boot/boot1-cold.json" --compare="$work/boot/boot2-credited.json" \
        --output="$picture"
    vm_check plot.written "entropyctl plot drew boot 1 against boot 2 ($picture)" test -s "$picture"
    python3 "$EG_VM_DIR/../tools/svg-check.py" --cold --label boot1-cold --label boot2-credited \
        "$picture" "${picture%.svg}.png" >"$work/boot/plot-check.txt" 2>&1
    plot_rc=$?
    sed 's/^/[plot] /' "$work/boot/plot-check.txt" >&2
    if [ "$plot_rc" = 77 ]; then
        vm_log "the picture was not rendered: $(tail -n1 "$work/boot/plot-check.txt")"
    else
        vm_check plot.rendered "the picture renders in Chromium: not blank, light and dark, its labels as text, boot 1's crng line left of its consumers' bars (${picture%.svg}.png)" \
            test "$plot_rc" = 0
    fi
    for b in boot1 boot2; do
        want=$(grep '^entropy_gate_seed_credited ' "$work/boot/$b/entropyctl-metrics.prom" 2>/dev/null)
        vm_check "$b.metrics-unit" "$b: entropy-gate-metrics.service (the package's, enabled by it) wrote node_exporter's file, as entropyctl metrics says (${want:-no seed_credited line}; $(tr '\n' ' ' <"$work/boot/$b/metrics-unit.txt" 2>/dev/null))" \
            test -n "$want" -a "$(grep '^entropy_gate_seed_credited ' "$work/boot/$b/metrics-unit.prom" 2>/dev/null)" = "$want"
        vm_check "$b.metrics" "$b: entropyctl metrics in the guest exits 0 ($(grep -E '^entropy_gate_(seed_credited|gate_wait_seconds|clone_suspected) ' "$work/boot/$b/entropyctl-metrics.prom" 2>/dev/null | tr '\n' ' '))" \
            test "$(cat "$work/boot/$b/entropyctl-metrics.rc" 2>/dev/null)" = 0
    done
    # Provenance, as entropyctl in the guest inferred it: boot 1 credited
    # nothing (no CPU RNG under -cpu qemu64, no hardware RNG, no EFI), boot 2
    # credited the credential first and then the seed, boot 3 the seed alone
    # (the credential replayed, only mixed), coldgate nothing while the gate
    # waited, cpuoff nothing either (RDRAND there, not trusted), cpu the
    # CPU's RDRAND, trusted on the command line, hwrng the
    # virtio RNG the kernel credits by itself.
    for bv in boot1:jitter boot2:credential $([ "$demo" = 0 ] && echo boot3:seed coldgate:jitter cpuoff:jitter cpu:cpu hwrng:hwrng); do
        b=${bv%%:*} want=${bv#*:}
        got=$(sed -n 's/^entropy_gate_ready_source{source="\([a-z]*\)"} 1$/\1/p' "$work/boot/$b/entropyctl-metrics.prom" 2>/dev/null)
        vm_check "$b.provenance" "$b: entropyctl infers the pool was made ready by: ${got:-?} (want $want): $(sed -n 's/^ *Provenance: //p' "$work/boot/$b/entropyctl-status.txt" 2>/dev/null)" \
            test "$got" = "$want"
    done
    echo "The two boots as a picture: $picture"
    echo "(as Chromium shows it: ${picture%.svg}.png; in dark mode: ${picture%.svg}-dark.png)"
    echo
fi
tier_s=$(( $(date +%s) - tier_start ))
vm_log "systemd tier: gate wait boot1 ${b1_wait:-?} us, boot2 ${b2_wait:-?} us, clone ${clone_wait:-?} us, coldgate ${cg_wait:-?} us;" \
    "entropy-ready.target at coldgate ${cg_target:-?} s (pool's waiters woken ${cg_pool:-?} s);" \
    "gate process ran at boot1 ${b1_main:-?} s (unit started ${b1_pre:-?} s, waiters woken ${b1_pool:-?} s), boot2 ${b2_main:-?} s (unit started ${b2_pre:-?} s);" \
    "entropy-ready.target at boot1 ${b1_target:-?} s, boot2 ${b2_target:-?} s;" \
    "boots: boot1 ${boot_s_boot1:-?}s boot2 ${boot_s_boot2:-?}s boot3 ${boot_s_boot3:-?}s afterpurge ${boot_s_afterpurge:-?}s" \
    "clone ${boot_s_clone:-?}s firstboot ${boot_s_firstboot:-?}s coldgate ${boot_s_coldgate:-?}s cpu ${boot_s_cpu:-?}s hwrng ${boot_s_hwrng:-?}s timeout ${boot_s_timeout:-?}s" \
    "provision ${boot_s_provision:-?}s; tier ${tier_s}s"
vm_finish
