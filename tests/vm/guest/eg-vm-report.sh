#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd tier's in-guest reporter: gathers what the host checks into a
# tar archive written raw to the second disk (/dev/vdb). A disk, not the
# serial port, because kernel messages can interleave with console output.

r=/run/eg-vm-report
rm -rf "$r"
mkdir -p "$r"
cd "$r" || exit 1

journalctl -b -o short-monotonic --no-pager >journal.txt 2>&1
dmesg >dmesg.txt 2>&1
cat /proc/cmdline >cmdline.txt
cat /proc/sys/kernel/random/boot_id >boot-id.txt
cat /etc/machine-id >machine-id.txt 2>&1
findmnt -no OPTIONS / >root-options.txt 2>&1
for u in entropy-gate.service entropy-seed.service entropy-ready.target \
         eg-vm-consumer.service eg-vm-strict.service eg-vm-gated.service systemd-random-seed.service \
         systemd-remount-fs.service multi-user.target; do
    systemctl status --no-pager -l "$u" >"status-$u.txt" 2>&1
    systemctl show "$u" >"show-$u.txt" 2>&1
done
mkdir -p runstate
cp -a /run/entropy-gate/. runstate/ 2>/dev/null
cp -a /run/eg-vm-probe probe 2>/dev/null
if [ -e /var/lib/entropy-gate/seed ]; then
    sha256sum /var/lib/entropy-gate/seed | cut -d' ' -f1 >seed.sha256
    stat -c '%a %U %s' /var/lib/entropy-gate/seed >seed.stat
fi
# What the package manager installed, and what of ours is enabled or left.
dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' entropy-gate entropyctl >dpkg.txt 2>&1
ls -d /etc/systemd/system/*/entropy-* >our-links.txt 2>/dev/null
for p in /var/lib/entropy-gate /etc/entropy-gate.conf; do
    [ -e "$p" ] && echo "$p present" || echo "$p absent"
done >left.txt
# What an upgrade in this boot (eg-vm-upgrade) recorded.
cp -a /run/eg-vm-upgrade upgrade 2>/dev/null
ls -la /run/systemd/generator*/ >generator.txt 2>&1
for d in /run/systemd/generator*/eg-vm-gated.service.d; do
    [ -d "$d" ] && cat "$d"/* >>generator.txt 2>&1
done
systemctl list-dependencies --no-pager --after eg-vm-gated.service >gated-after.txt 2>&1
systemd-analyze critical-chain --no-pager eg-vm-consumer.service >critical-chain.txt 2>&1
if command -v entropyctl >/dev/null; then
    entropyctl status >entropyctl-status.txt 2>&1; echo $? >entropyctl-status.rc
    entropyctl status --json >entropyctl-status.json 2>&1
    entropyctl timeline >entropyctl-timeline.txt 2>&1; echo $? >entropyctl-timeline.rc
    # For the host to draw (entropyctl plot), and the metrics a fleet would scrape.
    entropyctl timeline --json >entropyctl-timeline.json 2>entropyctl-timeline-json.err
    entropyctl metrics >entropyctl-metrics.prom 2>&1; echo $? >entropyctl-metrics.rc
    # What entropy-gate-metrics.service (the package's) wrote before
    # multi-user.target, which this report is ordered after.
    cp /var/lib/prometheus/node-exporter/entropy-gate.prom metrics-unit.prom 2>/dev/null
    systemctl show -p ActiveState -p Result entropy-gate-metrics.service >metrics-unit.txt 2>&1
fi
echo done >complete
tar -cf /dev/vdb -C "$r" .
sync

# With eg.vm.purge on the kernel command line, purge the packages now that
# this boot's report is written; what that left right away is recorded on
# the root disk, which the host reads after power-off.
if grep -qw eg.vm.purge /proc/cmdline; then
    /usr/local/sbin/eg-vm-purge
fi
