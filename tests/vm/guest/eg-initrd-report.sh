#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The initrd tier's report, raw on the second disk as a tar archive: the
# kernel log in record order (the initrd's lines are there), the journal,
# and the records the real root's entropy-seed and entropy-gate left.
d=$(mktemp -d)
dmesg -r >"$d/dmesg.txt" 2>&1
journalctl -b -o short-monotonic --no-pager >"$d/journal.txt" 2>&1
mkdir -p "$d/run-entropy-gate"
cp /run/entropy-gate/* "$d/run-entropy-gate/" 2>/dev/null
systemctl show entropy-seed.service entropy-gate.service >"$d/units.txt" 2>&1
tar -cf /dev/vdb -C "$d" . && sync
echo "EGVM:report=written"
