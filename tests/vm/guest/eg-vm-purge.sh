#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The systemd tier's purge in the running guest, after the boot's report is
# written: "dpkg --purge" of our packages, and what it left right away, in
# /var/lib/eg-vm/purge on the root disk, which the host reads with debugfs
# after power-off. Removal stops nothing on the boot path: the seed helper,
# the gate, the milestone and what requires it stay active until the
# shutdown.

out=/var/lib/eg-vm/purge
rm -rf "$out"
mkdir -p "$out"
DEBIAN_FRONTEND=noninteractive dpkg --purge entropyctl entropy-gate >"$out/dpkg.log" 2>&1
echo $? >"$out/dpkg.rc"
for u in entropy-seed.service entropy-gate.service entropy-ready.target eg-vm-strict.service; do
    echo "$u $(systemctl show -p ActiveState --value "$u") $(systemctl show -p LoadState --value "$u")"
done >"$out/units.txt"
ls -d /etc/systemd/system/*/entropy-* >"$out/links.txt" 2>/dev/null
for p in /var/lib/entropy-gate /etc/entropy-gate.conf; do
    [ -e "$p" ] && echo "$p present" || echo "$p absent"
done >"$out/left.txt"
dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' entropy-gate entropyctl >"$out/dpkg-status.txt" 2>&1
sync
